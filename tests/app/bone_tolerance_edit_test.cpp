// Per-bone tolerance overrides as the studio edits them
// (app/studio/settings/bone_tolerance_edit.h): one per bone, set, replaced and
// removed; the override that applies to a bone; the bone tree's text. And
// an override set through them reaches the fit.

#include "app/studio/settings/bone_tolerance_edit.h"

#include <gtest/gtest.h>

#include <memory>

#include "app/studio/jobs/fit_job.h"
#include "tests/app/demo_clip.h"

namespace ks::studio {
namespace {

// root - spine - arm - hand, and a leg on the root.
Skeleton chain_skeleton() {
  Skeleton skeleton;
  skeleton.bone_names = {"root", "spine", "arm", "hand", "leg"};
  skeleton.parents = {-1, 0, 1, 2, 0};
  skeleton.rest_pose.assign(5, Transform{});
  return skeleton;
}

TEST(BoneToleranceEdit, SetReplacesTheBonesOverrideAndRemoveTakesItAway) {
  FitSettings fit;
  EXPECT_EQ(find_bone_tolerance(fit, "arm"), nullptr);
  EXPECT_FALSE(remove_bone_tolerance(fit, "arm"));
  set_bone_tolerance(fit, {"arm", 0.0002f, 0.05f});
  set_bone_tolerance(fit, {"leg", 0.0003f, 0.f});
  ASSERT_NE(find_bone_tolerance(fit, "arm"), nullptr);
  EXPECT_EQ(find_bone_tolerance(fit, "arm")->tolerance_m, 0.0002f);
  // Again on the same bone: replaced, not added (fit_clip refuses a bone named twice).
  set_bone_tolerance(fit, {"arm", 0.00005f, 0.f});
  ASSERT_EQ(fit.bone_tolerances.size(), 2u);
  EXPECT_EQ(*find_bone_tolerance(fit, "arm"), (BoneTolerance{"arm", 0.00005f, 0.f}));
  EXPECT_TRUE(fit.validate().ok()) << fit.validate().error();
  EXPECT_TRUE(remove_bone_tolerance(fit, "arm"));
  EXPECT_EQ(find_bone_tolerance(fit, "arm"), nullptr);
  ASSERT_EQ(fit.bone_tolerances.size(), 1u);
  EXPECT_EQ(fit.bone_tolerances[0].bone, "leg");
  EXPECT_FALSE(remove_bone_tolerance(fit, "arm"));
}

TEST(BoneToleranceEdit, TheNearestOverrideAtOrAboveABoneApplies) {
  const Skeleton skeleton = chain_skeleton();
  FitSettings fit;
  for (int b = 0; b < 5; ++b) EXPECT_EQ(overriding_bone(skeleton, fit, b), -1) << b;
  set_bone_tolerance(fit, {"spine", 0.0002f, 0.f});
  set_bone_tolerance(fit, {"hand", 0.00005f, 0.f});
  EXPECT_EQ(overriding_bone(skeleton, fit, 0), -1);  // above every override
  EXPECT_EQ(overriding_bone(skeleton, fit, 1), 1);   // its own
  EXPECT_EQ(overriding_bone(skeleton, fit, 2), 1);   // inherited
  EXPECT_EQ(overriding_bone(skeleton, fit, 3), 3);   // its own, deeper
  EXPECT_EQ(overriding_bone(skeleton, fit, 4), -1);  // another branch
  EXPECT_EQ(overriding_bone(skeleton, fit, 99), -1);
  EXPECT_EQ(overriding_bone(skeleton, fit, -1), -1);
}

TEST(BoneToleranceEdit, ErrorPairsHaveTheTolerancesDecimals) {
  EXPECT_EQ(format_error_pair_mm(0.00008f, 0.0001f), "0.08 / 0.10 mm");
  EXPECT_EQ(format_error_pair_mm(0.0004f, 0.001f), "0.4 / 1.0 mm");
  EXPECT_EQ(format_error_pair_mm(0.000004f, 0.00001f), "0.004 / 0.010 mm");
  EXPECT_EQ(format_error_pair_mm(0.0021f, 0.01f), "2.1 / 10.0 mm");
  // Over the tolerance but equal at two decimals: more decimals tell them apart.
  EXPECT_EQ(format_error_pair_mm(0.0001004f, 0.0001f), "0.1004 / 0.1000 mm");
}

TEST(BoneToleranceEdit, AnOverrideReachesTheFit) {
  const Skeleton& skeleton = demo_clip()->skeleton;
  CodecSettings settings;
  const std::string& bone = skeleton.bone_names[1];
  set_bone_tolerance(settings.fit, {bone, 0.0005f, 0.1f});
  const std::shared_ptr<const FitResult> result = run_fit(demo_clip(), settings, 1, 1);
  ASSERT_TRUE(result->error.empty()) << result->error;
  EXPECT_EQ(result->bone_tolerance_m[1], 0.0005f);
  EXPECT_EQ(result->bone_shell_distance_m[1], 0.1f);
  EXPECT_EQ(result->bone_tolerance_m[0], settings.fit.tolerance_m);
  // Removing it gives the clip-wide tolerance back.
  ASSERT_TRUE(remove_bone_tolerance(settings.fit, bone));
  const std::shared_ptr<const FitResult> again = run_fit(demo_clip(), settings, 1, 1);
  ASSERT_TRUE(again->error.empty()) << again->error;
  EXPECT_EQ(again->bone_tolerance_m[1], settings.fit.tolerance_m);
}

}  // namespace
}  // namespace ks::studio
