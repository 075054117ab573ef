#include "keystream/clip/skeleton.h"

#include <gtest/gtest.h>

#include <cmath>
#include <initializer_list>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "tests/refused_mentioning.h"

namespace ks {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kHalfPi = 1.57079632679f;

using test::refused_mentioning;

// root -> spine -> head, skinned, with an end site above the head.
Skeleton make_chain() {
  Skeleton s;
  s.bone_names = {"root", "spine", "head"};
  s.parents = {-1, 0, 1};
  s.rest_pose = {Transform{{0.f, 1.f, 0.f}, {}, {1.f, 1.f, 1.f}},
                 Transform{{0.f, 0.5f, 0.f}, quat_from_axis_angle({1.f, 0.f, 0.f}, 0.2f), {1.f, 1.f, 1.f}},
                 Transform{{0.f, 0.3f, 0.f}, {}, {1.f, 1.f, 1.f}}};
  s.inverse_bind = {Mat4{}, Mat4{}, Mat4{}};
  s.skin_joints = {0, 1, 2};
  s.end_sites = {EndSite{2, {0.f, 0.1f, 0.f}}};
  return s;
}

TEST(SkeletonValidate, AcceptsValidSkeleton) {
  const Status status = make_chain().validate();
  EXPECT_TRUE(status.ok()) << status.error();
}

TEST(SkeletonValidate, AcceptsOptionalPartsLeftEmpty) {
  Skeleton s = make_chain();
  s.inverse_bind.clear();
  s.skin_joints.clear();
  s.end_sites.clear();
  const Status status = s.validate();
  EXPECT_TRUE(status.ok()) << status.error();
}

TEST(SkeletonValidate, AcceptsSeveralRoots) {
  Skeleton s = make_chain();
  s.parents[2] = -1;
  const Status status = s.validate();
  EXPECT_TRUE(status.ok()) << status.error();
}

TEST(SkeletonValidate, RefusesNoBones) {
  EXPECT_TRUE(refused_mentioning(Skeleton{}.validate(), {"no bones"}));
}

TEST(SkeletonValidate, RefusesMoreThan65535Bones) {
  Skeleton s;
  s.bone_names.assign(65536, "bone");  // the count is checked before anything else
  s.parents.assign(65536, -1);
  s.rest_pose.assign(65536, Transform{});
  EXPECT_TRUE(refused_mentioning(s.validate(), {"65536", "65535"}));
}

TEST(SkeletonValidate, Accepts65535Bones) {
  Skeleton s;
  for (int32_t i = 0; i < 65535; ++i) {
    s.bone_names.push_back("bone" + std::to_string(i));
    s.parents.push_back(i - 1);
  }
  s.rest_pose.assign(65535, Transform{});
  const Status status = s.validate();
  EXPECT_TRUE(status.ok()) << status.error();
}

TEST(SkeletonValidate, RefusesParentCountMismatch) {
  Skeleton s = make_chain();
  s.parents.pop_back();
  EXPECT_TRUE(refused_mentioning(s.validate(), {"3 names", "2 parents"}));
}

TEST(SkeletonValidate, RefusesRestPoseCountMismatch) {
  Skeleton s = make_chain();
  s.rest_pose.push_back(Transform{});
  EXPECT_TRUE(refused_mentioning(s.validate(), {"3 names", "4 rest transforms"}));
}

TEST(SkeletonValidate, RefusesEmptyName) {
  Skeleton s = make_chain();
  s.bone_names[1].clear();
  EXPECT_TRUE(refused_mentioning(s.validate(), {"bone 1", "empty name"}));
}

TEST(SkeletonValidate, RefusesDuplicateName) {
  Skeleton s = make_chain();
  s.bone_names[2] = "root";
  EXPECT_TRUE(refused_mentioning(s.validate(), {"bone 2 'root'", "earlier bone"}));
}

TEST(SkeletonValidate, RefusesParentAfterChild) {
  Skeleton s = make_chain();
  s.parents[1] = 2;
  EXPECT_TRUE(refused_mentioning(s.validate(), {"bone 1 'spine'", "parent 2"}));
}

TEST(SkeletonValidate, RefusesBoneAsItsOwnParent) {
  Skeleton s = make_chain();
  s.parents[2] = 2;
  EXPECT_TRUE(refused_mentioning(s.validate(), {"bone 2 'head'", "parent 2"}));
}

TEST(SkeletonValidate, RefusesParentBelowMinusOne) {
  Skeleton s = make_chain();
  s.parents[0] = -2;
  EXPECT_TRUE(refused_mentioning(s.validate(), {"bone 0 'root'", "parent -2"}));
}

TEST(SkeletonValidate, RefusesParentPastTheEnd) {
  Skeleton s = make_chain();
  s.parents[2] = 7;
  EXPECT_TRUE(refused_mentioning(s.validate(), {"bone 2 'head'", "parent 7"}));
}

TEST(SkeletonValidate, RefusesNonFiniteRestTranslation) {
  Skeleton s = make_chain();
  s.rest_pose[2].translation.y = kNaN;
  EXPECT_TRUE(refused_mentioning(s.validate(), {"bone 2 'head'", "rest translation"}));
}

TEST(SkeletonValidate, RefusesNonFiniteRestScale) {
  Skeleton s = make_chain();
  s.rest_pose[1].scale.z = kInf;
  EXPECT_TRUE(refused_mentioning(s.validate(), {"bone 1 'spine'", "scale"}));
}

TEST(SkeletonValidate, RefusesNonUnitRestRotation) {
  Skeleton s = make_chain();
  s.rest_pose[1].rotation = Quat{0.f, 0.f, 0.f, 2.f};
  EXPECT_TRUE(refused_mentioning(s.validate(), {"bone 1 'spine'", "unit quaternion"}));
}

TEST(SkeletonValidate, RefusesZeroRestRotation) {
  Skeleton s = make_chain();
  s.rest_pose[0].rotation = Quat{0.f, 0.f, 0.f, 0.f};
  EXPECT_TRUE(refused_mentioning(s.validate(), {"bone 0 'root'", "unit quaternion"}));
}

TEST(SkeletonValidate, RefusesNonFiniteRestRotation) {
  Skeleton s = make_chain();
  s.rest_pose[2].rotation.x = kNaN;
  EXPECT_TRUE(refused_mentioning(s.validate(), {"bone 2 'head'", "rest rotation"}));
}

TEST(SkeletonValidate, RefusesInverseBindCountMismatch) {
  Skeleton s = make_chain();
  s.inverse_bind.pop_back();
  EXPECT_TRUE(refused_mentioning(s.validate(), {"2 inverse bind matrices", "3 bones"}));
}

TEST(SkeletonValidate, RefusesNonFiniteInverseBind) {
  Skeleton s = make_chain();
  s.inverse_bind[1].m[13] = kInf;
  EXPECT_TRUE(refused_mentioning(s.validate(), {"bone 1 'spine'", "inverse bind"}));
}

TEST(SkeletonValidate, RefusesSkinJointPastLastBone) {
  Skeleton s = make_chain();
  s.skin_joints = {0, 3};
  EXPECT_TRUE(refused_mentioning(s.validate(), {"skin joint 1", "bone 3"}));
}

TEST(SkeletonValidate, RefusesNegativeSkinJoint) {
  Skeleton s = make_chain();
  s.skin_joints = {-1, 1};
  EXPECT_TRUE(refused_mentioning(s.validate(), {"skin joint 0", "bone -1"}));
}

TEST(SkeletonValidate, RefusesDuplicatedSkinJoint) {
  Skeleton s = make_chain();
  s.skin_joints = {2, 0, 2};
  EXPECT_TRUE(refused_mentioning(s.validate(), {"skin joint 2", "bone 2", "twice"}));
}

TEST(SkeletonValidate, RefusesEndSiteOnMissingBone) {
  Skeleton s = make_chain();
  s.end_sites.push_back(EndSite{3, {}});
  EXPECT_TRUE(refused_mentioning(s.validate(), {"end site 1", "bone 3"}));
}

TEST(SkeletonValidate, RefusesEndSiteWithoutParent) {
  Skeleton s = make_chain();
  s.end_sites[0].parent = -1;
  EXPECT_TRUE(refused_mentioning(s.validate(), {"end site 0", "bone -1"}));
}

TEST(SkeletonValidate, RefusesNonFiniteEndSiteOffset) {
  Skeleton s = make_chain();
  s.end_sites[0].offset.x = kNaN;
  EXPECT_TRUE(refused_mentioning(s.validate(), {"end site 0", "offset"}));
}

TEST(Skeleton, FindBone) {
  const Skeleton s = make_chain();
  EXPECT_EQ(s.find_bone("root"), 0);
  EXPECT_EQ(s.find_bone("spine"), 1);
  EXPECT_EQ(s.find_bone("head"), 2);
  EXPECT_EQ(s.find_bone("Head"), -1);  // names are case-sensitive
  EXPECT_EQ(s.find_bone("hea"), -1);
  EXPECT_EQ(s.find_bone(""), -1);
  EXPECT_EQ(Skeleton{}.find_bone("root"), -1);
}

TEST(Skeleton, LocalToModelOnChain) {
  Skeleton s = make_chain();
  // root at (5, 0, 0) turned a quarter about Z, so its +X points along +Y;
  // spine one unit along the root's X, scaled 2; head one unit along the
  // spine's X, turned a quarter about X.
  const std::vector<Transform> local = {
      Transform{{5.f, 0.f, 0.f}, quat_from_axis_angle({0.f, 0.f, 1.f}, kHalfPi), {1.f, 1.f, 1.f}},
      Transform{{1.f, 0.f, 0.f}, {}, {2.f, 2.f, 2.f}},
      Transform{{1.f, 0.f, 0.f}, quat_from_axis_angle({1.f, 0.f, 0.f}, kHalfPi), {1.f, 1.f, 1.f}}};
  const std::vector<Transform> model = local_to_model(s, local);
  ASSERT_EQ(model.size(), 3u);

  EXPECT_NEAR(model[0].translation.x, 5.f, 1e-6f);
  EXPECT_NEAR(model[0].translation.y, 0.f, 1e-6f);

  EXPECT_NEAR(model[1].translation.x, 5.f, 1e-5f);
  EXPECT_NEAR(model[1].translation.y, 1.f, 1e-5f);
  EXPECT_NEAR(model[1].translation.z, 0.f, 1e-5f);
  EXPECT_NEAR(model[1].scale.x, 2.f, 1e-6f);

  // The spine's scale doubles the head's offset: 5 + 0, 1 + 2, 0.
  EXPECT_NEAR(model[2].translation.x, 5.f, 1e-5f);
  EXPECT_NEAR(model[2].translation.y, 3.f, 1e-5f);
  EXPECT_NEAR(model[2].translation.z, 0.f, 1e-5f);
  EXPECT_NEAR(model[2].scale.y, 2.f, 1e-6f);
  // Head's Y turns to Z about X, then Z stays Z about Z.
  const Vec3 head_y = rotate(model[2].rotation, {0.f, 1.f, 0.f});
  EXPECT_NEAR(head_y.x, 0.f, 1e-5f);
  EXPECT_NEAR(head_y.y, 0.f, 1e-5f);
  EXPECT_NEAR(head_y.z, 1.f, 1e-5f);
  // Head's X turns to Y through the root's quarter turn.
  const Vec3 head_x = rotate(model[2].rotation, {1.f, 0.f, 0.f});
  EXPECT_NEAR(head_x.y, 1.f, 1e-5f);
}

TEST(Skeleton, LocalToModelLeavesRootsUnchanged) {
  Skeleton s = make_chain();
  s.parents = {-1, 0, -1};
  const std::vector<Transform> local = {Transform{{1.f, 2.f, 3.f}, {}, {1.f, 1.f, 1.f}},
                                        Transform{{1.f, 0.f, 0.f}, {}, {1.f, 1.f, 1.f}},
                                        Transform{{0.f, 0.f, 7.f}, {}, {3.f, 3.f, 3.f}}};
  const std::vector<Transform> model = local_to_model(s, local);
  ASSERT_EQ(model.size(), 3u);
  EXPECT_FLOAT_EQ(model[1].translation.x, 2.f);
  EXPECT_FLOAT_EQ(model[2].translation.x, 0.f);
  EXPECT_FLOAT_EQ(model[2].translation.z, 7.f);
  EXPECT_FLOAT_EQ(model[2].scale.x, 3.f);
}

TEST(BoneIndexByName, FindsWhatFindBoneFinds) {
  const Skeleton s = make_chain();
  const auto index = bone_index_by_name(s.bone_names);
  ASSERT_EQ(index.size(), 3u);
  for (const std::string& name : s.bone_names) EXPECT_EQ(index.at(name), s.find_bone(name)) << name;
  EXPECT_EQ(index.count("Head"), 0u);
  // A repeated name (an invalid skeleton) maps to its first bone, as find_bone does.
  const std::vector<std::string> repeated = {"a", "b", "a"};
  EXPECT_EQ(bone_index_by_name(repeated).at("a"), 0);
}

}  // namespace
}  // namespace ks
