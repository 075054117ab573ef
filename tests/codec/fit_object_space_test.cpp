#include "keystream/codec/fit.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "keystream/codec/error_budget.h"
#include "tests/codec/fit_test_support.h"
#include "tests/codec/random_clip.h"

// The object-space promise (DESIGN §5): every virtual vertex of every bone
// within the bone's tolerance at every source frame, on the decoded stream.

namespace ks {
namespace {

namespace fs = std::filesystem;
using test::expect_object_space_promise;
using test::fit_or_fail;
using test::Sampled;
using test::unit_axis;

TEST(FitObjectSpace, EveryBoneIsWithinItsToleranceOnRandomClips) {
  uint32_t bones = 0, met = 0, keys = 0;
  for (uint32_t seed = 1; seed <= 40; ++seed) {
    test::RandomClipOptions options;
    options.max_bones = 6;
    options.max_frames = 120;
    const test::RandomClip random = test::make_random_clip(seed, options);
    test::TestRandom rng(seed + 1000);
    FitSettings settings;
    settings.tolerance_m = std::pow(10.f, rng.uniform(-4.5f, -2.f));
    settings.shell_distance_m = std::pow(10.f, rng.uniform(-2.f, 0.f));
    SCOPED_TRACE(::testing::Message() << "seed " << seed << ", " << random.skeleton.bone_count() << " bones, "
                                      << random.clip.frame_count << " frames, E " << settings.tolerance_m << " m at "
                                      << settings.shell_distance_m << " m");
    Result<FittedClip> fitted = fit_clip(random.skeleton, random.clip, settings);
    ASSERT_TRUE(fitted.ok()) << fitted.error();
    for (const BoneFit& bone : fitted.value().bones) {
      if (!bone.met()) {
        // Float32 cannot hold every rotation that finely: reported, never silent.
        EXPECT_GT(bone.floor_m, 0.5f * bone.tolerance_m)
            << "bone " << (&bone - fitted.value().bones.data()) << ": " << bone.max_error_m << " m at frame "
            << bone.worst_frame << ", floor " << bone.floor_m << " m";
      }
      EXPECT_EQ(bone.tolerance_m, settings.tolerance_m);
      EXPECT_EQ(bone.shell_distance_m, settings.shell_distance_m);
      ++bones;
      met += bone.met() ? 1 : 0;
    }
    EXPECT_EQ(fitted.value().bound_met(), std::all_of(fitted.value().bones.begin(), fitted.value().bones.end(),
                                                      [](const BoneFit& b) { return b.met(); }));
    expect_object_space_promise(random.skeleton, random.clip, fitted.value());
    keys += static_cast<uint32_t>(fitted.value().key_count());
    if (HasFailure()) return;
  }
  // Random clips of ordinary sizes meet ordinary tolerances (a few of the
  // tightest, at levers of metres, reach float32's floor).
  EXPECT_GE(met, bones - bones / 20);
  EXPECT_GT(keys, 0u);
}

// Two arms off a root: root -> arm -> hand, root -> other.
Sampled two_arms() {
  Sampled s;
  s.skeleton.bone_names = {"root", "arm", "hand", "other"};
  s.skeleton.parents = {-1, 0, 1, 0};
  s.skeleton.rest_pose.assign(4, Transform{});
  s.clip.name = "two_arms";
  s.clip.frame_count = 90;
  s.clip.bones.resize(4);
  for (uint32_t f = 0; f < 90; ++f) {
    const float t = static_cast<float>(f);
    for (uint32_t b = 0; b < 4; ++b) {
      BoneTracks& bone = s.clip.bones[b];
      bone.translations.push_back(b == 0 ? Vec3{0.01f * t, 0.9f, 0.f} : Vec3{0.f, 0.3f, 0.f});
      bone.rotations.push_back(quat_from_axis_angle(unit_axis({0.2f, 0.4f + 0.1f * static_cast<float>(b), 0.9f}),
                                                    0.8f * std::sin(0.05f * t + static_cast<float>(b))));
      bone.scales.push_back({1.f, 1.f, 1.f});
    }
  }
  for (BoneTracks& bone : s.clip.bones) make_rotations_continuous(bone.rotations);
  return s;
}

TEST(FitObjectSpace, ATighterBoneToleranceGivesThatBoneALowerError) {
  const Sampled s = two_arms();
  FitSettings loose;
  loose.tolerance_m = 0.002f;
  const FittedClip plain = fit_or_fail(s, loose);
  const std::vector<float> plain_errors = expect_object_space_promise(s.skeleton, s.clip, plain);
  ASSERT_EQ(plain_errors.size(), 4u);
  ASSERT_GT(plain_errors[2], 0.0002f) << "the hand must be over the override for the test to say anything";
  FitSettings tight = loose;
  tight.bone_tolerances = {BoneTolerance{"hand", 0.0002f, 0.f}};
  const FittedClip fitted = fit_or_fail(s, tight);
  EXPECT_EQ(fitted.bones[2].tolerance_m, 0.0002f);
  EXPECT_EQ(fitted.bones[2].shell_distance_m, 0.03f);
  EXPECT_EQ(fitted.bones[3].tolerance_m, 0.002f);  // a sibling keeps the clip's
  const std::vector<float> errors = expect_object_space_promise(s.skeleton, s.clip, fitted);
  ASSERT_EQ(errors.size(), 4u);
  EXPECT_TRUE(fitted.bones[2].met());
  EXPECT_LE(errors[2], 0.0002f);
  EXPECT_LT(errors[2], plain_errors[2]);
  EXPECT_GT(fitted.key_count(), plain.key_count());  // it costs keys on the hand's chain
  // The tolerance goes into the stream's metadata with the fit.
  EXPECT_EQ(fitted.settings.bone_tolerances, tight.bone_tolerances);
}

TEST(FitObjectSpace, ALargerShellDistanceOnABoneTightensIt) {
  const Sampled s = two_arms();
  FitSettings settings;
  settings.tolerance_m = 0.001f;
  settings.bone_tolerances = {BoneTolerance{"other", 0.001f, 0.5f}};
  const FittedClip fitted = fit_or_fail(s, settings);
  EXPECT_EQ(fitted.bones[3].shell_distance_m, 0.5f);
  EXPECT_EQ(fitted.bones[1].shell_distance_m, 0.03f);
  expect_object_space_promise(s.skeleton, s.clip, fitted);
  EXPECT_TRUE(fitted.bound_met());
}

TEST(FitObjectSpace, AToleranceBelowTheFloorNamesTheBoneAndTheFloor) {
  // 2 km of root motion cannot be coded to 1 um.
  Sampled s = two_arms();
  for (uint32_t f = 0; f < s.clip.frame_count; ++f) {
    s.clip.bones[0].translations[f].x = 1000.f * std::sin(0.1f * static_cast<float>(f));
  }
  FitSettings settings;
  settings.tolerance_m = 1e-6f;
  const FittedClip fitted = fit_or_fail(s, settings);
  EXPECT_FALSE(fitted.bound_met());
  EXPECT_FALSE(fitted.bones[0].met());
  EXPECT_GT(fitted.bones[0].floor_m, settings.tolerance_m);
  EXPECT_LT(fitted.bones[0].worst_frame, s.clip.frame_count);
  expect_object_space_promise(s.skeleton, s.clip, fitted);
}


// The bones at or below `bone`.
std::vector<bool> subtree_of(const Skeleton& skeleton, uint32_t bone) {
  std::vector<bool> below(skeleton.bone_count(), false);
  below[bone] = true;
  for (uint32_t b = bone + 1; b < skeleton.bone_count(); ++b) {
    const int32_t parent = skeleton.parents[b];
    below[b] = parent >= 0 && below[static_cast<uint32_t>(parent)];
  }
  return below;
}

struct ShapeCase {
  const char* name;
  test::SkeletonShape shape;
  uint32_t min_bones, max_bones;
  float translation_scale_m;  // long levers: bones metres apart
};

// Long chains add errors up, wide fans share one parent's, long levers turn a
// small angle into a large distance; a random bone's override (tighter or
// looser, another shell distance) holds for it and the bones below it.
TEST(FitObjectSpace, ChainsFansAndLongLeversHoldTheirTolerancesAndOverrides) {
  const ShapeCase cases[] = {
      {"chain", test::SkeletonShape::kChain, 8, 14, 0.3f},
      {"fan", test::SkeletonShape::kFan, 10, 20, 0.3f},
      {"long levers", test::SkeletonShape::kRandomTree, 4, 8, 4.f},
  };
  uint32_t fits = 0, met = 0;
  for (const ShapeCase& c : cases) {
    for (uint32_t seed = 1; seed <= 6; ++seed) {
      test::RandomClipOptions options;
      options.shape = c.shape;
      options.min_bones = c.min_bones;
      options.max_bones = c.max_bones;
      options.min_frames = 20;
      options.max_frames = 80;
      options.translation_scale_m = c.translation_scale_m;
      const test::RandomClip random = test::make_random_clip(seed * 7919u, options);
      test::TestRandom rng(seed + 500);
      FitSettings settings;
      settings.tolerance_m = std::pow(10.f, rng.uniform(-4.5f, -2.5f));
      settings.shell_distance_m = std::pow(10.f, rng.uniform(-2.f, 0.f));
      const uint32_t overridden = rng.integer(0, random.skeleton.bone_count() - 1);
      const BoneTolerance override_{random.skeleton.bone_names[overridden],
                                    settings.tolerance_m * rng.uniform(0.1f, 3.f), rng.uniform(0.f, 0.5f)};
      settings.bone_tolerances = {override_};
      SCOPED_TRACE(::testing::Message() << c.name << ", seed " << seed << ", " << random.skeleton.bone_count()
                                        << " bones, E " << settings.tolerance_m << " m at " << settings.shell_distance_m
                                        << " m, bone " << overridden << " " << override_.tolerance_m << " m at "
                                        << override_.shell_distance_m << " m");
      Result<FittedClip> fitted = fit_clip(random.skeleton, random.clip, settings);
      ASSERT_TRUE(fitted.ok()) << fitted.error();
      const std::vector<bool> below = subtree_of(random.skeleton, overridden);
      const float override_shell = override_.shell_distance_m > 0.f ? override_.shell_distance_m : settings.shell_distance_m;
      for (uint32_t b = 0; b < random.skeleton.bone_count(); ++b) {
        const BoneFit& bone = fitted.value().bones[b];
        EXPECT_EQ(bone.tolerance_m, below[b] ? override_.tolerance_m : settings.tolerance_m) << "bone " << b;
        EXPECT_EQ(bone.shell_distance_m, below[b] ? override_shell : settings.shell_distance_m) << "bone " << b;
      }
      expect_object_space_promise(random.skeleton, random.clip, fitted.value());
      ++fits;
      met += fitted.value().bound_met() ? 1 : 0;
      for (const BoneFit& bone : fitted.value().bones) {
        // A miss only on float32's floor: translations tens of metres long
        // code to micrometres, and a chain adds them up.
        if (!bone.met()) {
          EXPECT_GT(bone.floor_m, bone.tolerance_m) << "bone " << (&bone - fitted.value().bones.data());
        }
      }
      if (HasFailure()) return;
    }
  }
  // Floors are rare: only the tightest tolerances on the longest chains.
  EXPECT_GE(met, fits - fits / 6);
}

// Every shared clip at 0.01, 0.1 (the default) and 1 mm: every bone holds,
// checked on the packed stream, and a looser tolerance never costs bytes.
class FitSharedClipAtTolerance : public ::testing::TestWithParam<fs::path> {};

TEST_P(FitSharedClipAtTolerance, EveryBoneHoldsAtEveryFrame) {
  ASSERT_TRUE(fs::exists(GetParam())) << GetParam();
  for (const ImportedClip& imported : test::import_every_animation(GetParam())) {
    SCOPED_TRACE("animation \"" + imported.clip.name + "\"");
    size_t previous_keys = SIZE_MAX;
    for (const float tolerance_mm : {0.01f, 0.1f, 1.f}) {
      SCOPED_TRACE(::testing::Message() << tolerance_mm << " mm");
      FitSettings settings;
      settings.tolerance_m = tolerance_mm * 1e-3f;
      Result<FittedClip> fitted = fit_clip(imported.skeleton, imported.clip, settings, 2);
      ASSERT_TRUE(fitted.ok()) << fitted.error();
      // A bone may miss only on a floor above its tolerance: Fox's joints,
      // metres apart in its units, turn float32's rotation codes into
      // 0.01-0.03 mm; that is reported, never silent.
      for (const BoneFit& bone : fitted.value().bones) {
        if (bone.met()) continue;
        EXPECT_GT(bone.floor_m, bone.tolerance_m)
            << imported.skeleton.bone_names[static_cast<size_t>(&bone - fitted.value().bones.data())] << ": "
            << bone.max_error_m << " m at frame " << bone.worst_frame << ", floor " << bone.floor_m << " m";
      }
      expect_object_space_promise(imported.skeleton, imported.clip, fitted.value());
      EXPECT_LE(fitted.value().key_count(), previous_keys);
      previous_keys = fitted.value().key_count();
      if (HasFailure()) return;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(SharedClips, FitSharedClipAtTolerance, ::testing::ValuesIn(test::shipped_clip_files()),
                         test::clip_test_name);

}  // namespace
}  // namespace ks
