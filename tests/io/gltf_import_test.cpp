#include "keystream/io/gltf_import.h"
#include "keystream/io/gltf_schema.h"

#include <gtest/gtest.h>
#include <tiny_gltf.h>
#include <unistd.h>

#include <cctype>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <string>

#include "tests/io/gltf_test_files.h"
#include "tests/temp_dir.h"

namespace ks {
namespace {

const std::filesystem::path kClips = KS_CLIPS_DIR;
const std::filesystem::path kAssimpGltf = std::filesystem::path(KS_ASSIMP_MODELS_DIR) / "glTF2";

ImportedClip import_ok(const std::filesystem::path& path, ImportSettings settings = {}) {
  Result<ImportedClip> result = import_gltf(path, settings);
  EXPECT_TRUE(result.ok()) << result.error();
  if (!result) return {};
  return std::move(result.value());
}

ImportedClip import_animation(const std::filesystem::path& path, const std::string& name) {
  ImportSettings settings;
  settings.animation_name = name;
  return import_ok(path, settings);
}

using TempDir = test::TempDir;

// ---------------------------------------------------------------------------
// The shared clips, against the MANIFEST

struct ManifestAnimation {
  const char* file;
  const char* animation;
  size_t joints;     // skin joints, or nodes where there is no skin
  size_t keys;       // frames expected where keys are uniform (0: not checked)
  double duration_s;
};

class ManifestClips : public ::testing::TestWithParam<ManifestAnimation> {};

// A test name from free text: letters and digits kept, the rest as '_'.
std::string test_name(std::string text) {
  for (char& ch : text) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return text;
}

TEST_P(ManifestClips, ImportWithTheManifestsCountsAndDuration) {
  const ManifestAnimation& m = GetParam();
  const ImportedClip c = import_animation(kClips / m.file, m.animation);
  const size_t joints = c.skeleton.skin_joints.empty() ? c.skeleton.bone_count() : c.skeleton.skin_joints.size();
  EXPECT_EQ(joints, m.joints);
  if (*m.animation != '\0') {
    EXPECT_EQ(c.clip.name, m.animation);
  }
  // The MANIFEST gives 10 ms steps; the clip ends on the first frame at or
  // after the last key.
  EXPECT_GE(c.clip.duration_s(), m.duration_s - 0.005);
  EXPECT_LE(c.clip.duration_s(), m.duration_s + 0.01 + 1.0 / c.clip.sample_rate_hz);
  if (m.keys != 0) {
    EXPECT_EQ(c.clip.frame_count, m.keys);
  }
  EXPECT_TRUE(c.skeleton.validate().ok());
  EXPECT_TRUE(c.clip.validate(c.skeleton).ok());
}

INSTANTIATE_TEST_SUITE_P(
    Manifest, ManifestClips,
    ::testing::Values(ManifestAnimation{"Fox.glb", "Survey", 24, 83, 3.42}, ManifestAnimation{"Fox.glb", "Walk", 24, 18, 0.71},
                      ManifestAnimation{"Fox.glb", "Run", 24, 0, 1.16},
                      ManifestAnimation{"greenman.glb", "0_pose", 12, 4, 0.12},
                      ManifestAnimation{"greenman.glb", "1_idle", 12, 60, 2.46},
                      ManifestAnimation{"greenman.glb", "2_move", 12, 30, 1.21},
                      ManifestAnimation{"greenman.glb", "3_attack", 12, 20, 0.79},
                      ManifestAnimation{"robot.glb", "Robot_Dance", 43, 81, 3.33},
                      ManifestAnimation{"robot.glb", "Robot_Death", 43, 24, 0.96},
                      ManifestAnimation{"robot.glb", "Robot_Idle", 43, 81, 3.33},
                      ManifestAnimation{"robot.glb", "Robot_Jump", 43, 18, 0.71},
                      ManifestAnimation{"robot.glb", "Robot_No", 43, 41, 1.67},
                      ManifestAnimation{"robot.glb", "Robot_Punch", 43, 21, 0.83},
                      ManifestAnimation{"robot.glb", "Robot_Running", 43, 24, 0.96},
                      ManifestAnimation{"robot.glb", "Robot_Sitting", 43, 11, 0.42},
                      ManifestAnimation{"robot.glb", "Robot_Standing", 43, 11, 0.42},
                      ManifestAnimation{"robot.glb", "Robot_ThumbsUp", 43, 39, 1.58},
                      ManifestAnimation{"robot.glb", "Robot_Walking", 43, 24, 0.96},
                      ManifestAnimation{"robot.glb", "Robot_WalkJump", 43, 21, 0.83},
                      ManifestAnimation{"robot.glb", "Robot_Wave", 43, 45, 1.83},
                      ManifestAnimation{"robot.glb", "Robot_Yes", 43, 41, 1.67},
                      ManifestAnimation{"rigged_simple.gltf", "", 2, 50, 2.04},
                      ManifestAnimation{"interpolation_test.gltf", "Step Scale", 12, 0, 1.62},
                      ManifestAnimation{"interpolation_test.gltf", "Linear Scale", 12, 0, 1.62},
                      ManifestAnimation{"interpolation_test.gltf", "CubicSpline Scale", 12, 0, 1.62},
                      ManifestAnimation{"interpolation_test.gltf", "Step Rotation", 12, 0, 1.71},
                      ManifestAnimation{"interpolation_test.gltf", "CubicSpline Rotation", 12, 0, 1.71},
                      ManifestAnimation{"interpolation_test.gltf", "Linear Rotation", 12, 0, 1.71},
                      ManifestAnimation{"interpolation_test.gltf", "Step Translation", 12, 0, 1.71},
                      ManifestAnimation{"interpolation_test.gltf", "CubicSpline Translation", 12, 0, 1.67},
                      ManifestAnimation{"interpolation_test.gltf", "Linear Translation", 12, 5, 1.67}),
    [](const auto& p) { return test_name(std::string(p.param.file) + "_" + p.param.animation); });

TEST(GltfImport, ListsEveryAnimationAndSelectsByIndex) {
  ImportSettings settings;
  settings.animation_index = 2;
  const ImportedClip c = import_ok(kClips / "Fox.glb", settings);
  ASSERT_EQ(c.animation_names.size(), 3u);
  EXPECT_EQ(c.animation_names[0], "Survey");
  EXPECT_EQ(c.animation_names[1], "Walk");
  EXPECT_EQ(c.animation_names[2], "Run");
  EXPECT_EQ(c.animation_index, 2);
  EXPECT_EQ(c.clip.name, "Run");
}

TEST(GltfImport, RefusesAnUnknownAnimationNameListingTheNames) {
  ImportSettings settings;
  settings.animation_name = "Swim";
  Result<ImportedClip> r = import_gltf(kClips / "Fox.glb", settings);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("Fox.glb"), std::string::npos) << r.error();
  EXPECT_NE(r.error().find("'Swim'"), std::string::npos) << r.error();
  EXPECT_NE(r.error().find("'Survey', 'Walk', 'Run'"), std::string::npos) << r.error();
}

TEST(GltfImport, RefusesAnAnimationIndexOutOfRange) {
  ImportSettings settings;
  settings.animation_index = 3;
  Result<ImportedClip> r = import_gltf(kClips / "Fox.glb", settings);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("index 3 is out of range"), std::string::npos) << r.error();
}

TEST(GltfImport, SampleRateLandsOnTheKeysAndCanBeOverridden) {
  EXPECT_FLOAT_EQ(import_animation(kClips / "Fox.glb", "Walk").clip.sample_rate_hz, 24.f);
  // Run's keys are not evenly spaced: 1/24 s apart around one 0.2 s gap,
  // all of them on a 120 Hz frame (gltf_sample_rate_test.cpp).
  EXPECT_FLOAT_EQ(import_animation(kClips / "Fox.glb", "Run").clip.sample_rate_hz, 120.f);
  // Linear keys every 1/2.4 s are kept at their own rate; cubic ones at the
  // same spacing get the smallest multiple of it reaching 30 Hz.
  EXPECT_NEAR(import_animation(kClips / "interpolation_test.gltf", "Linear Translation").clip.sample_rate_hz, 2.4f,
              1e-4);
  EXPECT_NEAR(import_animation(kClips / "interpolation_test.gltf", "CubicSpline Translation").clip.sample_rate_hz,
              31.2f, 1e-3);
  ImportSettings settings;
  settings.sample_rate_hz = 60.f;
  const ImportedClip c = import_ok(kClips / "Fox.glb", settings);
  EXPECT_FLOAT_EQ(c.clip.sample_rate_hz, 60.f);
  EXPECT_EQ(c.clip.frame_count, 206u);  // 3.41667 s at 60 Hz
}

TEST(GltfImport, SkinnedFileKeepsJointsTheirAncestorsAndTheMesh) {
  const ImportedClip c = import_ok(kClips / "Fox.glb");
  EXPECT_EQ(c.skeleton.skin_joints.size(), 24u);
  EXPECT_GT(c.skeleton.bone_count(), 24u);  // the armature node above the joints
  ASSERT_TRUE(c.mesh.has_value());
  EXPECT_EQ(c.mesh->vertex_count(), 1728u);
  EXPECT_TRUE(c.mesh->validate(c.skeleton.bone_count()).ok());
  EXPECT_EQ(c.skeleton.inverse_bind.size(), c.skeleton.bone_count());
}

// In the rest pose, each joint's model matrix times its inverse bind matrix
// is the identity for these files, so skinning must give back the mesh: this
// checks the joint remapping, the weights and the inverse bind matrices
// together. (Not rigged_simple.gltf: its inverse bind matrices leave out the
// Z-up node above the armature, so its skinned mesh lands rotated.)
TEST(GltfImport, RestPoseSkinningReproducesTheBindPoseMesh) {
  for (const char* file : {"Fox.glb", "robot.glb", "greenman.glb"}) {
    const ImportedClip c = import_ok(kClips / file);
    ASSERT_TRUE(c.mesh.has_value()) << file;
    const std::vector<Transform> model = local_to_model(c.skeleton, c.skeleton.rest_pose);
    std::vector<Mat4> palette(model.size());
    for (size_t b = 0; b < model.size(); ++b) palette[b] = to_matrix(model[b]) * c.skeleton.inverse_bind[b];
    float extent = 0.f;
    for (const Vec3& p : c.mesh->positions) extent = std::max(extent, length(p));
    float worst = 0.f;
    for (size_t v = 0; v < c.mesh->vertex_count(); ++v) {
      const Vec3 p = c.mesh->positions[v];
      Vec3 skinned;
      for (size_t k = 0; k < 4; ++k) {
        const Mat4& m = palette[c.mesh->joints[v][k]];
        const Vec3 q{m.m[0] * p.x + m.m[4] * p.y + m.m[8] * p.z + m.m[12],
                     m.m[1] * p.x + m.m[5] * p.y + m.m[9] * p.z + m.m[13],
                     m.m[2] * p.x + m.m[6] * p.y + m.m[10] * p.z + m.m[14]};
        skinned = skinned + q * c.mesh->weights[v][k];
      }
      worst = std::max(worst, length(skinned - p));
    }
    EXPECT_LT(worst, 1e-3f * extent) << file;
  }
}

TEST(GltfImport, FileWithoutSkinImportsItsNodeHierarchy) {
  const ImportedClip c = import_animation(kClips / "interpolation_test.gltf", "Linear Rotation");
  EXPECT_EQ(c.skeleton.bone_count(), 12u);
  EXPECT_TRUE(c.skeleton.inverse_bind.empty());
  EXPECT_TRUE(c.skeleton.skin_joints.empty());
  // Its ten meshes (nine cubes and a plane), each drawn rigidly with its node's bone.
  ASSERT_TRUE(c.mesh.has_value());
  EXPECT_TRUE(c.mesh->validate(c.skeleton.bone_count()).ok());
  std::set<uint16_t> bones;
  for (size_t v = 0; v < c.mesh->vertex_count(); ++v) {
    EXPECT_EQ(c.mesh->weights[v][0], 1.f) << "vertex " << v;
    bones.insert(c.mesh->joints[v][0]);
  }
  EXPECT_EQ(bones.size(), 10u);
}

// Nodes of a file without skins can each draw one mesh of many buffer-less
// vertices: past the vertices its buffers allow, the rest are not drawn.
TEST(GltfImport, MeshesDrawnWithoutASkinAreBoundedByTheFile) {
  test::GltfDocument doc;
  const int times = doc.buffer.add_floats({0.f, 1.f}, "SCALAR", 1);
  const int rotations = doc.buffer.add_floats({0, 0, 0, 1, 0, 0, 0.6f, 0.8f}, "VEC4", 4);
  doc.buffer.accessors.push_back({{"componentType", 5126}, {"count", 150000}, {"type", "VEC3"}});
  const int positions = static_cast<int>(doc.buffer.accessors.size() - 1);
  doc.json = {{"asset", {{"version", "2.0"}}},
              {"scene", 0},
              {"scenes", {{{"nodes", {0, 1, 2}}}}},
              {"nodes", {{{"name", "a"}, {"mesh", 0}}, {{"name", "b"}, {"mesh", 0}}, {{"name", "c"}, {"mesh", 0}}}},
              {"meshes", {{{"primitives", {{{"attributes", {{"POSITION", positions}}}}}}}}},
              {"animations",
               {{{"samplers", {{{"input", times}, {"output", rotations}}}},
                 {"channels", {{{"sampler", 0}, {"target", {{"node", 0}, {"path", "rotation"}}}}}}}}}};
  const TempDir dir;
  const ImportedClip c = import_ok(doc.write(dir.path(), "instanced"));
  ASSERT_TRUE(c.mesh.has_value());
  EXPECT_EQ(c.mesh->vertex_count(), 150000u);  // the first node's; a second would pass 2^18
  bool warned = false;
  for (const std::string& w : c.warnings) {
    warned = warned || w.find("the meshes of 2 nodes are not drawn") != std::string::npos;
  }
  EXPECT_TRUE(warned);
}

// ---------------------------------------------------------------------------
// Sampled values against the source keys, read independently with tinygltf

std::vector<float> read_plain_floats(const tinygltf::Model& model, int index) {
  const tinygltf::Accessor& a = model.accessors[static_cast<size_t>(index)];
  const tinygltf::BufferView& v = model.bufferViews[static_cast<size_t>(a.bufferView)];
  const size_t comps = static_cast<size_t>(tinygltf::GetNumComponentsInType(static_cast<uint32_t>(a.type)));
  const size_t stride = v.byteStride ? v.byteStride : comps * 4;
  std::vector<float> out(a.count * comps);
  const unsigned char* base = model.buffers[static_cast<size_t>(v.buffer)].data.data() + v.byteOffset + a.byteOffset;
  for (size_t e = 0; e < a.count; ++e) std::memcpy(&out[e * comps], base + e * stride, comps * 4);
  return out;
}

void expect_keys_reproduced(const std::filesystem::path& path) {
  tinygltf::TinyGLTF loader;
  loader.SetImageLoader([](tinygltf::Image*, const int, std::string*, std::string*, int, int, const unsigned char*,
                           int, void*) { return true; },
                        nullptr);
  tinygltf::Model model;
  std::string err, warn;
  const bool loaded = path.extension() == ".glb" ? loader.LoadBinaryFromFile(&model, &err, &warn, path.string())
                                                 : loader.LoadASCIIFromFile(&model, &err, &warn, path.string());
  ASSERT_TRUE(loaded) << err;
  size_t compared = 0;
  for (size_t a = 0; a < model.animations.size(); ++a) {
    ImportSettings settings;
    settings.animation_index = static_cast<int>(a);
    const ImportedClip c = import_ok(path, settings);
    for (const tinygltf::AnimationChannel& channel : model.animations[a].channels) {
      const std::string& node_name = model.nodes[static_cast<size_t>(channel.target_node)].name;
      const int32_t bone = c.skeleton.find_bone(node_name);
      if (bone < 0) continue;
      const tinygltf::AnimationSampler& sampler = model.animations[a].samplers[static_cast<size_t>(channel.sampler)];
      const std::vector<float> times = read_plain_floats(model, sampler.input);
      const std::vector<float> values = read_plain_floats(model, sampler.output);
      const bool cubic = sampler.interpolation == "CUBICSPLINE";
      const size_t comps = channel.target_path == "rotation" ? 4 : 3;
      for (size_t k = 0; k < times.size(); ++k) {
        const double frame = (times[k] - c.source_start_s) * c.clip.sample_rate_hz;
        if (std::fabs(frame - std::round(frame)) > 1e-3) continue;
        // A STEP key shares its time with the end of the previous segment only in theory; skip equal times.
        if (k + 1 < times.size() && times[k + 1] == times[k]) continue;
        const size_t f = static_cast<size_t>(std::round(frame));
        const float* v = &values[(cubic ? 3 * k + 1 : k) * comps];
        const BoneTracks& t = c.clip.bones[static_cast<size_t>(bone)];
        if (comps == 4) {
          const Quat source = normalize(Quat{v[0], v[1], v[2], v[3]});
          const Quat got = t.rotations[f];
          const float sign = dot(source, got) < 0.f ? -1.f : 1.f;
          EXPECT_NEAR(got.x, sign * source.x, 1e-5) << path << " " << node_name << " frame " << f;
          EXPECT_NEAR(got.y, sign * source.y, 1e-5);
          EXPECT_NEAR(got.z, sign * source.z, 1e-5);
          EXPECT_NEAR(got.w, sign * source.w, 1e-5);
        } else {
          const Vec3 got = channel.target_path == "translation" ? t.translations[f] : t.scales[f];
          const float tolerance = 1e-5f * std::max(1.f, std::fabs(v[0]) + std::fabs(v[1]) + std::fabs(v[2]));
          EXPECT_NEAR(got.x, v[0], tolerance) << path << " " << node_name << " frame " << f;
          EXPECT_NEAR(got.y, v[1], tolerance);
          EXPECT_NEAR(got.z, v[2], tolerance);
        }
        ++compared;
      }
    }
  }
  EXPECT_GT(compared, 20u) << path;
}

TEST(GltfImport, SampledValuesMatchTheSourceAtKeyTimes) {
  for (const char* file : {"Fox.glb", "greenman.glb", "robot.glb", "rigged_simple.gltf", "interpolation_test.gltf"}) {
    SCOPED_TRACE(file);
    expect_keys_reproduced(kClips / file);
  }
}

TEST(GltfImport, BonesWithoutAChannelHoldTheirRestValue) {
  TempDir dir;
  test::GltfDocument doc = test::make_skinned_document();
  doc.json["nodes"][1]["translation"] = {0.25, 0.5, 0.75};
  doc.json["nodes"][1]["scale"] = {2, 2, 2};
  const ImportedClip c = import_ok(doc.write(dir.path(), "rest"));
  // Only bone 2's rotation is animated.
  for (uint32_t f = 0; f < c.clip.frame_count; ++f) {
    EXPECT_EQ(c.clip.bones[1].translations[f].z, 0.75f);
    EXPECT_EQ(c.clip.bones[1].scales[f].x, 2.f);
    EXPECT_EQ(c.clip.bones[2].translations[f].y, 1.f);
  }
}

// ---------------------------------------------------------------------------
// Interpolation against hand-computed values

// One node, one channel of two keys at 0 s and 2 s, sampled at 4 Hz.
test::GltfDocument make_two_key_document(const std::string& path, const std::string& interpolation,
                                         const std::vector<float>& output, const std::string& type) {
  test::GltfDocument doc;
  const int times = doc.buffer.add_floats({0.f, 2.f}, "SCALAR", 1);
  const int values = doc.buffer.add_floats(output, type, type == "VEC4" ? 4 : 3);
  doc.json = {{"asset", {{"version", "2.0"}}},
              {"nodes", {{{"name", "n"}}}},
              {"animations",
               {{{"samplers", {{{"input", times}, {"output", values}, {"interpolation", interpolation}}}},
                 {"channels", {{{"sampler", 0}, {"target", {{"node", 0}, {"path", path}}}}}}}}}};
  return doc;
}

TEST(GltfImport, CubicSplineMatchesHandComputedValues) {
  // x: value 0 -> 1 over dt = 2 s, out-tangent 3 at the first key, in-tangent
  // -3 at the second. p(s) = h00*0 + h10*dt*3 + h01*1 + h11*dt*(-3).
  //   s = 0.25: h10 = 0.140625, h01 = 0.15625, h11 = -0.046875 -> 1.28125
  //   s = 0.5:  h10 = 0.125,    h01 = 0.5,     h11 = -0.125    -> 2.0
  //   s = 0.75: h10 = 0.046875, h01 = 0.84375, h11 = -0.140625 -> 1.96875
  // y stays 5 with zero tangents; z is linear-looking: tangents equal the slope.
  const std::vector<float> output = {0, 0, 0,   0, 5, 0,  3, 0, 0.5f,   // key 0: in, value, out
                                     -3, 0, 0.5f, 1, 5, 1, 0, 0, 0};   // key 1: in, value, out
  TempDir dir;
  ImportSettings settings;
  settings.sample_rate_hz = 4.f;
  const ImportedClip c =
      import_ok(make_two_key_document("translation", "CUBICSPLINE", output, "VEC3").write(dir.path(), "cubic"), settings);
  ASSERT_EQ(c.clip.frame_count, 9u);
  const std::vector<Vec3>& t = c.clip.bones[0].translations;
  EXPECT_NEAR(t[2].x, 1.28125f, 1e-6);
  EXPECT_NEAR(t[4].x, 2.0f, 1e-6);
  EXPECT_NEAR(t[6].x, 1.96875f, 1e-6);
  EXPECT_NEAR(t[8].x, 1.0f, 1e-6);
  for (uint32_t f = 0; f < 9; ++f) {
    EXPECT_NEAR(t[f].y, 5.f, 1e-6) << f;
    EXPECT_NEAR(t[f].z, f / 8.f, 1e-6) << f;
  }
}

TEST(GltfImport, ARotationTooLongToSquareInFloatKeepsItsDirection) {
  // 3e38 squared overflows a float: normalised in float, the key had no
  // direction left and was refused as a zero rotation ("length 0.000000").
  TempDir dir;
  const float big = 3e38f, s = big * std::sin(0.25f), c = big * std::cos(0.25f);
  const ImportedClip clip = import_ok(
      make_two_key_document("rotation", "LINEAR", {0, 0, s, c, 0, 0, s, c}, "VEC4").write(dir.path(), "big"));
  ASSERT_GE(clip.clip.frame_count, 2u);
  EXPECT_NEAR(angle_between_deg(clip.clip.bones[0].rotations[0], Quat{}), 2.f * 0.25f * 57.2957795f, 1e-3f);
}

TEST(GltfImport, AZeroRotationIsRefusedNamingTheBoneAndFrame) {
  TempDir dir;
  const Result<ImportedClip> r = import_gltf(
      make_two_key_document("rotation", "LINEAR", {0, 0, 0, 0, 0, 0, 0, 1}, "VEC4").write(dir.path(), "zero"), {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("bone 'n' has a rotation that is not a usable quaternion at frame 0 (length 0)"),
            std::string::npos)
      << r.error();
}

TEST(GltfImport, StepHoldsEachKeyUntilTheNext) {
  TempDir dir;
  ImportSettings settings;
  settings.sample_rate_hz = 4.f;
  const ImportedClip c = import_ok(
      make_two_key_document("scale", "STEP", {1, 1, 1, 2, 3, 4}, "VEC3").write(dir.path(), "step"), settings);
  ASSERT_EQ(c.clip.frame_count, 9u);
  for (uint32_t f = 0; f < 8; ++f) EXPECT_EQ(c.clip.bones[0].scales[f].y, 1.f) << f;
  EXPECT_EQ(c.clip.bones[0].scales[8].z, 4.f);
}

// Fox's Run keys its rotations LINEAR at 1/24 s around a 0.2 s gap, every
// key on a 120 Hz frame: each rotation track keeps those frames.
TEST(GltfImport, FoxRunKeepsItsLinearRotationKeys) {
  const ImportedClip c = import_animation(kClips / "Fox.glb", "Run");
  ASSERT_FLOAT_EQ(c.clip.sample_rate_hz, 120.f);
  ASSERT_EQ(c.clip.frame_count, 140u);
  std::vector<uint32_t> frames;
  for (uint32_t f = 0; f <= 80; f += 5) frames.push_back(f);
  for (uint32_t f = 104; f <= 139; f += 5) frames.push_back(f);
  size_t keyed = 0;
  for (const BoneTracks& bone : c.clip.bones) {
    const SourceKeys& keys = bone.source_keys[static_cast<size_t>(TrackKind::kRotation)];
    if (!keys.keyed()) continue;
    ++keyed;
    EXPECT_EQ(keys.interpolation, Interpolation::kLinear);
    EXPECT_EQ(keys.frames, frames);
  }
  EXPECT_EQ(keyed, 20u);  // the file's rotation channels
}

// "Step Rotation" keys node Cube.003 STEP at 0, 10, 21, 30 and 41 24ths of
// a second, resampled at 48 Hz (a STEP channel raises 24 Hz to reach 30).
TEST(GltfImport, AStepRotationKeepsItsStepKeys) {
  const ImportedClip c = import_animation(kClips / "interpolation_test.gltf", "Step Rotation");
  const int32_t cube = c.skeleton.find_bone("Cube.003");
  ASSERT_GE(cube, 0);
  const SourceKeys& keys =
      c.clip.bones[static_cast<size_t>(cube)].source_keys[static_cast<size_t>(TrackKind::kRotation)];
  EXPECT_TRUE(keys.keyed());
  EXPECT_EQ(keys.interpolation, Interpolation::kStep);
  ASSERT_FLOAT_EQ(c.clip.sample_rate_hz, 48.f);
  EXPECT_EQ(keys.frames, (std::vector<uint32_t>{0, 20, 42, 60, 82}));
  // Only the animated track is keyed; the CUBICSPLINE one of its sibling animation is not.
  for (size_t b = 0; b < c.clip.bones.size(); ++b) {
    for (const SourceKeys& other : c.clip.bones[b].source_keys) EXPECT_TRUE(!other.keyed() || &other == &keys) << b;
  }
  const ImportedClip cubic = import_animation(kClips / "interpolation_test.gltf", "CubicSpline Rotation");
  for (const BoneTracks& bone : cubic.clip.bones) {
    for (const SourceKeys& other : bone.source_keys) EXPECT_FALSE(other.keyed());
  }
}

TEST(GltfImport, LinearRotationTakesTheShortArcAndStaysInOneHemisphere) {
  // The second key is 170 degrees about Y, stored negated (same rotation).
  const float half = 0.5f * 170.f * 3.14159265f / 180.f;
  TempDir dir;
  ImportSettings settings;
  settings.sample_rate_hz = 4.f;
  const ImportedClip c = import_ok(make_two_key_document("rotation", "LINEAR",
                                                         {0, 0, 0, 1, 0, -std::sin(half), 0, -std::cos(half)}, "VEC4")
                                       .write(dir.path(), "slerp"),
                                   settings);
  const std::vector<Quat>& r = c.clip.bones[0].rotations;
  ASSERT_EQ(r.size(), 9u);
  for (size_t f = 1; f < r.size(); ++f) EXPECT_GE(dot(r[f - 1], r[f]), 0.f) << f;
  // Halfway is 85 degrees about +Y, not 95 the long way round.
  EXPECT_NEAR(angle_between_deg(r[4], Quat{}), 85.f, 1e-3);
  EXPECT_NEAR(r[4].y / std::sqrt(1 - r[4].w * r[4].w), 1.f, 1e-5);
  EXPECT_NEAR(angle_between_deg(r[8], quat_from_axis_angle({0, 1, 0}, 2 * half)), 0.f, 1e-2);
}

TEST(GltfImport, SkinnedDocumentImportsWithRemappedJoints) {
  TempDir dir;
  const ImportedClip c = import_ok(test::make_skinned_document().write(dir.path(), "skinned"));
  ASSERT_EQ(c.skeleton.bone_count(), 3u);  // rig (ancestor), lower, upper; the mesh node is not a bone
  EXPECT_EQ(c.skeleton.bone_names[0], "rig");
  EXPECT_EQ(c.skeleton.parents[2], 1);
  ASSERT_EQ(c.skeleton.skin_joints, (std::vector<int32_t>{1, 2}));
  ASSERT_TRUE(c.mesh.has_value());
  EXPECT_EQ(c.mesh->joints[1][0], 1u);  // skin joint 0 is bone 1
  EXPECT_EQ(c.mesh->joints[1][1], 2u);
  EXPECT_EQ(c.clip.frame_count, 5u);
  EXPECT_FLOAT_EQ(c.clip.sample_rate_hz, 10.f);
  EXPECT_NEAR(angle_between_deg(c.clip.bones[2].rotations[4], Quat{}), 4 * 0.3f * 57.2957795f, 1e-3);
  EXPECT_EQ(c.skeleton.inverse_bind[2].m[13], -1.f);
}

// ---------------------------------------------------------------------------
// Malformed files: the assimp test corpus

struct MalformedFile {
  const char* path;    // under /usr/share/assimp/models/glTF2
  const char* phrase;  // the problem, as the error must state it
};

class MalformedCorpus : public ::testing::TestWithParam<MalformedFile> {};

TEST_P(MalformedCorpus, IsRefusedWithAnErrorNamingTheFileAndTheProblem) {
  const std::filesystem::path path = kAssimpGltf / GetParam().path;
  ASSERT_TRUE(std::filesystem::exists(path)) << path << " missing: scripts/setup installs assimp-testmodels";
  Result<ImportedClip> r = import_gltf(path, {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find(path.string()), std::string::npos) << r.error();
  EXPECT_NE(r.error().find(GetParam().phrase), std::string::npos) << r.error();
}

INSTANTIATE_TEST_SUITE_P(
    Assimp, MalformedCorpus,
    ::testing::Values(MalformedFile{"IndexOutOfRange/IndexOutOfRange.gltf", "index 0 is 255, past the last of 24"},
                      MalformedFile{"IndexOutOfRange/AllIndicesOutOfRange.gltf", "past the last of 24 vertices"},
                      MalformedFile{"MissingBin/BoxTextured.gltf", "BoxTextured0.bin"},
                      MalformedFile{"RecursiveNodes/RecursiveNodes.gltf", "cycle"},
                      MalformedFile{"TestNoRootNode/NoScene.gltf", "no nodes"},
                      MalformedFile{"TestNoRootNode/SceneWithoutNodes.gltf", "no nodes"},
                      MalformedFile{"IncorrectVertexArrays/Cube.gltf", "not a whole number of triangles"},
                      MalformedFile{"BoxWithInfinites-glTF-Binary/BoxWithInfinites.glb", "not a finite number"},
                      MalformedFile{"SchemaFailures/sceneWrongType.gltf",
                                    "property scene must be a non-negative integer, not a string"},
                      MalformedFile{"wrongTypes/badArray.gltf", "meshes[0].primitives must be an array, not an object"},
                      MalformedFile{"wrongTypes/badExtension.gltf", "extensions.KHR_texture_transform must be an object"},
                      MalformedFile{"wrongTypes/badNumber.gltf", "normalTexture.scale must be a number, not a string"},
                      MalformedFile{"wrongTypes/badObject.gltf", "pbrMetallicRoughness must be an object, not an array"},
                      MalformedFile{"wrongTypes/badString.gltf", "scenes[0].name must be a string, not a number"},
                      MalformedFile{"wrongTypes/badUint.gltf", "baseColorTexture.index must be a non-negative integer, not -1"},
                      MalformedFile{"draco/2CylinderEngine.gltf", "invalid bufferView"}),
    [](const auto& p) { return test_name(p.param.path); });

// ---------------------------------------------------------------------------
// Malformed files: one defect at a time in an otherwise valid document

struct Defect {
  const char* name;
  void (*apply)(test::GltfDocument&);
  const char* phrase;
};

std::vector<Defect> defects() {
  using test::GltfDocument;
  return {
      {"accessor_view_missing", [](GltfDocument& d) { d.buffer.accessors[0]["bufferView"] = 99; },
       "buffer view 99 does not exist"},
      {"accessor_past_view",
       [](GltfDocument& d) { d.buffer.accessors[0]["count"] = 5; },
       "run past the end of buffer view 0"},
      {"accessor_huge_count",
       [](GltfDocument& d) { d.buffer.accessors[5]["count"] = 4000000000ull; },
       "run past the end of buffer view 5"},
      {"accessor_offset_past_view", [](GltfDocument& d) { d.buffer.accessors[0]["byteOffset"] = 1000; },
       "run past the end"},
      {"view_past_buffer", [](GltfDocument& d) { d.buffer.views[6]["byteLength"] = 100000; },
       "runs past the end of buffer 0"},
      {"view_stride_too_small", [](GltfDocument& d) { d.buffer.views[0]["byteStride"] = 4; },
       "stride 4 is smaller than an element"},
      {"sampler_missing",
       [](GltfDocument& d) { d.json["animations"][0]["channels"][0]["sampler"] = 3; }, "sampler 3, which does not exist"},
      {"target_node_missing",
       [](GltfDocument& d) { d.json["animations"][0]["channels"][0]["target"]["node"] = 17; },
       "targets node 17, which does not exist"},
      {"target_path_unknown",
       [](GltfDocument& d) { d.json["animations"][0]["channels"][0]["target"]["path"] = "colour"; },
       "target path 'colour'"},
      {"interpolation_unknown",
       [](GltfDocument& d) { d.json["animations"][0]["samplers"][0]["interpolation"] = "BEZIER"; },
       "interpolation 'BEZIER'"},
      {"times_decreasing",
       [](GltfDocument& d) {
         float late = 0.35f;
         std::memcpy(d.buffer.bytes.data() + d.buffer.views[5]["byteOffset"].get<size_t>() + 4, &late, 4);
       },
       "key times are not increasing"},
      {"output_count_mismatch", [](GltfDocument& d) { d.buffer.accessors[6]["count"] = 4; },
       "4 output values for 5 keys"},
      {"output_not_finite",
       [](GltfDocument& d) {
         const float nan = std::nanf("");
         std::memcpy(d.buffer.bytes.data() + d.buffer.views[6]["byteOffset"].get<size_t>() + 8, &nan, 4);
       },
       "output: accessor 6 element 0 is not a finite number"},
      {"rotation_as_vec3",
       [](GltfDocument& d) {
         d.buffer.accessors[6]["type"] = "VEC3";
       },
       "has type VEC3, expected VEC4"},
      {"cubic_without_tangents",
       [](GltfDocument& d) { d.json["animations"][0]["samplers"][0]["interpolation"] = "CUBICSPLINE"; },
       "CUBICSPLINE needs 3 per key"},
      {"child_missing", [](GltfDocument& d) { d.json["nodes"][1]["children"] = {2, 40}; },
       "has child 40, which does not exist"},
      {"two_parents", [](GltfDocument& d) { d.json["nodes"][0]["children"] = {1, 2}; }, "more than one parent"},
      {"node_is_own_child", [](GltfDocument& d) { d.json["nodes"][2]["children"] = {2}; }, "more than one parent"},
      {"cycle",
       [](GltfDocument& d) {
         d.json["nodes"][2]["children"] = {0};
       },
       "cycle"},
      {"skin_joint_missing", [](GltfDocument& d) { d.json["skins"][0]["joints"] = {1, 9}; },
       "lists joint node 9, which does not exist"},
      {"skin_without_joints", [](GltfDocument& d) { d.json["skins"][0]["joints"] = nlohmann::json::array(); },
       "has no joints"},
      {"inverse_bind_wrong_type", [](GltfDocument& d) { d.json["skins"][0]["inverseBindMatrices"] = 0; },
       "has type VEC3, expected MAT4"},
      {"inverse_bind_too_few", [](GltfDocument& d) { d.buffer.accessors[4]["count"] = 1; },
       "1 inverse bind matrices for 2 joints"},
      {"vertex_joint_past_skin",
       [](GltfDocument& d) {
         const uint16_t joint = 7;
         std::memcpy(d.buffer.bytes.data() + d.buffer.views[1]["byteOffset"].get<size_t>(), &joint, 2);
       },
       "uses joint 7 but the skin has 2 joints"},
      {"negative_weight",
       [](GltfDocument& d) {
         const float w = -0.5f;
         std::memcpy(d.buffer.bytes.data() + d.buffer.views[2]["byteOffset"].get<size_t>() + 20, &w, 4);
       },
       "negative weight"},
      {"weights_without_joints",
       [](GltfDocument& d) { d.json["meshes"][0]["primitives"][0]["attributes"].erase("JOINTS_0"); },
       "without the other"},
      {"index_past_vertices",
       [](GltfDocument& d) {
         const uint16_t index = 4;
         std::memcpy(d.buffer.bytes.data() + d.buffer.views[3]["byteOffset"].get<size_t>() + 2, &index, 2);
       },
       "index 1 is 4, past the last of 4 vertices"},
      {"mesh_missing", [](GltfDocument& d) { d.json["nodes"][3]["mesh"] = 5; }, "uses mesh 5, which does not exist"},
      {"material_missing", [](GltfDocument& d) { d.json["meshes"][0]["primitives"][0]["material"] = 2; },
       "uses material 2, which does not exist"},
      {"matrix_short", [](GltfDocument& d) { d.json["nodes"][1]["matrix"] = std::vector<double>(15, 0.0); },
       "matrix has 15 values, not 16"},
      {"rotation_zero", [](GltfDocument& d) { d.json["nodes"][1]["rotation"] = {0, 0, 0, 0}; },
       "rotation is not a unit quaternion"},
      {"sparse_index_out_of_range",
       [](GltfDocument& d) {
         // Read as 32 bits, the first two 16-bit triangle indices (0, 1) make 65536.
         d.buffer.accessors[5]["sparse"] = {{"count", 1},
                                            {"indices", {{"bufferView", 3}, {"componentType", 5125}}},
                                            {"values", {{"bufferView", 5}}}};
       },
       "sparse index 0 is out of order or out of range"},
      {"no_animations", [](GltfDocument& d) { d.json.erase("animations"); }, "no animations"},
  };
}

TEST(GltfImport, EachDefectIsRefusedWithItsOwnMessage) {
  TempDir dir;
  // The undamaged document imports.
  ASSERT_TRUE(import_gltf(test::make_skinned_document().write(dir.path(), "valid"), {}).ok());
  for (const Defect& defect : defects()) {
    test::GltfDocument doc = test::make_skinned_document();
    defect.apply(doc);
    const std::filesystem::path path = doc.write(dir.path(), defect.name);
    Result<ImportedClip> r = import_gltf(path, {});
    ASSERT_FALSE(r.ok()) << defect.name;
    EXPECT_NE(r.error().find(path.string()), std::string::npos) << defect.name << ": " << r.error();
    EXPECT_NE(r.error().find(defect.phrase), std::string::npos) << defect.name << ": " << r.error();
  }
}

TEST(GltfImport, RefusesMissingEmptyAndGarbageFiles) {
  TempDir dir;
  Result<ImportedClip> missing = import_gltf(dir.path() / "absent.glb", {});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().find("absent.glb: no such file"), std::string::npos) << missing.error();

  for (const char* name : {"empty.gltf", "empty.glb", "garbage.gltf", "garbage.glb"}) {
    const std::filesystem::path path = dir.path() / name;
    std::ofstream out(path, std::ios::binary);
    if (std::string(name).rfind("garbage", 0) == 0) out << "\x7f\x45\x4c\x46 not a model {][";
    out.close();
    Result<ImportedClip> r = import_gltf(path, {});
    ASSERT_FALSE(r.ok()) << name;
    EXPECT_NE(r.error().find(path.string() + ": not a readable glTF 2.0 file"), std::string::npos) << r.error();
  }
}

// A few kilobytes of brackets nest tens of thousands of levels: refused by
// name before a parser recurses through them (it overflowed the stack), in
// a .gltf and in a .glb's JSON chunk alike.
TEST(GltfImport, RefusesJsonNestedTooDeepBeforeParsing) {
  TempDir dir;
  const std::string deep = "{\"asset\":{\"version\":\"2.0\"},\"extras\":" + std::string(15000, '[') +
                           std::string(15000, ']') + "}";
  std::string glb = "glTF";
  const auto put_u32 = [&](uint32_t v) { glb.append(reinterpret_cast<const char*>(&v), 4); };
  put_u32(2);
  put_u32(static_cast<uint32_t>(20 + deep.size()));
  put_u32(static_cast<uint32_t>(deep.size()));
  glb += "JSON" + deep;
  for (const auto& [name, bytes] : {std::pair<std::string, std::string>{"deep.gltf", deep}, {"deep.glb", glb}}) {
    const std::filesystem::path path = dir.path() / name;
    std::ofstream(path, std::ios::binary) << bytes;
    Result<ImportedClip> r = import_gltf(path, {});
    ASSERT_FALSE(r.ok()) << name;
    EXPECT_NE(r.error().find(path.string() + ": not a valid glTF 2.0 file: its JSON nests deeper than 256 levels"),
              std::string::npos)
        << r.error();
  }
}

TEST(GltfJsonNesting, CountsArraysAndObjectsButNotBracketsInStrings) {
  EXPECT_TRUE(gltf::check_json_nesting("[[[]]]", 3).ok());
  EXPECT_FALSE(gltf::check_json_nesting("[[[[]]]]", 3).ok());
  EXPECT_TRUE(gltf::check_json_nesting("{\"a\":{\"b\":[1,2]},\"c\":[]}", 3).ok());
  EXPECT_FALSE(gltf::check_json_nesting("{\"a\":{\"b\":[{}]}}", 3).ok());
  // Brackets in strings, and an escaped quote that does not end the string.
  EXPECT_TRUE(gltf::check_json_nesting("[\"[[[[{{{{\", \"\\\"[[[[\"]", 1).ok());
  EXPECT_FALSE(gltf::check_json_nesting("[\"\\\\\", [[]]]", 2).ok());  // "\\" ends before [[
  // Siblings do not add up, and the message says where the limit was passed.
  EXPECT_TRUE(gltf::check_json_nesting("[[],[],[[]]]", 3).ok());
  const Status deep = gltf::check_json_nesting("[[[x", 2);
  ASSERT_FALSE(deep.ok());
  EXPECT_NE(deep.error().find("deeper than 2 levels (at byte 2)"), std::string::npos) << deep.error();
}

// Truncations and byte flips of real text and binary files: each either
// imports or is refused; none may crash (the sanitizer build runs this too).
TEST(GltfImport, DamagedFilesNeverCrash) {
  TempDir dir;
  std::mt19937 rng(1234);
  for (const char* file : {"rigged_simple.gltf", "Fox.glb"}) {
    std::ifstream in(kClips / file, std::ios::binary);
    const std::string original((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ASSERT_GT(original.size(), 1000u) << file;
    size_t refused = 0;
    for (int trial = 0; trial < 150; ++trial) {
      std::string damaged = original;
      if (trial % 3 == 0) {
        damaged.resize(std::uniform_int_distribution<size_t>(0, original.size() - 1)(rng));
      } else {
        for (int flips = 0; flips < 1 + trial % 7; ++flips) {
          damaged[std::uniform_int_distribution<size_t>(0, damaged.size() - 1)(rng)] =
              static_cast<char>(std::uniform_int_distribution<int>(0, 255)(rng));
        }
      }
      const std::filesystem::path path = dir.path() / (std::string("damaged_") + file);
      std::ofstream(path, std::ios::binary) << damaged;
      Result<ImportedClip> r = import_gltf(path, {});
      if (!r) {
        ++refused;
        EXPECT_NE(r.error().find(path.string()), std::string::npos) << r.error();
      }
    }
    EXPECT_GT(refused, 40u) << file;  // every truncation at least
  }
}

}  // namespace
}  // namespace ks
