// Keyed sources kept as keyed (DESIGN §5): a track whose source keys it
// sparsely with LINEAR or STEP interpolation is fitted through a subset of
// those keys with that interpolation when that needs no more keys than a
// Hermite curve, and never stores more keys than the source has.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <vector>

#include "keystream/codec/fit.h"
#include "keystream/codec/track_fit.h"
#include "tests/codec/fit_test_support.h"
#include "tests/codec/random_clip.h"

namespace ks {
namespace {

// A vec3 track keyed at `frames` with `values` (x of each key; y and z follow
// from it), sampled at every frame as `interpolation` runs between keys.
std::vector<Sample> keyed_samples(const std::vector<uint32_t>& frames, const std::vector<float>& values,
                                  Interpolation interpolation) {
  std::vector<Sample> samples(frames.back() + 1);
  for (size_t k = 0; k + 1 < frames.size(); ++k) {
    for (uint32_t f = frames[k]; f <= frames[k + 1]; ++f) {
      const float s = static_cast<float>(f - frames[k]) / static_cast<float>(frames[k + 1] - frames[k]);
      const float x = interpolation == Interpolation::kStep ? (f == frames[k + 1] ? values[k + 1] : values[k])
                                                             : values[k] + s * (values[k + 1] - values[k]);
      samples[f] = {x, 0.5f * x - 0.1f, -x, 0.f};
    }
  }
  return samples;
}

const std::vector<uint32_t> kFrames = {0, 3, 7, 8, 15, 21, 30, 32, 40};
const std::vector<float> kValues = {0.f, 0.4f, -0.2f, 0.1f, 0.9f, 0.3f, 0.35f, -0.5f, 0.f};

bool is_subset_of_source(const FittedTrack& track, const std::vector<uint32_t>& frames) {
  return std::all_of(track.keys.begin(), track.keys.end(), [&](const FittedKey& k) {
    return std::binary_search(frames.begin(), frames.end(), uint32_t{k.frame});
  });
}

TEST(KeyedFit, ALinearSourceKeepsASubsetOfItsKeysAtEveryThreshold) {
  const std::vector<Sample> samples = keyed_samples(kFrames, kValues, Interpolation::kLinear);
  const SourceKeys keys{Interpolation::kLinear, kFrames};
  for (const float threshold : {1e-5f, 1e-4f, 1e-3f, 1e-2f, 0.05f, 0.2f, 1.f}) {
    SCOPED_TRACE(threshold);
    TrackFitter fitter(TrackKind::kTranslation, samples, {}, {}, &keys);
    fitter.fit(threshold);
    const FittedTrack& track = fitter.track();
    EXPECT_TRUE(track.threshold_met) << track.max_error;
    EXPECT_LE(track.max_error, threshold);
    if (track.coding != TrackCoding::kAnimated) continue;
    EXPECT_EQ(track.interpolation, Interpolation::kLinear);
    EXPECT_LE(track.keys.size(), kFrames.size());
    EXPECT_TRUE(is_subset_of_source(track, kFrames));
    // The fit's error is the decoded curve's at every frame.
    std::vector<Sample> decoded(samples.size());
    decode_track(track, decoded);
    for (size_t f = 0; f < samples.size(); ++f) {
      EXPECT_LE(track_error(TrackKind::kTranslation, samples[f].data(), decoded[f].data()), track.max_error);
    }
  }
}

TEST(KeyedFit, AStepSourceKeepsItsChangesAndHoldsBetweenThem) {
  const std::vector<Sample> samples = keyed_samples(kFrames, kValues, Interpolation::kStep);
  const SourceKeys keys{Interpolation::kStep, kFrames};
  TrackFitter fitter(TrackKind::kTranslation, samples, {}, {}, &keys);
  fitter.fit(1e-4f);
  const FittedTrack& track = fitter.track();
  EXPECT_TRUE(track.threshold_met) << track.max_error;
  EXPECT_EQ(track.interpolation, Interpolation::kStep);
  EXPECT_LE(track.keys.size(), kFrames.size());
  EXPECT_TRUE(is_subset_of_source(track, kFrames));
  EXPECT_EQ(track.discontinuities, 0u);
  // A Hermite fit of the same samples needs two keys per jump.
  TrackFitter hermite(TrackKind::kTranslation, samples, {});
  hermite.fit(1e-4f);
  EXPECT_GT(hermite.track().keys.size(), track.keys.size());
}

TEST(KeyedFit, ASlerpedRotationSourceKeepsItsKeysWithLinearSegments) {
  // Turns of up to 52 degrees between keys, where nlerp alone runs 0.13
  // degrees from slerp: the bent linear segments follow slerp within 0.004.
  std::vector<Quat> rotations(41);
  const std::vector<float> angles = {0.f, 0.5f, 0.1f, 0.3f, 1.2f, 0.6f, 0.9f, 0.2f, 0.f};
  for (size_t k = 0; k + 1 < kFrames.size(); ++k) {
    const Quat a = quat_from_axis_angle({0.f, 1.f, 0.f}, angles[k]);
    const Quat b = quat_from_axis_angle({0.f, 1.f, 0.f}, angles[k + 1]);
    for (uint32_t f = kFrames[k]; f <= kFrames[k + 1]; ++f) {
      rotations[f] = test::detail::slerp(a, b, static_cast<double>(f - kFrames[k]) / (kFrames[k + 1] - kFrames[k]));
    }
  }
  std::vector<Sample> samples;
  for (const Quat& q : rotations) samples.push_back({q.x, q.y, q.z, q.w});
  const SourceKeys keys{Interpolation::kLinear, kFrames};
  TrackFitter fitter(TrackKind::kRotation, samples, {}, {}, &keys);
  for (const float threshold : {0.5f, 0.05f, 0.01f}) {
    fitter.fit(threshold);
    EXPECT_TRUE(fitter.track().threshold_met) << threshold;
    EXPECT_EQ(fitter.track().interpolation, Interpolation::kLinear) << threshold;
    EXPECT_LE(fitter.track().keys.size(), kFrames.size()) << threshold;
  }
}

TEST(KeyedFit, ADenselyKeyedSmoothSourceStaysHermite) {
  // A key at every frame of a sine: a Hermite curve needs far fewer.
  std::vector<uint32_t> frames(61);
  std::vector<float> values(61);
  for (uint32_t f = 0; f <= 60; ++f) {
    frames[f] = f;
    values[f] = std::sin(0.1f * static_cast<float>(f));
  }
  const std::vector<Sample> samples = keyed_samples(frames, values, Interpolation::kLinear);
  const SourceKeys keys{Interpolation::kLinear, frames};
  TrackFitter fitter(TrackKind::kTranslation, samples, {}, {}, &keys);
  fitter.fit(1e-3f);
  EXPECT_TRUE(fitter.track().threshold_met);
  EXPECT_EQ(fitter.track().interpolation, Interpolation::kHermite);
}

TEST(KeyedFit, KeysThatDoNotSpanTheTrackAreIgnored) {
  const std::vector<Sample> samples = keyed_samples(kFrames, kValues, Interpolation::kLinear);
  for (const std::vector<uint32_t>& frames :
       {std::vector<uint32_t>{3, 40}, std::vector<uint32_t>{0, 39}, std::vector<uint32_t>{0, 7, 7, 40},
        std::vector<uint32_t>{0, 8, 7, 40}}) {
    const SourceKeys keys{Interpolation::kLinear, frames};
    TrackFitter fitter(TrackKind::kTranslation, samples, {}, {}, &keys);
    fitter.fit(1e-3f);
    EXPECT_TRUE(fitter.track().threshold_met);
    EXPECT_EQ(fitter.track().interpolation, Interpolation::kHermite);
  }
}

TEST(KeyedFit, TighteningAKeyedTrackKeepsNoMoreKeysThanItsSource) {
  const std::vector<Sample> samples = keyed_samples(kFrames, kValues, Interpolation::kLinear);
  const SourceKeys keys{Interpolation::kLinear, kFrames};
  TrackFitter fitter(TrackKind::kTranslation, samples, {}, {}, &keys);
  for (const float threshold : {0.3f, 0.1f, 0.01f, 1e-3f, 1e-4f}) {
    fitter.fit(threshold);
    EXPECT_TRUE(fitter.track().threshold_met) << threshold;
    EXPECT_LE(fitter.track().keys.size(), kFrames.size()) << threshold;
  }
}

// How far, in degrees, a bent linear segment runs from slerp over a turn of
// `turn_deg` (docs/curves.md: 0.0002 at 40 degrees, growing as the fifth
// power of the turn).
double bend_residual_deg(double turn_deg) { return 2e-4 * std::pow(turn_deg / 40.0, 5.0); }

// The largest turn between two consecutive key frames of `rotations`, degrees.
float largest_turn_deg(const std::vector<Quat>& rotations, const std::vector<uint32_t>& frames) {
  float largest = 0.f;
  for (size_t k = 0; k + 1 < frames.size(); ++k) {
    largest = std::max(largest, angle_between_deg(rotations[frames[k]], rotations[frames[k + 1]]));
  }
  return largest;
}

// Random clips keyed as glTF LINEAR and STEP channels are (random_clip.h):
// every vec3 track and every step track keeps no more keys than its source
// has; the object-space promise holds on the decoded stream.
TEST(KeyedFit, RandomKeyedClipsStoreNoMoreKeysThanTheirSources) {
  uint32_t keyed_tracks = 0, kept_keyed = 0;
  for (uint32_t seed = 1; seed <= 40; ++seed) {
    test::RandomClipOptions options;
    options.keyed_share = 0.6f;
    const test::RandomClip random = test::make_random_clip(seed, options);
    for (const float tolerance_mm : {0.1f, 1.f, 10.f}) {
      FitSettings settings;
      settings.tolerance_m = tolerance_mm * 1e-3f;
      const test::Sampled sampled{random.skeleton, random.clip};
      const FittedClip fitted = test::fit_or_fail(sampled, settings);
      ASSERT_EQ(fitted.tracks.size(), 3 * random.skeleton.bone_count());
      for (size_t t = 0; t < fitted.tracks.size(); ++t) {
        const SourceKeys& source = random.clip.bones[t / 3].source_keys[t % 3];
        const FittedTrack& track = fitted.tracks[t];
        if (!source.keyed() || track.coding != TrackCoding::kAnimated) continue;
        ++keyed_tracks;
        SCOPED_TRACE(::testing::Message() << "seed " << seed << " track " << t << " at " << tolerance_mm << " mm");
        // A linear rotation keeps its source keys alone where the bent
        // segments follow slerp within half its threshold and the keys'
        // quantization leaves the other half.
        const bool within_bend =
            t % 3 != 1 || source.interpolation == Interpolation::kStep ||
            (bend_residual_deg(largest_turn_deg(random.clip.bones[t / 3].rotations, source.frames)) <=
                 0.5 * track.threshold &&
             track.floor <= 0.5f * track.threshold);
        if (track.interpolation != Interpolation::kHermite) {
          ++kept_keyed;
          EXPECT_EQ(track.interpolation, source.interpolation);
          EXPECT_TRUE(!within_bend || is_subset_of_source(track, source.frames));
        }
        EXPECT_TRUE(!within_bend || track.keys.size() <= source.frames.size())
            << track.keys.size() << " keys, the source " << source.frames.size();
      }
      test::expect_object_space_promise(random.skeleton, random.clip, fitted);
    }
  }
  EXPECT_GT(keyed_tracks, 50u);
  EXPECT_GT(kept_keyed, keyed_tracks / 2);
}

// Every animation of the shared glTF clips at ACL's default tolerance: a
// keyed vec3 or step track keeps no more keys than its source has, and the
// linear rotations no more over all: a bent segment follows slerp within
// 0.00001 degrees for a 20-degree turn, but Fox's rotations at 0.1 mm are
// held to 0.00002 degrees with a quantization floor of 0.00001, where a few
// tracks take a key or two more than their source.
TEST(KeyedFit, SharedGltfClipsStoreNoMoreKeysThanTheirSources) {
  const std::filesystem::path clips = KS_CLIPS_DIR;
  uint32_t keyed_tracks = 0, kept_keyed = 0;
  size_t rotation_keys = 0, rotation_source_keys = 0;
  for (const char* file : {"Fox.glb", "robot.glb", "interpolation_test.gltf", "greenman.glb", "rigged_simple.gltf"}) {
    for (const ImportedClip& clip : test::import_every_animation(clips / file)) {
      SCOPED_TRACE(::testing::Message() << file << " " << clip.clip.name);
      const test::Sampled sampled{clip.skeleton, clip.clip};
      const FittedClip fitted = test::fit_or_fail(sampled, FitSettings{});
      ASSERT_EQ(fitted.tracks.size(), 3 * clip.skeleton.bone_count());
      for (size_t t = 0; t < fitted.tracks.size(); ++t) {
        const SourceKeys& source = clip.clip.bones[t / 3].source_keys[t % 3];
        const FittedTrack& track = fitted.tracks[t];
        if (!source.keyed() || track.coding != TrackCoding::kAnimated) continue;
        ++keyed_tracks;
        kept_keyed += track.interpolation != Interpolation::kHermite ? 1 : 0;
        if (t % 3 == 1 && source.interpolation == Interpolation::kLinear) {
          rotation_keys += track.keys.size();
          rotation_source_keys += source.frames.size();
          continue;
        }
        EXPECT_LE(track.keys.size(), source.frames.size()) << "track " << t;
      }
      EXPECT_TRUE(fitted.bound_met());
    }
  }
  EXPECT_LE(rotation_keys, rotation_source_keys);
  EXPECT_GT(keyed_tracks, 100u);
  EXPECT_GT(kept_keyed, keyed_tracks / 4);
}

}  // namespace
}  // namespace ks
