#include "core/runtime/stream_view.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <zstd.h>

#include "core/runtime/checksum.h"
#include "core/runtime/key_stream_reader.h"
#include "core/runtime/player.h"
#include "core/runtime/stream_format.h"

namespace ks {

// Parses and checks a stream; every check names what it found wrong.
class StreamParser {
 public:
  StreamParser(std::span<const uint8_t> bytes, const char* name) : m_bytes(bytes), m_name(name) {}

  Result<StreamView> parse() {
    StreamView view;
    view.m_bytes = m_bytes;
    if (Status s = parse_header(view); !s) return Error{s.error()};
    if (Status s = parse_bone_table(view); !s) return Error{s.error()};
    if (Status s = parse_track_table(view); !s) return Error{s.error()};
    if (Status s = check_initial_keys(view); !s) return Error{s.error()};
    if (Status s = parse_jump_frames(view); !s) return Error{s.error()};
    if (Status s = parse_key_stream_blocks(view); !s) return Error{s.error()};
    if (Status s = check_key_stream(view); !s) return Error{s.error()};
    if (Status s = parse_metadata(view); !s) return Error{s.error()};
    if (Status s = check_jump_frames(view); !s) return fail(s.error());
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
    if (version < kOldestStreamVersion || version > kStreamVersion) {
      return fail("format version " + std::to_string(version) + " is not supported (this build reads versions " +
                  std::to_string(kOldestStreamVersion) + " to " + std::to_string(kStreamVersion) +
                  (version > kStreamVersion ? "; it was written by a newer keystream)" : ")"));
    }
    view.m_version = version;
    const uint32_t total_size = u32(kTotalSize);
    if (total_size != m_bytes.size()) {
      return fail("size mismatch: the header says " + std::to_string(total_size) + " bytes, there are " +
                  std::to_string(m_bytes.size()) + (total_size > m_bytes.size() ? " (truncated)" : ""));
    }
    uint32_t crc = crc32(m_bytes.first(kChecksum));
    const uint8_t zero[4] = {0, 0, 0, 0};
    crc = crc32(zero, crc);
    crc = crc32(m_bytes.subspan(kChecksum + 4), crc);
    if (crc != u32(kChecksum)) return fail("checksum mismatch: the content is corrupt");
    if (version == 1 && u32(kMetadataOffset) != 0) return fail("reserved header field is not zero");

    view.m_flags = u16(kFlags);
    const uint32_t known_flags = uint32_t{kFlagFixedRange} | (version >= 2 ? uint32_t{kFlagZstdKeyStream} : 0u);
    if ((view.m_flags & ~known_flags) != 0) {
      return fail("unknown flags set (" + std::to_string(view.m_flags & ~known_flags) + ") for format version " +
                  std::to_string(version));
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
    if (u32(kTrackCount) != 3 * m_bone_count) {
      return fail("track count " + std::to_string(u32(kTrackCount)) + " is not three per bone");
    }
    view.m_jump_interval_frames = u32(kJumpIntervalFrames);
    m_jump_frame_count = u32(kJumpFrameCount);
    const uint32_t expected_jumps =
        view.m_jump_interval_frames == 0 ? 0 : (view.m_frame_count - 1) / view.m_jump_interval_frames;
    if (m_jump_frame_count != expected_jumps) {
      return fail("jump frame count " + std::to_string(m_jump_frame_count) + " does not match an interval of " +
                  std::to_string(view.m_jump_interval_frames) + " frames (expected " +
                  std::to_string(expected_jumps) + ")");
    }
    view.m_total_key_count = u32(kTotalKeyCount);
    view.m_stream_key_count = u32(kStreamKeyCount);
    view.m_key_stream_bits = u32(kKeyStreamBits);

    // Sections follow each other in order and end where the next begins.
    // Version 1 has no metadata: its jump states run to the end.
    const uint32_t metadata_offset = version >= 2 ? u32(kMetadataOffset) : total_size;
    const uint32_t offsets[] = {kHeaderSize,           u32(kBoneTableOffset), u32(kTrackTableOffset),
                                u32(kInitialKeysOffset), u32(kKeyStreamOffset), u32(kJumpIndexOffset),
                                u32(kJumpStatesOffset),  metadata_offset,        total_size};
    for (size_t i = 1; i < std::size(offsets); ++i) {
      if (offsets[i] < offsets[i - 1] || offsets[i] > total_size) {
        return fail("section offsets are out of order or past the end of the stream");
      }
    }
    if (offsets[1] != kHeaderSize) return fail("bone table does not follow the header");
    m_bone_table = m_bytes.subspan(offsets[1], offsets[2] - offsets[1]);
    m_track_table = m_bytes.subspan(offsets[2], offsets[3] - offsets[2]);
    view.m_initial_keys = m_bytes.subspan(offsets[3], offsets[4] - offsets[3]);
    view.m_key_stream = m_bytes.subspan(offsets[4], offsets[5] - offsets[4]);
    view.m_jump_index = m_bytes.subspan(offsets[5], offsets[6] - offsets[5]);
    view.m_jump_states = m_bytes.subspan(offsets[6], offsets[7] - offsets[6]);
    m_metadata = m_bytes.subspan(offsets[7], offsets[8] - offsets[7]);
    return {};
  }

  Status parse_bone_table(StreamView& view) {
    if (m_bone_table.size() != (2 * uint64_t{m_bone_count} + 3) / 4 * 4) {
      return fail("bone table is " + std::to_string(m_bone_table.size()) + " bytes, expected 2 per bone padded to 4");
    }
    view.m_parents.resize(m_bone_count);
    for (uint32_t b = 0; b < m_bone_count; ++b) {
      uint16_t parent;
      std::memcpy(&parent, m_bone_table.data() + 2 * b, 2);
      if (parent != kNoParent && parent >= b) {
        return fail("bone " + std::to_string(b) + " has parent " + std::to_string(parent) +
                    ", which does not come before it");
      }
      view.m_parents[b] = parent == kNoParent ? -1 : static_cast<int32_t>(parent);
    }
    return {};
  }

  Status parse_track_table(StreamView& view) {
    const uint32_t track_count = 3 * m_bone_count;
    view.m_tracks.resize(track_count);
    uint64_t offset = 0;
    uint64_t total_keys = 0;
    uint32_t max_key_count = 0;
    for (uint32_t t = 0; t < track_count; ++t) {
      StreamTrack& track = view.m_tracks[t];
      const std::string where = "track " + std::to_string(t);
      if (offset + kTrackRecordSize > m_track_table.size()) return fail("track table is truncated at " + where);
      const uint8_t* record = m_track_table.data() + offset;
      std::memcpy(&track.key_count, record, 4);
      const uint8_t kind = record[4];
      const uint8_t rotation_bits = record[5];
      uint16_t bone;
      std::memcpy(&bone, record + 6, 2);
      offset += kTrackRecordSize;
      if (kind != t % 3) return fail(where + " has kind " + std::to_string(kind) + ", expected " + std::to_string(t % 3));
      if (bone != t / 3) return fail(where + " animates bone " + std::to_string(bone) + ", expected " + std::to_string(t / 3));
      if (track.key_count == 0 || track.key_count > 2 * view.m_frame_count) {
        return fail(where + " has " + std::to_string(track.key_count) + " keys, outside 1.." +
                    std::to_string(2 * view.m_frame_count));
      }
      track.kind = static_cast<TrackKind>(kind);
      track.bone = bone;
      total_keys += track.key_count;
      if (track.key_count > max_key_count) max_key_count = track.key_count;
      if (track.key_count > kInitialKeysPerTrack) ++view.m_streamed_track_count;
      if (track.kind == TrackKind::kRotation) {
        if (rotation_bits < kMinRotationBits || rotation_bits > kMaxRotationBits) {
          return fail(where + " has " + std::to_string(rotation_bits) + "-bit rotation components, outside " +
                      std::to_string(kMinRotationBits) + ".." + std::to_string(kMaxRotationBits));
        }
        track.quantization.rotation_bits = rotation_bits;
        track.value_bits = rotation_code_bits(rotation_bits);
        continue;
      }
      if (rotation_bits != 0) return fail(where + " is a vec3 track with a rotation bit width");
      if (offset + (kVec3TrackRecordSize - kTrackRecordSize) > m_track_table.size()) {
        return fail("track table is truncated at the range of " + where);
      }
      for (int c = 0; c < 3; ++c) {
        track.quantization.range_min[c] = f32(static_cast<uint32_t>(m_track_table.data() - m_bytes.data() + offset + 4 * c));
        track.quantization.range_extent[c] =
            f32(static_cast<uint32_t>(m_track_table.data() - m_bytes.data() + offset + 12 + 4 * c));
        const float lo = track.quantization.range_min[c];
        const float extent = track.quantization.range_extent[c];
        if (!std::isfinite(lo) || !std::isfinite(extent) || extent < 0.f || !std::isfinite(lo + extent)) {
          return fail(where + " has an invalid quantization range");
        }
        track.value_bits += vec3_component_bits(track.quantization, c);
      }
      offset += kVec3TrackRecordSize - kTrackRecordSize;
    }
    if (offset != m_track_table.size()) return fail("track table has trailing bytes");
    if (total_keys != view.m_total_key_count) {
      return fail("tracks hold " + std::to_string(total_keys) + " keys, the header says " +
                  std::to_string(view.m_total_key_count));
    }
    uint64_t initial = 0;
    for (const StreamTrack& track : view.m_tracks) {
      initial += track.key_count < kInitialKeysPerTrack ? track.key_count : kInitialKeysPerTrack;
    }
    if (total_keys - initial != view.m_stream_key_count) {
      return fail("the key stream should hold " + std::to_string(total_keys - initial) + " keys, the header says " +
                  std::to_string(view.m_stream_key_count));
    }
    view.m_track_id_bits = bits_for(track_count - 1);
    view.m_key_index_bits = bits_for(max_key_count);
    // Bounds what a zstd stream may ask to decompress before anything is allocated.
    uint32_t max_value_bits = 0;
    for (const StreamTrack& track : view.m_tracks) max_value_bits = std::max(max_value_bits, track.value_bits);
    const uint64_t max_key_bits = uint64_t{view.m_track_id_bits} + kFrameBits + max_value_bits;
    if (view.m_key_stream_bits > uint64_t{view.m_stream_key_count} * max_key_bits) {
      return fail("key stream bit count " + std::to_string(view.m_key_stream_bits) + " is more than its " +
                  std::to_string(view.m_stream_key_count) + " keys can take");
    }
    return {};
  }

  // A key's frame must not go back, reach past the clip, or make a third key at one frame.
  Status check_key_frame(const StreamView& view, uint32_t t, uint32_t k, uint32_t frame, uint32_t previous,
                         uint32_t before_previous) const {
    const std::string where = "track " + std::to_string(t) + " key " + std::to_string(k);
    if (frame > view.last_frame()) {
      return fail(where + " is at frame " + std::to_string(frame) + ", past the last frame " +
                  std::to_string(view.last_frame()));
    }
    if (k > 0 && frame < previous) {
      return fail(where + " is at frame " + std::to_string(frame) + ", before the key it follows (frame " +
                  std::to_string(previous) + ")");
    }
    if (k > 1 && frame == previous && frame == before_previous) {
      return fail(where + " is the third key at frame " + std::to_string(frame));
    }
    if (k > 0 && k + 1 == view.m_tracks[t].key_count && frame != view.last_frame()) {
      return fail(where + " is the last key but is at frame " + std::to_string(frame) + ", not the last frame " +
                  std::to_string(view.last_frame()));
    }
    return {};
  }

  Status check_initial_keys(const StreamView& view) {
    BitReader reader(view.m_initial_keys);
    m_frames.assign(view.m_tracks.size() * 2, 0);
    m_read.assign(view.m_tracks.size(), 0);
    for (uint32_t t = 0; t < view.m_tracks.size(); ++t) {
      const StreamTrack& track = view.m_tracks[t];
      const uint32_t count = track.key_count < kInitialKeysPerTrack ? track.key_count : kInitialKeysPerTrack;
      uint32_t previous = 0, before_previous = 0;
      for (uint32_t k = 0; k < count; ++k) {
        const uint32_t frame = k == 0 ? 0 : reader.read(kFrameBits);
        // A read past the end gives 0: report the truncation, not the frame.
        if (reader.overrun()) {
          return fail("initial keys are truncated at track " + std::to_string(t) + " key " + std::to_string(k));
        }
        if (Status s = check_key_frame(view, t, k, frame, previous, before_previous); !s) return s;
        reader.read64(track.value_bits);
        before_previous = previous;
        previous = frame;
      }
      m_frames[2 * t] = before_previous;
      m_frames[2 * t + 1] = previous;
      m_read[t] = count;
    }
    if (reader.overrun()) return fail("initial keys are truncated");
    if ((reader.position() + 7) / 8 != view.m_initial_keys.size()) return fail("initial keys section has trailing bytes");
    return {};
  }

  Status check_key_stream(const StreamView& view) {
    KeyStreamReader reader(view);
    const uint32_t track_count = static_cast<uint32_t>(view.m_tracks.size());
    uint32_t previous_need = 0, previous_track = 0;
    for (uint32_t b = 0; b < view.m_blocks.size(); ++b) {
      const KeyStreamBlock& block = view.m_blocks[b];
      if (Status s = reader.start_block(b); !s) return fail(s.error());
      // The reader's bytes may hold a few bits past the block's end: a key
      // reaching into them is as truncated as one past the last byte.
      auto truncated = [&] { return reader.overrun() || reader.position() > block.end_bit; };
      auto truncation = [&](const std::string& where) {
        return fail(b + 1 < view.m_blocks.size()
                        ? where + " runs past the start of jump frame " + std::to_string(b) + " (bit " +
                              std::to_string(block.end_bit) + ")"
                        : "key stream is truncated at " + where);
      };
      for (uint32_t i = block.first_key; i < block.end_key; ++i) {
        const std::string where = "key stream entry " + std::to_string(i);
        const uint32_t t = reader.read(view.m_track_id_bits);
        if (truncated()) return truncation(where);
        if (t >= track_count) return fail(where + " names track " + std::to_string(t) + " of " + std::to_string(track_count));
        const uint32_t k = m_read[t];
        if (k >= view.m_tracks[t].key_count || k < kInitialKeysPerTrack) {
          return fail(where + " is one key too many for track " + std::to_string(t));
        }
        const uint32_t frame = reader.read(kFrameBits);
        if (truncated()) return truncation(where);
        if (Status s = check_key_frame(view, t, k, frame, m_frames[2 * t + 1], m_frames[2 * t]); !s) return s;
        const uint32_t need = m_frames[2 * t];  // frame of key k-2
        if (need < previous_need || (need == previous_need && t < previous_track)) {
          return fail(where + " (track " + std::to_string(t) + ", needed at frame " + std::to_string(need) +
                      ") is out of order: keys must be sorted by need frame, then track");
        }
        previous_need = need;
        previous_track = t;
        reader.read64(view.m_tracks[t].value_bits);
        if (truncated()) return truncation(where);
        m_frames[2 * t] = m_frames[2 * t + 1];
        m_frames[2 * t + 1] = frame;
        ++m_read[t];
      }
      if (reader.position() != block.end_bit) {
        if (b + 1 == view.m_blocks.size()) return fail("key stream has bits past its last key");
        return fail("jump frame " + std::to_string(b) + " resumes at bit " + std::to_string(block.end_bit) +
                    " of the key stream, but the keys before it end at bit " + std::to_string(reader.position()));
      }
    }
    for (uint32_t t = 0; t < track_count; ++t) {
      if (m_read[t] != view.m_tracks[t].key_count) {
        return fail("track " + std::to_string(t) + " has " + std::to_string(m_read[t]) + " keys in the stream, the track table says " +
                    std::to_string(view.m_tracks[t].key_count));
      }
    }
    return {};
  }

  // Cuts the key stream at the jump frames; for a zstd stream, reads the
  // block table and checks each frame's declared size without decompressing.
  Status parse_key_stream_blocks(StreamView& view) {
    const uint32_t count = m_jump_frame_count + 1;
    view.m_blocks.resize(count);
    for (uint32_t b = 0; b < count; ++b) {
      KeyStreamBlock& block = view.m_blocks[b];
      block.first_key = b == 0 ? 0 : view.m_jump_frames[b - 1].stream_key_index;
      block.first_bit = b == 0 ? 0 : view.m_jump_frames[b - 1].stream_bit_offset;
      block.end_key = b + 1 < count ? view.m_jump_frames[b].stream_key_index : view.m_stream_key_count;
      block.end_bit = b + 1 < count ? view.m_jump_frames[b].stream_bit_offset : view.m_key_stream_bits;
    }
    const std::span<const uint8_t> section = view.m_key_stream;
    if (!view.key_stream_compressed()) {
      const uint64_t expected = (uint64_t{view.m_key_stream_bits} + 7) / 8;
      if (section.size() != expected) {
        return fail("key stream section is " + std::to_string(section.size()) + " bytes, expected " +
                    std::to_string(expected) + " for its " + std::to_string(view.m_key_stream_bits) + " bits");
      }
      return {};
    }
    if (section.size() < uint64_t{count} * 4) {
      return fail("key stream block table is truncated: " + std::to_string(count) + " blocks need " +
                  std::to_string(uint64_t{count} * 4) + " bytes, the section has " + std::to_string(section.size()));
    }
    uint64_t offset = uint64_t{count} * 4;
    for (uint32_t b = 0; b < count; ++b) {
      KeyStreamBlock& block = view.m_blocks[b];
      const std::string where = "key stream block " + std::to_string(b);
      uint32_t size;
      std::memcpy(&size, section.data() + uint64_t{b} * 4, 4);
      if (size > section.size() - offset) return fail(where + " (" + std::to_string(size) + " bytes) runs past the end of its section");
      block.compressed = section.subspan(offset, size);
      offset += size;
      const uint64_t bytes = block.byte_count();
      // A zstd block of at most 128 KiB takes at least 3 bytes: a frame this
      // small cannot hold more, whatever its header claims.
      if (bytes > kMaxKeyStreamBlockBytes || bytes > (uint64_t{size} / 3 + 1) * ZSTD_BLOCKSIZE_MAX) {
        return fail(where + " claims " + std::to_string(bytes) + " bytes, more than its " + std::to_string(size) +
                    "-byte frame can hold");
      }
      const unsigned long long declared = ZSTD_getFrameContentSize(block.compressed.data(), block.compressed.size());
      if (declared == ZSTD_CONTENTSIZE_ERROR) return fail(where + " is not a zstd frame");
      if (declared == ZSTD_CONTENTSIZE_UNKNOWN) return fail(where + " does not declare its size");
      if (declared != bytes) {
        return fail(where + " declares " + std::to_string(declared) + " bytes, its keys need " + std::to_string(bytes));
      }
      view.m_max_block_bytes = std::max<size_t>(view.m_max_block_bytes, bytes);
    }
    if (offset != section.size()) return fail("key stream section has trailing bytes after its last block");
    return {};
  }

  Status parse_metadata(StreamView& view) {
    if (view.m_version < 2) return {};
    const std::span<const uint8_t> m = m_metadata;
    constexpr uint32_t kFixedBytes = 16;
    if (m.size() < kFixedBytes) return fail("metadata is truncated (" + std::to_string(m.size()) + " bytes)");
    uint32_t name_count;
    std::memcpy(&name_count, m.data(), 4);
    if (name_count != 0 && name_count != m_bone_count) {
      return fail("metadata names " + std::to_string(name_count) + " bones, the stream has " + std::to_string(m_bone_count));
    }
    StreamMetadata& meta = view.m_metadata;
    float* thresholds[] = {&meta.translation_error_m, &meta.rotation_error_deg, &meta.scale_error};
    for (int i = 0; i < 3; ++i) {
      std::memcpy(thresholds[i], m.data() + 4 + 4 * i, 4);
      if (!std::isfinite(*thresholds[i]) || *thresholds[i] < 0.f) return fail("metadata holds a threshold that is not a number >= 0");
    }
    uint64_t at = kFixedBytes;
    auto read_string = [&](std::string& out, const std::string& what) -> Status {
      if (m.size() - at < 2) return fail("metadata is truncated at the " + what);
      uint16_t length;
      std::memcpy(&length, m.data() + at, 2);
      at += 2;
      if (m.size() - at < length) return fail("metadata is truncated at the " + what);
      out.assign(reinterpret_cast<const char*>(m.data() + at), length);
      at += length;
      if (out.find('\0') != std::string::npos) return fail("metadata: the " + what + " holds a NUL byte");
      return {};
    };
    if (Status s = read_string(meta.clip_name, "clip name"); !s) return s;
    if (Status s = read_string(meta.source_name, "source name"); !s) return s;
    meta.bone_names.resize(name_count);
    for (uint32_t b = 0; b < name_count; ++b) {
      if (Status s = read_string(meta.bone_names[b], "name of bone " + std::to_string(b)); !s) return s;
    }
    if (at != m.size()) return fail("metadata has trailing bytes");
    return {};
  }

  Status parse_jump_frames(StreamView& view) {
    if (view.m_jump_index.size() != uint64_t{m_jump_frame_count} * kJumpIndexEntrySize) {
      return fail("jump index is " + std::to_string(view.m_jump_index.size()) + " bytes, expected " +
                  std::to_string(kJumpIndexEntrySize) + " for each of " + std::to_string(m_jump_frame_count) +
                  " jump frames");
    }
    view.m_jump_frames.resize(m_jump_frame_count);
    BitReader states(view.m_jump_states);
    for (uint32_t j = 0; j < m_jump_frame_count; ++j) {
      JumpFrame& jump = view.m_jump_frames[j];
      const uint8_t* entry = view.m_jump_index.data() + uint64_t{j} * kJumpIndexEntrySize;
      std::memcpy(&jump.stream_key_index, entry, 4);
      std::memcpy(&jump.stream_bit_offset, entry + 4, 4);
      std::memcpy(&jump.state_bit_offset, entry + 8, 4);
      jump.frame = (j + 1) * view.m_jump_interval_frames;
      const std::string where = "jump frame " + std::to_string(j);
      if (jump.stream_key_index > view.m_stream_key_count || jump.stream_bit_offset > view.m_key_stream_bits) {
        return fail(where + " points past the end of the key stream");
      }
      const JumpFrame* before = j > 0 ? &view.m_jump_frames[j - 1] : nullptr;
      if (before != nullptr && (jump.stream_key_index < before->stream_key_index ||
                                jump.stream_bit_offset < before->stream_bit_offset ||
                                (jump.stream_key_index == before->stream_key_index) !=
                                    (jump.stream_bit_offset == before->stream_bit_offset))) {
        return fail(where + " resumes the key stream before the jump frame ahead of it");
      }
      if (jump.state_bit_offset != states.position()) return fail(where + " has a state offset that does not follow the previous state");
      for (uint32_t t = 0; t < view.m_tracks.size(); ++t) {
        const StreamTrack& track = view.m_tracks[t];
        if (track.key_count <= kInitialKeysPerTrack) continue;
        const uint32_t keys_read = states.read(view.m_key_index_bits);
        if (keys_read < kInitialKeysPerTrack || keys_read > track.key_count) {
          return fail(where + " says track " + std::to_string(t) + " has read " + std::to_string(keys_read) +
                      " of its " + std::to_string(track.key_count) + " keys");
        }
        const uint32_t saved = keys_read < kWindowSize ? keys_read : kWindowSize;
        for (uint32_t i = 0; i < saved; ++i) {
          const uint32_t frame = states.read(kFrameBits);
          if (frame > view.last_frame()) return fail(where + " holds a key past the last frame for track " + std::to_string(t));
          states.read64(track.value_bits + (track.kind == TrackKind::kRotation ? 1 : 0));
        }
        if (states.overrun()) return fail("jump states are truncated at " + where);
      }
    }
    if ((states.position() + 7) / 8 != view.m_jump_states.size()) return fail("jump states section has trailing bytes");
    return {};
  }

  std::span<const uint8_t> m_bytes;
  const char* m_name;
  uint32_t m_bone_count = 0;
  uint32_t m_jump_frame_count = 0;
  std::span<const uint8_t> m_bone_table;
  std::span<const uint8_t> m_track_table;
  std::span<const uint8_t> m_metadata;
  std::vector<uint32_t> m_frames;  // per track: frames of the two keys read last
  std::vector<uint32_t> m_read;    // per track: keys read
};

Result<StreamView> StreamView::open(std::span<const uint8_t> bytes, const char* name) {
  return StreamParser(bytes, name).parse();
}

size_t StreamView::jump_frame_bytes() const { return m_jump_index.size() + m_jump_states.size(); }

}  // namespace ks
