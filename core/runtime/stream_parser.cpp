// StreamParser (stream_parser.h): the header, the tables, the tracks and the
// metadata, and the order of the steps.

#include "keystream/runtime/stream_parser.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <string>

#include "keystream/runtime/checksum.h"
#include "keystream/runtime/player.h"
#include "keystream/runtime/stream_format.h"

namespace ks {

Result<StreamView> StreamParser::parse(StreamCheck check) {
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

Status StreamParser::parse_header(StreamView& view) {
  using namespace header_offset;
  if (m_bytes.size() < kHeaderSize) {
    return fail("truncated: " + std::to_string(m_bytes.size()) + " bytes is shorter than the " +
                std::to_string(kHeaderSize) + "-byte header");
  }
  if (u32(kMagic) != kStreamMagic) return fail("not a keystream stream (wrong magic)");
  const uint16_t version = u16(kVersion);
  if (version < kOldestReadStreamVersion || version > kStreamVersion) {
    if (version > kStreamVersion) {
      return fail("format version " + std::to_string(version) +
                  " was written by a newer keystream; this build reads version " + std::to_string(kStreamVersion));
    }
    return fail("format version " + std::to_string(version) + " is no longer read (this build reads version " +
                std::to_string(kStreamVersion) + "): recompress the source with `keystream compress`");
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
  const uint32_t offsets[] = {
      kHeaderSize,           u32(kKeyWidthsOffset),  u32(kInitialKeysOffset), u32(kKeyStreamOffset),
      u32(kJumpIndexOffset), u32(kJumpStatesOffset), u32(kMetadataOffset),    total_size};
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

Status StreamParser::parse_tables(StreamView& view) {
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

Status StreamParser::read_scalar_count(BitReader& reader, StreamView& view) {
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

Status StreamParser::check_constant(const StreamTrack& track, const std::string& where) {
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

Status StreamParser::parse_track(BitReader& reader, const StreamView& view, uint32_t t, StreamTrack& track) {
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
    if (k.value_rice[c] > kMaxRiceParameter)
      return fail(where + " has a Rice parameter above " + std::to_string(kMaxRiceParameter));
  }
  k.frame_rice = static_cast<uint8_t>(reader.read(kRiceParameterBits));
  if (k.frame_rice > kMaxRiceParameter)
    return fail(where + " has a Rice parameter above " + std::to_string(kMaxRiceParameter));
  k.frame_delta_min = static_cast<uint8_t>(reader.read(1));
  return {};
}

Status StreamParser::parse_metadata(StreamView& view) {
  Result<StreamMetadata> metadata = parse_stream_metadata(m_metadata, m_bone_count, m_scalar_count, m_rest_value_count);
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

}  // namespace ks
