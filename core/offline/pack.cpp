#include "core/offline/pack.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <zstd.h>

#include "core/offline/bit_writer.h"
#include "core/runtime/bit_reader.h"
#include "core/runtime/checksum.h"
#include "core/runtime/stream_format.h"

namespace ks {

namespace {

void put_u16(std::vector<uint8_t>& out, uint16_t v) {
  const size_t at = out.size();
  out.resize(at + 2);
  std::memcpy(out.data() + at, &v, 2);
}
void put_u32(std::vector<uint8_t>& out, uint32_t v) {
  const size_t at = out.size();
  out.resize(at + 4);
  std::memcpy(out.data() + at, &v, 4);
}
void put_f32(std::vector<uint8_t>& out, float v) {
  const size_t at = out.size();
  out.resize(at + 4);
  std::memcpy(out.data() + at, &v, 4);
}
void set_u32(std::vector<uint8_t>& out, uint32_t offset, uint32_t v) { std::memcpy(out.data() + offset, &v, 4); }

void write_value(BitWriter& writer, const FittedTrack& track, uint64_t code) {
  if (track.kind == TrackKind::kRotation) {
    writer.write(code, rotation_code_bits(track.quantization.rotation_bits));
    return;
  }
  for (int c = 0; c < 3; ++c) {
    const uint32_t bits = vec3_component_bits(track.quantization, c);
    if (bits > 0) writer.write((code >> (16 * c)) & 0xFFFFu, bits);
  }
}

// A key of the key stream: track `track`'s key `index`, needed at `need`.
struct StreamKey {
  uint32_t need;
  uint32_t track;
  uint32_t index;
};

Status check_clip(const FittedClip& clip) {
  const std::string name = "fitted clip \"" + clip.name + "\": ";
  if (clip.frame_count < 2 || clip.frame_count > 65535) return Error{name + "frame count outside 2..65535"};
  if (!std::isfinite(clip.sample_rate_hz) || !(clip.sample_rate_hz > 0.f)) return Error{name + "sample rate is not positive"};
  if (clip.parents.empty() || clip.parents.size() > 65535) return Error{name + "bone count outside 1..65535"};
  if (clip.tracks.size() != 3 * clip.parents.size()) return Error{name + "does not have three tracks per bone"};
  for (size_t b = 0; b < clip.parents.size(); ++b) {
    if (clip.parents[b] >= static_cast<int32_t>(b) || clip.parents[b] < -1) {
      return Error{name + "bone " + std::to_string(b) + " has a parent that does not come before it"};
    }
  }
  const uint32_t last = clip.frame_count - 1;
  for (size_t t = 0; t < clip.tracks.size(); ++t) {
    const FittedTrack& track = clip.tracks[t];
    const std::string where = name + "track " + std::to_string(t);
    if (track.kind != static_cast<TrackKind>(t % 3)) return Error{where + " is of the wrong kind"};
    const std::vector<FittedKey>& keys = track.keys;
    if (keys.empty() || keys.size() > 2 * size_t{clip.frame_count}) return Error{where + " has no keys or too many"};
    if (keys[0].frame != 0) return Error{where + " does not start at frame 0"};
    if (keys.size() > 1 && keys.back().frame != last) return Error{where + " does not end at the last frame"};
    for (size_t k = 1; k < keys.size(); ++k) {
      if (keys[k].frame < keys[k - 1].frame || keys[k].frame > last) {
        return Error{where + " key " + std::to_string(k) + " is out of order"};
      }
      if (k >= 2 && keys[k].frame == keys[k - 2].frame) {
        return Error{where + " has three keys at frame " + std::to_string(keys[k].frame)};
      }
    }
    if (track.kind == TrackKind::kRotation) {
      const uint32_t bits = track.quantization.rotation_bits;
      if (bits < kMinRotationBits || bits > kMaxRotationBits) return Error{where + " has an invalid rotation bit width"};
      for (const FittedKey& key : keys) {
        if ((key.code >> rotation_code_bits(bits)) != 0) return Error{where + " has a code wider than its bit width"};
      }
    } else {
      for (int c = 0; c < 3; ++c) {
        const float lo = track.quantization.range_min[c], extent = track.quantization.range_extent[c];
        if (!std::isfinite(lo) || !std::isfinite(extent) || extent < 0.f || !std::isfinite(lo + extent)) {
          return Error{where + " has an invalid range"};
        }
      }
      for (const FittedKey& key : keys) {
        if ((key.code >> 48) != 0) return Error{where + " has a code wider than 48 bits"};
      }
    }
  }
  return {};
}

// The key stream section of a zstd stream: a u32 size per block, then each
// block (the bytes holding bits block_bits[b] .. block_bits[b+1]) as one zstd
// frame that declares its size.
Result<std::vector<uint8_t>> compress_key_stream(std::span<const uint8_t> plain, const std::vector<uint64_t>& block_bits,
                                                 int level) {
  const std::unique_ptr<ZSTD_CCtx, size_t (*)(ZSTD_CCtx*)> context(ZSTD_createCCtx(), ZSTD_freeCCtx);
  if (!context) return Error{"cannot create a zstd context"};
  const size_t block_count = block_bits.size() - 1;
  std::vector<uint8_t> out(4 * block_count);
  std::vector<uint8_t> frame;
  for (size_t b = 0; b < block_count; ++b) {
    const uint64_t first = block_bits[b] / 8;
    const uint64_t end = (block_bits[b + 1] + 7) / 8;
    frame.resize(ZSTD_compressBound(end - first));
    const size_t size =
        ZSTD_compressCCtx(context.get(), frame.data(), frame.size(), plain.data() + first, end - first, level);
    if (ZSTD_isError(size)) return Error{std::string("zstd: ") + ZSTD_getErrorName(size)};
    set_u32(out, static_cast<uint32_t>(4 * b), static_cast<uint32_t>(size));
    out.insert(out.end(), frame.begin(), frame.begin() + static_cast<std::ptrdiff_t>(size));
  }
  return out;
}

void put_string(std::vector<uint8_t>& out, const std::string& text) {
  put_u16(out, static_cast<uint16_t>(text.size()));
  out.insert(out.end(), text.begin(), text.end());
}

// Metadata (stream_format.h): names and the thresholds the fit aimed at.
Status put_metadata(std::vector<uint8_t>& out, const FittedClip& clip, const PackSettings& settings) {
  if (!clip.bone_names.empty() && clip.bone_names.size() != clip.parents.size()) {
    return Error{"has " + std::to_string(clip.bone_names.size()) + " bone names for " +
                 std::to_string(clip.parents.size()) + " bones"};
  }
  auto check = [](const std::string& text, const std::string& what) -> Status {
    if (text.size() > kMaxStringBytes) return Error{what + " is longer than " + std::to_string(kMaxStringBytes) + " bytes"};
    if (text.find('\0') != std::string::npos) return Error{what + " holds a NUL byte"};
    return {};
  };
  if (Status s = check(clip.name, "the clip name"); !s) return s;
  if (Status s = check(settings.source_name, "the source name"); !s) return s;
  for (size_t b = 0; b < clip.bone_names.size(); ++b) {
    if (Status s = check(clip.bone_names[b], "the name of bone " + std::to_string(b)); !s) return s;
  }
  put_u32(out, static_cast<uint32_t>(clip.bone_names.size()));
  put_f32(out, clip.settings.translation_error_m);
  put_f32(out, clip.settings.rotation_error_deg);
  put_f32(out, clip.settings.scale_error);
  put_string(out, clip.name);
  put_string(out, settings.source_name);
  for (const std::string& name : clip.bone_names) put_string(out, name);
  return {};
}

}  // namespace

Status PackSettings::validate() const {
  if (!std::isfinite(jump_interval_s) || jump_interval_s < 0.f) {
    return Error{"jump interval must be 0 (none) or a positive number of seconds"};
  }
  if (zstd_level < 1 || zstd_level > ZSTD_maxCLevel()) {
    return Error{"zstd level " + std::to_string(zstd_level) + " is outside 1.." + std::to_string(ZSTD_maxCLevel())};
  }
  return {};
}

uint32_t jump_interval_frames(float jump_interval_s, float sample_rate_hz) {
  if (!(jump_interval_s > 0.f)) return 0;
  const double frames = std::nearbyint(double{jump_interval_s} * sample_rate_hz);
  return static_cast<uint32_t>(std::clamp(frames, 1.0, 65535.0));
}

Result<std::vector<uint8_t>> pack(const FittedClip& clip, const PackSettings& settings) {
  if (Status s = settings.validate(); !s) return Error{"pack settings: " + s.error()};
  if (Status s = check_clip(clip); !s) return Error{s.error()};
  const uint32_t track_count = static_cast<uint32_t>(clip.tracks.size());
  const uint32_t bone_count = static_cast<uint32_t>(clip.parents.size());
  const uint32_t last = clip.frame_count - 1;

  std::vector<uint8_t> out(kHeaderSize, 0);
  // Bone table.
  const uint32_t bone_table_offset = static_cast<uint32_t>(out.size());
  for (int32_t parent : clip.parents) put_u16(out, parent < 0 ? kNoParent : static_cast<uint16_t>(parent));
  while (out.size() % 4 != 0) out.push_back(0);
  // Track table.
  const uint32_t track_table_offset = static_cast<uint32_t>(out.size());
  uint32_t max_key_count = 0;
  uint64_t total_keys = 0;
  for (const FittedTrack& track : clip.tracks) {
    put_u32(out, static_cast<uint32_t>(track.keys.size()));
    out.push_back(static_cast<uint8_t>(track.kind));
    out.push_back(track.kind == TrackKind::kRotation ? static_cast<uint8_t>(track.quantization.rotation_bits) : 0);
    put_u16(out, static_cast<uint16_t>(track.bone));
    if (track.kind != TrackKind::kRotation) {
      for (float v : track.quantization.range_min) put_f32(out, v);
      for (float v : track.quantization.range_extent) put_f32(out, v);
    }
    max_key_count = std::max<uint32_t>(max_key_count, static_cast<uint32_t>(track.keys.size()));
    total_keys += track.keys.size();
  }
  // Initial keys: those needed at frame 0.
  const uint32_t initial_keys_offset = static_cast<uint32_t>(out.size());
  BitWriter initial;
  for (const FittedTrack& track : clip.tracks) {
    const size_t count = std::min<size_t>(track.keys.size(), kInitialKeysPerTrack);
    for (size_t k = 0; k < count; ++k) {
      if (k > 0) initial.write(track.keys[k].frame, kFrameBits);
      write_value(initial, track, track.keys[k].code);
    }
  }
  out.insert(out.end(), initial.bytes().begin(), initial.bytes().end());

  // Key stream, sorted by need frame, then track (then key, for two keys of
  // one track needed at once beside a discontinuity).
  std::vector<StreamKey> order;
  for (uint32_t t = 0; t < track_count; ++t) {
    const std::vector<FittedKey>& keys = clip.tracks[t].keys;
    for (uint32_t k = kInitialKeysPerTrack; k < keys.size(); ++k) order.push_back({keys[k - 2].frame, t, k});
  }
  std::sort(order.begin(), order.end(), [](const StreamKey& a, const StreamKey& b) {
    return a.need != b.need ? a.need < b.need : (a.track != b.track ? a.track < b.track : a.index < b.index);
  });
  const uint32_t track_id_bits = bits_for(track_count - 1);
  const uint32_t key_stream_offset = static_cast<uint32_t>(out.size());
  BitWriter stream;
  std::vector<uint64_t> key_offsets;  // bit offset of each stream key, and the end
  key_offsets.reserve(order.size() + 1);
  for (const StreamKey& key : order) {
    key_offsets.push_back(stream.size_bits());
    const FittedTrack& track = clip.tracks[key.track];
    stream.write(key.track, track_id_bits);
    stream.write(track.keys[key.index].frame, kFrameBits);
    write_value(stream, track, track.keys[key.index].code);
  }
  key_offsets.push_back(stream.size_bits());
  if (stream.size_bits() > 0xFFFFFFFFull) return Error{"fitted clip \"" + clip.name + "\": key stream exceeds 2^32 bits"};

  // Jump frames: the windows after every key needed at or before the frame.
  const uint32_t interval = jump_interval_frames(settings.jump_interval_s, clip.sample_rate_hz);
  const uint32_t jump_count = interval == 0 ? 0 : last / interval;
  const uint32_t key_index_bits = bits_for(max_key_count);
  std::vector<uint32_t> keys_read(track_count);
  for (uint32_t t = 0; t < track_count; ++t) {
    keys_read[t] = static_cast<uint32_t>(std::min<size_t>(clip.tracks[t].keys.size(), kInitialKeysPerTrack));
  }
  std::vector<uint8_t> jump_index;
  std::vector<uint64_t> block_bits{0};  // where each key stream block starts, then the end
  BitWriter states;
  size_t cursor = 0;
  for (uint32_t j = 0; j < jump_count; ++j) {
    const uint32_t frame = (j + 1) * interval;
    while (cursor < order.size() && order[cursor].need <= frame) ++keys_read[order[cursor++].track];
    put_u32(jump_index, static_cast<uint32_t>(cursor));
    put_u32(jump_index, static_cast<uint32_t>(key_offsets[cursor]));
    block_bits.push_back(key_offsets[cursor]);
    put_u32(jump_index, static_cast<uint32_t>(states.size_bits()));
    for (uint32_t t = 0; t < track_count; ++t) {
      const FittedTrack& track = clip.tracks[t];
      if (track.keys.size() <= kInitialKeysPerTrack) continue;
      const uint32_t read = keys_read[t];
      states.write(read, key_index_bits);
      for (uint32_t k = read >= kWindowSize ? read - kWindowSize : 0; k < read; ++k) {
        const FittedKey& key = track.keys[k];
        states.write(key.frame, kFrameBits);
        write_value(states, track, key.code);
        if (track.kind == TrackKind::kRotation) {
          const CurveKey raw = decode_rotation(key.code, track.quantization.rotation_bits, key.frame);
          states.write(std::memcmp(raw.value, key.decoded.value, sizeof raw.value) == 0 ? 0 : 1, 1);
        }
      }
    }
  }
  block_bits.push_back(stream.size_bits());
  if (states.size_bits() > 0xFFFFFFFFull) return Error{"fitted clip \"" + clip.name + "\": jump states exceed 2^32 bits"};
  if (settings.zstd) {
    Result<std::vector<uint8_t>> blocks = compress_key_stream(stream.bytes(), block_bits, settings.zstd_level);
    if (!blocks) return Error{"fitted clip \"" + clip.name + "\": " + blocks.error()};
    out.insert(out.end(), blocks.value().begin(), blocks.value().end());
  } else {
    out.insert(out.end(), stream.bytes().begin(), stream.bytes().end());
  }
  const uint32_t jump_index_offset = static_cast<uint32_t>(out.size());
  out.insert(out.end(), jump_index.begin(), jump_index.end());
  const uint32_t jump_states_offset = static_cast<uint32_t>(out.size());
  out.insert(out.end(), states.bytes().begin(), states.bytes().end());
  const uint32_t metadata_offset = static_cast<uint32_t>(out.size());
  if (Status s = put_metadata(out, clip, settings); !s) return Error{"fitted clip \"" + clip.name + "\": " + s.error()};
  if (out.size() > 0xFFFFFFFFull) return Error{"fitted clip \"" + clip.name + "\": stream exceeds 4 GiB"};

  using namespace header_offset;
  set_u32(out, kMagic, kStreamMagic);
  const uint16_t version = kStreamVersion;
  std::memcpy(out.data() + kVersion, &version, 2);
  const uint16_t flags = (clip.settings.quantization.range_mode == RangeMode::kFixed ? kFlagFixedRange : 0) |
                         (settings.zstd ? kFlagZstdKeyStream : 0);
  std::memcpy(out.data() + kFlags, &flags, 2);
  std::memcpy(out.data() + kSampleRate, &clip.sample_rate_hz, 4);
  set_u32(out, kFrameCount, clip.frame_count);
  set_u32(out, kBoneCount, bone_count);
  set_u32(out, kTrackCount, track_count);
  set_u32(out, kJumpIntervalFrames, interval);
  set_u32(out, kJumpFrameCount, jump_count);
  set_u32(out, kTotalKeyCount, static_cast<uint32_t>(total_keys));
  set_u32(out, kStreamKeyCount, static_cast<uint32_t>(order.size()));
  set_u32(out, kBoneTableOffset, bone_table_offset);
  set_u32(out, kTrackTableOffset, track_table_offset);
  set_u32(out, kInitialKeysOffset, initial_keys_offset);
  set_u32(out, kKeyStreamOffset, key_stream_offset);
  set_u32(out, kJumpIndexOffset, jump_index_offset);
  set_u32(out, kJumpStatesOffset, jump_states_offset);
  set_u32(out, kTotalSize, static_cast<uint32_t>(out.size()));
  set_u32(out, kKeyStreamBits, static_cast<uint32_t>(stream.size_bits()));
  set_u32(out, kMetadataOffset, metadata_offset);
  set_u32(out, kChecksum, crc32(out));
  return out;
}

}  // namespace ks
