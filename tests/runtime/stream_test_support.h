#pragma once
// Helpers shared by the stream tests (pack, stream view, player, golden
// stream): packing fitted clips, patching a stream's bytes and fixing its
// checksum, decoding the key stream, random fitted clips with the edge cases
// the fitter rarely produces, and bit-exact pose comparison.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/offline/fit.h"
#include "core/offline/pack.h"
#include "core/offline/quantize.h"
#include "core/runtime/bit_reader.h"
#include "core/runtime/checksum.h"
#include "core/runtime/stream_format.h"
#include "core/runtime/stream_view.h"
#include "core/runtime/transform.h"
#include "tests/offline/random_clip.h"

namespace ks::test {

/// The stream of `clip` with jump frames every `jump_interval_s` (and zstd
/// key stream blocks when `zstd`); an empty vector (and a test failure) when
/// pack refuses it.
inline std::vector<uint8_t> pack_or_fail(const FittedClip& clip, float jump_interval_s, bool zstd = false) {
  PackSettings settings;
  settings.jump_interval_s = jump_interval_s;
  settings.zstd = zstd;
  settings.zstd_level = 3;  // fast: the tests pack thousands of streams
  Result<std::vector<uint8_t>> packed = pack(clip, settings);
  EXPECT_TRUE(packed.ok()) << packed.error();
  return packed.ok() ? std::move(packed.value()) : std::vector<uint8_t>{};
}

/// `clip` fitted with default settings; an empty clip (and a failure) on refusal.
inline FittedClip fit_or_fail(const Skeleton& skeleton, const RawClip& clip, unsigned threads = 1) {
  Result<FittedClip> fitted = fit_clip(skeleton, clip, FitSettings{}, threads);
  EXPECT_TRUE(fitted.ok()) << fitted.error();
  return fitted.ok() ? std::move(fitted.value()) : FittedClip{};
}

inline uint32_t get_u32(std::span<const uint8_t> bytes, uint32_t offset) {
  uint32_t v;
  std::memcpy(&v, bytes.data() + offset, 4);
  return v;
}
inline void set_u32(std::vector<uint8_t>& bytes, uint32_t offset, uint32_t v) {
  std::memcpy(bytes.data() + offset, &v, 4);
}
inline void set_u16(std::vector<uint8_t>& bytes, uint32_t offset, uint16_t v) {
  std::memcpy(bytes.data() + offset, &v, 2);
}
inline void set_f32(std::vector<uint8_t>& bytes, uint32_t offset, float v) {
  std::memcpy(bytes.data() + offset, &v, 4);
}

/// Recomputes the header checksum the way StreamView checks it: CRC-32 of
/// the whole stream with the checksum field zero.
inline void fix_checksum(std::vector<uint8_t>& bytes) {
  if (bytes.size() < kHeaderSize) return;
  set_u32(bytes, header_offset::kChecksum, 0);
  set_u32(bytes, header_offset::kChecksum, crc32(bytes));
}

/// Sets the header's total size to the vector's size and fixes the checksum.
inline void fix_size_and_checksum(std::vector<uint8_t>& bytes) {
  if (bytes.size() < kHeaderSize) return;
  set_u32(bytes, header_offset::kTotalSize, static_cast<uint32_t>(bytes.size()));
  fix_checksum(bytes);
}

/// `original` with the `erase` bytes at `at` replaced by `insert`: the header's
/// section offsets at or past the replaced bytes move with them (inserted
/// bytes join the section they follow), and the size and checksum are fixed.
inline std::vector<uint8_t> splice(const std::vector<uint8_t>& original, uint32_t at, uint32_t erase,
                                   std::span<const uint8_t> insert) {
  std::vector<uint8_t> bytes = original;
  bytes.erase(bytes.begin() + at, bytes.begin() + at + erase);
  bytes.insert(bytes.begin() + at, insert.begin(), insert.end());
  const int64_t delta = static_cast<int64_t>(insert.size()) - static_cast<int64_t>(erase);
  namespace ho = header_offset;
  for (const uint32_t field : {ho::kBoneTableOffset, ho::kTrackTableOffset, ho::kInitialKeysOffset,
                               ho::kKeyStreamOffset, ho::kJumpIndexOffset, ho::kJumpStatesOffset,
                               ho::kMetadataOffset}) {
    const uint32_t offset = get_u32(bytes, field);
    if (offset >= uint64_t{at} + erase) set_u32(bytes, field, static_cast<uint32_t>(offset + delta));
  }
  fix_size_and_checksum(bytes);
  return bytes;
}

/// Overwrites `bits` bits at `bit_offset` (LSB first, as BitWriter writes them).
inline void write_bits(std::vector<uint8_t>& bytes, uint64_t bit_offset, uint64_t value, uint32_t bits) {
  for (uint32_t i = 0; i < bits; ++i) {
    const uint64_t at = bit_offset + i;
    const uint8_t mask = static_cast<uint8_t>(1u << (at & 7u));
    if ((value >> i) & 1u) {
      bytes[at >> 3] |= mask;
    } else {
      bytes[at >> 3] &= static_cast<uint8_t>(~mask);
    }
  }
}

/// One entry of the key stream as it is stored.
struct StreamEntry {
  uint32_t track = 0;
  uint32_t frame = 0;
  uint64_t value = 0;       // the raw value bits
  uint64_t bit_offset = 0;  // where the entry starts, bits from the key stream's start
};

/// Every entry of an opened stream's key stream, in stream order.
inline std::vector<StreamEntry> decode_key_stream(const StreamView& view) {
  std::vector<StreamEntry> entries;
  BitReader reader(view.key_stream());
  for (uint32_t i = 0; i < view.stream_key_count(); ++i) {
    StreamEntry e;
    e.bit_offset = reader.position();
    e.track = reader.read(view.track_id_bits());
    e.frame = reader.read(kFrameBits);
    e.value = reader.read64(view.tracks()[e.track].value_bits);
    entries.push_back(e);
  }
  return entries;
}

/// Passes when `result` is a refusal whose message starts with "`name`: " and
/// contains every part.
inline ::testing::AssertionResult refused_mentioning(const Result<StreamView>& result, std::string_view name,
                                                     std::initializer_list<std::string_view> parts) {
  if (result.ok()) return ::testing::AssertionFailure() << "the stream was accepted";
  const std::string& message = result.error();
  if (message.rfind(std::string(name) + ": ", 0) != 0) {
    return ::testing::AssertionFailure() << "message \"" << message << "\" does not start with the stream's name";
  }
  for (std::string_view part : parts) {
    if (message.find(part) == std::string::npos) {
      return ::testing::AssertionFailure() << "message \"" << message << "\" does not mention \"" << part << "\"";
    }
  }
  return ::testing::AssertionSuccess();
}

/// The key stream's byte offset from the header.
inline uint32_t key_stream_offset(std::span<const uint8_t> bytes) {
  return get_u32(bytes, header_offset::kKeyStreamOffset);
}

/// Byte-exact equality of two poses (Transform is ten floats, no padding).
inline bool same_bits(std::span<const Transform> a, std::span<const Transform> b) {
  static_assert(sizeof(Transform) == 10 * sizeof(float));
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size_bytes()) == 0);
}

/// Checks that a local pose is, bit for bit, what evaluate_fitted gives for
/// every track of `clip` at frame time `frame_time`.
inline ::testing::AssertionResult matches_fitted(const FittedClip& clip, std::span<const Transform> pose,
                                                 float frame_time) {
  for (size_t b = 0; b < clip.parents.size(); ++b) {
    float t[4], r[4], s[4];
    evaluate_fitted(clip.tracks[3 * b + 0], frame_time, t);
    evaluate_fitted(clip.tracks[3 * b + 1], frame_time, r);
    evaluate_fitted(clip.tracks[3 * b + 2], frame_time, s);
    const Transform expected{{t[0], t[1], t[2]}, {r[0], r[1], r[2], r[3]}, {s[0], s[1], s[2]}};
    if (std::memcmp(&expected, &pose[b], sizeof(Transform)) != 0) {
      const Transform& got = pose[b];
      return ::testing::AssertionFailure()
             << "bone " << b << " at frame time " << frame_time << ": player T(" << got.translation.x << ", "
             << got.translation.y << ", " << got.translation.z << ") R(" << got.rotation.x << ", " << got.rotation.y
             << ", " << got.rotation.z << ", " << got.rotation.w << ") S(" << got.scale.x << ", " << got.scale.y << ", "
             << got.scale.z << "), reference T(" << t[0] << ", " << t[1] << ", " << t[2] << ") R(" << r[0] << ", "
             << r[1] << ", " << r[2] << ", " << r[3] << ") S(" << s[0] << ", " << s[1] << ", " << s[2] << ")";
    }
  }
  return ::testing::AssertionSuccess();
}

/// A small clip the stream tests start from: a chain of three bones, 40
/// frames at 30 Hz, every bone moving, bone 2 spinning (so quantized keys
/// cross hemispheres) and scaling, bone 0 with one constant translation
/// component: most tracks get more than three keys.
inline RandomClip make_wave_clip(uint32_t frames = 40) {
  RandomClip out;
  out.skeleton.bone_names = {"root", "arm", "hand"};
  out.skeleton.parents = {-1, 0, 1};
  out.skeleton.rest_pose.assign(3, Transform{});
  RawClip& clip = out.clip;
  clip.name = "wave";
  clip.sample_rate_hz = 30.f;
  clip.frame_count = frames;
  clip.bones.resize(3);
  for (uint32_t f = 0; f < frames; ++f) {
    const float t = static_cast<float>(f);
    for (uint32_t b = 0; b < 3; ++b) {
      const float phase = static_cast<float>(b);
      BoneTracks& bone = clip.bones[b];
      bone.translations.push_back(
          {0.1f * std::sin(0.2f * t + phase), 0.5f + 0.05f * std::cos(0.3f * t), b == 0 ? 0.f : 0.2f});
      const float angle = b == 2 ? 0.4f * t : 1.5f * std::sin(0.15f * t + phase);
      bone.rotations.push_back(quat_from_axis_angle(Vec3{0.f, 0.6f, 0.8f}, angle));
      const float s = b == 2 ? 1.f + 0.2f * std::sin(0.25f * t) : 1.f;
      bone.scales.push_back({s, s, s});
    }
  }
  for (BoneTracks& bone : clip.bones) make_rotations_continuous(bone.rotations);
  return out;
}

/// Frames of `n` keys of a track over 0..last: first at 0, last at `last`,
/// non-decreasing, never three at one frame (two make a discontinuity).
inline std::vector<uint16_t> random_key_frames(TestRandom& rng, uint32_t n, uint32_t last) {
  if (n == 1) return {0};
  std::vector<uint32_t> uses(last + 1, 0);
  uses[0] = 1;
  uses[last] += 1;
  std::vector<uint16_t> frames = {0, static_cast<uint16_t>(last)};
  for (uint32_t attempts = 0; frames.size() < n && attempts < 64 * n; ++attempts) {
    // Discontinuities are rare in real clips but the edge cases matter: one
    // draw in eight repeats an existing frame.
    const uint32_t f =
        rng.chance(0.125f) ? frames[rng.integer(0, static_cast<uint32_t>(frames.size()) - 1)] : rng.integer(0, last);
    if (uses[f] >= 2) continue;
    ++uses[f];
    frames.push_back(static_cast<uint16_t>(f));
  }
  std::sort(frames.begin(), frames.end());
  return frames;
}

/// A fitted clip made directly (not by the fitter) with random keys, codes,
/// bit widths and ranges: discontinuities anywhere (frame 0 and the last
/// frame included), 1-, 2- and 3-key tracks, zero-extent components, random
/// hemispheres. It passes pack's checks. `frame_count` 0 draws one in 2..max_frames.
inline FittedClip make_random_fitted_clip(uint32_t seed, uint32_t max_bones = 4, uint32_t max_frames = 80,
                                          uint32_t frame_count = 0) {
  TestRandom rng(seed);
  FittedClip clip;
  clip.name = "random_fitted_" + std::to_string(seed);
  static constexpr float kRates[] = {24.f, 30.f, 60.f, 29.97f, 8.f};
  clip.sample_rate_hz = kRates[rng.integer(0, 4)];
  clip.frame_count = rng.integer(2, max_frames);
  if (frame_count != 0) clip.frame_count = frame_count;
  if (rng.chance(0.2f)) clip.settings.quantization.range_mode = RangeMode::kFixed;
  const uint32_t last = clip.frame_count - 1;
  const uint32_t bones = rng.integer(1, max_bones);
  for (uint32_t b = 0; b < bones; ++b) {
    clip.parents.push_back(b == 0 || rng.chance(0.2f) ? -1 : static_cast<int32_t>(rng.integer(0, b - 1)));
  }
  for (uint32_t t = 0; t < 3 * bones; ++t) {
    FittedTrack track;
    track.bone = t / 3;
    track.kind = static_cast<TrackKind>(t % 3);
    const uint32_t max_keys = std::min<uint32_t>(2 * clip.frame_count, 40);
    const uint32_t shape = rng.integer(0, 5);
    uint32_t n = shape < 4 ? shape + 1 : rng.integer(1, max_keys);
    if (n > 1 && clip.frame_count < 2) n = 1;
    const std::vector<uint16_t> frames = random_key_frames(rng, std::min(n, max_keys), last);
    if (track.kind == TrackKind::kRotation) {
      track.quantization.rotation_bits =
          rng.chance(0.5f) ? kMinRotationBits : rng.integer(kMinRotationBits, kMaxRotationBits);
    } else {
      for (int c = 0; c < 3; ++c) {
        track.quantization.range_min[c] = rng.uniform(-2.f, 2.f);
        track.quantization.range_extent[c] = rng.chance(0.3f) ? 0.f : rng.uniform(0.001f, 3.f);
      }
    }
    // Rotations: a random walk of codes in each component, with the largest
    // component changing now and then, so hemispheres flip.
    const uint32_t bits = track.quantization.rotation_bits;
    const uint64_t mask = (uint64_t{1} << bits) - 1u;
    uint64_t components[3] = {mask / 2, mask / 2, mask / 2};
    uint32_t largest = rng.integer(0, 3);
    for (uint16_t frame : frames) {
      FittedKey key;
      key.frame = frame;
      if (track.kind == TrackKind::kRotation) {
        if (rng.chance(0.2f)) largest = rng.integer(0, 3);
        for (uint64_t& c : components) {
          const uint64_t step = mask / 8;
          const uint64_t low = c > step ? c - step : 0;
          const uint64_t high = std::min(mask, c + step);
          c = low + rng.integer(0, static_cast<uint32_t>(high - low));
        }
        key.code = largest | components[0] << 2 | components[1] << (2 + bits) | components[2] << (2 + 2 * bits);
        key.decoded = decode_rotation(key.code, bits, frame);
        if (!track.keys.empty()) align_hemisphere(track.keys.back().decoded, key.decoded);
      } else {
        uint32_t codes[3];
        for (int c = 0; c < 3; ++c) codes[c] = track.quantization.range_extent[c] > 0.f ? rng.integer(0, 65535) : 0;
        key.code = uint64_t{codes[0]} | uint64_t{codes[1]} << 16 | uint64_t{codes[2]} << 32;
        key.decoded = decode_vec3(track.quantization, codes, frame);
      }
      track.keys.push_back(key);
    }
    clip.tracks.push_back(std::move(track));
  }
  return clip;
}

}  // namespace ks::test
