#pragma once
// Random clips for property tests: a random skeleton and a RawClip whose
// tracks mix the motions real clips have (constant, smooth, ramps, noise,
// fast spins, steps that become discontinuities, tiny motions below the
// thresholds). Deterministic per seed with any standard library: the values
// come from std::mt19937 (whose sequence the standard fixes) through the
// helpers below, not through std::uniform_*_distribution (whose mapping it
// does not).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "keystream/clip/raw_clip.h"
#include "keystream/clip/skeleton.h"
#include "keystream/runtime/transform.h"

namespace ks::test {

/// What a random clip may contain.
/// How the bones of a random skeleton hang together.
enum class SkeletonShape : uint8_t {
  kRandomTree,  // each bone under a random earlier bone (a few extra roots)
  kChain,       // each bone under the one before: errors add up along one long chain
  kFan,         // every bone under the first: many siblings share one parent's error
};

struct RandomClipOptions {
  SkeletonShape shape = SkeletonShape::kRandomTree;
  uint32_t min_bones = 1;            // default 1
  uint32_t max_bones = 5;            // default 5
  uint32_t min_frames = 2;           // default 2
  uint32_t max_frames = 90;          // default 90
  bool allow_steps = true;           // tracks that jump between two frames; default on
  float translation_scale_m = 0.5f;  // metres, typical size of a translation motion; default 0.5
  /// Share of the bone tracks made keyed, as a glTF LINEAR or STEP channel
  /// is (add_random_source_keys); default 0.25.
  float keyed_share = 0.25f;
};

struct RandomClip {
  Skeleton skeleton;
  RawClip clip;
};

/// A source of deterministic random numbers for test data.
class TestRandom {
 public:
  explicit TestRandom(uint32_t seed) : m_engine(seed) {}
  /// Uniform in [0, 1).
  float unit() { return static_cast<float>(static_cast<double>(m_engine()) / 4294967296.0); }
  /// Uniform in [lo, hi).
  float uniform(float lo, float hi) { return lo + (hi - lo) * unit(); }
  /// Uniform integer in [lo, hi] (hi - lo < 2^32).
  uint32_t integer(uint32_t lo, uint32_t hi) {
    return lo + static_cast<uint32_t>(static_cast<uint64_t>(m_engine()) * (uint64_t{hi} - lo + 1) >> 32);
  }
  /// True with probability p.
  bool chance(float p) { return unit() < p; }
  uint32_t bits() { return m_engine(); }

 private:
  std::mt19937 m_engine;
};

namespace detail {

enum class Motion : uint32_t { kConstant, kSmooth, kRamp, kNoise, kFast, kStep, kTiny, kCount };

// One scalar channel over `frames` frames with roughly unit amplitude.
inline std::vector<float> random_channel(TestRandom& rng, Motion motion, uint32_t frames, bool allow_steps) {
  std::vector<float> v(frames, 0.f);
  const float offset = rng.uniform(-1.f, 1.f);
  switch (motion) {
    case Motion::kConstant:
    case Motion::kCount:
      for (float& x : v) x = offset;
      break;
    case Motion::kSmooth: {
      const uint32_t waves = rng.integer(1, 3);
      float amp[3], freq[3], phase[3];
      for (uint32_t w = 0; w < waves; ++w) {
        amp[w] = rng.uniform(0.1f, 1.f);
        freq[w] = rng.uniform(0.02f, 0.3f);  // radians per frame
        phase[w] = rng.uniform(0.f, 6.2831853f);
      }
      for (uint32_t f = 0; f < frames; ++f) {
        float x = offset;
        for (uint32_t w = 0; w < waves; ++w) x += amp[w] * std::sin(freq[w] * static_cast<float>(f) + phase[w]);
        v[f] = x;
      }
      break;
    }
    case Motion::kRamp: {
      const float slope = rng.uniform(-0.05f, 0.05f);
      for (uint32_t f = 0; f < frames; ++f) v[f] = offset + slope * static_cast<float>(f);
      break;
    }
    case Motion::kNoise: {
      float x = offset;
      for (uint32_t f = 0; f < frames; ++f) {
        x += rng.uniform(-0.1f, 0.1f);
        v[f] = x;
      }
      break;
    }
    case Motion::kFast: {
      const float speed = rng.uniform(0.3f, 1.2f);  // per frame: several turns over a clip
      for (uint32_t f = 0; f < frames; ++f) v[f] = offset + speed * static_cast<float>(f);
      break;
    }
    case Motion::kStep: {
      const float freq = rng.uniform(0.02f, 0.2f);
      const uint32_t at = frames > 2 ? rng.integer(1, frames - 1) : 1;
      const float jump = allow_steps ? rng.uniform(0.5f, 2.f) : 0.f;
      for (uint32_t f = 0; f < frames; ++f) {
        v[f] = offset + 0.3f * std::sin(freq * static_cast<float>(f)) + (f >= at ? jump : 0.f);
      }
      break;
    }
    case Motion::kTiny:
      for (uint32_t f = 0; f < frames; ++f) v[f] = offset + 1e-6f * std::sin(static_cast<float>(f));
      break;
  }
  return v;
}

inline Motion random_motion(TestRandom& rng) {
  return static_cast<Motion>(rng.integer(0, static_cast<uint32_t>(Motion::kCount) - 1));
}

}  // namespace detail

namespace detail {

// Spherical linear interpolation from a to b (same hemisphere), as glTF
// LINEAR rotations run.
inline Quat slerp(Quat a, Quat b, double s) {
  if (dot(a, b) < 0.f) b = -b;  // the shorter arc
  const double d = std::min(1.0, static_cast<double>(dot(a, b)));
  double w0 = 1.0 - s, w1 = s;
  if (d < 0.9995) {
    const double theta = std::acos(d);
    w0 = std::sin((1.0 - s) * theta) / std::sin(theta);
    w1 = std::sin(s * theta) / std::sin(theta);
  }
  const auto mix = [&](float x, float y) { return static_cast<float>(w0 * x + w1 * y); };
  return normalize(Quat{mix(a.x, b.x), mix(a.y, b.y), mix(a.z, b.z), mix(a.w, b.w)});
}

// Rewrites `values` between the frames of `keys` as `keys` interpolate
// them: the values at the key frames stay, the others follow.
template <class T, class Lerp>
void key_track(std::vector<T>& values, const SourceKeys& keys, Lerp lerp) {
  for (size_t k = 0; k + 1 < keys.frames.size(); ++k) {
    const uint32_t from = keys.frames[k];
    const uint32_t to = keys.frames[k + 1];
    for (uint32_t f = from + 1; f < to; ++f) {
      values[f] = keys.interpolation == Interpolation::kStep
                      ? values[from]
                      : lerp(values[from], values[to], static_cast<double>(f - from) / (to - from));
    }
  }
}

}  // namespace detail

/// Makes about `share` of the bone tracks of `clip` keyed as glTF LINEAR
/// (slerp for rotations) or STEP channels are: key frames 0, the last and a
/// random few between, the samples between them rewritten as the keys
/// interpolate, and RawClip's SourceKeys set. Deterministic per seed.
inline void add_random_source_keys(RawClip& clip, uint32_t seed, float share) {
  TestRandom rng(seed ^ 0x6B3Eu);
  const uint32_t last = clip.frame_count - 1;
  for (BoneTracks& bone : clip.bones) {
    for (uint32_t kind = 0; kind < 3; ++kind) {
      if (!rng.chance(share) || last < 1) continue;
      SourceKeys& keys = bone.source_keys[kind];
      keys.interpolation = rng.chance(0.7f) ? Interpolation::kLinear : Interpolation::kStep;
      const uint32_t spacing = rng.integer(1, 8);
      keys.frames.clear();
      for (uint32_t f = 0; f < last; f += rng.integer(1, 2 * spacing)) keys.frames.push_back(f);
      keys.frames.push_back(last);
      const auto lerp3 = [](Vec3 a, Vec3 b, double s) {
        return Vec3{static_cast<float>(a.x + s * (b.x - a.x)), static_cast<float>(a.y + s * (b.y - a.y)),
                    static_cast<float>(a.z + s * (b.z - a.z))};
      };
      if (kind == 0) detail::key_track(bone.translations, keys, lerp3);
      if (kind == 1) detail::key_track(bone.rotations, keys, detail::slerp);
      if (kind == 2) detail::key_track(bone.scales, keys, lerp3);
    }
    make_rotations_continuous(bone.rotations);
  }
}

/// A valid skeleton and clip (both pass validate()) drawn from `seed`.
inline RandomClip make_random_clip(uint32_t seed, const RandomClipOptions& options = {}) {
  TestRandom rng(seed);
  RandomClip out;
  const uint32_t bones = rng.integer(options.min_bones, options.max_bones);
  const uint32_t frames = rng.integer(options.min_frames, options.max_frames);
  static constexpr float kRates[] = {24.f, 30.f, 60.f, 29.97f, 120.f};
  Skeleton& skeleton = out.skeleton;
  RawClip& clip = out.clip;
  clip.name = "random_" + std::to_string(seed);
  clip.sample_rate_hz = kRates[rng.integer(0, 4)];
  clip.frame_count = frames;
  for (uint32_t b = 0; b < bones; ++b) {
    skeleton.bone_names.push_back("bone" + std::to_string(b));
    int32_t parent = -1;
    if (b > 0) {
      switch (options.shape) {
        case SkeletonShape::kRandomTree:
          parent = rng.chance(0.1f) ? -1 : static_cast<int32_t>(rng.integer(0, b - 1));
          break;
        case SkeletonShape::kChain:
          parent = static_cast<int32_t>(b - 1);
          break;
        case SkeletonShape::kFan:
          parent = 0;
          break;
      }
    }
    skeleton.parents.push_back(parent);
    skeleton.rest_pose.push_back(Transform{{0.f, 0.2f, 0.f}, {}, {1.f, 1.f, 1.f}});
  }
  clip.bones.resize(bones);
  for (uint32_t b = 0; b < bones; ++b) {
    BoneTracks& tracks = clip.bones[b];
    // Translation: each component its own motion (some constant), metres.
    const detail::Motion t_motion = detail::random_motion(rng);
    std::vector<float> tc[3];
    for (auto& c : tc) {
      c = detail::random_channel(rng, rng.chance(0.3f) ? detail::Motion::kConstant : t_motion, frames,
                                 options.allow_steps);
    }
    // Rotation: an axis turning slowly, an angle following one motion (kFast
    // spins through several turns, crossing hemispheres).
    const detail::Motion r_motion = detail::random_motion(rng);
    const std::vector<float> angle = detail::random_channel(rng, r_motion, frames, options.allow_steps);
    const std::vector<float> tilt = detail::random_channel(rng, detail::Motion::kSmooth, frames, false);
    const float axis_phase = rng.uniform(0.f, 6.2831853f);
    // Scale: mostly constant 1, sometimes animated around 1.
    const bool scale_animated = rng.chance(0.3f);
    const detail::Motion s_motion = detail::random_motion(rng);
    std::vector<float> sc[3];
    for (auto& c : sc) {
      c = scale_animated ? detail::random_channel(rng, s_motion, frames, options.allow_steps)
                         : std::vector<float>(frames, 1.f);
    }
    for (uint32_t f = 0; f < frames; ++f) {
      tracks.translations.push_back(Vec3{tc[0][f], tc[1][f], tc[2][f]} * options.translation_scale_m);
      const float a = axis_phase + 0.5f * tilt[f];
      const Vec3 axis{std::cos(a) * 0.6f, 0.8f, std::sin(a) * 0.6f};
      tracks.rotations.push_back(quat_from_axis_angle(axis * (1.f / length(axis)), 2.f * angle[f]));
      tracks.scales.push_back(scale_animated ? Vec3{1.f + 0.3f * sc[0][f], 1.f + 0.3f * sc[1][f], 1.f + 0.3f * sc[2][f]}
                                             : Vec3{1.f, 1.f, 1.f});
    }
    make_rotations_continuous(tracks.rotations);
  }
  if (options.keyed_share > 0.f) add_random_source_keys(clip, seed, options.keyed_share);
  return out;
}

/// Appends `count` scalar tracks of 1..4 components to `clip`, each
/// component a random motion scaled by up to 10 (values stay where a
/// float32 resolves 1e-4), some all 0 (a morph target at rest), some
/// constant. Deterministic per seed; names "curve<i>".
inline void add_random_scalar_tracks(RawClip& clip, uint32_t seed, uint32_t count) {
  TestRandom rng(seed ^ 0x5CA1A2u);
  for (uint32_t s = 0; s < count; ++s) {
    ScalarTrack track;
    track.name = "curve" + std::to_string(s);
    track.components = rng.integer(1, kMaxScalarComponents);
    track.values.assign(size_t{clip.frame_count} * track.components, 0.f);
    const bool at_rest = rng.chance(0.15f);
    const float scale = rng.chance(0.5f) ? 1.f : rng.uniform(0.01f, 10.f);
    for (uint32_t c = 0; c < track.components && !at_rest; ++c) {
      const std::vector<float> channel = detail::random_channel(rng, detail::random_motion(rng), clip.frame_count, true);
      for (uint32_t f = 0; f < clip.frame_count; ++f) track.values[size_t{f} * track.components + c] = scale * channel[f];
    }
    if (rng.chance(0.3f)) {
      track.target = ScalarTarget::kMorphWeight;
      track.node = "face";
      track.target_index = s;
    }
    clip.scalars.push_back(std::move(track));
  }
}

}  // namespace ks::test
