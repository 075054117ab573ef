#pragma once
// The fitted clip behind the committed golden stream (tests/golden/
// stream_v1.ks): built by hand from integer formulas, not by the fitter, so
// the golden test notices a change of the stream format and nothing else.
// It covers what the format has to carry: 1-, 2-, 3- and many-key tracks,
// discontinuities (at frame 0, inside, at the last frame), rotation widths
// 10, 14 and 20 bits, a vec3 component with an empty range, rotations whose
// keys cross hemispheres, and jump frames (every 0.25 s = 8 frames).

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <span>
#include <vector>

#include "core/offline/fit.h"
#include "core/offline/pack.h"
#include "core/offline/quantize.h"
#include "core/runtime/player.h"
#include "core/runtime/stream_view.h"

namespace ks::golden {

inline constexpr float kJumpIntervalS = 0.25f;
inline constexpr uint32_t kFrameCount = 30;
inline constexpr uint32_t kBoneCount = 3;
inline constexpr size_t kFloatsPerBone = 10;  // translation xyz, rotation xyzw, scale xyz

namespace detail {

// Numerical Recipes' 32-bit LCG: the same numbers everywhere.
struct Lcg {
  uint32_t state;
  uint32_t next() {
    state = state * 1664525u + 1013904223u;
    return state;
  }
};

struct TrackSpec {
  std::vector<uint16_t> frames;
  uint32_t rotation_bits;  // rotation tracks
  float range_min[3];      // vec3 tracks
  float range_extent[3];   // vec3 tracks; 0 = the component never changes
};

inline FittedTrack make_track(uint32_t t, const TrackSpec& spec, Lcg& lcg) {
  FittedTrack track;
  track.bone = t / 3;
  track.kind = static_cast<TrackKind>(t % 3);
  track.quantization.rotation_bits = spec.rotation_bits;
  for (int c = 0; c < 3; ++c) {
    track.quantization.range_min[c] = spec.range_min[c];
    track.quantization.range_extent[c] = spec.range_extent[c];
  }
  const uint32_t bits = spec.rotation_bits;
  const uint64_t mask = (uint64_t{1} << bits) - 1u;
  uint64_t components[3] = {mask / 2, mask / 3, mask / 2 + mask / 5};
  uint32_t largest = 3;
  for (const uint16_t frame : spec.frames) {
    FittedKey key;
    key.frame = frame;
    if (track.kind == TrackKind::kRotation) {
      // A walk of the three small components; every third key may change
      // which component is largest, which flips hemispheres.
      if (lcg.next() % 3 == 0) largest = lcg.next() % 4;
      for (uint64_t& c : components) {
        const uint64_t step = mask / 6;
        const uint64_t offset = lcg.next() % (2 * step + 1);
        c = c + offset < step ? 0 : (c + offset - step > mask ? mask : c + offset - step);
      }
      key.code = largest | components[0] << 2 | components[1] << (2 + bits) | components[2] << (2 + 2 * bits);
      key.decoded = decode_rotation(key.code, bits, frame);
      if (!track.keys.empty()) align_hemisphere(track.keys.back().decoded, key.decoded);
    } else {
      uint32_t codes[3];
      for (int c = 0; c < 3; ++c) codes[c] = spec.range_extent[c] > 0.f ? (lcg.next() >> 16) : 0u;
      key.code = uint64_t{codes[0]} | uint64_t{codes[1]} << 16 | uint64_t{codes[2]} << 32;
      key.decoded = decode_vec3(track.quantization, codes, frame);
    }
    track.keys.push_back(key);
  }
  return track;
}

}  // namespace detail

/// The golden fitted clip: 3 bones (a root and two children of it), 30 frames at 30 Hz.
inline FittedClip make_clip() {
  using detail::TrackSpec;
  const TrackSpec specs[3 * kBoneCount] = {
      // bone 0: a discontinuity at frame 13; y never changes.
      {{0, 4, 8, 12, 13, 13, 20, 29}, 10, {-0.5f, 1.f, 0.25f}, {1.f, 0.f, 0.5f}},
      {{0, 2, 5, 7, 10, 14, 18, 22, 26, 29}, 10, {}, {}},
      {{0}, 10, {1.f, 1.f, 1.f}, {0.f, 0.f, 0.f}},
      // bone 1: two keys, three keys at 14 bits, a discontinuity at frame 6.
      {{0, 29}, 10, {-2.f, -1.f, 0.f}, {4.f, 2.f, 1.f}},
      {{0, 15, 29}, 14, {}, {}},
      {{0, 6, 6, 17, 29}, 10, {0.5f, 0.75f, 0.875f}, {1.f, 0.5f, 0.25f}},
      // bone 2: keys on adjacent frames, 20-bit rotations with discontinuities
      // at frame 0 and at the last frame, a constant scale off 1.
      {{0, 1, 28, 29}, 10, {-0.125f, -0.25f, -0.5f}, {0.25f, 0.5f, 1.f}},
      {{0, 0, 3, 6, 9, 11, 12, 16, 19, 23, 27, 29, 29}, 20, {}, {}},
      {{0}, 10, {2.f, 2.f, 2.f}, {0.f, 0.f, 0.f}},
  };
  FittedClip clip;
  clip.name = "golden";
  clip.sample_rate_hz = 30.f;
  clip.frame_count = kFrameCount;
  clip.parents = {-1, 0, 0};
  clip.bone_names = {"root", "left", "right"};  // stored from version 2 on
  detail::Lcg lcg{12345u};
  for (uint32_t t = 0; t < 3 * kBoneCount; ++t) clip.tracks.push_back(detail::make_track(t, specs[t], lcg));
  return clip;
}

/// The frame times of the committed poses: every half frame, 0, 0.5, ..., 29.
inline std::vector<float> frame_times() {
  std::vector<float> times;
  for (uint32_t k = 0; k <= 2 * (kFrameCount - 1); ++k) times.push_back(0.5f * static_cast<float>(k));
  return times;
}

/// The poses a Player of `view` produces at frame_times(), in order, as raw
/// little-endian floats: per time, per bone, translation xyz, rotation xyzw,
/// scale xyz.
inline std::vector<uint8_t> poses_bytes(const StreamView& view) {
  std::vector<uint8_t> bytes;
  Player player(view);
  std::vector<Transform> pose(view.bone_count());
  for (const float t : frame_times()) {
    player.sample_frame(t, pose);
    const size_t at = bytes.size();
    bytes.resize(at + pose.size() * sizeof(Transform));
    static_assert(sizeof(Transform) == kFloatsPerBone * sizeof(float));
    std::memcpy(bytes.data() + at, pose.data(), pose.size() * sizeof(Transform));
  }
  return bytes;
}

/// How the golden streams of version 2 on are packed; `zstd` for the
/// compressed one.
inline PackSettings pack_settings(bool zstd) {
  PackSettings settings;
  settings.jump_interval_s = kJumpIntervalS;
  settings.zstd = zstd;
  settings.zstd_level = 19;
  settings.source_name = "golden_clip.h";
  return settings;
}

}  // namespace ks::golden
