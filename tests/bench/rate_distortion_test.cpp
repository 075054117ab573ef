// The rate–distortion sweep over object-space tolerances: the tolerances it
// refuses, the error bound on every point (measured on the decoded stream),
// sizes that agree with an independent pack and StreamSizes, sizes that fall
// as the tolerance loosens, and the bones-over count that tells a floor the
// fit reported from a broken bound. On the committed demo clip always, and
// on a shared BVH clip when ../shared/clips is there. (Clips with scalar
// tracks: rate_distortion_scalar_test.cpp.)

#include "bench/rate_distortion.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "keystream/codec/measure.h"
#include "keystream/codec/pack.h"
#include "keystream/runtime/key_cache.h"
#include "keystream/runtime/player.h"
#include "keystream/runtime/stream_view.h"
#include "tests/bench/rate_distortion_checks.h"

namespace ks::bench {
namespace {

namespace fs = std::filesystem;
using checks::expect_bound_held;
using checks::expect_sizes_consistent;
using checks::fitted_with_bones;
using checks::import_or_fail;
using checks::kAclDefaultShell_m;
using checks::kAclDefaultTolerance_m;
using checks::test_threads;

fs::path demo_path() {
  return fs::path(KS_ASSETS_DIR) / "demo_walk.glb";
}
fs::path bvh_path() {
  return fs::path(KS_CLIPS_DIR) / "cmu_cc4_001_14.bvh";
}

TEST(RateDistortionSettings, RefusesTolerancesAndDistancesThatAreNotPositiveNumbers) {
  for (const float bad : {0.f, -0.f, -1e-4f, std::numeric_limits<float>::quiet_NaN(),
                          std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity()}) {
    const Result<FitSettings> by_tolerance = tolerance_fit_settings(bad, kAclDefaultShell_m);
    ASSERT_FALSE(by_tolerance.ok()) << bad;
    EXPECT_NE(by_tolerance.error().find("tolerance"), std::string::npos) << by_tolerance.error();
    const Result<FitSettings> by_distance = tolerance_fit_settings(kAclDefaultTolerance_m, bad);
    ASSERT_FALSE(by_distance.ok()) << bad;
    EXPECT_NE(by_distance.error().find("shell distance"), std::string::npos) << by_distance.error();
  }
}

TEST(RateDistortionSettings, SetTheToleranceAndShellDistanceAndNothingElse) {
  // ACL's default is also keystream's: the point a user compares first.
  const Result<FitSettings> acl = tolerance_fit_settings(kAclDefaultTolerance_m, kAclDefaultShell_m);
  ASSERT_TRUE(acl.ok()) << acl.error();
  EXPECT_EQ(acl.value(), FitSettings{});

  const Result<FitSettings> loose = tolerance_fit_settings(0.002f, 0.1f);
  ASSERT_TRUE(loose.ok()) << loose.error();
  FitSettings expected;
  expected.error_mode = ErrorMode::kObjectSpace;
  expected.tolerance_m = 0.002f;
  expected.shell_distance_m = 0.1f;
  EXPECT_EQ(loose.value(), expected);
  EXPECT_TRUE(loose.value().bone_tolerances.empty());
}

TEST(RateDistortionSettings, DefaultTolerancesAreValidAscendingAndSpanACLsDefault) {
  const std::vector<float> tolerances = default_tolerances_m();
  ASSERT_GE(tolerances.size(), 2u);
  EXPECT_TRUE(std::is_sorted(tolerances.begin(), tolerances.end()));
  EXPECT_EQ(std::adjacent_find(tolerances.begin(), tolerances.end()), tolerances.end());
  EXPECT_NE(std::find(tolerances.begin(), tolerances.end(), kAclDefaultTolerance_m), tolerances.end());
  EXPECT_FLOAT_EQ(tolerances.front(), 0.00001f);  // 0.01 mm
  EXPECT_FLOAT_EQ(tolerances.back(), 0.01f);      // 10 mm
  for (const float tolerance : tolerances) {
    EXPECT_TRUE(tolerance_fit_settings(tolerance, kAclDefaultShell_m).ok()) << tolerance;
  }
}

TEST(RateDistortionSettings, LabelsSayMillimetresAtCentimetresOrMetres) {
  EXPECT_EQ(tolerance_label(0.0001f, 0.03f), "0.1 mm at 3 cm");
  EXPECT_EQ(tolerance_label(0.000117f, 0.03f), "0.117 mm at 3 cm");
  EXPECT_EQ(tolerance_label(0.01f, 1.f), "10 mm at 1 m");
}

TEST(RateDistortionSweep, RefusesInvalidTolerancesNamingTheClip) {
  const ImportedClip clip = import_or_fail(demo_path());
  ASSERT_FALSE(clip.clip.bones.empty());
  for (const float bad : {0.f, -2e-4f, std::numeric_limits<float>::quiet_NaN()}) {
    const Result<RateDistortionPoint> point = measure_point(clip, bad, kAclDefaultShell_m, 1);
    ASSERT_FALSE(point.ok()) << bad;
    EXPECT_NE(point.error().find("demo_walk.glb"), std::string::npos) << point.error();
    // One bad tolerance refuses the whole sweep, good ones before it included.
    const float tolerances[] = {kAclDefaultTolerance_m, bad};
    const Result<std::vector<RateDistortionPoint>> sweep =
        sweep_rate_distortion(clip, tolerances, kAclDefaultShell_m, 1);
    ASSERT_FALSE(sweep.ok()) << bad;
    EXPECT_NE(sweep.error().find("demo_walk.glb"), std::string::npos) << sweep.error();
  }
  const Result<RateDistortionPoint> no_shell = measure_point(clip, kAclDefaultTolerance_m, 0.f, 1);
  ASSERT_FALSE(no_shell.ok());
  EXPECT_NE(no_shell.error().find("shell distance"), std::string::npos) << no_shell.error();
}

TEST(RateDistortionSweep, DemoClipHoldsTheBoundAtEveryTolerance) {
  const ImportedClip clip = import_or_fail(demo_path());
  const std::vector<float> tolerances = default_tolerances_m();
  const Result<std::vector<RateDistortionPoint>> sweep =
      sweep_rate_distortion(clip, tolerances, kAclDefaultShell_m, test_threads());
  ASSERT_TRUE(sweep.ok()) << sweep.error();
  ASSERT_EQ(sweep.value().size(), tolerances.size());
  for (size_t i = 0; i < tolerances.size(); ++i) {
    const RateDistortionPoint& point = sweep.value()[i];
    EXPECT_EQ(point.tolerance_m, tolerances[i]);
    EXPECT_EQ(point.shell_distance_m, kAclDefaultShell_m);
    expect_bound_held(point);
    expect_sizes_consistent(point, clip);
  }
}

// Another shell distance: each bone is measured at its own shell, and the
// bound holds there (the 3 cm column then says nothing about the bound).
TEST(RateDistortionSweep, DemoClipHoldsTheBoundAtAnotherShellDistance) {
  const ImportedClip clip = import_or_fail(demo_path());
  const Result<RateDistortionPoint> point = measure_point(clip, 0.0005f, 0.5f, test_threads());
  ASSERT_TRUE(point.ok()) << point.error();
  EXPECT_EQ(point.value().label, "0.5 mm at 50 cm");
  expect_bound_held(point.value());
  expect_sizes_consistent(point.value(), clip);
}

TEST(RateDistortionSweep, SizesMatchAnIndependentPackAndStreamSizes) {
  const ImportedClip clip = import_or_fail(demo_path());
  const Result<RateDistortionPoint> point =
      measure_point(clip, kAclDefaultTolerance_m, kAclDefaultShell_m, test_threads());
  ASSERT_TRUE(point.ok()) << point.error();
  EXPECT_EQ(point.value().label, "0.1 mm at 3 cm");

  // What `keystream compress` does with default settings.
  const Result<FittedClip> fitted = fit_clip(clip.skeleton, clip.clip, FitSettings{}, 1);
  ASSERT_TRUE(fitted.ok()) << fitted.error();
  PackSettings pack_settings = tool_pack_settings();
  pack_settings.source_name = clip.source.filename().string();
  const Result<std::vector<uint8_t>> plain = pack(fitted.value(), pack_settings);
  ASSERT_TRUE(plain.ok()) << plain.error();
  pack_settings.zstd = true;
  const Result<std::vector<uint8_t>> zstd = pack(fitted.value(), pack_settings);
  ASSERT_TRUE(zstd.ok()) << zstd.error();
  const Result<StreamView> view = StreamView::open(plain.value(), "independent");
  ASSERT_TRUE(view.ok()) << view.error();
  const StreamSizes sizes = stream_sizes(view.value());
  const Result<ClipMeasurement> measured = measure(clip.skeleton, clip.clip, view.value());
  ASSERT_TRUE(measured.ok()) << measured.error();

  const RateDistortionPoint& p = point.value();
  EXPECT_EQ(p.stream_bytes, plain.value().size());
  EXPECT_EQ(p.metadata_bytes, sizes.metadata_bytes);
  EXPECT_EQ(p.table_bytes, sizes.table_bytes);
  EXPECT_EQ(p.key_bytes, sizes.key_bytes);
  EXPECT_EQ(p.jump_frame_bytes, sizes.jump_frame_bytes);
  // Auto picks none for a clip whose keys the default player caches (the demo's).
  EXPECT_EQ(p.jump_frame_bytes > 0, KeyCache::bytes_for(view.value()) > Player::kDefaultKeyCacheBytes);
  EXPECT_EQ(p.stream_bytes_without_metadata(), sizes.bytes_without_metadata());
  EXPECT_EQ(p.zstd_bytes, zstd.value().size());
  EXPECT_EQ(p.raw_bytes, sizes.raw_bytes);
  EXPECT_EQ(p.key_count, sizes.key_count);
  EXPECT_EQ(p.key_count, fitted.value().key_count());
  EXPECT_DOUBLE_EQ(p.bits_per_key, sizes.bits_per_key());
  EXPECT_DOUBLE_EQ(p.ratio, sizes.ratio());
  for (int c = 0; c < 4; ++c) EXPECT_EQ(p.tracks_by_coding[c], sizes.tracks_by_coding[c]);
  EXPECT_EQ(p.fit_rounds, fitted.value().rounds);
  // The fit is deterministic whatever the thread count, so the errors are too.
  const ClipMeasurement& m = measured.value();
  for (int d = 0; d < 2; ++d) {
    EXPECT_EQ(p.max_object_error_m[d], m.max_object_error[d]);
    EXPECT_EQ(p.p99_object_error_m[d], m.p99_object_error[d]);
  }
  EXPECT_EQ(p.max_joint_position_error_m, m.max_joint_position_error);
}

// Over the default sweep the demo clip's stream shrinks at every step, and
// never grows by a key. Measured, not guaranteed by construction (the
// object-space rounds tighten chains differently at each tolerance), but a
// codec whose bytes rise as the tolerance loosens has a bug worth seeing.
TEST(RateDistortionSweep, DemoStreamShrinksAsTheToleranceLoosens) {
  const ImportedClip clip = import_or_fail(demo_path());
  const std::vector<float> tolerances = default_tolerances_m();
  const Result<std::vector<RateDistortionPoint>> sweep =
      sweep_rate_distortion(clip, tolerances, kAclDefaultShell_m, test_threads());
  ASSERT_TRUE(sweep.ok()) << sweep.error();
  const std::vector<RateDistortionPoint>& points = sweep.value();
  for (size_t i = 1; i < points.size(); ++i) {
    SCOPED_TRACE(points[i - 1].label + " -> " + points[i].label);
    EXPECT_LT(points[i].stream_bytes_without_metadata(), points[i - 1].stream_bytes_without_metadata());
    EXPECT_LE(points[i].key_count, points[i - 1].key_count);
    EXPECT_GT(points[i].ratio, points[i - 1].ratio);
    // The same names and tolerances, whatever the tolerance's digits.
    EXPECT_NEAR(double(points[i].metadata_bytes), double(points[i - 1].metadata_bytes), 8.0);
  }
  // Three decades looser is far smaller: the sweep measures something.
  EXPECT_LT(2 * points.back().stream_bytes_without_metadata(), points.front().stream_bytes_without_metadata());
}

TEST(RateDistortionBonesOver, NoneWhenEveryBoneIsWithinItsTolerance) {
  const FittedClip fitted = fitted_with_bones(3);
  const float errors[] = {0.f, 0.0009f, 0.001f};  // at the tolerance is within it
  const uint32_t frames[] = {0, 1, 2};
  const std::string names[] = {"hips", "spine", "head"};
  RateDistortionPoint point;
  point.bones_over = 7;  // cleared
  count_bones_over(fitted, errors, frames, names, point);
  EXPECT_EQ(point.bones_over, 0u);
  EXPECT_EQ(point.bones_over_without_floor, 0u);
  EXPECT_FALSE(point.violation());
  EXPECT_EQ(point.floor_m, 0.f);
  EXPECT_TRUE(point.worst_bone.empty());
}

TEST(RateDistortionBonesOver, ABoneOverWithAReportedFloorIsNoViolation) {
  FittedClip fitted = fitted_with_bones(3);
  fitted.bones[1].max_error_m = 0.003f;  // the fit saw it miss ...
  fitted.bones[1].floor_m = 0.0025f;     // ... and named its floor
  fitted.bones[1].worst_frame = 4;
  const float errors[] = {0.0002f, 0.003f, 0.0004f};
  const uint32_t frames[] = {0, 4, 2};
  const std::string names[] = {"hips", "spine", "head"};
  RateDistortionPoint point;
  count_bones_over(fitted, errors, frames, names, point);
  EXPECT_EQ(point.bones_over, 1u);
  EXPECT_EQ(point.bones_over_without_floor, 0u);
  EXPECT_FALSE(point.violation());
  EXPECT_FLOAT_EQ(point.floor_m, 0.0025f);
  EXPECT_EQ(point.bones_over_floor_below_tolerance, 0u);
  EXPECT_EQ(point.worst_bone, "spine");
  EXPECT_FLOAT_EQ(point.worst_bone_error_m, 0.003f);
  EXPECT_FLOAT_EQ(point.worst_bone_tolerance_m, 0.001f);
  EXPECT_FLOAT_EQ(point.worst_bone_floor_m, 0.0025f);
  EXPECT_EQ(point.worst_bone_frame, 4u);

  // A floor below the tolerance does not explain the miss: counted apart,
  // still no violation (the fit named a floor).
  fitted.bones[1].floor_m = 0.0007f;
  RateDistortionPoint short_of_it;
  count_bones_over(fitted, errors, frames, names, short_of_it);
  EXPECT_EQ(short_of_it.bones_over, 1u);
  EXPECT_EQ(short_of_it.bones_over_floor_below_tolerance, 1u);
  EXPECT_FALSE(short_of_it.violation());
}

TEST(RateDistortionBonesOver, ABoneOverWithoutAFloorIsAViolation) {
  // The decoded stream is over where the fit believed the bone met: the
  // player and the fit disagree, and nothing explains the miss.
  FittedClip believed_met = fitted_with_bones(2);
  const float errors[] = {0.0002f, 0.0015f};
  const uint32_t frames[] = {0, 9};
  const std::string names[] = {"hips", "hand"};
  RateDistortionPoint point;
  count_bones_over(believed_met, errors, frames, names, point);
  EXPECT_EQ(point.bones_over, 1u);
  EXPECT_EQ(point.bones_over_without_floor, 1u);
  EXPECT_TRUE(point.violation());
  EXPECT_EQ(point.floor_m, 0.f);
  EXPECT_EQ(point.worst_bone, "hand");
  EXPECT_EQ(point.worst_bone_floor_m, 0.f);
  EXPECT_EQ(point.worst_bone_frame, 9u);

  // The fit saw the miss but named no floor (it gave up): still a violation.
  FittedClip gave_up = fitted_with_bones(2);
  gave_up.bones[1].max_error_m = 0.0015f;
  RateDistortionPoint gave_up_point;
  count_bones_over(gave_up, errors, frames, names, gave_up_point);
  EXPECT_TRUE(gave_up_point.violation());

  // A floor elsewhere does not explain this bone; the worst bone is by
  // ratio to its own tolerance.
  FittedClip mixed = fitted_with_bones(3);
  mixed.bones[0].max_error_m = 0.004f;
  mixed.bones[0].floor_m = 0.0035f;
  mixed.bones[2].tolerance_m = 0.0001f;
  const float mixed_errors[] = {0.004f, 0.0005f, 0.0006f};
  const uint32_t mixed_frames[] = {1, 2, 3};
  const std::string mixed_names[] = {"hips", "spine", "finger"};
  RateDistortionPoint mixed_point;
  count_bones_over(mixed, mixed_errors, mixed_frames, mixed_names, mixed_point);
  EXPECT_EQ(mixed_point.bones_over, 2u);
  EXPECT_EQ(mixed_point.bones_over_without_floor, 1u);
  EXPECT_TRUE(mixed_point.violation());
  EXPECT_FLOAT_EQ(mixed_point.floor_m, 0.0035f);
  EXPECT_EQ(mixed_point.worst_bone, "finger");  // 6x its tolerance, against 4x
}

TEST(RateDistortionBonesOver, ABoneTheFitHasNoRecordOfIsAViolation) {
  const FittedClip local_mode;  // no bones: a local-mode fit
  const float errors[] = {0.0001f};
  const uint32_t frames[] = {3};
  RateDistortionPoint point;
  count_bones_over(local_mode, errors, frames, {}, point);
  EXPECT_EQ(point.bones_over, 1u);
  EXPECT_TRUE(point.violation());
  EXPECT_EQ(point.worst_bone, "bone 0");
}

// At the sweep's tightest tolerance, on the shared glTF clips: a bone over
// its tolerance comes with the floor the fit reported, never without one
// (Fox, modelled about 100 units tall, had bones at a floor there).
TEST(RateDistortionSweep, SharedClipsAtTheTightestToleranceOnlyMissAtAReportedFloor) {
  const char* const files[] = {"Fox.glb", "greenman.glb", "robot.glb", "interpolation_test.gltf", "rigged_simple.gltf"};
  size_t measured = 0;
  for (const char* file : files) {
    const fs::path path = fs::path(KS_CLIPS_DIR) / file;
    if (!fs::exists(path)) continue;
    const ImportedClip clip = import_or_fail(path);
    const Result<RateDistortionPoint> point =
        measure_point(clip, default_tolerances_m().front(), kAclDefaultShell_m, test_threads());
    ASSERT_TRUE(point.ok()) << point.error();
    const RateDistortionPoint& p = point.value();
    SCOPED_TRACE(std::string(file) + " at " + p.label);
    expect_sizes_consistent(p, clip);
    EXPECT_FALSE(p.violation()) << p.bones_over_without_floor << " bones over without a floor, worst " << p.worst_bone
                                << " " << p.worst_bone_error_m * 1e3f << " mm";
    if (p.bones_over > 0) {
      EXPECT_GT(p.floor_m, 0.f);
      EXPECT_FALSE(p.worst_bone.empty());
      EXPECT_GT(p.worst_bone_error_m, p.worst_bone_tolerance_m);
      EXPECT_GT(p.worst_bone_floor_m, 0.f);
      EXPECT_GE(p.max_object_error_m[0], p.worst_bone_error_m);
    } else {
      EXPECT_LE(p.max_object_error_m[0], p.tolerance_m);
    }
    ++measured;
  }
  if (measured == 0) GTEST_SKIP() << "shared clips not in " << KS_CLIPS_DIR;
}

TEST(RateDistortionSweep, BvhClipHoldsTheBoundAndShrinks) {
  if (!fs::exists(bvh_path())) GTEST_SKIP() << bvh_path() << " is not there";
  const ImportedClip clip = import_or_fail(bvh_path());
  // Two decades around ACL's default: enough to see the trend without the
  // minutes of a full sweep under the sanitizers.
  const float tolerances[] = {0.0001f, 0.001f, 0.01f};
  const Result<std::vector<RateDistortionPoint>> sweep =
      sweep_rate_distortion(clip, tolerances, kAclDefaultShell_m, test_threads());
  ASSERT_TRUE(sweep.ok()) << sweep.error();
  const std::vector<RateDistortionPoint>& points = sweep.value();
  for (size_t i = 0; i < points.size(); ++i) {
    expect_bound_held(points[i]);
    expect_sizes_consistent(points[i], clip);
    if (i > 0) {
      EXPECT_LT(points[i].stream_bytes_without_metadata(), points[i - 1].stream_bytes_without_metadata())
          << points[i].label;
    }
  }
}

}  // namespace
}  // namespace ks::bench
