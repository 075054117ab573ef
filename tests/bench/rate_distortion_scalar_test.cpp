// The rate–distortion sweep of a clip with scalar tracks (morph-target
// weights): their count, their bytes as `keystream measure` counts them,
// their decoded error against their precision, and the scalar tracks over
// it that make a violation; on a generated skinned morph clip, and on
// AnimatedMorphCube when assimp-testmodels is there.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "bench/rate_distortion.h"
#include "keystream/codec/measure.h"
#include "keystream/codec/pack.h"
#include "keystream/runtime/stream_view.h"
#include "tests/bench/rate_distortion_checks.h"
#include "tests/io/morph_test_files.h"
#include "tests/temp_dir.h"

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

fs::path morph_cube_path() {
  return fs::path(KS_ASSIMP_MODELS_DIR) / "glTF2/glTF-Sample-Models/AnimatedMorphCube-glTF/AnimatedMorphCube.gltf";
}

// A fitted clip of `n` scalar tracks (after one bone's three tracks), each
// held to `precision` and met, as the fit saw it.
FittedClip fitted_with_scalars(size_t n, float precision) {
  FittedClip fitted = fitted_with_bones(1);
  fitted.parents = {-1};
  fitted.tracks.resize(3 + n);
  for (size_t s = 0; s < n; ++s) {
    FittedTrack& track = fitted.tracks[3 + s];
    track.kind = TrackKind::kScalar;
    track.bone = static_cast<uint32_t>(s);
    track.threshold = precision;
    FittedScalar scalar;
    scalar.name = "face/" + std::to_string(s);
    scalar.precision = precision;
    fitted.scalars.push_back(scalar);
  }
  return fitted;
}

TrackError scalar_error(float max, uint32_t worst_frame) {
  TrackError e;
  e.max = max;
  e.worst_frame = worst_frame;
  return e;
}

TEST(RateDistortionScalarsOver, NoneWhenEveryTrackIsWithinItsPrecisionAndTheWorstIsByRatio) {
  FittedClip fitted = fitted_with_scalars(3, 1e-4f);
  fitted.scalars[2].precision = 1e-5f;  // a tighter override
  const TrackError errors[] = {scalar_error(8e-5f, 1), scalar_error(1e-4f, 2), scalar_error(9e-6f, 7)};
  RateDistortionPoint point;
  point.scalars_over = 5;  // cleared
  count_scalars_over(fitted, errors, point);
  EXPECT_EQ(point.scalar_tracks, 3u);
  EXPECT_EQ(point.scalars_over, 0u);  // at the precision is within it
  EXPECT_EQ(point.scalars_over_without_floor, 0u);
  EXPECT_FALSE(point.violation());
  EXPECT_FLOAT_EQ(point.max_scalar_error, 1e-4f);
  // At 100% of its precision, face/1 is the worst (face/0 80%, face/2 90%).
  EXPECT_EQ(point.worst_scalar, "face/1");
  EXPECT_FLOAT_EQ(point.worst_scalar_error, 1e-4f);
  EXPECT_FLOAT_EQ(point.worst_scalar_precision, 1e-4f);
  EXPECT_EQ(point.worst_scalar_frame, 2u);

  // By ratio, not by absolute error: the override's 9.5e-6 against 1e-5 is
  // worse than 8e-5 against 1e-4.
  const TrackError by_ratio[] = {scalar_error(8e-5f, 1), scalar_error(1e-5f, 2), scalar_error(9.5e-6f, 7)};
  count_scalars_over(fitted, by_ratio, point);
  EXPECT_EQ(point.worst_scalar, "face/2");
  EXPECT_EQ(point.worst_scalar_frame, 7u);
  EXPECT_FLOAT_EQ(point.max_scalar_error, 8e-5f);
}

TEST(RateDistortionScalarsOver, ATrackOverThatTheFitSawMissIsNoViolation) {
  FittedClip fitted = fitted_with_scalars(2, 1e-4f);
  fitted.tracks[4].threshold_met = false;  // the fit saw face/1 miss (a floor)
  fitted.tracks[4].floor = 3e-4f;
  const TrackError errors[] = {scalar_error(5e-5f, 0), scalar_error(3e-4f, 4)};
  RateDistortionPoint point;
  count_scalars_over(fitted, errors, point);
  EXPECT_EQ(point.scalars_over, 1u);
  EXPECT_EQ(point.scalars_over_without_floor, 0u);
  EXPECT_FALSE(point.violation());
  EXPECT_EQ(point.worst_scalar, "face/1");
  EXPECT_EQ(point.worst_scalar_frame, 4u);
}

TEST(RateDistortionScalarsOver, ATrackOverThatTheFitBelievedWithinIsAViolation) {
  const FittedClip fitted = fitted_with_scalars(2, 1e-4f);
  const TrackError errors[] = {scalar_error(5e-5f, 0), scalar_error(2e-4f, 3)};
  RateDistortionPoint point;
  count_scalars_over(fitted, errors, point);
  EXPECT_EQ(point.scalars_over, 1u);
  EXPECT_EQ(point.scalars_over_without_floor, 1u);
  EXPECT_TRUE(point.violation());
  EXPECT_EQ(point.bones_over, 0u);  // the bones have nothing to do with it

  // A scalar track the fit has no record of was promised nothing: over any error.
  const FittedClip no_record = fitted_with_bones(1);
  const TrackError one[] = {scalar_error(1e-7f, 0)};
  RateDistortionPoint unrecorded;
  count_scalars_over(no_record, one, unrecorded);
  EXPECT_EQ(unrecorded.scalars_over, 1u);
  EXPECT_TRUE(unrecorded.violation());
  EXPECT_EQ(unrecorded.worst_scalar, "scalar 0");
}

TEST(RateDistortionScalarsOver, NothingToReportWithoutScalarTracks) {
  RateDistortionPoint point;
  point.worst_scalar = "stale";
  count_scalars_over(fitted_with_bones(2), {}, point);
  EXPECT_EQ(point.scalar_tracks, 0u);
  EXPECT_EQ(point.scalars_over, 0u);
  EXPECT_TRUE(point.worst_scalar.empty());
  EXPECT_EQ(point.max_scalar_error, 0.f);
}

// Every point of a clip with scalar tracks: their count, their bytes as
// `keystream measure` counts them on an independent pack, their error
// within the default precision (they are fitted at it whatever E is, so
// their bytes do not change along the sweep), and the bones' bound held.
void expect_scalar_point(const RateDistortionPoint& p, const ImportedClip& clip) {
  SCOPED_TRACE(p.label);
  expect_bound_held(p);
  expect_sizes_consistent(p, clip);
  EXPECT_EQ(p.scalar_tracks, clip.clip.scalars.size());
  EXPECT_EQ(p.scalars_over, 0u);
  EXPECT_FALSE(p.violation());
  EXPECT_LE(p.max_scalar_error, kDefaultScalarPrecision);
  EXPECT_EQ(p.worst_scalar_precision, kDefaultScalarPrecision);
  EXPECT_TRUE(std::any_of(clip.clip.scalars.begin(), clip.clip.scalars.end(), [&](const ScalarTrack& t) {
    return t.name == p.worst_scalar;
  })) << p.worst_scalar;
  EXPECT_LT(p.worst_scalar_frame, clip.clip.frame_count);
}

void expect_scalar_sweep(const ImportedClip& clip) {
  ASSERT_FALSE(clip.clip.scalars.empty());
  const float tolerances[] = {kAclDefaultTolerance_m, 0.01f};
  const Result<std::vector<RateDistortionPoint>> sweep =
      sweep_rate_distortion(clip, tolerances, kAclDefaultShell_m, test_threads());
  ASSERT_TRUE(sweep.ok()) << sweep.error();
  const std::vector<RateDistortionPoint>& points = sweep.value();
  ASSERT_EQ(points.size(), 2u);
  for (const RateDistortionPoint& p : points) expect_scalar_point(p, clip);
  EXPECT_EQ(points[0].scalar_bytes, points[1].scalar_bytes);
  EXPECT_EQ(points[0].max_scalar_error, points[1].max_scalar_error);

  // What `keystream compress` and `measure` say of the default stream.
  const Result<FittedClip> fitted = fit_clip(clip.skeleton, clip.clip, FitSettings{}, 1);
  ASSERT_TRUE(fitted.ok()) << fitted.error();
  PackSettings pack_settings = tool_pack_settings();
  pack_settings.source_name = clip.source.filename().string();
  const Result<std::vector<uint8_t>> plain = pack(fitted.value(), pack_settings);
  ASSERT_TRUE(plain.ok()) << plain.error();
  const Result<StreamView> view = StreamView::open(plain.value(), "independent");
  ASSERT_TRUE(view.ok()) << view.error();
  const Result<ClipMeasurement> measured = measure(clip.skeleton, clip.clip, view.value());
  ASSERT_TRUE(measured.ok()) << measured.error();
  const ClipMeasurement& m = measured.value();
  EXPECT_EQ(points[0].stream_bytes, plain.value().size());
  EXPECT_EQ(points[0].scalar_bytes, m.sizes.scalar_bytes);
  EXPECT_EQ(points[0].scalar_bytes, stream_sizes(view.value()).scalar_bytes);
  ASSERT_EQ(m.scalar_tracks.size(), clip.clip.scalars.size());
  float max_error = 0.f;
  for (const TrackError& e : m.scalar_tracks) max_error = std::max(max_error, e.max);
  EXPECT_EQ(points[0].max_scalar_error, max_error);
}

TEST(RateDistortionSweep, SkinnedMorphClipSplitsItsBytesAndHoldsItsScalarPrecision) {
  const test::TempDir dir;
  for (const char* interpolation : {"LINEAR", "CUBICSPLINE"}) {
    SCOPED_TRACE(interpolation);
    test::MorphFileOptions options;
    options.interpolation = interpolation;
    const fs::path path = dir / (std::string(interpolation) + ".gltf");
    const test::MorphFileExpectation expected = test::write_skinned_morph_file(path, options);
    const ImportedClip clip = import_or_fail(path);
    ASSERT_EQ(clip.clip.scalars.size(), expected.track_names.size());
    expect_scalar_sweep(clip);
  }
}

TEST(RateDistortionSweep, AnimatedMorphCubeReportsItsMorphWeights) {
  if (!fs::exists(morph_cube_path())) GTEST_SKIP() << morph_cube_path() << " is not there";
  const ImportedClip clip = import_or_fail(morph_cube_path());
  EXPECT_EQ(clip.clip.scalars.size(), 2u);  // two targets: thin and angle
  expect_scalar_sweep(clip);
}

}  // namespace
}  // namespace ks::bench
