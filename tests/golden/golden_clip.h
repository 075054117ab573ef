#pragma once
// The fitted clip behind the committed golden streams of the current version
// (tests/golden/README.md): built by hand from integer formulas, not by the
// fitter, so the golden test notices a change of the stream format and
// nothing else. It covers what the format has to carry: identity, constant,
// rest and animated tracks; vec3 tracks coding some of their components;
// relative and full rotations, whose keys cross hemispheres; 2-, 3-, 4- and
// many-key tracks; discontinuities (at frame 0, inside, at the last frame);
// keys on adjacent frames; negative codes and a jump large enough for a
// Rice escape; tracks whose stream keys span two segments, one with keys
// wider than one 57-bit load (format version 5); a bone tolerance override
// in the metadata; jump frames (every 0.25 s = 8 frames). Bone 4 was added
// for version 5: the tracks before it are those of versions 3 and 4. The
// scalar tracks were added for version 9, after the bones' tracks, which
// are those of version 8. Version 10 made three tracks linear or step
// (kStepTrack, kLinearTrack, kLinearScalar); their keys did not change.
// Version 11 made two constant bone tracks rest tracks (kRestTracks): the
// same values, now in the metadata and not in the track table.

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <span>
#include <vector>

#include "keystream/codec/fit.h"
#include "keystream/codec/pack.h"
#include "keystream/codec/quantize.h"
#include "keystream/runtime/player.h"
#include "keystream/runtime/stream_view.h"

namespace ks::golden {

inline constexpr float kJumpIntervalS = 0.25f;
inline constexpr uint32_t kFrameCount = 30;
inline constexpr uint32_t kBoneCount = 5;
inline constexpr size_t kFloatsPerBone = 10;  // translation xyz, rotation xyzw, scale xyz
inline constexpr uint32_t kScalarTrackCount = 5;
inline constexpr uint32_t kScalarValueCount = 11;  // the scalar tracks' components: 1 + 3 + 1 + 4 + 2

// The tracks version 10 no longer interpolates as Hermite; every other track
// (and every track of version 9) is Hermite.
inline constexpr uint32_t kStepTrack = 0;        // bone 0's translation: streamed keys, a discontinuity at 13
inline constexpr uint32_t kLinearTrack = 7;      // bone 2's rotation: discontinuities at frames 0 and 29
inline constexpr uint32_t kLinearScalar = 2;     // "smile": streamed keys, a discontinuity at 11
inline constexpr size_t kLinearScalarValue = 4;  // its one value among the scalar values: after blink's 1, tint's 3

// The tracks version 11 codes as rest tracks (TrackCoding::kRest), constant
// tracks in versions 9 and 10 with the same values: bone 2's scale (2, 0.5,
// 1.25) and bone 3's rotation (0.36, 0.48, 0, 0.8), in track order. Bone 3's
// scale stays a constant track.
inline constexpr uint32_t kRestTracks[2] = {8, 10};
inline constexpr uint32_t kRestValueCount = 3 + 4;  // their components, end to end in the metadata

namespace detail {

// Numerical Recipes' 32-bit LCG: the same numbers everywhere.
struct Lcg {
  uint32_t state;
  uint32_t next() {
    state = state * 1664525u + 1013904223u;
    return state;
  }
  // Uniform-ish integer in -range..range.
  int32_t centred(int32_t range) {
    return static_cast<int32_t>((next() >> 8) % static_cast<uint32_t>(2 * range + 1)) - range;
  }
};

struct TrackSpec {
  TrackCoding coding;
  std::vector<uint16_t> frames;      // animated tracks
  uint8_t coded_mask;                // vec3 and scalar tracks
  RotationCoding rotation;           // rotation tracks
  float step;                        // animated tracks: a power of two
  float constant[4];                 // constant tracks: the value; vec3 and scalar: components not coded
  int32_t walk;                      // animated: the largest code change between keys
  int32_t limit;                     // animated: codes stay within +-limit
};

// A relative track's reference: the smallest-three code of a rotation near
// (0.1, 0.2, 0.3, 0.93), largest component w, 10 bits per component.
inline constexpr uint32_t kReferenceCode = 3u | (584u << 2) | (657u << 12) | (730u << 22);

// Track `bone` of `kind` (a scalar track: `bone` is its index among them).
inline FittedTrack make_track(uint32_t bone, TrackKind kind, const TrackSpec& spec, Lcg& lcg) {
  FittedTrack track;
  track.bone = bone;
  track.kind = kind;
  track.coding = spec.coding;
  if (spec.coding != TrackCoding::kAnimated) {
    std::memcpy(track.quantization.constant, spec.constant, sizeof spec.constant);
    return track;
  }
  TrackQuantization& q = track.quantization;
  q.step = spec.step;
  if (track.kind == TrackKind::kRotation) {
    q.rotation = spec.rotation;
    q.coded_mask = spec.rotation == RotationCoding::kFull ? 0b1111 : 0b0111;
    if (spec.rotation == RotationCoding::kRelative) {
      q.reference_code = kReferenceCode;
      dequantize_smallest_three(q.reference_code, kReferenceComponentBits, q.reference);
    }
  } else {
    q.coded_mask = spec.coded_mask;
    for (int c = 0; c < 4; ++c) q.constant[c] = q.coded(c) ? 0.f : spec.constant[c];
  }
  // Component 0 walks within +-limit, the others within a third of it.
  auto limit_of = [&](int c) { return c == 0 ? spec.limit : spec.limit / 3; };
  int32_t codes[4];
  for (int c = 0; c < 4; ++c) codes[c] = lcg.centred(limit_of(c));
  for (size_t k = 0; k < spec.frames.size(); ++k) {
    FittedKey key;
    key.frame = spec.frames[k];
    for (int c = 0; c < 4; ++c) {
      const int32_t next = codes[c] + lcg.centred(spec.walk);
      codes[c] = next > limit_of(c) ? limit_of(c) : (next < -limit_of(c) ? -limit_of(c) : next);
    }
    // Keys 6 and 7 of a long track swing component 0 from one end of its
    // range to the other: a difference that needs a Rice escape, and for a
    // relative rotation (whose x then dominates) a change of hemisphere.
    if (spec.frames.size() >= 8 && (k == 6 || k == 7)) codes[0] = k == 6 ? spec.limit : -spec.limit;
    for (int c = 0; c < 4; ++c) key.codes[c] = q.coded(c) ? codes[c] : 0;
    key.decoded = decode_key(track.kind, q, key.codes, key.frame);
    if (track.kind == TrackKind::kRotation && !track.keys.empty()) align_hemisphere(track.keys.back().decoded, key.decoded);
    std::memcpy(key.ideal, key.decoded.value, sizeof key.ideal);
    track.keys.push_back(key);
  }
  return track;
}

}  // namespace detail

/// The golden fitted clip: 5 bones (a root, two children of it, a child of
/// the second and a child of that) and 5 scalar tracks, 30 frames at 30 Hz.
inline FittedClip make_clip() {
  using detail::TrackSpec;
  constexpr TrackCoding kIdentity = TrackCoding::kIdentity;
  constexpr TrackCoding kConstant = TrackCoding::kConstant;
  constexpr TrackCoding kAnimated = TrackCoding::kAnimated;
  constexpr RotationCoding kRelative = RotationCoding::kRelative;
  constexpr RotationCoding kFull = RotationCoding::kFull;
  const TrackSpec specs[3 * kBoneCount] = {
      // bone 0: x and z coded (y constant), a discontinuity at frame 13; a
      // relative rotation with 10 keys; identity scale.
      {kAnimated, {0, 4, 8, 12, 13, 13, 20, 29}, 0b101, kRelative, 1.f / 1024.f, {0.f, 1.f, 0.f, 0.f}, 100, 4000},
      {kAnimated, {0, 2, 5, 7, 10, 14, 18, 22, 26, 29}, 0, kRelative, 1.f / 4096.f, {}, 300, 3600},
      {kIdentity, {}, 0, kRelative, 0.f, {1.f, 1.f, 1.f, 0.f}, 0, 0},
      // bone 1: keys on adjacent frames; a full rotation of three keys; scale
      // with x and y coded and a discontinuity at frame 6.
      {kAnimated, {0, 1, 28, 29}, 0b111, kRelative, 1.f / 256.f, {}, 50, 500},
      {kAnimated, {0, 15, 29}, 0, kFull, 1.f / 2048.f, {}, 900, 2000},
      {kAnimated, {0, 6, 6, 17, 29}, 0b011, kRelative, 1.f / 512.f, {0.f, 0.f, 1.f, 0.f}, 40, 1000},
      // bone 2: a two-key translation coding y only; a relative rotation with
      // discontinuities at frame 0 and at the last frame; a constant scale.
      {kAnimated, {0, 29}, 0b010, kRelative, 1.f / 128.f, {0.5f, 0.f, -0.25f, 0.f}, 10, 300},
      {kAnimated, {0, 0, 3, 6, 9, 11, 12, 16, 19, 23, 27, 29, 29}, 0, kRelative, 1.f / 16384.f, {}, 10, 14000},
      {kConstant, {}, 0, kRelative, 0.f, {2.f, 0.5f, 1.25f, 0.f}, 0, 0},
      // bone 3: identity translation, constant rotation and scale.
      {kIdentity, {}, 0, kRelative, 0.f, {0.f, 0.f, 0.f, 0.f}, 0, 0},
      {kConstant, {}, 0, kRelative, 0.f, {0.36f, 0.48f, 0.f, 0.8f}, 0, 0},
      {kConstant, {}, 0, kRelative, 0.f, {0.75f, 0.75f, 0.75f, 0.f}, 0, 0},
      // bone 4: a translation of 24 keys (stream keys in two segments); a
      // full rotation of 20 keys whose large steps make every key of its
      // first segment wider than one 57-bit load; identity scale.
      {kAnimated, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 14, 16, 18, 20, 22, 24, 25, 26, 27, 28, 29}, 0b111,
       kRelative, 1.f / 1024.f, {}, 20, 3000},
      {kAnimated, {0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18, 20, 21, 23, 25, 27, 29}, 0, kFull, 1.f / 16384.f,
       {}, 9000, 14000},
      {kIdentity, {}, 0, kRelative, 0.f, {1.f, 1.f, 1.f, 0.f}, 0, 0},
  };
  FittedClip clip;
  clip.name = "golden";
  clip.sample_rate_hz = 30.f;
  clip.frame_count = kFrameCount;
  clip.parents = {-1, 0, 0, 2, 3};
  clip.bone_names = {"root", "left", "right", "tip", "end"};
  clip.settings.bone_tolerances = {BoneTolerance{"right", 0.0005f, 0.1f}};
  detail::Lcg lcg{12345u};
  for (uint32_t t = 0; t < 3 * kBoneCount; ++t) {
    clip.tracks.push_back(detail::make_track(t / 3, static_cast<TrackKind>(t % 3), specs[t], lcg));
  }
  // Scalar tracks, after the bones' (whose codes draw the same numbers as in
  // version 8): the coded mask names only components below the count.
  const TrackSpec scalar_specs[kScalarTrackCount] = {
      // a morph weight at rest: identity (all 0).
      {kIdentity, {}, 0, kRelative, 0.f, {0.f, 0.f, 0.f, 0.f}, 0, 0},
      // a constant float3.
      {kConstant, {}, 0, kRelative, 0.f, {0.25f, -0.5f, 0.75f, 0.f}, 0, 0},
      // a morph weight of 8 keys (5 streamed), a discontinuity at frame 11.
      {kAnimated, {0, 3, 7, 11, 11, 18, 24, 29}, 0b0001, kRelative, 1.f / 4096.f, {}, 300, 4000},
      // a float4 whose z is constant, codes on both sides of 0.
      {kAnimated, {0, 5, 9, 15, 21, 29}, 0b1011, kRelative, 1.f / 512.f, {0.f, 0.f, 1.5f, 0.f}, 60, 900},
      // a float2 of 4 keys (1 streamed).
      {kAnimated, {0, 10, 20, 29}, 0b0011, kRelative, 1.f / 256.f, {}, 30, 600},
  };
  clip.scalars = {
      {"blink", 1, kDefaultScalarPrecision, ScalarTarget::kMorphWeight, "face", 0},
      {"tint", 3, 0.001f, ScalarTarget::kCurve, "", 0},
      {"smile", 1, kDefaultScalarPrecision, ScalarTarget::kMorphWeight, "face", 3},
      {"bounds", 4, 0.01f, ScalarTarget::kCurve, "", 0},
      {"uv_offset", 2, 0.0005f, ScalarTarget::kCurve, "", 0},
  };
  clip.settings.scalar_precisions = {{"tint", 0.001f}, {"bounds", 0.01f}, {"uv_offset", 0.0005f}};
  for (uint32_t s = 0; s < kScalarTrackCount; ++s) {
    clip.tracks.push_back(detail::make_track(s, TrackKind::kScalar, scalar_specs[s], lcg));
  }
  // Version 10: set after the keys, so that they draw version 9's codes.
  clip.tracks[kStepTrack].interpolation = Interpolation::kStep;
  clip.tracks[kLinearTrack].interpolation = Interpolation::kLinear;
  clip.tracks[clip.bone_track_count() + kLinearScalar].interpolation = Interpolation::kLinear;
  // Version 11: two constant tracks become rest tracks, keeping their values.
  for (const uint32_t t : kRestTracks) clip.tracks[t].coding = TrackCoding::kRest;
  return clip;
}

/// Version 10's fitted clip: make_clip() with the rest tracks constant.
inline FittedClip make_version_ten_clip() {
  FittedClip clip = make_clip();
  for (const uint32_t t : kRestTracks) clip.tracks[t].coding = TrackCoding::kConstant;
  return clip;
}

/// Version 9's fitted clip: version 10's with every track Hermite.
inline FittedClip make_version_nine_clip() {
  FittedClip clip = make_version_ten_clip();
  for (FittedTrack& track : clip.tracks) track.interpolation = Interpolation::kHermite;
  return clip;
}

/// The frame times of the committed poses: every half frame, 0, 0.5, ..., 29.
inline std::vector<float> frame_times() {
  std::vector<float> times;
  for (uint32_t k = 0; k <= 2 * (kFrameCount - 1); ++k) times.push_back(0.5f * static_cast<float>(k));
  return times;
}

/// Bytes of one frame time in a poses file: the bones' floats, then the
/// scalar values.
inline constexpr size_t kPoseBytes = kBoneCount * kFloatsPerBone * sizeof(float);
inline constexpr size_t kFrameTimeBytes = kPoseBytes + kScalarValueCount * sizeof(float);

/// The poses a Player of `view` produces at frame_times(), in order, as raw
/// little-endian floats: per time, per bone, translation xyz, rotation xyzw,
/// scale xyz; then the scalar values (Player::scalar_value_count()).
/// `key_cache_bytes` as for Player's constructor: 0 reads the key stream.
inline std::vector<uint8_t> poses_bytes(const StreamView& view,
                                        size_t key_cache_bytes = Player::kDefaultKeyCacheBytes) {
  std::vector<uint8_t> bytes;
  Player player(view, key_cache_bytes);
  std::vector<Transform> pose(view.bone_count());
  std::vector<float> scalar_values(player.scalar_value_count());
  static_assert(sizeof(Transform) == kFloatsPerBone * sizeof(float));
  for (const float t : frame_times()) {
    player.sample_frame(t, pose, scalar_values);
    const size_t at = bytes.size();
    const size_t pose_bytes = pose.size() * sizeof(Transform);
    bytes.resize(at + pose_bytes + scalar_values.size() * sizeof(float));
    std::memcpy(bytes.data() + at, pose.data(), pose_bytes);
    if (!scalar_values.empty()) {
      std::memcpy(bytes.data() + at + pose_bytes, scalar_values.data(), scalar_values.size() * sizeof(float));
    }
  }
  return bytes;
}

/// How the golden streams are packed; `zstd` for the compressed one.
inline PackSettings pack_settings(bool zstd) {
  PackSettings settings;
  settings.jump_interval_s = kJumpIntervalS;
  settings.zstd = zstd;
  settings.zstd_level = 19;
  settings.source_name = "golden_clip.h";
  return settings;
}

}  // namespace ks::golden
