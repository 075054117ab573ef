#include "keystream/clip/additive.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "keystream/runtime/additive.h"
#include "tests/codec/random_clip.h"
#include "tests/refused_mentioning.h"

namespace ks {
namespace {

using test::refused_mentioning;

void expect_near(const Transform& a, const Transform& b, float tolerance) {
  EXPECT_NEAR(a.translation.x, b.translation.x, tolerance);
  EXPECT_NEAR(a.translation.y, b.translation.y, tolerance);
  EXPECT_NEAR(a.translation.z, b.translation.z, tolerance);
  EXPECT_NEAR(std::fabs(dot(a.rotation, b.rotation)), 1.f, tolerance);
  EXPECT_NEAR(a.scale.x, b.scale.x, tolerance);
  EXPECT_NEAR(a.scale.y, b.scale.y, tolerance);
  EXPECT_NEAR(a.scale.z, b.scale.z, tolerance);
}

void expect_same(const Vec3& a, const Vec3& b) {
  EXPECT_EQ(a.x, b.x);
  EXPECT_EQ(a.y, b.y);
  EXPECT_EQ(a.z, b.z);
}

// Random clips whose scales keep away from 0, so that every base has a ratio.
test::RandomClip random_clip(uint32_t seed) {
  test::RandomClip c = test::make_random_clip(seed);
  for (BoneTracks& bone : c.clip.bones) {
    for (Vec3& s : bone.scales) s = {1.f + 0.1f * std::tanh(s.x - 1.f), 1.f, 1.f + 0.1f * std::tanh(s.z - 1.f)};
  }
  return c;
}

TEST(AdditiveClip, ComposingTheDifferenceOnItsBaseGivesTheClipBack) {
  for (uint32_t seed = 1; seed <= 40; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const test::RandomClip c = random_clip(seed);
    const test::RandomClip other = random_clip(seed + 1000);
    RawClip base_clip = other.clip;
    base_clip.bones.resize(c.clip.bones.size(), c.clip.bones.front());  // the clip's bone count
    for (BoneTracks& bone : base_clip.bones) {
      bone.translations.resize(base_clip.frame_count, bone.translations.back());
      bone.rotations.resize(base_clip.frame_count, bone.rotations.back());
      bone.scales.resize(base_clip.frame_count, bone.scales.back());
    }
    for (const AdditiveBase kind : {AdditiveBase::kFirstFrame, AdditiveBase::kBindPose, AdditiveBase::kClip}) {
      SCOPED_TRACE(to_string(kind));
      const Result<RawClip> additive =
          make_additive(c.skeleton, c.clip, AdditiveSource{kind, &base_clip, "base.glb#Idle"});
      ASSERT_TRUE(additive.ok()) << additive.error();
      const RawClip& a = additive.value();
      ASSERT_TRUE(a.validate(c.skeleton).ok()) << a.validate(c.skeleton).error();
      EXPECT_EQ(a.additive_base.kind, kind);
      EXPECT_EQ(a.additive_base.name, kind == AdditiveBase::kClip ? "base.glb#Idle" : "");
      EXPECT_EQ(a.additive_base.poses.size(), (kind == AdditiveBase::kClip ? a.frame_count : 1) * a.bones.size());
      const RawClip composed = composed_clip(a);
      EXPECT_FALSE(composed.additive_base.additive());
      EXPECT_TRUE(composed.validate(c.skeleton).ok());
      for (uint32_t f = 0; f < a.frame_count; ++f) {
        std::vector<Transform> pose = a.pose_at(f);
        compose_on_base(a, f, pose);
        const std::vector<Transform> original = c.clip.pose_at(f);
        const std::vector<Transform> from_composed = composed.pose_at(f);
        for (size_t b = 0; b < pose.size(); ++b) {
          expect_near(pose[b], original[b], 2e-5f);
          // composed_clip is compose_on_base's pose, at most negated.
          expect_same(pose[b].translation, from_composed[b].translation);
          EXPECT_EQ(std::fabs(pose[b].rotation.w), std::fabs(from_composed[b].rotation.w));
        }
      }
    }
  }
}

TEST(AdditiveClip, AFirstFrameBaseLeavesFrameZeroAtIdentity) {
  const test::RandomClip c = random_clip(7);
  const Result<RawClip> a = make_additive(c.skeleton, c.clip, AdditiveSource{AdditiveBase::kFirstFrame, nullptr, {}});
  ASSERT_TRUE(a.ok()) << a.error();
  for (const Transform& t : a.value().pose_at(0)) expect_near(t, Transform{}, 1e-6f);
}

TEST(AdditiveClip, ABaseClipIsSampledAtTheClipsTimesAndHeldPastItsEnd) {
  test::RandomClip c = random_clip(3);
  c.clip.sample_rate_hz = 30.f;
  RawClip base = c.clip;
  base.sample_rate_hz = 15.f;  // half the rate: clip frame 1 is halfway between base frames 0 and 1
  base.frame_count = 2;
  for (BoneTracks& bone : base.bones) {
    bone.translations = {Vec3{0.f, 0.f, 0.f}, Vec3{1.f, 2.f, 3.f}};
    bone.rotations = {Quat{}, Quat{}};
    bone.scales = {Vec3{1.f, 1.f, 1.f}, Vec3{1.f, 1.f, 1.f}};
  }
  const Result<RawClip> a = make_additive(c.skeleton, c.clip, AdditiveSource{AdditiveBase::kClip, &base, "b"});
  ASSERT_TRUE(a.ok()) << a.error();
  const size_t bones = c.clip.bones.size();
  const auto base_at = [&](uint32_t f) { return a.value().additive_base.at(f, bones)[0].translation; };
  expect_same(base_at(0), Vec3{0.f, 0.f, 0.f});
  expect_same(base_at(1), Vec3{0.5f, 1.f, 1.5f});
  expect_same(base_at(a.value().frame_count - 1), Vec3{1.f, 2.f, 3.f});
}

// Against a constant base the difference runs between the source's keys as
// the clip did (here a translation linear from frame 0 to the last); against
// a base clip it does not, and the bones' keys go. Scalar tracks keep theirs.
TEST(AdditiveClip, SourceKeysAreKeptForAConstantBaseOnly) {
  test::RandomClip c = random_clip(11);
  const uint32_t last = c.clip.frame_count - 1;
  BoneTracks& bone = c.clip.bones[0];
  for (uint32_t f = 0; f <= last; ++f) bone.translations[f] = Vec3{0.1f, -0.2f, 0.3f} * static_cast<float>(f);
  bone.source_keys[static_cast<size_t>(TrackKind::kTranslation)] = {Interpolation::kLinear, {0, last}};
  bone.source_keys[static_cast<size_t>(TrackKind::kRotation)] = {Interpolation::kStep, {0, last}};
  ScalarTrack& curve = c.clip.scalars.emplace_back();
  curve.name = "curve";
  curve.values.assign(c.clip.frame_count, 1.f);
  curve.source_keys = {Interpolation::kLinear, {0, last}};
  const RawClip base_clip = c.clip;
  for (const AdditiveBase kind : {AdditiveBase::kFirstFrame, AdditiveBase::kBindPose, AdditiveBase::kClip}) {
    SCOPED_TRACE(to_string(kind));
    const Result<RawClip> a = make_additive(c.skeleton, c.clip, AdditiveSource{kind, &base_clip, "base"});
    ASSERT_TRUE(a.ok()) << a.error();
    ASSERT_TRUE(a.value().validate(c.skeleton).ok()) << a.value().validate(c.skeleton).error();
    const BoneTracks& difference = a.value().bones[0];
    EXPECT_EQ(a.value().scalars.back().source_keys.frames, curve.source_keys.frames);
    if (kind == AdditiveBase::kClip) {
      for (const BoneTracks& b : a.value().bones) {
        for (const SourceKeys& keys : b.source_keys) EXPECT_FALSE(keys.keyed());
      }
      continue;
    }
    for (size_t k = 0; k < 3; ++k) {
      EXPECT_EQ(difference.source_keys[k].interpolation, bone.source_keys[k].interpolation) << k;
      EXPECT_EQ(difference.source_keys[k].frames, bone.source_keys[k].frames) << k;
    }
    const Vec3 first = difference.translations[0], step = (difference.translations[last] - first) * (1.f / last);
    for (uint32_t f = 0; f <= last; ++f) {
      const Vec3 expected = first + step * static_cast<float>(f);
      EXPECT_NEAR(difference.translations[f].x, expected.x, 1e-5f) << f;
      EXPECT_NEAR(difference.translations[f].z, expected.z, 1e-5f) << f;
    }
  }
}

TEST(AdditiveClip, BadBasesAreRefusedNamingWhatIsWrong) {
  test::RandomClip c = random_clip(5);
  EXPECT_TRUE(refused_mentioning(make_additive(c.skeleton, c.clip, AdditiveSource{}), {"no additive base"}));
  EXPECT_TRUE(refused_mentioning(make_additive(c.skeleton, c.clip, AdditiveSource{AdditiveBase::kClip, nullptr, "x"}),
                                 {"missing"}));
  RawClip fewer = c.clip;
  fewer.bones.push_back(fewer.bones.front());
  EXPECT_TRUE(refused_mentioning(
      make_additive(c.skeleton, c.clip, AdditiveSource{AdditiveBase::kClip, &fewer, "walk.glb#Idle"}),
      {"walk.glb#Idle"}));
  Skeleton flat = c.skeleton;
  flat.rest_pose[0].scale = {1.f, 0.f, 1.f};
  EXPECT_TRUE(refused_mentioning(make_additive(flat, c.clip, AdditiveSource{AdditiveBase::kBindPose, nullptr, {}}),
                                 {"scale component 0"}));
  const Result<RawClip> a = make_additive(c.skeleton, c.clip, AdditiveSource{AdditiveBase::kBindPose, nullptr, {}});
  ASSERT_TRUE(a.ok());
  EXPECT_TRUE(
      refused_mentioning(make_additive(c.skeleton, a.value(), AdditiveSource{AdditiveBase::kBindPose, nullptr, {}}),
                         {"additive already"}));
}

TEST(AdditiveClip, ValidateChecksTheBase) {
  const test::RandomClip c = random_clip(9);
  Result<RawClip> a = make_additive(c.skeleton, c.clip, AdditiveSource{AdditiveBase::kBindPose, nullptr, {}});
  ASSERT_TRUE(a.ok());
  RawClip wrong_count = a.value();
  wrong_count.additive_base.poses.pop_back();
  EXPECT_TRUE(refused_mentioning(wrong_count.validate(c.skeleton), {"additive base holds"}));
  RawClip not_finite = a.value();
  not_finite.additive_base.poses[0].translation.y = std::nanf("");
  EXPECT_TRUE(refused_mentioning(not_finite.validate(c.skeleton), {"not finite"}));
  RawClip with_keys = a.value();
  with_keys.key_poses.push_back({0.5f, c.clip.pose_at(0)});
  EXPECT_TRUE(refused_mentioning(with_keys.validate(c.skeleton), {"key poses"}));
}

TEST(ApplyAdditive, WeightZeroIsTheBaseAndWeightOneTheLayeredPose) {
  const Transform base{{1.f, 2.f, 3.f}, quat_from_axis_angle({0.f, 1.f, 0.f}, 0.7f), {2.f, 2.f, 2.f}};
  const Transform pose{{1.5f, 2.f, 2.f}, quat_from_axis_angle({0.6f, 0.8f, 0.f}, 1.1f), {3.f, 2.f, 1.f}};
  const Transform add = additive_difference(base, pose);
  expect_near(apply_additive(base, add, 0.f), base, 1e-6f);
  expect_near(apply_additive(base, add, 1.f), pose, 1e-6f);
  // Halfway: half the translation and scale ratio, and a rotation between.
  const Transform half = apply_additive(base, add, 0.5f);
  EXPECT_NEAR(half.translation.x, 1.25f, 1e-6f);
  EXPECT_NEAR(half.scale.x, 2.5f, 1e-6f);
  const float to_base = std::acos(std::min(1.f, std::fabs(dot(half.rotation, base.rotation))));
  const float to_pose = std::acos(std::min(1.f, std::fabs(dot(half.rotation, pose.rotation))));
  EXPECT_NEAR(to_base, to_pose, 1e-3f);
  // A difference stored in the other hemisphere is taken the short way round.
  const Transform negated{add.translation, -add.rotation, add.scale};
  expect_near(apply_additive(base, negated, 0.5f), half, 1e-6f);
}

}  // namespace
}  // namespace ks
