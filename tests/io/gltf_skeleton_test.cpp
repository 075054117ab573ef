// The skeleton a glTF imports as (gltf_hierarchy.h): every skin's joints and
// every node an animation moves, with their ancestors, so nothing animated is
// dropped; every skinned mesh kept, each through its own skin (issue 16: a
// character of several skins imported as a floating head); cameras and
// lights only as the ancestors of other bones (issue 42).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "keystream/io/gltf_import.h"
#include "tests/io/gltf_test_files.h"
#include "tests/temp_dir.h"

namespace ks {
namespace {

// The skinned test document plus: "arm", a node outside any skin that the
// animation rotates; "leg" and "foot", the joints of a second skin, drawn by
// "legmesh" (the same mesh, bound to them). With `share_lower`, skin 1 lists
// "lower" too, with another inverse bind matrix than skin 0's.
test::GltfDocument two_skin_document(bool share_lower) {
  test::GltfDocument doc = test::make_skinned_document();
  nlohmann::json& j = doc.json;
  j["nodes"].push_back({{"name", "arm"}, {"translation", {1, 0, 0}}});       // node 4
  j["nodes"].push_back({{"name", "leg"}, {"translation", {0, -1, 0}}});      // node 5
  j["nodes"].push_back({{"name", "legmesh"}, {"mesh", 0}, {"skin", 1}});     // node 6
  j["nodes"].push_back({{"name", "foot"}, {"translation", {0, -2, 0}}});     // node 7
  j["scenes"][0]["nodes"] = {0, 3, 4, 5, 6, 7};
  std::vector<float> matrices = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1,  //
                                 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 2, 0, 1};
  if (share_lower) matrices.insert(matrices.end(), {2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 1});
  const int ibm = doc.buffer.add_floats(matrices, "MAT4", 16);
  nlohmann::json joints = {5, 7};
  if (share_lower) joints.push_back(1);
  j["skins"].push_back({{"joints", joints}, {"inverseBindMatrices", ibm}});
  // The animation also turns "arm" about Y.
  const int times = doc.buffer.add_floats({0.f, 0.4f}, "SCALAR", 1);
  const int turns = doc.buffer.add_floats({0, 0, 0, 1, 0, std::sin(0.5f), 0, std::cos(0.5f)}, "VEC4", 4);
  const size_t sampler = j["animations"][0]["samplers"].size();
  j["animations"][0]["samplers"].push_back({{"input", times}, {"output", turns}, {"interpolation", "LINEAR"}});
  j["animations"][0]["channels"].push_back({{"sampler", sampler}, {"target", {{"node", 4}, {"path", "rotation"}}}});
  return doc;
}

TEST(GltfSkeleton, HoldsEverySkinsJointsAndEveryAnimatedNode) {
  test::TempDir dir;
  const Result<ImportedClip> r = import_gltf(two_skin_document(false).write(dir.path(), "two"), {});
  ASSERT_TRUE(r.ok()) << r.error();
  const ImportedClip& clip = r.value();
  EXPECT_EQ(clip.skeleton.bone_names, (std::vector<std::string>{"rig", "lower", "upper", "arm", "leg", "foot"}));
  EXPECT_TRUE(clip.warnings.empty()) << clip.warnings.front();
  // The arm turns: a non-joint node's channel is no longer dropped.
  const int32_t arm = clip.skeleton.find_bone("arm");
  ASSERT_GE(arm, 0);
  const Quat last = clip.clip.bones[static_cast<size_t>(arm)].rotations.back();
  EXPECT_NEAR(last.y, std::sin(0.5f), 1e-5f);
  // Both meshes are kept, the second bound to "leg" and "foot" through skin 1.
  ASSERT_TRUE(clip.mesh.has_value());
  ASSERT_EQ(clip.mesh->vertex_count(), 8u);
  const int32_t leg = clip.skeleton.find_bone("leg");
  const int32_t foot = clip.skeleton.find_bone("foot");
  for (size_t v = 4; v < 8; ++v) {
    for (size_t k = 0; k < 4; ++k) {
      if (clip.mesh->weights[v][k] == 0.f) continue;
      const int32_t bone = clip.mesh->joints[v][k];
      EXPECT_TRUE(bone == leg || bone == foot) << "vertex " << v << " weight " << k << " on bone " << bone;
    }
  }
  // Each skin's inverse bind matrix reached its joints.
  EXPECT_EQ(clip.skeleton.inverse_bind[static_cast<size_t>(foot)].m[13], 2.f);
}

TEST(GltfSkeleton, ASkinThatBindsASharedJointDifferentlyIsWarnedAboutAndNotDrawn) {
  test::TempDir dir;
  const Result<ImportedClip> r = import_gltf(two_skin_document(true).write(dir.path(), "clash"), {});
  ASSERT_TRUE(r.ok()) << r.error();
  const ImportedClip& clip = r.value();
  EXPECT_EQ(clip.skeleton.bone_count(), 6u);  // the animation is imported whole
  ASSERT_EQ(clip.warnings.size(), 1u);
  EXPECT_NE(clip.warnings[0].find("skin 1 binds joint 'lower' differently from skin 0; its meshes are not shown"),
            std::string::npos)
      << clip.warnings[0];
  ASSERT_TRUE(clip.mesh.has_value());
  EXPECT_EQ(clip.mesh->vertex_count(), 4u);  // skin 0's mesh only
}

// The skinned test document plus what an exporter writes beside a rig: a
// camera the animation flies ("shot", node 4) with the target it looks at
// below it ("shot_target", node 5), and a light ("sun", node 6, through
// KHR_lights_punctual) under the rig's root.
test::GltfDocument rig_with_camera_and_light() {
  test::GltfDocument doc = test::make_skinned_document();
  nlohmann::json& j = doc.json;
  j["cameras"] = {{{"type", "perspective"}, {"perspective", {{"yfov", 0.8}, {"znear", 0.1}}}}};
  j["extensionsUsed"] = {"KHR_lights_punctual"};
  j["extensions"] = {{"KHR_lights_punctual", {{"lights", {{{"type", "directional"}}}}}}};
  j["nodes"].push_back({{"name", "shot"}, {"camera", 0}, {"translation", {0, 1, 40}}, {"children", {5}}});
  j["nodes"].push_back({{"name", "shot_target"}, {"translation", {0, 0, -40}}});
  j["nodes"].push_back(
      {{"name", "sun"}, {"translation", {0, 90, 0}}, {"extensions", {{"KHR_lights_punctual", {{"light", 0}}}}}});
  j["nodes"][0]["children"].push_back(6);
  j["scenes"][0]["nodes"] = {0, 3, 4};
  const int times = doc.buffer.add_floats({0.f, 0.4f}, "SCALAR", 1);
  const int moves = doc.buffer.add_floats({0, 1, 40, 30, 1, 40}, "VEC3", 3);
  const size_t sampler = j["animations"][0]["samplers"].size();
  j["animations"][0]["samplers"].push_back({{"input", times}, {"output", moves}, {"interpolation", "LINEAR"}});
  j["animations"][0]["channels"].push_back({{"sampler", sampler}, {"target", {{"node", 4}, {"path", "translation"}}}});
  return doc;
}

// Cameras and lights are no bones (issue 42): the rig imports as its
// joints and their ancestors, the flown camera's channel is not a bone's,
// and a warning names what was left out.
TEST(GltfSkeleton, CamerasAndLightsBesideARigAreNoBones) {
  test::TempDir dir;
  const Result<ImportedClip> r = import_gltf(rig_with_camera_and_light().write(dir.path(), "shot"), {});
  ASSERT_TRUE(r.ok()) << r.error();
  const ImportedClip& clip = r.value();
  EXPECT_EQ(clip.skeleton.bone_names, (std::vector<std::string>{"rig", "lower", "upper"}));
  const bool named = std::any_of(clip.warnings.begin(), clip.warnings.end(), [](const std::string& w) {
    return w.find("left out 3 camera and light nodes (and nodes below them)") != std::string::npos &&
           w.find("'shot'") != std::string::npos && w.find("'shot_target'") != std::string::npos &&
           w.find("'sun'") != std::string::npos;
  });
  EXPECT_TRUE(named) << (clip.warnings.empty() ? "no warning" : clip.warnings.front());
  ASSERT_TRUE(clip.mesh.has_value());
  EXPECT_EQ(clip.mesh->vertex_count(), 4u);
}

// A file without a skin (a node-animated prop) keeps every node but the
// cameras, the lights and what hangs below them; a moved node below a
// camera is kept, with the camera as its ancestor.
TEST(GltfSkeleton, ASkinlessFileKeepsItsNodesButNotItsCameras) {
  test::GltfDocument doc = rig_with_camera_and_light();
  nlohmann::json& j = doc.json;
  j.erase("skins");
  j["nodes"][3].erase("skin");
  j["nodes"][3].erase("mesh");
  j.erase("meshes");
  test::TempDir dir;
  const Result<ImportedClip> r = import_gltf(doc.write(dir.path(), "prop"), {});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.value().skeleton.bone_names, (std::vector<std::string>{"rig", "lower", "upper", "strip"}));
  // The target below the camera moves now: the camera comes with it.
  j["animations"][0]["channels"][1]["target"]["node"] = 5;
  const Result<ImportedClip> moved = import_gltf(doc.write(dir.path(), "moved"), {});
  ASSERT_TRUE(moved.ok()) << moved.error();
  EXPECT_EQ(moved.value().skeleton.bone_names,
            (std::vector<std::string>{"rig", "lower", "upper", "strip", "shot", "shot_target"}));
}

// A file whose only nodes are cameras and lights has no bones to import.
TEST(GltfSkeleton, AFileOfCamerasAloneIsRefusedSayingSo) {
  test::GltfDocument doc;
  const int times = doc.buffer.add_floats({0.f, 0.4f}, "SCALAR", 1);
  const int moves = doc.buffer.add_floats({0, 1, 40, 30, 1, 40}, "VEC3", 3);
  doc.json = {{"asset", {{"version", "2.0"}}},
              {"scene", 0},
              {"scenes", {{{"nodes", {0}}}}},
              {"cameras", {{{"type", "perspective"}, {"perspective", {{"yfov", 0.8}, {"znear", 0.1}}}}}},
              {"nodes", {{{"name", "shot"}, {"camera", 0}}}},
              {"animations",
               {{{"name", "fly"},
                 {"samplers", {{{"input", times}, {"output", moves}, {"interpolation", "LINEAR"}}}},
                 {"channels", {{{"sampler", 0}, {"target", {{"node", 0}, {"path", "translation"}}}}}}}}}};
  test::TempDir dir;
  const std::filesystem::path path = doc.write(dir.path(), "fly");
  const Result<ImportedClip> r = import_gltf(path, {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("fly.gltf"), std::string::npos) << r.error();
  EXPECT_NE(r.error().find("its nodes are cameras and lights"), std::string::npos) << r.error();
}

}  // namespace
}  // namespace ks
