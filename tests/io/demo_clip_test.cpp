// The built-in demo clip: what the tools open on a fresh machine must be a
// skinned character that walks.

#include <gtest/gtest.h>

#include <algorithm>

#include "keystream/io/import.h"

namespace ks {
namespace {

const std::filesystem::path kDemo = std::filesystem::path(KS_ASSETS_DIR) / "demo_walk.glb";

ImportedClip import_demo(const std::string& animation) {
  ImportSettings settings;
  settings.animation_name = animation;
  Result<ImportedClip> result = import_clip(kDemo, settings);
  EXPECT_TRUE(result.ok()) << result.error();
  return result.ok() ? std::move(result.value()) : ImportedClip{};
}

TEST(DemoClip, ImportsWithASkinAMeshAndAtLeastTwentyBones) {
  const ImportedClip c = import_demo("walk");
  EXPECT_GE(c.skeleton.bone_count(), 20u);
  EXPECT_EQ(c.skeleton.skin_joints.size(), c.skeleton.bone_count());
  ASSERT_TRUE(c.mesh.has_value());
  EXPECT_GT(c.mesh->vertex_count(), 1000u);
  EXPECT_TRUE(c.mesh->validate(c.skeleton.bone_count()).ok());
  EXPECT_TRUE(c.skeleton.validate().ok());
  EXPECT_TRUE(c.clip.validate(c.skeleton).ok());
  EXPECT_TRUE(c.warnings.empty());
  EXPECT_EQ(c.animation_names, (std::vector<std::string>{"walk", "idle"}));
}

TEST(DemoClip, IsHumanSized) {
  const ImportedClip c = import_demo("walk");
  float low = 1e9f, high = -1e9f;
  for (const Vec3& p : c.mesh->positions) {
    low = std::min(low, p.y);
    high = std::max(high, p.y);
  }
  EXPECT_NEAR(low, 0.f, 0.02f);
  EXPECT_NEAR(high - low, 1.75f, 0.1f);
}

// A walk: the character travels forward and the feet take turns leading.
TEST(DemoClip, WalksForwardWithAlternatingFeet) {
  const ImportedClip c = import_demo("walk");
  const int32_t left = c.skeleton.find_bone("left_foot");
  const int32_t right = c.skeleton.find_bone("right_foot");
  const int32_t hips = c.skeleton.find_bone("hips");
  ASSERT_GE(left, 0);
  ASSERT_GE(right, 0);
  ASSERT_GE(hips, 0);
  std::vector<float> lead;  // left foot ahead of the right, metres along +Z
  float first_hips_z = 0.f, last_hips_z = 0.f;
  for (uint32_t f = 0; f < c.clip.frame_count; ++f) {
    const std::vector<Transform> model = local_to_model(c.skeleton, c.clip.pose_at(f));
    lead.push_back(model[static_cast<size_t>(left)].translation.z - model[static_cast<size_t>(right)].translation.z);
    (f == 0 ? first_hips_z : last_hips_z) = model[static_cast<size_t>(hips)].translation.z;
  }
  EXPECT_GT(c.clip.duration_s(), 1.f);
  const float speed = (last_hips_z - first_hips_z) / c.clip.duration_s();
  EXPECT_GT(speed, 0.8f);
  EXPECT_LT(speed, 2.0f);
  int leader_changes = 0;
  for (size_t f = 1; f < lead.size(); ++f) leader_changes += (lead[f - 1] < 0.f) != (lead[f] < 0.f);
  EXPECT_GE(leader_changes, 3);  // at least two strides
  EXPECT_GT(*std::max_element(lead.begin(), lead.end()), 0.3f);
  EXPECT_LT(*std::min_element(lead.begin(), lead.end()), -0.3f);
}

}  // namespace
}  // namespace ks
