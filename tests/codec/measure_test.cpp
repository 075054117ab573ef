// object_space_errors: the per-pose figure measure() and the studio share.
// measure() as a whole is exercised on real clips by the fit and player tests.

#include "keystream/codec/measure.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "keystream/codec/pack.h"
#include "keystream/runtime/stream_view.h"
#include "tests/runtime/stream_test_support.h"

namespace ks {
namespace {

constexpr float kDegToRad = 0.017453292519943295f;

TEST(ObjectSpaceErrors, MatchAHandComputation) {
  std::vector<Transform> source(3), decoded(3);
  source[0].translation = {1.f, 2.f, 3.f};
  decoded[0] = source[0];
  // Turned 90 degrees about Z and 10 cm along Z: at r = 0.5 the X vertex
  // moves to (0, r, 0.1), sqrt(2 r^2 + 0.01) away; the Z vertex only 0.1.
  decoded[1].rotation = quat_from_axis_angle({0.f, 0.f, 1.f}, 90.f * kDegToRad);
  decoded[1].translation = {0.f, 0.f, 0.1f};
  // Scaled by 1.1: every vertex moves 0.1 r.
  decoded[2].scale = {1.1f, 1.1f, 1.1f};
  std::vector<float> errors(3, -1.f);
  object_space_errors(source, decoded, 0.5f, errors);
  EXPECT_EQ(errors[0], 0.f);
  EXPECT_NEAR(errors[1], std::sqrt(0.51f), 1e-6f);
  EXPECT_NEAR(errors[2], 0.05f, 1e-6f);
  // Identical poses have no error at any distance.
  object_space_errors(decoded, decoded, 2.f, errors);
  for (float e : errors) EXPECT_EQ(e, 0.f);
}

TEST(ObjectSpaceErrors, TakeEachBonesOwnDistance) {
  std::vector<Transform> source(2), decoded(2);
  decoded[0].rotation = quat_from_axis_angle({0.f, 0.f, 1.f}, 90.f * kDegToRad);
  decoded[1].scale = {1.1f, 1.1f, 1.1f};
  // Both bones at the joint: bone 1 sits at bone 0's origin, so only the
  // shell distances differ.
  std::vector<float> one(2), each(2);
  object_space_errors(source, decoded, std::vector<float>{0.5f, 2.f}, each);
  object_space_errors(source, decoded, 0.5f, one);
  EXPECT_EQ(each[0], one[0]);
  EXPECT_NEAR(each[0], std::sqrt(0.5f), 1e-6f);  // (r, 0, 0) turned to (0, r, 0)
  EXPECT_NEAR(each[1], 0.2f, 1e-6f);             // 0.1 r at r = 2
}

TEST(MeasureSettingsValidate, RefusesDistancesThatAreNotPositive) {
  EXPECT_TRUE(MeasureSettings{}.validate().ok());
  for (const float bad : {0.f, -1.f, std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
    MeasureSettings vertex;
    vertex.virtual_vertex_distances_m = {0.03f, bad};
    EXPECT_FALSE(vertex.validate().ok()) << bad;
    MeasureSettings shell;
    shell.bone_shell_distance_m = {0.03f, bad};
    const Status status = shell.validate();
    ASSERT_FALSE(status.ok()) << bad;
    EXPECT_NE(status.error().find("shell distance"), std::string::npos) << status.error();
  }
  MeasureSettings none;
  none.virtual_vertex_distances_m.clear();
  EXPECT_FALSE(none.validate().ok());
}

TEST(Measure, ReportsPerBoneErrorsAtTheirShellDistancesAndTheSizes) {
  const test::RandomClip wave = test::make_wave_clip();
  const FittedClip fitted = test::fit_or_fail(wave.skeleton, wave.clip);
  const std::vector<uint8_t> bytes = test::pack_or_fail(fitted, 0.25f);
  const Result<StreamView> view = StreamView::open(bytes);
  ASSERT_TRUE(view.ok()) << view.error();
  MeasureSettings settings;
  settings.bone_shell_distance_m = {0.03f, 0.03f, 1.f};
  const Result<ClipMeasurement> m = measure(wave.skeleton, wave.clip, view.value(), settings);
  ASSERT_TRUE(m.ok()) << m.error();
  ASSERT_EQ(m.value().bone_error_m.size(), 3u);
  ASSERT_EQ(m.value().bone_worst_frame.size(), 3u);
  // Bones 0 and 1 at 3 cm are the 3 cm figures; bone 2 is the 1 m one.
  ASSERT_EQ(m.value().distances_m, (std::vector<float>{0.03f, 1.f}));
  EXPECT_EQ(m.value().bone_error_m[0], m.value().bone_object_error[0][0]);
  EXPECT_EQ(m.value().bone_error_m[1], m.value().bone_object_error[0][1]);
  EXPECT_EQ(m.value().bone_error_m[2], m.value().bone_object_error[1][2]);
  for (size_t b = 0; b < 3; ++b) EXPECT_LT(m.value().bone_worst_frame[b], wave.clip.frame_count);
  // The default fit's promise at its own shell distance.
  for (size_t b = 0; b < 2; ++b) EXPECT_LE(m.value().bone_error_m[b], fitted.bones[b].tolerance_m);
  // One distance per bone or none.
  settings.bone_shell_distance_m = {0.03f};
  EXPECT_FALSE(measure(wave.skeleton, wave.clip, view.value(), settings).ok());
  // Sizes by part.
  const StreamSizes& sizes = m.value().sizes;
  EXPECT_EQ(sizes.compressed_bytes, bytes.size());
  EXPECT_EQ(sizes.bytes_without_metadata(), test::get_u32(bytes, header_offset::kMetadataOffset));
  EXPECT_EQ(sizes.key_count, fitted.key_count());
  size_t codings[4] = {0, 0, 0, 0};
  for (const FittedTrack& t : fitted.tracks) ++codings[static_cast<int>(t.coding)];
  for (int c = 0; c < 4; ++c) EXPECT_EQ(sizes.tracks_by_coding[c], codings[c]) << c;
}

}  // namespace
}  // namespace ks
