// Cameras and lights in an assimp scene are no bones (issue 42): a rig
// exported beside a camera that flies, the camera's look-at target (3ds
// Max's "<camera>.Target") and a light imports as the rig alone, with a
// warning naming what was left out. The scene is Collada, which assimp
// reads and a test can write by hand; FBX cameras take the same path
// (assimp's scene lists both files' cameras and lights alike).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "keystream/io/import.h"
#include "tests/refused_mentioning.h"
#include "tests/temp_dir.h"

namespace ks {
namespace {

// A matrix animation of node `node` between two 4x4 row-major matrices.
std::string matrix_animation(const std::string& node, const std::string& from, const std::string& to) {
  const std::string id = node + "-anim";
  return "<animation id=\"" + id + "\"><source id=\"" + id + "-in\"><float_array id=\"" + id +
         "-in-array\" count=\"2\">0 1</float_array><technique_common><accessor source=\"#" + id +
         "-in-array\" count=\"2\" stride=\"1\"><param name=\"TIME\" type=\"float\"/></accessor></technique_common>"
         "</source><source id=\"" +
         id + "-out\"><float_array id=\"" + id + "-out-array\" count=\"32\">" + from + " " + to +
         "</float_array><technique_common><accessor source=\"#" + id +
         "-out-array\" count=\"2\" stride=\"16\"><param name=\"TRANSFORM\" type=\"float4x4\"/></accessor>"
         "</technique_common></source><sampler id=\"" +
         id + "-sampler\"><input semantic=\"INPUT\" source=\"#" + id + "-in\"/><input semantic=\"OUTPUT\" source=\"#" +
         id + "-out\"/></sampler><channel source=\"#" + id + "-sampler\" target=\"" + node +
         "/transform\"/></animation>";
}

std::string node(const std::string& name, const std::string& matrix, const std::string& inside = "") {
  return "<node id=\"" + name + "\" name=\"" + name + "\" sid=\"" + name + "\"><matrix sid=\"transform\">" + matrix +
         "</matrix>" + inside + "</node>";
}

constexpr const char* kIdentity = "1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1";
constexpr const char* kUp = "1 0 0 0 0 1 0 1 0 0 1 0 0 0 0 1";
constexpr const char* kTurned = "0 -1 0 0 1 0 0 1 0 0 1 0 0 0 0 1";
constexpr const char* kShotStart = "1 0 0 0 0 1 0 1 0 0 1 40 0 0 0 1";
constexpr const char* kShotEnd = "1 0 0 30 0 1 0 1 0 0 1 40 0 0 0 1";

// The rig ("rig", "arm": the arm turns) and, with `with_rig` false, none:
// then the camera alone moves.
std::string shot_scene(bool with_rig) {
  std::string animations = matrix_animation("shot", kShotStart, kShotEnd);
  std::string nodes;
  if (with_rig) {
    animations += matrix_animation("arm", kUp, kTurned);
    nodes += node("rig", kIdentity, node("arm", kUp));
  }
  nodes += node("shot", kShotStart, "<instance_camera url=\"#cam-shape\"/>");
  nodes += node("shot.Target", kIdentity);
  nodes += node("lamp", "1 0 0 0 0 1 0 90 0 0 1 0 0 0 0 1", "<instance_light url=\"#lamp-shape\"/>");
  return "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
         "<COLLADA xmlns=\"http://www.collada.org/2005/11/COLLADASchema\" version=\"1.4.1\">"
         "<asset><unit meter=\"1\" name=\"meter\"/><up_axis>Y_UP</up_axis></asset>"
         "<library_cameras><camera id=\"cam-shape\"><optics><technique_common><perspective><yfov>40</yfov>"
         "<aspect_ratio>1.5</aspect_ratio><znear>0.1</znear><zfar>100</zfar></perspective></technique_common>"
         "</optics></camera></library_cameras>"
         "<library_lights><light id=\"lamp-shape\"><technique_common><point><color>1 1 1</color></point>"
         "</technique_common></light></library_lights>"
         "<library_animations>" +
         animations + "</library_animations><library_visual_scenes><visual_scene id=\"scene\">" + nodes +
         "</visual_scene></library_visual_scenes><scene><instance_visual_scene url=\"#scene\"/></scene></COLLADA>\n";
}

std::filesystem::path write(const std::filesystem::path& dir, const std::string& name, const std::string& text) {
  const std::filesystem::path path = dir / name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

TEST(AssimpSceneHelpers, ACameraItsTargetAndALightBesideARigAreNoBones) {
  test::TempDir dir;
  const Result<ImportedClip> r = import_clip(write(dir.path(), "shot.dae", shot_scene(true)));
  ASSERT_TRUE(r.ok()) << r.error();
  const ImportedClip& clip = r.value();
  for (const char* name : {"shot", "shot.Target", "lamp"}) {
    EXPECT_LT(clip.skeleton.find_bone(name), 0) << name << " is a bone";
  }
  EXPECT_GE(clip.skeleton.find_bone("arm"), 0);
  const bool named = std::any_of(clip.warnings.begin(), clip.warnings.end(), [](const std::string& w) {
    return w.find("left out 3 camera and light nodes") != std::string::npos && w.find("'shot'") != std::string::npos &&
           w.find("'shot.Target'") != std::string::npos && w.find("'lamp'") != std::string::npos;
  });
  EXPECT_TRUE(named) << (clip.warnings.empty() ? "no warning" : clip.warnings.front());
}

TEST(AssimpSceneHelpers, AFlyingCameraAloneIsRefusedSayingSo) {
  test::TempDir dir;
  const std::filesystem::path path = write(dir.path(), "fly.dae", shot_scene(false));
  EXPECT_TRUE(test::refused_mentioning(import_clip(path), {"fly.dae", "it animates only cameras and lights"}));
}

}  // namespace
}  // namespace ks
