#include "keystream/io/import.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <string>
#include <string_view>

#include "tests/io/gltf_test_files.h"
#include "tests/refused_mentioning.h"
#include "tests/temp_dir.h"

namespace ks {
namespace {

namespace fs = std::filesystem;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();
const fs::path kClips = KS_CLIPS_DIR;

using test::refused_mentioning;

using TempDir = test::TempDir;

// --- ImportSettings::validate ------------------------------------------------

TEST(ImportSettingsValidate, AcceptsDefaults) {
  const Status status = ImportSettings{}.validate();
  EXPECT_TRUE(status.ok()) << status.error();
}

TEST(ImportSettingsValidate, AcceptsExplicitValues) {
  ImportSettings settings;
  settings.animation_index = 3;
  settings.animation_name = "Walk";
  settings.sample_rate_hz = 10000.f;  // the largest rate accepted
  settings.bvh_unit_scale_m = 0.01f;
  const Status status = settings.validate();
  EXPECT_TRUE(status.ok()) << status.error();
}

TEST(ImportSettingsValidate, RefusesNegativeAnimationIndex) {
  ImportSettings settings;
  settings.animation_index = -1;
  EXPECT_TRUE(refused_mentioning(settings.validate(), {"animation index -1"}));
}

TEST(ImportSettingsValidate, RefusesNegativeOrNonFiniteSampleRate) {
  for (const float rate : {-1.f, -kInf, kNaN, kInf}) {
    SCOPED_TRACE(rate);
    ImportSettings settings;
    settings.sample_rate_hz = rate;
    EXPECT_TRUE(refused_mentioning(settings.validate(), {"sample rate"}));
  }
}

TEST(ImportSettingsValidate, RefusesSampleRateAbove10000OrBelow1) {
  // 1e-38 Hz put frame 1 at 1e38 s, which a glTF export wrote as null.
  for (const auto& [rate, text] : {std::pair<float, const char*>{10001.f, "sample rate 10001 Hz"},
                                   {3.4e38f, "sample rate 3.4e+38 Hz"},
                                   {1e-38f, "sample rate 1e-38 Hz"},
                                   {0.5f, "sample rate 0.5 Hz"}}) {
    ImportSettings settings;
    settings.sample_rate_hz = rate;
    EXPECT_TRUE(refused_mentioning(settings.validate(), {text, "within 1 to 10000 Hz"})) << rate;
  }
  ImportSettings slowest;
  slowest.sample_rate_hz = 1.f;
  EXPECT_TRUE(slowest.validate().ok());
}

TEST(ImportSettingsValidate, RefusesNegativeOrNonFiniteBvhUnitScale) {
  for (const float scale : {-0.01f, kNaN, kInf, -kInf}) {
    SCOPED_TRACE(scale);
    ImportSettings settings;
    settings.bvh_unit_scale_m = scale;
    EXPECT_TRUE(refused_mentioning(settings.validate(), {"BVH unit scale"}));
  }
}

// --- import_clip: refusals ---------------------------------------------------

TEST(ImportClip, RefusesInvalidSettingsNamingTheFile) {
  ImportSettings settings;
  settings.animation_index = -2;
  const fs::path path = kClips / "rigged_simple.gltf";
  EXPECT_TRUE(refused_mentioning(import_clip(path, settings), {path.string(), "animation index -2"}));
}

TEST(ImportClip, RefusesUnsupportedExtension) {
  const TempDir dir;
  const fs::path path = dir / "character.obj";
  std::ofstream(path) << "v 0 0 0\n";
  EXPECT_TRUE(refused_mentioning(import_clip(path), {path.string(), "'.obj'", "unsupported", ".dae or .zae"}));
}

TEST(ImportClip, RefusesFileWithoutExtension) {
  const TempDir dir;
  const fs::path path = dir / "walk";
  std::ofstream(path) << "HIERARCHY\n";
  EXPECT_TRUE(refused_mentioning(import_clip(path), {path.string(), "unsupported"}));
}

TEST(ImportClip, RefusesLookalikeExtension) {
  const TempDir dir;
  const fs::path path = dir / "walk.bvh.txt";
  std::ofstream(path) << "HIERARCHY\n";
  EXPECT_TRUE(refused_mentioning(import_clip(path), {path.string(), "'.txt'"}));
}

TEST(ImportClip, RefusesMissingFiles) {
  const TempDir dir;
  for (const std::string name : {"missing.gltf", "missing.glb", "missing.bvh", "missing.fbx"}) {
    SCOPED_TRACE(name);
    const fs::path path = dir / name;
    EXPECT_TRUE(refused_mentioning(import_clip(path), {path.string()}));
  }
}

// --- import_clip: dispatch ---------------------------------------------------

// The dispatch tests read the shared clips; see tests/CMakeLists.txt.

TEST(ImportClip, ImportsGltfWithUpperCaseExtension) {
  const TempDir dir;
  const fs::path path = dir.link("RIGGED.GLTF", kClips / "rigged_simple.gltf");
  const Result<ImportedClip> result = import_clip(path);
  ASSERT_TRUE(result.ok()) << result.error();
  const ImportedClip& imported = result.value();
  EXPECT_EQ(imported.source, path);
  EXPECT_EQ(imported.skeleton.skin_joints.size(), 2u);  // RiggedSimple's skin has two joints
  EXPECT_TRUE(imported.mesh.has_value());
  const Status valid = imported.clip.validate(imported.skeleton);
  EXPECT_TRUE(valid.ok()) << valid.error();
}

TEST(ImportClip, ImportsGlbWithUpperCaseExtension) {
  const TempDir dir;
  const fs::path path = dir.link("FOX.GLB", kClips / "Fox.glb");
  ImportSettings settings;
  settings.animation_name = "Walk";
  const Result<ImportedClip> result = import_clip(path, settings);
  ASSERT_TRUE(result.ok()) << result.error();
  const ImportedClip& imported = result.value();
  EXPECT_EQ(imported.animation_names.size(), 3u);  // Survey, Walk, Run
  ASSERT_GE(imported.animation_index, 0);
  ASSERT_LT(static_cast<size_t>(imported.animation_index), imported.animation_names.size());
  EXPECT_EQ(imported.animation_names[static_cast<size_t>(imported.animation_index)], "Walk");
  EXPECT_TRUE(imported.mesh.has_value());
  const Status valid = imported.clip.validate(imported.skeleton);
  EXPECT_TRUE(valid.ok()) << valid.error();
}

TEST(ImportClip, ImportsBvhWithUpperCaseExtension) {
  const TempDir dir;
  const fs::path path = dir.link("WALK.BVH", kClips / "cmu_cgspeed_01_01.bvh");
  const Result<ImportedClip> result = import_clip(path);
  ASSERT_TRUE(result.ok()) << result.error();
  const ImportedClip& imported = result.value();
  EXPECT_EQ(imported.skeleton.bone_count(), 31u);
  EXPECT_FALSE(imported.skeleton.end_sites.empty());
  EXPECT_FALSE(imported.mesh.has_value());
  EXPECT_NEAR(imported.clip.sample_rate_hz, 120.f, 0.01f);  // 1 / Frame Time
  const Status valid = imported.clip.validate(imported.skeleton);
  EXPECT_TRUE(valid.ok()) << valid.error();
}

TEST(ImportClip, DispatchesOnExtensionNotContent) {
  const TempDir dir;
  // glTF JSON named .bvh goes to the BVH parser, which must refuse it.
  const fs::path path = dir.link("rigged.bvh", kClips / "rigged_simple.gltf");
  EXPECT_TRUE(refused_mentioning(import_clip(path), {path.string()}));
}

// A few kilobytes can ask for any number of frames: bones x frames is
// checked against the limit before the tracks are allocated, in either
// format, and the limit moves with the setting.
TEST(ImportClip, RefusesAClipPastTheBoneFrameLimitBeforeAllocating) {
  TempDir dir;
  // A glTF whose last key is at 2,000 s: at 30 Hz, 60,001 frames of 3 bones.
  test::GltfDocument doc = test::make_skinned_document();
  const int times = doc.buffer.add_floats({0.f, 0.5f, 2000.f}, "SCALAR", 1);
  const int values = doc.buffer.add_floats({0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1}, "VEC4", 4);
  doc.json["animations"][0]["samplers"][0]["input"] = times;
  doc.json["animations"][0]["samplers"][0]["output"] = values;
  const fs::path gltf = doc.write(dir.path(), "long");
  ImportSettings settings;
  settings.sample_rate_hz = 30.f;
  settings.max_bone_frames = 100000;
  EXPECT_TRUE(refused_mentioning(import_clip(gltf, settings),
                                 {"long.gltf", "3 bones x 60001 frames is 180003 bone-frames, more than the limit of "
                                               "100000", "--max-bone-frames N raises it"}));
  settings.max_bone_frames = 180003;
  const Result<ImportedClip> raised = import_clip(gltf, settings);
  ASSERT_TRUE(raised.ok()) << raised.error();
  EXPECT_EQ(raised.value().clip.frame_count, 60001u);
  // A BVH of 2 joints and 50 frames.
  std::string bvh = "HIERARCHY\nROOT Hips\n{\n OFFSET 0 0 0\n CHANNELS 3 Xrotation Yrotation Zrotation\n"
                    " JOINT Spine\n {\n  OFFSET 0 10 0\n  CHANNELS 3 Xrotation Yrotation Zrotation\n"
                    "  End Site\n  {\n   OFFSET 0 10 0\n  }\n }\n}\nMOTION\nFrames: 50\nFrame Time: 0.0333333\n";
  for (int f = 0; f < 50; ++f) bvh += "0 0 0 0 0 " + std::to_string(f) + "\n";
  const fs::path path = dir.path() / "short.bvh";
  std::ofstream(path) << bvh;
  settings.max_bone_frames = 99;
  EXPECT_TRUE(refused_mentioning(import_clip(path, settings), {"short.bvh", "2 bones x 50 frames is 100 bone-frames"}));
  settings.max_bone_frames = 100;
  EXPECT_TRUE(import_clip(path, settings).ok());
  settings.max_bone_frames = 1;
  EXPECT_TRUE(refused_mentioning(settings.validate(), {"the bone-frame limit must be at least 2"}));
}

TEST(ImportClip, SharedClipsExist) {
  EXPECT_TRUE(fs::is_regular_file(kClips / "Fox.glb")) << kClips;
  EXPECT_TRUE(fs::is_regular_file(kClips / "rigged_simple.gltf")) << kClips;
  EXPECT_TRUE(fs::is_regular_file(kClips / "cmu_cgspeed_01_01.bvh")) << kClips;
}

}  // namespace
}  // namespace ks
