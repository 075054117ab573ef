#include "core/runtime/stream_view.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <string>
#include <zstd.h>

#include "core/runtime/checksum.h"
#include "core/runtime/player.h"
#include "core/runtime/stream_format.h"

namespace ks {

// Parses and checks a stream; every check names what it found wrong.
class StreamParser {
 public:
  StreamParser(std::span<const uint8_t> bytes, const char* name) : m_bytes(bytes), m_name(name) {}

  Result<StreamView> parse(StreamCheck check) {
    StreamView view;
    view.m_bytes = m_bytes;
    if (Status s = parse_header(view); !s) return Error{s.error()};
    if (Status s = parse_tables(view); !s) return Error{s.error()};
    if (Status s = parse_key_widths(view); !s) return Error{s.error()};
    if (Status s = check_initial_keys(view); !s) return Error{s.error()};
    if (Status s = parse_jump_frames(view); !s) return Error{s.error()};
    if (Status s = parse_key_stream_section(view); !s) return Error{s.error()};
    if (check == StreamCheck::kFull) {
      if (Status s = check_key_stream(view); !s) return Error{s.error()};
    }
    if (Status s = parse_metadata(view); !s) return Error{s.error()};
    if (check == StreamCheck::kFull) {
      if (Status s = check_jump_frames(view); !s) return fail(s.error());
    }
    return view;
  }

 private:
  Error fail(const std::string& what) const { return Error{std::string(m_name) + ": " + what}; }

  uint32_t u32(uint32_t offset) const {
    uint32_t v;
    std::memcpy(&v, m_bytes.data() + offset, 4);
    return v;
  }
  uint16_t u16(uint32_t offset) const {
    uint16_t v;
    std::memcpy(&v, m_bytes.data() + offset, 2);
    return v;
  }
  float f32(uint32_t offset) const {
    float v;
    std::memcpy(&v, m_bytes.data() + offset, 4);
    return v;
  }

  Status parse_header(StreamView& view) {
    using namespace header_offset;
    if (m_bytes.size() < kHeaderSize) {
      return fail("truncated: " + std::to_string(m_bytes.size()) + " bytes is shorter than the " +
                  std::to_string(kHeaderSize) + "-byte header");
    }
    if (u32(kMagic) != kStreamMagic) return fail("not a keystream stream (wrong magic)");
    const uint16_t version = u16(kVersion);
    if (version < kOldestReadStreamVersion || version > kStreamVersion) {
      if (version > kStreamVersion) {
        return fail("format version " + std::to_string(version) + " was written by a newer keystream; this build reads version " +
                    std::to_string(kStreamVersion));
      }
      return fail("format version " + std::to_string(version) +
                  " is no longer read (this build reads version " + std::to_string(kStreamVersion) +
                  "): recompress the source with `keystream compress`");
    }
    view.m_version = version;
    const uint32_t total_size = u32(kTotalSize);
    if (total_size != m_bytes.size()) {
      return fail("size mismatch: the header says " + std::to_string(total_size) + " bytes, there are " +
                  std::to_string(m_bytes.size()) + (total_size > m_bytes.size() ? " (truncated)" : ""));
    }
    if (stream_checksum(m_bytes) != u32(kChecksum)) return fail("checksum mismatch: the content is corrupt");

    view.m_flags = u16(kFlags);
    if ((view.m_flags & ~kKnownStreamFlags) != 0) {
      return fail("unknown flags set (" + std::to_string(view.m_flags & ~kKnownStreamFlags) + ")");
    }
    view.m_sample_rate_hz = f32(kSampleRate);
    if (!std::isfinite(view.m_sample_rate_hz) || !(view.m_sample_rate_hz > 0.f)) {
      return fail("sample rate is not a positive number");
    }
    view.m_frame_count = u32(kFrameCount);
    if (view.m_frame_count < 2 || view.m_frame_count > 65535) {
      return fail("frame count " + std::to_string(view.m_frame_count) + " is outside 2..65535");
    }
    m_bone_count = u32(kBoneCount);
    if (m_bone_count == 0 || m_bone_count > 65535) {
      return fail("bone count " + std::to_string(m_bone_count) + " is outside 1..65535");
    }

    view.m_jump_interval_frames = u32(kJumpIntervalFrames);
    m_jump_frame_count = view.m_jump_interval_frames == 0 ? 0 : (view.m_frame_count - 1) / view.m_jump_interval_frames;
    view.m_stream_key_count = u32(kStreamKeyCount);
    view.m_key_stream_bits = u32(kKeyStreamBits);

    // Sections follow each other in order and end where the next begins.
    const uint32_t offsets[] = {kHeaderSize,           u32(kKeyWidthsOffset),  u32(kInitialKeysOffset),
                                u32(kKeyStreamOffset), u32(kJumpIndexOffset),  u32(kJumpStatesOffset),
                                u32(kMetadataOffset),  total_size};
    for (size_t i = 1; i < std::size(offsets); ++i) {
      if (offsets[i] < offsets[i - 1] || offsets[i] > total_size) {
        return fail("section offsets are out of order or past the end of the stream");
      }
    }
    m_tables = m_bytes.subspan(offsets[0], offsets[1] - offsets[0]);
    view.m_key_widths = m_bytes.subspan(offsets[1], offsets[2] - offsets[1]);
    view.m_initial_keys = m_bytes.subspan(offsets[2], offsets[3] - offsets[2]);
    view.m_key_stream = m_bytes.subspan(offsets[3], offsets[4] - offsets[3]);
    view.m_jump_index = m_bytes.subspan(offsets[4], offsets[5] - offsets[4]);
    view.m_jump_states = m_bytes.subspan(offsets[5], offsets[6] - offsets[5]);
    m_metadata = m_bytes.subspan(offsets[6], offsets[7] - offsets[6]);
    view.m_table_bytes = offsets[1];
    return {};
  }

  Status parse_tables(StreamView& view) {
    BitReader reader(m_tables);
    const uint32_t parent_bits = bits_for(m_bone_count);
    // Every bone takes its parent and three 2-bit codings at least: refuse a
    // count the section cannot hold before allocating for it.
    if (uint64_t{m_bone_count} * (parent_bits + 6) > reader.size_bits()) {
      return fail("tables (" + std::to_string(m_tables.size()) + " bytes) are too short for " +
                  std::to_string(m_bone_count) + " bones");
    }
    view.m_parents.resize(m_bone_count);
    for (uint32_t b = 0; b < m_bone_count; ++b) {
      const uint32_t field = reader.read(parent_bits);
      if (field > b) {
        return fail("bone " + std::to_string(b) + " has parent " + std::to_string(field - 1) +
                    ", which does not come before it");
      }
      view.m_parents[b] = static_cast<int32_t>(field) - 1;
    }
    const uint32_t bone_track_count = 3 * m_bone_count;
    view.m_tracks.resize(bone_track_count);
    uint64_t stream_keys = 0;
    uint32_t max_key_count = 0;
    for (uint32_t t = 0; t < view.m_tracks.size(); ++t) {
      // The bones' records, then the scalar tracks' count and records.
      StreamTrack& track = view.m_tracks[t];
      if (t < bone_track_count) {
        track.kind = static_cast<TrackKind>(t % 3);
        track.bone = t / 3;
      } else {
        track.kind = TrackKind::kScalar;
        track.bone = t - bone_track_count;  // the scalar track's index
        track.components = static_cast<uint8_t>(reader.read(2) + 1);
      }
      const Status parsed = parse_track(reader, view, t, track);
      // A read past the end gives 0: report the truncation, not the value.
      if (reader.overrun()) return fail("tables are truncated at track " + std::to_string(t));
      if (!parsed) return parsed;
      if (track.coding == TrackCoding::kAnimated) {
        ++view.m_animated_track_count;
        if (track.key_count > kInitialKeysPerTrack) {
          ++view.m_streamed_track_count;
          stream_keys += track.key_count - kInitialKeysPerTrack;
        }
        view.m_total_key_count += track.key_count;
        max_key_count = std::max(max_key_count, track.key_count);
      }
      if (t + 1 == bone_track_count) {
        if (Status s = read_scalar_count(reader, view); !s) return s;
      }
    }
    if ((reader.position() + 7) / 8 != m_tables.size()) return fail("tables have trailing bytes");
    if (stream_keys != view.m_stream_key_count) {
      return fail("the key stream should hold " + std::to_string(stream_keys) + " keys, the header says " +
                  std::to_string(view.m_stream_key_count));
    }
    view.m_key_index_bits = bits_for(max_key_count);
    return {};
  }

  // Reads every segment's widths: each within what a difference can need,
  // and all of them together exactly the key stream's length. That bounds
  // what a zstd stream may claim to decompress to before anything is
  // allocated, and lets the player trust every width.
  Status parse_key_widths(StreamView& view) {
    // The section's size first, from the tables alone: a forged key count
    // must not make the loop below long.
    uint64_t expected_bits = 0;
    uint64_t total_segments = 0;
    for (StreamTrack& track : view.m_tracks) {
      if (track.coding != TrackCoding::kAnimated) continue;
      track.key_widths_bit = expected_bits;
      expected_bits += uint64_t{segment_count(track.key_count)} * segment_width_bits(track.quantization.coded_mask);
      total_segments += segment_count(track.key_count);
    }
    if (view.m_key_widths.size() != (expected_bits + 7) / 8) {
      return fail("key widths section is " + std::to_string(view.m_key_widths.size()) + " bytes, the tracks' " +
                  "segments need " + std::to_string((expected_bits + 7) / 8));
    }
    BitReader reader(view.m_key_widths);
    uint64_t stream_bits = 0;
    view.m_run_starts.clear();
    view.m_run_starts.reserve(view.m_animated_track_count + 1);
    view.m_first_segments.clear();
    view.m_first_segments.reserve(view.m_animated_track_count + 1);
    view.m_segments.clear();
    // The widths section holds every segment's widths (checked above), so
    // this is in proportion to the file.
    view.m_segments.reserve(total_segments);
    for (uint32_t t = 0; t < view.m_tracks.size(); ++t) {
      const StreamTrack& track = view.m_tracks[t];
      if (track.coding != TrackCoding::kAnimated) continue;
      // The runs follow one another in track order (stream_format.h).
      view.m_run_starts.push_back(stream_bits);
      view.m_first_segments.push_back(static_cast<uint32_t>(view.m_segments.size()));
      const uint32_t segments = segment_count(track.key_count);
      for (uint32_t s = 0; s < segments; ++s) {
        uint32_t widths[kKeyFields];
        read_segment_widths(reader, track.quantization.coded_mask, widths);
        const uint32_t largest_code = *std::max_element(widths + 1, widths + kKeyFields);
        if (widths[0] > kMaxFrameDifferenceBits || largest_code > kMaxCodeDifferenceBits) {
          return fail("track " + std::to_string(t) + " segment " + std::to_string(s) + " has a key field " +
                      std::to_string(std::max(widths[0], largest_code)) + " bits wide, more than a difference needs");
        }
        const uint32_t first = kInitialKeysPerTrack + s * kKeysPerSegment;
        const uint32_t keys = std::min(kKeysPerSegment, track.key_count - first);
        StreamSegment& segment = view.m_segments.emplace_back();
        // A start past 2^32 bits is refused below (the key stream's length is a u32).
        segment.start_bit = static_cast<uint32_t>(stream_bits);
        for (uint32_t f = 0; f < kKeyFields; ++f) segment.widths |= widths[f] << (f * kSegmentWidthBits);
        segment.widths |= (track.key_coding.negation_bits ? 1u : 0u) << kSegmentNegationBit;
        stream_bits += uint64_t{keys} * make_stream_key_layout(widths, track.key_coding.negation_bits).key_bits;
      }
    }
    view.m_run_starts.push_back(stream_bits);
    view.m_first_segments.push_back(static_cast<uint32_t>(view.m_segments.size()));
    if (stream_bits != view.m_key_stream_bits) {
      return fail("key stream is " + std::to_string(view.m_key_stream_bits) + " bits, its keys' widths add up to " +
                  std::to_string(stream_bits));
    }
    return {};
  }

  // The "scalar tracks follow" bit after the bones' records and, when set,
  // their count; makes room for their records (at least 4 bits each: a
  // count the section cannot hold is refused before allocating for it).
  Status read_scalar_count(BitReader& reader, StreamView& view) {
    if (reader.read(1) == 0) return {};
    const uint32_t count = reader.read(kScalarCountBits) + 1;
    if (reader.overrun()) return fail("tables are truncated at the scalar track count");
    if (uint64_t{count} * 4 > reader.size_bits() - reader.position()) {
      return fail("tables are too short for " + std::to_string(count) + " scalar tracks");
    }
    view.m_scalar_track_count = count;
    m_scalar_count = count;
    view.m_tracks.resize(view.m_tracks.size() + count);
    return {};
  }

  // A constant or rest value: finite, and a rotation one the player may
  // return as it is.
  Status check_constant(const StreamTrack& track, const std::string& where) {
    const float* value = track.quantization.constant;
    for (int c = 0; c < stored_components(track); ++c) {
      if (!std::isfinite(value[c])) return fail(where + " has a constant value that is not a finite number");
    }
    if (track.kind == TrackKind::kRotation) {
      const double length = std::sqrt(double{value[0]} * value[0] + double{value[1]} * value[1] +
                                      double{value[2]} * value[2] + double{value[3]} * value[3]);
      if (!(std::fabs(length - 1.0) <= kUnitQuaternionTolerance)) {
        return fail(where + " has a constant rotation of length " + std::to_string(length) + ", not a unit quaternion");
      }
    }
    return {};
  }

  Status parse_track(BitReader& reader, const StreamView& view, uint32_t t, StreamTrack& track) {
    const std::string where = "track " + std::to_string(t);
    auto read_f32 = [&] { return std::bit_cast<float>(reader.read(32)); };
    const uint32_t coding = reader.read(2);
    track.coding = static_cast<TrackCoding>(coding);
    float* value = track.quantization.constant;  // what no component codes: all of a constant track
    if (track.coding == TrackCoding::kIdentity) {
      if (track.kind == TrackKind::kRotation) value[3] = 1.f;
      if (track.kind == TrackKind::kScale) value[0] = value[1] = value[2] = 1.f;
      return {};
    }
    if (track.coding == TrackCoding::kRest) {
      if (view.m_version < kRestTrackStreamVersion || track.kind == TrackKind::kScalar) {
        return fail(where + " has the unknown coding " + std::to_string(coding));
      }
      // An additive clip's bones hold differences, whose rest is the identity.
      if (view.additive()) return fail(where + " is a rest track, which an additive stream cannot have");
      // Its value comes with the metadata (parse_metadata).
      m_rest_value_count += static_cast<uint32_t>(stored_components(track));
      return {};
    }
    if (track.coding == TrackCoding::kConstant) {
      for (int c = 0; c < stored_components(track); ++c) value[c] = read_f32();
      return check_constant(track, where);
    }
    track.key_count = reader.read(kKeyCountBits);
    if (track.key_count < 2 || track.key_count > 2 * view.m_frame_count) {
      return fail(where + " has " + std::to_string(track.key_count) + " keys, outside 2.." +
                  std::to_string(2 * view.m_frame_count));
    }
    if (view.m_version >= kInterpolationStreamVersion) {
      const uint32_t interpolation = reader.read(kInterpolationBits);
      if (interpolation >= kInterpolationCount) {
        return fail(where + " has the unknown interpolation " + std::to_string(interpolation));
      }
      track.interpolation = static_cast<Interpolation>(interpolation);
    }
    TrackQuantization& q = track.quantization;
    if (track.kind == TrackKind::kRotation) {
      q.rotation = static_cast<RotationCoding>(reader.read(1));
      if (q.rotation == RotationCoding::kRelative) {
        q.reference_code = reader.read(kReferenceCodeBits);
        dequantize_smallest_three(q.reference_code, kReferenceComponentBits, q.reference);
        q.coded_mask = 0b0111;
      } else {
        q.coded_mask = 0b1111;
      }
      track.key_coding.negation_bits = reader.read(1) != 0;
    } else {
      q.coded_mask = static_cast<uint8_t>(reader.read(static_cast<uint32_t>(stored_components(track))));
      if (q.coded_mask == 0) return fail(where + " is animated but codes no component");
      for (int c = 0; c < stored_components(track); ++c) {
        if (q.coded(c)) continue;
        q.constant[c] = read_f32();
        if (!std::isfinite(q.constant[c])) return fail(where + " has a constant component that is not a finite number");
      }
    }
    q.step = read_f32();
    // Decoded values stay finite: a vec3 component within 1e30 (the fitter
    // refuses larger values); a quaternion component within 2 (check_key).
    const float largest = track.kind == TrackKind::kRotation ? 2.f : 1e30f / static_cast<float>(kMaxCodeMagnitude);
    if (!std::isfinite(q.step) || !(q.step > 0.f) || q.step > largest) {
      return fail(where + " has the invalid step " + std::to_string(q.step));
    }
    KeyCoding& k = track.key_coding;
    k.absolute_bits = static_cast<uint8_t>(reader.read(kAbsoluteWidthBits));
    if (k.absolute_bits < 1 || k.absolute_bits > kMaxAbsoluteCodeBits) {
      return fail(where + " has an absolute code width of " + std::to_string(k.absolute_bits) + " bits, outside 1.." +
                  std::to_string(kMaxAbsoluteCodeBits));
    }
    for (int c = 0; c < 4; ++c) {
      if (!q.coded(c)) continue;
      k.value_rice[c] = static_cast<uint8_t>(reader.read(kRiceParameterBits));
      if (k.value_rice[c] > kMaxRiceParameter) return fail(where + " has a Rice parameter above " + std::to_string(kMaxRiceParameter));
    }
    k.frame_rice = static_cast<uint8_t>(reader.read(kRiceParameterBits));
    if (k.frame_rice > kMaxRiceParameter) return fail(where + " has a Rice parameter above " + std::to_string(kMaxRiceParameter));
    k.frame_delta_min = static_cast<uint8_t>(reader.read(1));
    return {};
  }

  // A key's frame must not go back, reach past the clip, or make a third
  // key at one frame; its codes must stay within range.
  Status check_key(const StreamView& view, uint32_t t, uint32_t k, const int32_t codes[4]) const {
    // Built only for a message: this runs for every key.
    const auto where = [&] { return "track " + std::to_string(t) + " key " + std::to_string(k); };
    const uint32_t frame = m_frames[3 * t + 2];
    if (frame > view.last_frame()) {
      return fail(where() + " is at frame " + std::to_string(frame) + ", past the last frame " +
                  std::to_string(view.last_frame()));
    }
    if (k > 0 && frame < m_frames[3 * t + 1]) {
      return fail(where() + " is at frame " + std::to_string(frame) + ", before the key it follows (frame " +
                  std::to_string(m_frames[3 * t + 1]) + ")");
    }
    if (k > 1 && frame == m_frames[3 * t + 1] && frame == m_frames[3 * t]) {
      return fail(where() + " is the third key at frame " + std::to_string(frame));
    }
    if (k + 1 == view.m_tracks[t].key_count && frame != view.last_frame()) {
      return fail(where() + " is the last key but is at frame " + std::to_string(frame) + ", not the last frame " +
                  std::to_string(view.last_frame()));
    }
    const StreamTrack& track = view.m_tracks[t];
    for (int c = 0; c < 4; ++c) {
      if (codes[c] > kMaxCodeMagnitude || codes[c] < -kMaxCodeMagnitude ||
          (track.kind == TrackKind::kRotation && std::fabs(static_cast<float>(codes[c]) * track.quantization.step) > 2.f)) {
        return fail(where() + " has a code out of range (" + std::to_string(codes[c]) + ")");
      }
    }
    return {};
  }

  // Reads key k of track t (absolute for key 0, Rice-coded differences for
  // keys 1 and 2, fixed-width differences for stream keys) and checks it.
  template <class Reader>
  Status read_key(Reader& reader, const StreamView& view, uint32_t t, uint32_t k) {
    const StreamTrack& track = view.m_tracks[t];
    int32_t* codes = &m_codes[4 * t];
    uint32_t frame = m_frames[3 * t + 2];
    if (k == 0) {
      read_absolute_codes(reader, track, codes);
      frame = 0;
    } else if (k < kInitialKeysPerTrack) {
      read_key_differences(reader, track, frame, codes);
    } else {
      if (opens_segment(k)) {
        m_layouts[t] = segment_layout(view.m_key_widths, track.key_widths_bit, segment_of_key(k),
                                      track.quantization.coded_mask, track.key_coding.negation_bits);
      }
      read_stream_key(reader, m_layouts[t], track.key_coding.frame_delta_min, frame, codes);
    }
    m_frames[3 * t] = m_frames[3 * t + 1];
    m_frames[3 * t + 1] = m_frames[3 * t + 2];
    m_frames[3 * t + 2] = frame;
    return check_key(view, t, k, codes);
  }

  Status check_initial_keys(const StreamView& view) {
    BitReader reader(view.m_initial_keys);
    m_frames.assign(view.m_tracks.size() * 3, 0);
    m_codes.assign(view.m_tracks.size() * 4, 0);
    m_read.assign(view.m_tracks.size(), 0);
    m_layouts.assign(view.m_tracks.size(), StreamKeyLayout{});
    for (uint32_t t = 0; t < view.m_tracks.size(); ++t) {
      const StreamTrack& track = view.m_tracks[t];
      if (track.coding != TrackCoding::kAnimated) continue;
      const uint32_t count = std::min(track.key_count, kInitialKeysPerTrack);
      for (uint32_t k = 0; k < count; ++k) {
        const Status read = read_key(reader, view, t, k);
        // A read past the end gives 0: report the truncation, not the value.
        if (reader.overrun()) {
          return fail("initial keys are truncated at track " + std::to_string(t) + " key " + std::to_string(k));
        }
        if (!read) return read;
      }
      m_read[t] = count;
    }
    if ((reader.position() + 7) / 8 != view.m_initial_keys.size()) return fail("initial keys section has trailing bytes");
    return {};
  }

  // Reads every track's run in turn; each must end where the next starts.
  Status check_key_stream(const StreamView& view) {
    std::vector<uint8_t> plain;  // a compressed key stream, decompressed for the check
    std::span<const uint8_t> bytes = view.m_key_stream;
    if (view.key_stream_compressed()) {
      plain.resize(view.key_stream_bytes());
      if (Status s = view.decompress_key_stream(plain); !s) return fail(s.error());
      bytes = plain;
    }
    uint32_t animated = 0;
    for (uint32_t t = 0; t < view.m_tracks.size(); ++t) {
      const StreamTrack& track = view.m_tracks[t];
      if (track.coding != TrackCoding::kAnimated) continue;
      const uint64_t start = view.m_run_starts[animated];
      const uint64_t end = view.m_run_starts[++animated];
      // Only the run's own bits: a key reaching past them is truncated.
      BitReader reader(bytes.first(static_cast<size_t>((end + 7) / 8)), start);
      for (uint32_t k = m_read[t]; k < track.key_count; ++k) {
        const Status read = read_key(reader, view, t, k);
        if (reader.overrun() || reader.position() > end) {
          return fail("track " + std::to_string(t) + " key " + std::to_string(k) +
                      " runs past the end of its run (bit " + std::to_string(end) + " of the key stream)");
        }
        if (!read) return read;
      }
      if (reader.position() != end) {
        return fail("track " + std::to_string(t) + "'s run ends at bit " + std::to_string(reader.position()) +
                    ", its widths say " + std::to_string(end));
      }
    }
    return {};
  }

  // The plain key stream's size, or for a zstd stream its frame's declared
  // size, checked without decompressing.
  Status parse_key_stream_section(StreamView& view) {
    const std::span<const uint8_t> section = view.m_key_stream;
    const uint64_t expected = view.key_stream_bytes();
    if (!view.key_stream_compressed()) {
      if (section.size() != expected) {
        return fail("key stream section is " + std::to_string(section.size()) + " bytes, expected " +
                    std::to_string(expected) + " for its " + std::to_string(view.m_key_stream_bits) + " bits");
      }
      return {};
    }
    if (section.size() < 4) return fail("key stream section is too short for its zstd frame's size");
    uint32_t size;
    std::memcpy(&size, section.data(), 4);
    if (size != section.size() - 4) {
      return fail("key stream's zstd frame is " + std::to_string(size) + " bytes, its section holds " +
                  std::to_string(section.size() - 4));
    }
    view.m_key_stream_frame = section.subspan(4);
    // Keys compress little (stream_format.h): a frame may not stand for more
    // than max_zstd_block_bytes, so what a player allocates for the key
    // stream stays in proportion to the file.
    if (expected > kMaxKeyStreamBlockBytes || expected > max_zstd_block_bytes(size)) {
      return fail("key stream needs " + std::to_string(expected) + " bytes, more than its " + std::to_string(size) +
                  "-byte zstd frame may expand to (" + std::to_string(max_zstd_block_bytes(size)) + ")");
    }
    const unsigned long long declared = ZSTD_getFrameContentSize(view.m_key_stream_frame.data(), size);
    if (declared == ZSTD_CONTENTSIZE_ERROR) return fail("key stream is not a zstd frame");
    if (declared == ZSTD_CONTENTSIZE_UNKNOWN) return fail("key stream's zstd frame does not declare its size");
    if (declared != expected) {
      return fail("key stream's zstd frame declares " + std::to_string(declared) + " bytes, its keys need " +
                  std::to_string(expected));
    }
    return {};
  }

  Status parse_metadata(StreamView& view) {
    Result<StreamMetadata> metadata =
        parse_stream_metadata(m_metadata, m_bone_count, m_scalar_count, m_rest_value_count);
    if (!metadata.ok()) return fail(metadata.error());
    view.m_metadata = std::move(metadata).value();
    if (view.m_version < kRestTrackStreamVersion && !view.m_metadata.bone_name_hashes.empty()) {
      return fail("metadata holds bone name hashes, which a version " + std::to_string(view.m_version) +
                  " stream cannot");
    }
    // The rest tracks' values, until a player is given the engine's.
    const float* rest = view.m_metadata.rest_values.data();
    for (uint32_t t = 0; t < view.m_tracks.size(); ++t) {
      StreamTrack& track = view.m_tracks[t];
      if (track.coding != TrackCoding::kRest) continue;
      std::copy_n(rest, stored_components(track), track.quantization.constant);
      rest += stored_components(track);
      if (Status s = check_constant(track, "rest track " + std::to_string(t)); !s) return s;
    }
    if (view.additive() != (view.m_metadata.additive_base != AdditiveBase::kNone)) {
      return fail(view.additive() ? "is additive but its metadata names no base"
                                  : "names an additive base but is not additive");
    }
    return {};
  }

  Status parse_jump_frames(StreamView& view) {
    if (view.m_jump_index.size() != uint64_t{m_jump_frame_count} * kJumpIndexEntrySize) {
      return fail("jump index is " + std::to_string(view.m_jump_index.size()) + " bytes, expected " +
                  std::to_string(kJumpIndexEntrySize) + " for each of " + std::to_string(m_jump_frame_count) +
                  " jump frames");
    }
    // Each jump frame saves at least the keys-read count of every streamed
    // track: checked before anything is sized by the jump frame count.
    if (uint64_t{m_jump_frame_count} * view.m_streamed_track_count * std::max<uint32_t>(view.m_key_index_bits, 1) >
        uint64_t{view.m_jump_states.size()} * 8) {
      return fail("jump states are too short for " + std::to_string(m_jump_frame_count) + " jump frames");
    }
    if (uint64_t{view.m_jump_states.size()} * 8 > UINT32_MAX) return fail("jump states exceed 2^32 bits");
    view.m_jump_frames.resize(m_jump_frame_count);
    BitReader states(view.m_jump_states);
    view.m_jump_frame_difference_bits.clear();
    view.m_saved_window_offsets.clear();
    view.m_jump_state_bits = 0;
    if (m_jump_frame_count > 0) {
      view.m_jump_frame_difference_bits.reserve(view.m_streamed_track_count);
      view.m_saved_window_offsets.reserve(view.m_streamed_track_count);
      for (uint32_t t = 0; t < view.m_tracks.size(); ++t) {
        const StreamTrack& track = view.m_tracks[t];
        if (track.coding != TrackCoding::kAnimated || track.key_count <= kInitialKeysPerTrack) continue;
        const uint32_t bits = states.read(kJumpFrameDifferenceWidthBits);
        if (bits > kFrameBits) {
          return fail("jump states give track " + std::to_string(t) + " frame differences " + std::to_string(bits) +
                      " bits wide, more than a frame needs");
        }
        view.m_jump_frame_difference_bits.push_back(static_cast<uint8_t>(bits));
        // Every state has the same layout (stream_format.h).
        view.m_saved_window_offsets.push_back(static_cast<uint32_t>(view.m_jump_state_bits));
        view.m_jump_state_bits += saved_window_bits(track.key_count, view.m_key_index_bits, bits,
                                                    track.key_coding.absolute_bits,
                                                    static_cast<uint32_t>(track.quantization.coded_count()),
                                                    track.key_coding.negation_bits);
      }
      if (states.overrun()) return fail("jump states are truncated in their widths");
      if (states.position() + uint64_t{m_jump_frame_count} * view.m_jump_state_bits >
          uint64_t{view.m_jump_states.size()} * 8) {
        return fail("jump states are too short for " + std::to_string(m_jump_frame_count) + " jump frames of " +
                    std::to_string(view.m_jump_state_bits) + " bits");
      }
    }
    for (uint32_t j = 0; j < m_jump_frame_count; ++j) {
      JumpFrame& jump = view.m_jump_frames[j];
      const uint8_t* entry = view.m_jump_index.data() + uint64_t{j} * kJumpIndexEntrySize;
      std::memcpy(&jump.stream_keys_read, entry, 4);
      jump.state_bit_offset = static_cast<uint32_t>(states.position());
      jump.frame = (j + 1) * view.m_jump_interval_frames;
      const std::string where = "jump frame " + std::to_string(j);
      uint64_t stream_keys_read = 0;
      uint32_t place = 0;
      for (uint32_t t = 0; t < view.m_tracks.size(); ++t) {
        const StreamTrack& track = view.m_tracks[t];
        if (track.coding != TrackCoding::kAnimated || track.key_count <= kInitialKeysPerTrack) continue;
        const uint32_t keys_read = states.read(view.m_key_index_bits);
        if (keys_read < kInitialKeysPerTrack || keys_read > track.key_count) {
          return fail(where + " says track " + std::to_string(t) + " has read " + std::to_string(keys_read) +
                      " of its " + std::to_string(track.key_count) + " keys");
        }
        stream_keys_read += keys_read - kInitialKeysPerTrack;
        if (saves_oldest_key(track.key_count)) {
          const uint32_t before = states.read(view.m_jump_frame_difference_bits[place]);
          int32_t codes[4];
          const bool negated = read_absolute_codes(states, track, codes);
          if (keys_read < kRestoreFromRunKeys) {
            // No oldest key yet: zeros, so that a state decodes one way only.
            if (before != 0 || negated || codes[0] != 0 || codes[1] != 0 || codes[2] != 0 || codes[3] != 0) {
              return fail(where + " saves a key for track " + std::to_string(t) + ", which has read only " +
                          std::to_string(keys_read) + " keys");
            }
          } else if (before > jump.frame) {
            return fail(where + " holds a key " + std::to_string(before) + " frames before it, before frame 0, for track " +
                        std::to_string(t));
          }
          for (int c = 0; c < 4; ++c) {
            if (codes[c] > kMaxCodeMagnitude || codes[c] < -kMaxCodeMagnitude) {
              return fail(where + " holds a code out of range for track " + std::to_string(t));
            }
          }
        }
        ++place;
        if (states.overrun()) return fail("jump states are truncated at " + where);
      }
      if (stream_keys_read != jump.stream_keys_read) {
        return fail(where + " says " + std::to_string(jump.stream_keys_read) + " stream keys are read, its tracks' " +
                    "counts add up to " + std::to_string(stream_keys_read));
      }
      if (j > 0 && jump.stream_keys_read < view.m_jump_frames[j - 1].stream_keys_read) {
        return fail(where + " has read fewer keys than the jump frame before it");
      }
    }
    if ((states.position() + 7) / 8 != view.m_jump_states.size()) return fail("jump states section has trailing bytes");
    return {};
  }

  std::span<const uint8_t> m_bytes;
  const char* m_name;
  uint32_t m_bone_count = 0;
  uint32_t m_scalar_count = 0;
  uint32_t m_jump_frame_count = 0;
  std::span<const uint8_t> m_tables;
  std::span<const uint8_t> m_metadata;
  uint32_t m_rest_value_count = 0;  // components of every rest track (their values are in the metadata)
  std::vector<uint32_t> m_frames;  // per track: frames of the three keys read last, oldest first
  std::vector<int32_t> m_codes;    // per track: codes of the key read last
  std::vector<uint32_t> m_read;    // per track: keys read
  std::vector<StreamKeyLayout> m_layouts;  // per track: the layout of its current segment of stream keys
};

Result<StreamView> StreamView::open(std::span<const uint8_t> bytes, const char* name, StreamCheck check) {
  return StreamParser(bytes, name).parse(check);
}

Status StreamView::decompress_key_stream(std::span<uint8_t> out) const {
  const size_t written = ZSTD_decompress(out.data(), out.size(), m_key_stream_frame.data(), m_key_stream_frame.size());
  if (ZSTD_isError(written) || written != out.size() || out.size() != key_stream_bytes()) {
    return Error{"key stream does not decompress to its " + std::to_string(key_stream_bytes()) + " bytes" +
                 (ZSTD_isError(written) ? std::string(" (zstd: ") + ZSTD_getErrorName(written) + ")" : "")};
  }
  return {};
}

size_t StreamView::jump_frame_bytes() const { return m_jump_index.size() + m_jump_states.size(); }

}  // namespace ks
