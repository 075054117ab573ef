#include "keystream/clip/raw_clip.h"

#include <gtest/gtest.h>

#include <cmath>
#include <initializer_list>
#include <limits>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "tests/refused_mentioning.h"

namespace ks {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

using test::refused_mentioning;

Skeleton make_skeleton() {
  Skeleton s;
  s.bone_names = {"hips", "knee"};
  s.parents = {-1, 0};
  s.rest_pose = {Transform{}, Transform{{0.f, -0.4f, 0.f}, {}, {1.f, 1.f, 1.f}}};
  return s;
}

// Two bones, `frames` frames at 30 Hz; the knee bends 0.1 rad per frame about X.
RawClip make_clip(uint32_t frames = 4) {
  RawClip clip;
  clip.name = "bend";
  clip.frame_count = frames;
  clip.bones.resize(2);
  for (uint32_t f = 0; f < frames; ++f) {
    const float t = static_cast<float>(f);
    clip.bones[0].translations.push_back({0.f, 1.f, 0.01f * t});
    clip.bones[0].rotations.push_back(Quat{});
    clip.bones[0].scales.push_back({1.f, 1.f, 1.f});
    clip.bones[1].translations.push_back({0.f, -0.4f, 0.f});
    clip.bones[1].rotations.push_back(quat_from_axis_angle({1.f, 0.f, 0.f}, 0.1f * t));
    clip.bones[1].scales.push_back({1.f, 1.f + 0.1f * t, 1.f});
  }
  return clip;
}

TEST(RawClipValidate, AcceptsValidClip) {
  const Status status = make_clip().validate(make_skeleton());
  EXPECT_TRUE(status.ok()) << status.error();
}

TEST(RawClipValidate, RefusesKeyPosesOutsideTheClipOutOfOrderOrNotAPose) {
  const Skeleton skeleton = make_skeleton();
  const SourceKeyPose good{1.5f, skeleton.rest_pose};
  {
    RawClip clip = make_clip();
    clip.key_poses = {good, {2.5f, skeleton.rest_pose}};
    const Status status = clip.validate(skeleton);
    EXPECT_TRUE(status.ok()) << status.error();
  }
  for (const float time : {-0.5f, 3.5f, kNaN}) {  // frames 0 to 3
    SCOPED_TRACE(time);
    RawClip clip = make_clip();
    clip.key_poses = {{time, skeleton.rest_pose}};
    EXPECT_TRUE(refused_mentioning(clip.validate(skeleton), {"key pose 0", "outside the clip or out of order"}));
  }
  RawClip out_of_order = make_clip();
  out_of_order.key_poses = {{2.5f, skeleton.rest_pose}, good};
  EXPECT_TRUE(refused_mentioning(out_of_order.validate(skeleton), {"key pose 1", "out of order"}));
  RawClip short_pose = make_clip();
  short_pose.key_poses = {{1.5f, {Transform{}}}};
  EXPECT_TRUE(refused_mentioning(short_pose.validate(skeleton), {"key pose 0", "1 transforms for 2 bones"}));
  RawClip long_rotation = make_clip();
  long_rotation.key_poses = {good};
  long_rotation.key_poses[0].pose[1].rotation = Quat{0.f, 0.f, 0.f, 2.f};
  EXPECT_TRUE(refused_mentioning(long_rotation.validate(skeleton), {"key pose 0", "not a unit quaternion"}));
}

TEST(RawClipValidate, RefusesSourceKeysNotFromTheFirstToTheLastFrameInOrder) {
  const Skeleton skeleton = make_skeleton();
  const auto with_knee_rotation_keys = [](std::vector<uint32_t> frames) {
    RawClip clip = make_clip(4);
    clip.bones[1].source_keys[static_cast<size_t>(TrackKind::kRotation)] = {Interpolation::kLinear, std::move(frames)};
    return clip;
  };
  EXPECT_TRUE(with_knee_rotation_keys({0, 2, 3}).validate(skeleton).ok());
  EXPECT_TRUE(refused_mentioning(with_knee_rotation_keys({1, 3}).validate(skeleton),
                                 {"bone 1 'knee' rotation source keys (linear) start at frame 1"}));
  EXPECT_TRUE(refused_mentioning(with_knee_rotation_keys({0, 2}).validate(skeleton),
                                 {"bone 1 'knee' rotation", "end at frame 2, not the last frame 3"}));
  EXPECT_TRUE(refused_mentioning(with_knee_rotation_keys({0, 2, 2, 3}).validate(skeleton),
                                 {"bone 1 'knee' rotation", "not strictly increasing (frame 2 after 2)"}));
  EXPECT_TRUE(
      refused_mentioning(with_knee_rotation_keys({0, 2, 1, 3}).validate(skeleton), {"not strictly increasing"}));

  RawClip step = make_clip(4);
  step.bones[0].source_keys[static_cast<size_t>(TrackKind::kScale)] = {Interpolation::kStep, {0, 5}};
  EXPECT_TRUE(refused_mentioning(step.validate(skeleton), {"bone 0 'hips' scale source keys (step)", "frame 5"}));

  RawClip scalar = make_clip(4);
  ScalarTrack& curve = scalar.scalars.emplace_back();
  curve.name = "blink";
  curve.values.assign(4, 0.f);
  curve.source_keys = {Interpolation::kStep, {0, 3, 3}};
  EXPECT_TRUE(refused_mentioning(scalar.validate(skeleton), {"scalar track 0 'blink' source keys (step)"}));
}

// A track sampled, or keyed by one key only, has no keys to keep: its frames are not looked at.
TEST(RawClipValidate, IgnoresTheFramesOfTracksThatAreNotKeyed) {
  RawClip clip = make_clip(4);
  clip.bones[0].source_keys[0] = {Interpolation::kHermite, {7, 1}};
  clip.bones[1].source_keys[0] = {Interpolation::kLinear, {2}};
  const Status status = clip.validate(make_skeleton());
  EXPECT_TRUE(status.ok()) << status.error();
}

TEST(RawClipValidate, RefusesSampleRateThatIsNotPositiveAndFinite) {
  for (const float rate : {0.f, -30.f, kNaN, kInf, -kInf}) {
    SCOPED_TRACE(rate);
    RawClip clip = make_clip();
    clip.sample_rate_hz = rate;
    EXPECT_TRUE(refused_mentioning(clip.validate(make_skeleton()), {"sample rate"}));
  }
}

TEST(RawClipValidate, RefusesFrameCountOutside2To65535) {
  for (const uint32_t frames : {0u, 1u, 65536u}) {
    SCOPED_TRACE(frames);
    const RawClip clip = make_clip(frames);  // tracks of the same length, so only the count is wrong
    EXPECT_TRUE(
        refused_mentioning(clip.validate(make_skeleton()), {std::to_string(frames) + " frames", "2 to 65535"}));
  }
}

TEST(RawClipValidate, AcceptsFrameCountLimits) {
  for (const uint32_t frames : {kMinFrameCount, kMaxFrameCount}) {
    SCOPED_TRACE(frames);
    const Status status = make_clip(frames).validate(make_skeleton());
    EXPECT_TRUE(status.ok()) << status.error();
  }
}

TEST(RawClipValidate, RefusesBoneCountMismatch) {
  RawClip clip = make_clip();
  clip.bones.pop_back();
  EXPECT_TRUE(refused_mentioning(clip.validate(make_skeleton()), {"1 bones", "skeleton has 2"}));
}

TEST(RawClipValidate, RefusesShortTranslationTrack) {
  RawClip clip = make_clip();
  clip.bones[1].translations.pop_back();
  EXPECT_TRUE(refused_mentioning(clip.validate(make_skeleton()), {"bone 1 'knee'", "3/4/4", "4 frames"}));
}

TEST(RawClipValidate, RefusesLongRotationTrack) {
  RawClip clip = make_clip();
  clip.bones[0].rotations.push_back(Quat{});
  EXPECT_TRUE(refused_mentioning(clip.validate(make_skeleton()), {"bone 0 'hips'", "4/5/4", "4 frames"}));
}

TEST(RawClipValidate, RefusesEmptyScaleTrack) {
  RawClip clip = make_clip();
  clip.bones[1].scales.clear();
  EXPECT_TRUE(refused_mentioning(clip.validate(make_skeleton()), {"bone 1 'knee'", "4/4/0", "4 frames"}));
}

TEST(RawClipValidate, RefusesNonFiniteTranslation) {
  RawClip clip = make_clip();
  clip.bones[1].translations[2].z = kNaN;
  EXPECT_TRUE(refused_mentioning(clip.validate(make_skeleton()), {"bone 1 'knee' translation at frame 2"}));
}

TEST(RawClipValidate, RefusesNonFiniteScale) {
  RawClip clip = make_clip();
  clip.bones[0].scales[3].x = kInf;
  EXPECT_TRUE(refused_mentioning(clip.validate(make_skeleton()), {"bone 0 'hips' scale at frame 3"}));
}

TEST(RawClipValidate, RefusesNonFiniteRotation) {
  RawClip clip = make_clip();
  clip.bones[1].rotations[1].w = kNaN;
  EXPECT_TRUE(refused_mentioning(clip.validate(make_skeleton()), {"bone 1 'knee' rotation at frame 1", "finite"}));
}

TEST(RawClipValidate, RefusesNonUnitRotation) {
  RawClip clip = make_clip();
  clip.bones[1].rotations[2] = Quat{0.f, 0.f, 0.f, 1.001f};
  EXPECT_TRUE(
      refused_mentioning(clip.validate(make_skeleton()), {"bone 1 'knee' rotation at frame 2", "unit quaternion"}));
}

TEST(RawClipValidate, UnitToleranceIs1e4) {
  RawClip clip = make_clip();
  clip.bones[0].rotations[1] = Quat{0.f, 0.f, 0.f, 1.00005f};
  const Status inside = clip.validate(make_skeleton());
  EXPECT_TRUE(inside.ok()) << inside.error();
  clip.bones[0].rotations[1] = Quat{0.f, 0.f, 0.f, 0.9998f};
  EXPECT_TRUE(refused_mentioning(clip.validate(make_skeleton()), {"bone 0 'hips' rotation at frame 1"}));
}

TEST(RawClipValidate, RefusesNeighbourInOppositeHemisphere) {
  RawClip clip = make_clip();
  clip.bones[1].rotations[2] = -clip.bones[1].rotations[2];
  EXPECT_TRUE(refused_mentioning(clip.validate(make_skeleton()),
                                 {"bone 1 'knee' rotation at frame 2", "opposite hemisphere"}));
}

TEST(RawClipValidate, RefusesNeighbourWithSlightlyNegativeDot) {
  // A 200 degree turn from frame 0: a unit quaternion whose dot product with
  // its neighbour is only slightly negative.
  RawClip clip = make_clip();
  clip.bones[0].rotations[1] = quat_from_axis_angle({0.f, 0.f, 1.f}, 200.f * 3.14159265f / 180.f);
  ASSERT_GT(dot(clip.bones[0].rotations[0], clip.bones[0].rotations[1]), -0.2f);
  EXPECT_TRUE(refused_mentioning(clip.validate(make_skeleton()),
                                 {"bone 0 'hips' rotation at frame 1", "opposite hemisphere"}));
}

TEST(RawClipValidate, AcceptsTrackStartingWithNegativeW) {
  RawClip clip = make_clip();
  for (Quat& q : clip.bones[1].rotations) q = -q;
  const Status status = clip.validate(make_skeleton());
  EXPECT_TRUE(status.ok()) << status.error();
}

TEST(MakeRotationsContinuous, NormalisesEveryRotation) {
  std::vector<Quat> rotations = {{0.f, 0.f, 0.f, 2.f}, {1.f, 2.f, 2.f, 4.f}, {0.f, 0.3f, 0.f, 0.4f}};
  make_rotations_continuous(rotations);
  for (const Quat& q : rotations) EXPECT_NEAR(length(q), 1.f, 1e-6f);
  EXPECT_NEAR(rotations[1].x, 0.2f, 1e-6f);
  EXPECT_NEAR(rotations[1].w, 0.8f, 1e-6f);
  EXPECT_NEAR(rotations[2].y, 0.6f, 1e-6f);
  EXPECT_NEAR(rotations[2].w, 0.8f, 1e-6f);
}

TEST(MakeRotationsContinuous, FlipsNeighboursInOppositeHemisphere) {
  // A random walk of small turns, each sample negated or not at random.
  std::mt19937 rng(7u);
  std::uniform_real_distribution<float> component(-1.f, 1.f);
  std::bernoulli_distribution negate(0.5);
  std::vector<Quat> input;
  Quat q;
  for (int i = 0; i < 200; ++i) {
    Vec3 axis{component(rng), component(rng), component(rng)};
    axis = axis * (1.f / length(axis));
    q = normalize(quat_from_axis_angle(axis, 0.3f * component(rng)) * q);
    input.push_back(negate(rng) ? -q : q);
  }
  std::vector<Quat> rotations = input;
  make_rotations_continuous(rotations);
  int flipped = 0;
  for (size_t i = 0; i < rotations.size(); ++i) {
    // The same rotation, possibly negated.
    const float sign = dot(rotations[i], input[i]) < 0.f ? -1.f : 1.f;
    if (sign < 0.f) ++flipped;
    EXPECT_NEAR(rotations[i].x, sign * input[i].x, 1e-6f) << "rotation " << i;
    EXPECT_NEAR(rotations[i].y, sign * input[i].y, 1e-6f) << "rotation " << i;
    EXPECT_NEAR(rotations[i].z, sign * input[i].z, 1e-6f) << "rotation " << i;
    EXPECT_NEAR(rotations[i].w, sign * input[i].w, 1e-6f) << "rotation " << i;
    if (i > 0) {
      EXPECT_GE(dot(rotations[i - 1], rotations[i]), 0.f) << "rotations " << i - 1 << " and " << i;
    }
  }
  EXPECT_GT(flipped, 0);  // the input really had discontinuities to fix
}

TEST(MakeRotationsContinuous, FlipsSlightlyNegativeDot) {
  // A 200 degree turn about Z has w = cos(100 deg) < 0: the short way round is
  // its negation, a 160 degree turn the other way.
  const Quat turn = quat_from_axis_angle({0.f, 0.f, 1.f}, 200.f * 3.14159265f / 180.f);
  ASSERT_LT(dot(Quat{}, turn), 0.f);
  ASSERT_GT(dot(Quat{}, turn), -0.2f);
  std::vector<Quat> rotations = {Quat{}, turn};
  make_rotations_continuous(rotations);
  EXPECT_NEAR(rotations[1].z, -turn.z, 1e-6f);
  EXPECT_NEAR(rotations[1].w, -turn.w, 1e-6f);
}

TEST(MakeRotationsContinuous, LeavesContinuousInputUnchanged) {
  const RawClip clip = make_clip(20);
  std::vector<Quat> rotations = clip.bones[1].rotations;
  make_rotations_continuous(rotations);
  for (size_t i = 0; i < rotations.size(); ++i) {
    const Quat& expected = clip.bones[1].rotations[i];
    EXPECT_NEAR(rotations[i].x, expected.x, 1e-6f) << "rotation " << i;
    EXPECT_NEAR(rotations[i].y, expected.y, 1e-6f) << "rotation " << i;
    EXPECT_NEAR(rotations[i].z, expected.z, 1e-6f) << "rotation " << i;
    EXPECT_NEAR(rotations[i].w, expected.w, 1e-6f) << "rotation " << i;
  }
}

TEST(MakeRotationsContinuous, DoesNotFlipTheFirst) {
  const Quat first = quat_from_axis_angle({0.f, 0.f, 1.f}, 0.5f);
  std::vector<Quat> rotations = {-first, first, first};
  make_rotations_continuous(rotations);
  EXPECT_LT(rotations[0].w, 0.f);
  EXPECT_NEAR(rotations[0].z, -first.z, 1e-6f);
  // The rest follow the first into its hemisphere.
  EXPECT_LT(rotations[1].w, 0.f);
  EXPECT_LT(rotations[2].w, 0.f);
}

TEST(MakeRotationsContinuous, MakesTheClipValid) {
  RawClip clip = make_clip(10);
  clip.bones[1].rotations[4] = -clip.bones[1].rotations[4];
  const Quat q = clip.bones[1].rotations[7];
  clip.bones[1].rotations[7] = Quat{3.f * q.x, 3.f * q.y, 3.f * q.z, 3.f * q.w};
  ASSERT_FALSE(clip.validate(make_skeleton()).ok());
  make_rotations_continuous(clip.bones[1].rotations);
  const Status status = clip.validate(make_skeleton());
  EXPECT_TRUE(status.ok()) << status.error();
}

TEST(MakeRotationsContinuous, AcceptsEmptyAndSingle) {
  std::vector<Quat> none;
  make_rotations_continuous(none);
  EXPECT_TRUE(none.empty());
  std::vector<Quat> one = {{0.f, 0.f, 0.f, -4.f}};
  make_rotations_continuous(one);
  EXPECT_FLOAT_EQ(one[0].w, -1.f);
}

TEST(RawClip, PoseAt) {
  const RawClip clip = make_clip();
  const std::vector<Transform> pose = clip.pose_at(2);
  ASSERT_EQ(pose.size(), 2u);
  EXPECT_FLOAT_EQ(pose[0].translation.z, 0.02f);
  EXPECT_FLOAT_EQ(pose[1].translation.y, -0.4f);
  EXPECT_FLOAT_EQ(pose[1].rotation.x, clip.bones[1].rotations[2].x);
  EXPECT_FLOAT_EQ(pose[1].rotation.w, clip.bones[1].rotations[2].w);
  EXPECT_FLOAT_EQ(pose[1].scale.y, 1.2f);
  EXPECT_FLOAT_EQ(clip.pose_at(0)[1].scale.y, 1.f);
}

TEST(RawClip, DurationIsFramesMinusOneOverRate) {
  RawClip clip = make_clip(31);
  EXPECT_FLOAT_EQ(clip.duration_s(), 1.f);
  clip.sample_rate_hz = 10.f;
  EXPECT_FLOAT_EQ(clip.duration_s(), 3.f);
  clip.frame_count = 2;
  EXPECT_FLOAT_EQ(clip.duration_s(), 0.1f);
  clip.frame_count = 1;
  EXPECT_EQ(clip.duration_s(), 0.f);
  clip.frame_count = 0;
  EXPECT_EQ(clip.duration_s(), 0.f);
}

}  // namespace
}  // namespace ks
