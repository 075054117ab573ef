#include "keystream/codec/error_budget.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "tests/codec/random_clip.h"
#include "tests/refused_mentioning.h"

namespace ks {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

using test::refused_mentioning;

// root -> spine -> head, root -> hip -> knee.
Skeleton five_bones() {
  Skeleton s;
  s.bone_names = {"root", "spine", "head", "hip", "knee"};
  s.parents = {-1, 0, 1, 0, 3};
  s.rest_pose.assign(5, Transform{});
  return s;
}

// --- resolve_bone_tolerances ---------------------------------------------------------

TEST(ResolveBoneTolerances, EveryBoneTakesTheClipsValuesWithoutOverrides) {
  const Result<BoneTolerances> r = resolve_bone_tolerances(five_bones(), 0.0001f, 0.03f, {});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.value().tolerance_m, std::vector<float>(5, 0.0001f));
  EXPECT_EQ(r.value().shell_distance_m, std::vector<float>(5, 0.03f));
}

TEST(ResolveBoneTolerances, AnOverrideHoldsForItsBoneAndTheBonesBelowIt) {
  const std::vector<BoneTolerance> overrides = {{"spine", 0.001f, 0.f}, {"knee", 0.00005f, 0.1f},
                                                {"head", 0.002f, 0.05f}};
  const Result<BoneTolerances> r = resolve_bone_tolerances(five_bones(), 0.0001f, 0.03f, overrides);
  ASSERT_TRUE(r.ok()) << r.error();
  // root and hip keep the clip's; spine's tolerance with the inherited
  // distance (0 = inherited); head replaces both; knee its own.
  EXPECT_EQ(r.value().tolerance_m, (std::vector<float>{0.0001f, 0.001f, 0.002f, 0.0001f, 0.00005f}));
  EXPECT_EQ(r.value().shell_distance_m, (std::vector<float>{0.03f, 0.03f, 0.05f, 0.03f, 0.1f}));
  // An override on a parent reaches every bone below it, down to the next override.
  const Result<BoneTolerances> hip = resolve_bone_tolerances(five_bones(), 0.0001f, 0.03f,
                                                             std::vector<BoneTolerance>{{"hip", 0.0003f, 0.2f}});
  ASSERT_TRUE(hip.ok()) << hip.error();
  EXPECT_EQ(hip.value().tolerance_m[4], 0.0003f);
  EXPECT_EQ(hip.value().shell_distance_m[4], 0.2f);
  EXPECT_EQ(hip.value().tolerance_m[2], 0.0001f);
}

TEST(ResolveBoneTolerances, RefusesAnUnknownBone) {
  EXPECT_TRUE(refused_mentioning(
      resolve_bone_tolerances(five_bones(), 0.0001f, 0.03f, std::vector<BoneTolerance>{{"tail", 0.001f, 0.f}}),
      {"no bone named \"tail\""}));
}

TEST(ResolveBoneTolerances, RefusesABoneNamedTwice) {
  const std::vector<BoneTolerance> twice = {{"knee", 0.001f, 0.f}, {"knee", 0.002f, 0.f}};
  EXPECT_TRUE(refused_mentioning(resolve_bone_tolerances(five_bones(), 0.0001f, 0.03f, twice),
                                 {"\"knee\" has two tolerances"}));
}

TEST(ResolveBoneTolerances, RefusesValuesThatAreNotPositive) {
  for (const float bad : {0.f, -0.001f, kNaN, kInf}) {
    SCOPED_TRACE(bad);
    EXPECT_TRUE(refused_mentioning(
        resolve_bone_tolerances(five_bones(), 0.0001f, 0.03f, std::vector<BoneTolerance>{{"head", bad, 0.f}}),
        {"\"head\"", "tolerance must be a positive number"}));
  }
  for (const float bad : {-0.001f, kNaN, kInf}) {
    SCOPED_TRACE(bad);
    EXPECT_TRUE(refused_mentioning(
        resolve_bone_tolerances(five_bones(), 0.0001f, 0.03f, std::vector<BoneTolerance>{{"head", 0.001f, bad}}),
        {"\"head\"", "shell distance must be a positive number"}));
  }
}

// --- model_space_frames and bone_levers ---------------------------------------------------

TEST(ModelSpaceFrames, ComposeEachFramesLocalPose) {
  const test::RandomClip random = test::make_random_clip(8);
  const std::vector<Transform> model = model_space_frames(random.skeleton, random.clip);
  const size_t bones = random.skeleton.bone_count();
  ASSERT_EQ(model.size(), random.clip.frame_count * bones);
  for (uint32_t f = 0; f < random.clip.frame_count; ++f) {
    const std::vector<Transform> expected = local_to_model(random.skeleton, random.clip.pose_at(f));
    for (size_t b = 0; b < bones; ++b) {
      EXPECT_EQ(std::memcmp(&model[f * bones + b], &expected[b], sizeof(Transform)), 0) << "frame " << f << " bone " << b;
    }
  }
}

// A chain root -> child, the child 1 m along x, for `frames` frames.
struct Chain {
  Skeleton skeleton;
  RawClip clip;
};
Chain chain(float parent_scale) {
  Chain c;
  c.skeleton.bone_names = {"root", "child"};
  c.skeleton.parents = {-1, 0};
  c.skeleton.rest_pose.assign(2, Transform{});
  c.clip.name = "chain";
  c.clip.frame_count = 3;
  c.clip.bones.resize(2);
  for (uint32_t f = 0; f < 3; ++f) {
    c.clip.bones[0].translations.push_back({0.f, 0.f, 0.f});
    c.clip.bones[0].rotations.push_back(Quat{});
    c.clip.bones[0].scales.push_back({parent_scale, parent_scale, parent_scale});
    c.clip.bones[1].translations.push_back({1.f, 0.f, 0.f});
    c.clip.bones[1].rotations.push_back(Quat{});
    c.clip.bones[1].scales.push_back({1.f, 1.f, 1.f});
  }
  return c;
}

TEST(BoneLevers, ReachTheFarthestVertexOfTheSubtree) {
  const float d = 0.03f;
  const Chain c = chain(1.f);
  const std::vector<Transform> model = model_space_frames(c.skeleton, c.clip);
  const std::vector<BoneLever> levers = bone_levers(c.skeleton, c.clip, model, std::vector<float>{d, d});
  ASSERT_EQ(levers.size(), 2u);
  // The root turns the child's vertex at (1 + d, 0, 0); the child only its own at d.
  EXPECT_NEAR(levers[0].rotation_m, 1.f + d, 1e-6f);
  EXPECT_NEAR(levers[1].rotation_m, d, 1e-6f);
  EXPECT_EQ(levers[0].translation, 1.f);
  EXPECT_EQ(levers[1].translation, 1.f);
  EXPECT_NEAR(levers[0].scale_m, std::sqrt(3.f) * (1.f + d), 1e-5f);
  // Per-bone distances: a larger shell on the child lengthens both levers.
  const std::vector<BoneLever> wide = bone_levers(c.skeleton, c.clip, model, std::vector<float>{d, 0.5f});
  EXPECT_NEAR(wide[0].rotation_m, 1.5f, 1e-6f);
  EXPECT_NEAR(wide[1].rotation_m, 0.5f, 1e-6f);
}

TEST(BoneLevers, ATranslationErrorScalesWithTheParentsScale) {
  const Chain c = chain(2.f);
  const std::vector<Transform> model = model_space_frames(c.skeleton, c.clip);
  const std::vector<BoneLever> levers = bone_levers(c.skeleton, c.clip, model, std::vector<float>{0.03f, 0.03f});
  EXPECT_EQ(levers[0].translation, 1.f);  // a root's translation is in model space
  EXPECT_EQ(levers[1].translation, 2.f);
  EXPECT_NEAR(levers[0].rotation_m, 2.f + 2.f * 0.03f, 1e-5f);  // the child sits 2 m out, its shell scaled too
}

// --- track_shares ---------------------------------------------------------------------

TEST(TrackShares, SplitEachToleranceAlongItsChain) {
  const std::vector<int32_t> parents = {-1, 0, 0};
  const float e = 0.001f;
  const std::vector<float> tolerance = {e, e, e / 10.f};
  const std::vector<uint8_t> all(9, 1);
  const std::vector<float> shares = track_shares(parents, tolerance, all);
  // Bone 2's chain has 6 animated tracks within e / 10; bone 1's 6 within e.
  EXPECT_FLOAT_EQ(shares[2], e / 60.f);
  EXPECT_FLOAT_EQ(shares[1], e / 6.f);
  EXPECT_FLOAT_EQ(shares[0], e / 60.f);  // the root serves its tightest descendant
  // Tracks that cannot err take no share.
  std::vector<uint8_t> rotations_only(9, 0);
  for (size_t b = 0; b < 3; ++b) rotations_only[3 * b + 1] = 1;
  const std::vector<float> fewer = track_shares(parents, tolerance, rotations_only);
  EXPECT_FLOAT_EQ(fewer[2], e / 20.f);
  EXPECT_FLOAT_EQ(fewer[1], e / 2.f);
}

TEST(TrackShares, EveryChainStaysWithinEveryToleranceOnIt) {
  for (uint32_t seed = 1; seed <= 200; ++seed) {
    SCOPED_TRACE(seed);
    test::TestRandom rng(seed);
    const uint32_t bones = rng.integer(1, 12);
    std::vector<int32_t> parents;
    std::vector<float> tolerance;
    std::vector<uint8_t> animated;
    for (uint32_t b = 0; b < bones; ++b) {
      parents.push_back(b == 0 || rng.chance(0.2f) ? -1 : static_cast<int32_t>(rng.integer(0, b - 1)));
      tolerance.push_back(std::pow(10.f, rng.uniform(-5.f, -2.f)));
      for (int k = 0; k < 3; ++k) animated.push_back(rng.chance(0.6f) ? 1 : 0);
    }
    const std::vector<float> shares = track_shares(parents, tolerance, animated);
    ASSERT_EQ(shares.size(), bones);
    for (uint32_t b = 0; b < bones; ++b) {
      EXPECT_GT(shares[b], 0.f);
      double sum = 0.0;
      for (int32_t a = static_cast<int32_t>(b); a >= 0; a = parents[static_cast<size_t>(a)]) {
        for (int k = 0; k < 3; ++k) sum += animated[3 * static_cast<size_t>(a) + k] ? shares[static_cast<size_t>(a)] : 0.f;
      }
      EXPECT_LE(sum, tolerance[b] * (1.0 + 1e-5)) << "bone " << b;
    }
  }
}

}  // namespace
}  // namespace ks
