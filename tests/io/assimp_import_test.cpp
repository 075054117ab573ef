// Tests for core/io/assimp_import.h: the animated FBX and Collada models of
// Debian's assimp-testmodels, checked against assimp's own reading of them
// (bone and animation counts, units, rest and animated node positions), and
// malformed files refused with the file named.
#include "keystream/io/assimp_import.h"

#include <assimp/config.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <assimp/Importer.hpp>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "keystream/io/assimp_guard.h"
#include "keystream/io/assimp_scene.h"
#include "keystream/io/import.h"
#include "tests/refused_mentioning.h"
#include "tests/temp_dir.h"

namespace ks {
namespace {

namespace fs = std::filesystem;
const fs::path kModels = KS_ASSIMP_MODELS_DIR;

// What the probe (assimp itself, the same flags) found in every animated
// FBX and Collada model of assimp-testmodels: the nodes its mesh bones
// name, its animations, and what the clip becomes. Bones are those nodes,
// the animated ones and their ancestors.
struct Model {
  const char* file;
  size_t mesh_bones;  // distinct nodes named by aiBones
  size_t animations;
  size_t bones;  // of the imported skeleton
  uint32_t frames;
  float rate_hz;
  double metres_per_unit;  // FBX UnitScaleFactor / 100; Collada: 1 (the root carries <unit>)
};
const Model kAnimated[] = {
    {"FBX/animation_with_skeleton.fbx", 13, 1, 16, 21, 24.f, 0.01},
    {"FBX/huesitos.fbx", 9, 1, 11, 40, 25.f, 0.01},
    {"Collada/box_nested_animation.dae", 1, 1, 3, 40, 24.f, 1.0},
    {"Collada/anims_with_full_rotations_between_keys.DAE", 0, 1, 65, 13, 0.f, 1.0},
    // Read once the whitespace before its numbers is gone (assimp_collada_guard.h).
    {"Collada/library_animation_clips.dae", 4, 2, 7, 15, 24.f, 1.0},
};

bool models_present() {
  return fs::is_directory(kModels / "FBX") && fs::is_directory(kModels / "Collada");
}
#define REQUIRE_MODELS() \
  if (!models_present()) GTEST_SKIP() << "assimp-testmodels is not installed at " << kModels << " (scripts/setup)"

std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// assimp's own scene of a file, read as the importer reads it: the file
// itself, or the bytes the guard gives assimp instead (a Collada document
// without the whitespace assimp 5.2 misreads before numbers).
struct Reference {
  Assimp::Importer importer;
  const aiScene* scene = nullptr;
  explicit Reference(const fs::path& path) {
    importer.SetPropertyBool(AI_CONFIG_IMPORT_FBX_PRESERVE_PIVOTS, false);
    const unsigned flags = aiProcess_Triangulate | aiProcess_JoinIdenticalVertices | aiProcess_LimitBoneWeights |
                           aiProcess_GenSmoothNormals;
    std::string rewritten;
    const std::string ext = lowercase_extension(path);
    if (assimp::check_input(read_bytes(path), ext, rewritten).ok() && !rewritten.empty()) {
      scene = importer.ReadFileFromMemory(rewritten.data(), rewritten.size(), flags, "dae");
    } else {
      scene = importer.ReadFile(path.string(), flags);
    }
  }
};

const aiNode* find(const aiScene& scene, const std::string& name) {
  return scene.mRootNode->FindNode(name.c_str());
}

// A node's world transform in the file's units, from the given locals.
aiMatrix4x4 world(const aiNode* node, const std::map<const aiNode*, aiMatrix4x4>& locals) {
  aiMatrix4x4 m;
  for (; node != nullptr; node = node->mParent) {
    const auto it = locals.find(node);
    m = (it == locals.end() ? node->mTransformation : it->second) * m;
  }
  return m;
}

Vec3 origin_of(const aiMatrix4x4& m, double metres) {
  return {static_cast<float>(m.a4 * metres), static_cast<float>(m.b4 * metres), static_cast<float>(m.c4 * metres)};
}

float distance(Vec3 a, Vec3 b) {
  return length(a - b);
}

// Tolerance for positions in metres: float keys and transforms, scaled.
float position_tolerance(const std::vector<Transform>& model) {
  float extent = 0.f;
  for (const Transform& t : model) extent = std::max(extent, length(t.translation));
  return 1e-5f + 2e-5f * extent;
}

void write_bytes(const fs::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

// ---------------------------------------------------------------------------
// The animated models

TEST(AssimpImport, EveryAnimatedModelHasTheProbedBonesAnimationsAndFrames) {
  REQUIRE_MODELS();
  for (const Model& model : kAnimated) {
    SCOPED_TRACE(model.file);
    const fs::path path = kModels / model.file;
    Result<ImportedClip> imported = import_clip(path);
    ASSERT_TRUE(imported.ok()) << imported.error();
    const ImportedClip& clip = imported.value();
    EXPECT_EQ(clip.animation_names.size(), model.animations);
    EXPECT_EQ(clip.skeleton.bone_count(), model.bones);
    EXPECT_EQ(clip.clip.frame_count, model.frames);
    if (model.rate_hz > 0.f) {
      EXPECT_FLOAT_EQ(clip.clip.sample_rate_hz, model.rate_hz);
    }
    EXPECT_EQ(clip.source, path);
    EXPECT_TRUE(clip.skeleton.validate().ok());
    EXPECT_TRUE(clip.clip.validate(clip.skeleton).ok());
    // Every bone a mesh names is a bone, and every mesh is drawn.
    Reference reference(path);
    ASSERT_NE(reference.scene, nullptr);
    std::set<std::string> mesh_bones;
    size_t triangles = 0;
    for (unsigned m = 0; m < reference.scene->mNumMeshes; ++m) {
      const aiMesh* mesh = reference.scene->mMeshes[m];
      for (unsigned b = 0; b < mesh->mNumBones; ++b) mesh_bones.insert(mesh->mBones[b]->mName.C_Str());
      for (unsigned f = 0; f < mesh->mNumFaces; ++f) triangles += mesh->mFaces[f].mNumIndices == 3;
    }
    EXPECT_EQ(mesh_bones.size(), model.mesh_bones);
    for (const std::string& name : mesh_bones) EXPECT_GE(clip.skeleton.find_bone(name), 0) << name;
    ASSERT_TRUE(clip.mesh.has_value());
    EXPECT_TRUE(clip.mesh->validate(clip.skeleton.bone_count()).ok());
    EXPECT_GE(clip.mesh->indices.size() / 3, triangles);  // rigid meshes once per instancing node
    // Every channel's node is a bone.
    const aiAnimation* animation = reference.scene->mAnimations[0];
    for (unsigned c = 0; c < animation->mNumChannels; ++c) {
      EXPECT_GE(clip.skeleton.find_bone(animation->mChannels[c]->mNodeName.C_Str()), 0);
    }
  }
}

// The rest pose: every bone where assimp's node transforms put its node, in
// metres by the file's unit.
TEST(AssimpImport, RestPoseMatchesAssimpsNodeTransformsInMetres) {
  REQUIRE_MODELS();
  for (const Model& model : kAnimated) {
    SCOPED_TRACE(model.file);
    Result<ImportedClip> imported = import_clip(kModels / model.file);
    ASSERT_TRUE(imported.ok()) << imported.error();
    const Skeleton& skeleton = imported.value().skeleton;
    Reference reference(kModels / model.file);
    ASSERT_NE(reference.scene, nullptr);
    const std::vector<Transform> rest = local_to_model(skeleton, skeleton.rest_pose);
    const float tolerance = position_tolerance(rest);
    for (size_t b = 0; b < skeleton.bone_count(); ++b) {
      const aiNode* node = find(*reference.scene, skeleton.bone_names[b]);
      ASSERT_NE(node, nullptr) << skeleton.bone_names[b];
      EXPECT_LE(distance(rest[b].translation, origin_of(world(node, {}), model.metres_per_unit)), tolerance)
          << skeleton.bone_names[b];
    }
  }
}

// Animated poses: at frames that fall on keys, every bone where assimp's
// keys put its node (the keys composed by assimp's own matrix code).
TEST(AssimpImport, AnimatedPoseMatchesAssimpsKeysAtKeyedFrames) {
  REQUIRE_MODELS();
  for (const Model& model : kAnimated) {
    SCOPED_TRACE(model.file);
    Result<ImportedClip> imported = import_clip(kModels / model.file);
    ASSERT_TRUE(imported.ok()) << imported.error();
    const ImportedClip& clip = imported.value();
    Reference reference(kModels / model.file);
    const aiAnimation* animation = reference.scene->mAnimations[0];
    const double ticks = animation->mTicksPerSecond > 0 ? animation->mTicksPerSecond : 25.0;
    std::map<const aiNode*, const aiNodeAnim*> channel_of;
    for (unsigned c = 0; c < animation->mNumChannels; ++c) {
      channel_of[find(*reference.scene, animation->mChannels[c]->mNodeName.C_Str())] = animation->mChannels[c];
    }
    size_t checked = 0;
    for (uint32_t f = 0; f < clip.clip.frame_count; ++f) {
      const double t = clip.source_start_s + f / static_cast<double>(clip.clip.sample_rate_hz);
      // The transforms of the nodes whose channels all have a key at t.
      std::map<const aiNode*, aiMatrix4x4> locals;
      std::set<const aiNode*> unkeyed;
      for (const auto& [node, channel] : channel_of) {
        const auto key_at = [&](auto* keys, unsigned count) -> int {
          for (unsigned k = 0; k < count; ++k) {
            if (std::fabs(keys[k].mTime / ticks - t) < 1e-4) return static_cast<int>(k);
          }
          return -1;
        };
        const int p = key_at(channel->mPositionKeys, channel->mNumPositionKeys);
        const int r = key_at(channel->mRotationKeys, channel->mNumRotationKeys);
        const int s = key_at(channel->mScalingKeys, channel->mNumScalingKeys);
        if (p < 0 || r < 0 || s < 0) {
          unkeyed.insert(node);
          continue;
        }
        locals[node] = aiMatrix4x4(channel->mScalingKeys[s].mValue, channel->mRotationKeys[r].mValue,
                                   channel->mPositionKeys[p].mValue);
      }
      const std::vector<Transform> pose = local_to_model(clip.skeleton, clip.clip.pose_at(f));
      const float tolerance = position_tolerance(pose);
      for (size_t b = 0; b < clip.skeleton.bone_count(); ++b) {
        const aiNode* node = find(*reference.scene, clip.skeleton.bone_names[b]);
        bool keyed = true;  // every animated node from this one up has a key at t
        for (const aiNode* n = node; n != nullptr; n = n->mParent) keyed = keyed && unkeyed.count(n) == 0;
        if (!keyed) continue;
        ++checked;
        EXPECT_LE(distance(pose[b].translation, origin_of(world(node, locals), model.metres_per_unit)), tolerance)
            << clip.skeleton.bone_names[b] << " at frame " << f;
      }
    }
    EXPECT_GE(checked, 3 * clip.skeleton.bone_count()) << "too few bones fall on keys to compare";
  }
}

// Units: the FBX characters measure what their UnitScaleFactor says (1 cm
// per unit: huesitos' joints, 4.62 m apart in the file's Blender scene, are
// 462 units apart).
TEST(AssimpImport, FbxUnitScaleFactorMakesMetres) {
  REQUIRE_MODELS();
  Result<ImportedClip> imported = import_clip(kModels / "FBX/huesitos.fbx");
  ASSERT_TRUE(imported.ok()) << imported.error();
  EXPECT_FLOAT_EQ(imported.value().unit_scale_m, 0.01f);
  const std::vector<Transform> rest = local_to_model(imported.value().skeleton, imported.value().skeleton.rest_pose);
  float low = 1e9f, high = -1e9f;
  for (const Transform& t : rest) low = std::min(low, t.translation.y), high = std::max(high, t.translation.y);
  EXPECT_NEAR(high - low, 4.62f, 0.01f);  // the top joint (Bone.008) stands 4.62 m above the root
  // The unit is in the translations: the root keeps the file's scale, 1.
  EXPECT_FLOAT_EQ(imported.value().skeleton.rest_pose[0].scale.x, 1.f);
  // Its mesh stands where its bones do, within the same metres.
  ASSERT_TRUE(imported.value().mesh.has_value());
  float mesh_high = -1e9f;
  for (const Vec3& p : imported.value().mesh->positions) mesh_high = std::max(mesh_high, p.y);
  EXPECT_NEAR(mesh_high, high, 1.0f);
}

// The mesh and its inverse binds agree with the skeleton and with assimp:
// skinned by the rest pose, every vertex of the FBX characters (one skinned
// mesh each) lands where assimp's own skinning, the sum of weight x bone
// world x offset matrix x vertex, puts it, in metres. For huesitos, bound in
// its rest pose, that is where the mesh is.
TEST(AssimpImport, MeshSkinnedAtRestMatchesAssimpsSkinning) {
  REQUIRE_MODELS();
  for (const char* file : {"FBX/huesitos.fbx", "FBX/animation_with_skeleton.fbx"}) {
    SCOPED_TRACE(file);
    Result<ImportedClip> imported = import_clip(kModels / file);
    ASSERT_TRUE(imported.ok()) << imported.error();
    const ImportedClip& clip = imported.value();
    ASSERT_TRUE(clip.mesh.has_value());
    Reference reference(kModels / file);
    ASSERT_EQ(reference.scene->mNumMeshes, 1u);
    const aiMesh& source = *reference.scene->mMeshes[0];
    ASSERT_EQ(clip.mesh->vertex_count(), source.mNumVertices);
    // assimp's skinning at rest.
    std::vector<aiVector3D> expected(source.mNumVertices, aiVector3D(0, 0, 0));
    std::vector<float> total(source.mNumVertices, 0.f);
    for (unsigned b = 0; b < source.mNumBones; ++b) {
      const aiBone& bone = *source.mBones[b];
      const aiMatrix4x4 m = world(find(*reference.scene, bone.mName.C_Str()), {}) * bone.mOffsetMatrix;
      for (unsigned w = 0; w < bone.mNumWeights; ++w) {
        expected[bone.mWeights[w].mVertexId] +=
            bone.mWeights[w].mWeight * (m * source.mVertices[bone.mWeights[w].mVertexId]);
        total[bone.mWeights[w].mVertexId] += bone.mWeights[w].mWeight;
      }
    }
    // Ours: the rest pose's joint matrices.
    const std::vector<Transform> rest = local_to_model(clip.skeleton, clip.skeleton.rest_pose);
    std::vector<Mat4> joint(clip.skeleton.bone_count());
    for (size_t b = 0; b < joint.size(); ++b) joint[b] = to_matrix(rest[b]) * clip.skeleton.inverse_bind[b];
    float largest = 0.f, in_place = 0.f;
    for (size_t v = 0; v < clip.mesh->vertex_count(); ++v) {
      if (!(total[v] > 0.f)) continue;
      const Vec3 p = clip.mesh->positions[v];
      Vec3 skinned{0.f, 0.f, 0.f};
      for (size_t k = 0; k < 4; ++k) {
        const Mat4& m = joint[clip.mesh->joints[v][k]];
        const Vec3 q{m.m[0] * p.x + m.m[4] * p.y + m.m[8] * p.z + m.m[12],
                     m.m[1] * p.x + m.m[5] * p.y + m.m[9] * p.z + m.m[13],
                     m.m[2] * p.x + m.m[6] * p.y + m.m[10] * p.z + m.m[14]};
        skinned = skinned + q * clip.mesh->weights[v][k];
      }
      const aiVector3D e = expected[v] / total[v];
      largest = std::max(largest, distance(skinned, Vec3{e.x * 0.01f, e.y * 0.01f, e.z * 0.01f}));
      in_place = std::max(in_place, distance(skinned, p));
    }
    EXPECT_LT(largest, 1e-3f);  // 1 mm on characters metres tall
    if (std::string(file) == "FBX/huesitos.fbx") {
      EXPECT_LT(in_place, 1e-3f);
    }
  }
}

TEST(AssimpImport, EveryAnimationIsSelectableByIndexAndName) {
  REQUIRE_MODELS();
  for (const Model& model : kAnimated) {
    SCOPED_TRACE(model.file);
    const fs::path path = kModels / model.file;
    Result<ImportedClip> first = import_clip(path);
    ASSERT_TRUE(first.ok()) << first.error();
    for (size_t a = 0; a < first.value().animation_names.size(); ++a) {
      ImportSettings by_index;
      by_index.animation_index = static_cast<int>(a);
      Result<ImportedClip> indexed = import_clip(path, by_index);
      ASSERT_TRUE(indexed.ok()) << indexed.error();
      EXPECT_EQ(indexed.value().animation_index, static_cast<int>(a));
      ImportSettings by_name;
      by_name.animation_name = first.value().animation_names[a];
      Result<ImportedClip> named = import_clip(path, by_name);
      ASSERT_TRUE(named.ok()) << named.error();
      EXPECT_EQ(named.value().animation_index, static_cast<int>(a));
      EXPECT_EQ(named.value().clip.name, first.value().animation_names[a]);
    }
    ImportSettings past;
    past.animation_index = static_cast<int>(model.animations);
    EXPECT_TRUE(test::refused_mentioning(import_clip(path, past), {path.string(), "out of range"}));
    ImportSettings unknown;
    unknown.animation_name = "no such take";
    EXPECT_TRUE(test::refused_mentioning(import_clip(path, unknown),
                                         {path.string(), "no such take", first.value().animation_names[0]}));
  }
}

TEST(AssimpImport, SettingsReachTheResample) {
  REQUIRE_MODELS();
  const fs::path path = kModels / "FBX/huesitos.fbx";
  ImportSettings rate;
  rate.sample_rate_hz = 50.f;
  Result<ImportedClip> fast = import_clip(path, rate);
  ASSERT_TRUE(fast.ok()) << fast.error();
  EXPECT_FLOAT_EQ(fast.value().clip.sample_rate_hz, 50.f);
  EXPECT_EQ(fast.value().clip.frame_count, 79u);  // 1.56 s at 50 Hz
  ImportSettings small;
  small.max_bone_frames = 100;  // 11 bones x 40 frames is 440
  EXPECT_TRUE(test::refused_mentioning(import_clip(path, small), {path.string(), "--max-bone-frames"}));
  // 30 Hz misses most of the 25 Hz keys: they are kept as key poses, and said.
  ImportSettings off_grid;
  off_grid.sample_rate_hz = 30.f;
  Result<ImportedClip> missed = import_clip(path, off_grid);
  ASSERT_TRUE(missed.ok()) << missed.error();
  EXPECT_FALSE(missed.value().clip.key_poses.empty());
  const std::vector<std::string>& warnings = missed.value().warnings;
  EXPECT_TRUE(std::any_of(warnings.begin(), warnings.end(),
                          [](const std::string& w) { return w.find("fall between frames") != std::string::npos; }));
}

// Found while reading library_animation_clips.dae: assimp 5.2 alone crashes
// on a space after <v> (it reads the joint and weight indices out of step)
// and refuses one before a colour; XML allows both, and the guard takes
// such whitespace out, so the file imports as it does without it.
TEST(AssimpImport, ListsOfNumbersStartingWithWhitespaceImportAsWithout) {
  REQUIRE_MODELS();
  const std::string plain = read_bytes(kModels / "Collada/box_nested_animation.dae");
  std::string spaced = plain;
  for (const auto& [from, to] : {std::pair<std::string, std::string>{"<v>0 0 0 1", "<v> 0 0 0 1"},
                                 {"<vcount>1 1", "<vcount>\n  1 1"},
                                 {"<float_array id=\"Cube-mesh-positions-array\" count=\"24\">",
                                  "<float_array id=\"Cube-mesh-positions-array\" count=\"24\">\t "}}) {
    const size_t at = spaced.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    spaced.replace(at, from.size(), to);
  }
  test::TempDir dir;
  write_bytes(dir.path() / "spaced.dae", spaced);
  write_bytes(dir.path() / "plain.dae", plain);
  Result<ImportedClip> a = import_clip(dir.path() / "spaced.dae");
  Result<ImportedClip> b = import_clip(dir.path() / "plain.dae");
  ASSERT_TRUE(a.ok()) << a.error();
  ASSERT_TRUE(b.ok()) << b.error();
  ASSERT_TRUE(a.value().mesh && b.value().mesh);
  EXPECT_EQ(a.value().skeleton.bone_count(), b.value().skeleton.bone_count());
  EXPECT_EQ(a.value().clip.frame_count, b.value().clip.frame_count);
  EXPECT_EQ(a.value().mesh->joints, b.value().mesh->joints);
  EXPECT_EQ(a.value().mesh->weights, b.value().mesh->weights);
  ASSERT_EQ(a.value().mesh->positions.size(), b.value().mesh->positions.size());
  for (size_t v = 0; v < a.value().mesh->positions.size(); ++v) {
    EXPECT_EQ(distance(a.value().mesh->positions[v], b.value().mesh->positions[v]), 0.f) << v;
  }
}

// The guard in front of assimp passes every model assimp itself reads.
TEST(AssimpImport, GuardPassesEveryModelAssimpReads) {
  REQUIRE_MODELS();
  size_t checked = 0;
  for (const char* folder : {"FBX", "Collada"}) {
    for (const fs::directory_entry& entry : fs::recursive_directory_iterator(kModels / folder)) {
      const std::string ext = lowercase_extension(entry.path());
      if (!entry.is_regular_file() || (ext != ".fbx" && ext != ".dae")) continue;
      SCOPED_TRACE(entry.path().string());
      Reference reference(entry.path());
      if (reference.scene == nullptr) continue;
      std::string rewritten;
      EXPECT_TRUE(assimp::check_input(read_bytes(entry.path()), ext, rewritten).ok());
      Assimp::Importer importer;
      EXPECT_TRUE(assimp::read_scene(importer, read_bytes(entry.path()), ext).ok());
      ++checked;
    }
  }
  EXPECT_GE(checked, 30u);
}

// ---------------------------------------------------------------------------
// Files that are refused, each naming the file and the problem

TEST(AssimpImport, RefusesEmptyGarbageAndTruncatedFiles) {
  REQUIRE_MODELS();
  test::TempDir dir;
  const std::string fbx = read_bytes(kModels / "FBX/huesitos.fbx");
  const std::string dae = read_bytes(kModels / "Collada/box_nested_animation.dae");
  const struct {
    const char* name;
    std::string bytes;
    const char* problem;
  } cases[] = {
      {"empty.fbx", "", "empty"},
      {"empty.dae", "", "empty"},
      {"garbage.fbx", std::string(4096, '\x7f'), "assimp cannot read it"},
      {"garbage.dae", "not xml at all, just words", "assimp cannot read it"},
      {"truncated_header.fbx", fbx.substr(0, 20), "assimp cannot read it"},
      {"truncated_binary.fbx", fbx.substr(0, fbx.size() / 2), "cut off"},
      {"truncated_record.fbx", fbx.substr(0, 40), "cut off"},
      {"broken_xml.dae", dae.substr(0, dae.size() / 2), "assimp cannot read it"},
      {"no_animation.dae", read_bytes(kModels / "Collada/duck.dae"), "no animations"},
      // Found by fuzzing: weights indexing past their array trip an assertion
      // of Debian's assimp, which used to abort the process; the guard now
      // refuses the accessor that reads past the array first.
      {"weights_past_array.dae",
       [&] {
         std::string bytes = dae;
         const std::string from = "id=\"Armature_Cube-skin-weights-array\" count=\"8\"";
         const size_t at = bytes.find(from);
         if (at != std::string::npos)
           bytes.replace(at, from.size(), "id=\"Armature_Cube-skin-weights-array\" count=\"4\"");
         return bytes;
       }(),
       "Collada accessor reads 8 values of stride 1 from array 'Armature_Cube-skin-weights-array', which holds 4"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    write_bytes(dir.path() / c.name, c.bytes);
    const fs::path path = dir.path() / c.name;
    EXPECT_TRUE(test::refused_mentioning(import_clip(path), {path.string(), c.problem}));
  }
  // A real file assimp cannot read: a binary FBX whose NUL bytes became spaces.
  const fs::path spaced = kModels / "FBX/transparentTest.fbx";
  EXPECT_TRUE(test::refused_mentioning(import_clip(spaced), {spaced.string(), "assimp"}));
}

TEST(AssimpImport, RefusesDeepNestingAndHugeCountsBeforeAssimpSeesThem) {
  test::TempDir dir;
  std::string deep_dae = "<?xml version=\"1.0\"?><COLLADA><library_visual_scenes><visual_scene id=\"s\">";
  for (int i = 0; i < 20000; ++i) deep_dae += "<node>";
  write_bytes(dir.path() / "deep.dae", deep_dae);
  EXPECT_TRUE(test::refused_mentioning(import_clip(dir.path() / "deep.dae"),
                                       {(dir.path() / "deep.dae").string(), "nested more than 256"}));

  write_bytes(dir.path() / "count.dae",
              "<?xml version=\"1.0\"?><COLLADA><library_geometries><geometry><mesh><source>"
              "<float_array id=\"a\" count=\"4000000000\">1 2 3</float_array></source></mesh></geometry>"
              "</library_geometries></COLLADA>");
  EXPECT_TRUE(test::refused_mentioning(import_clip(dir.path() / "count.dae"),
                                       {(dir.path() / "count.dae").string(), "count 4000000000"}));

  // Found by fuzzing: assimp 5.2 never returns from a letter among a <p>'s indices.
  REQUIRE_MODELS();
  std::string looping = read_bytes(kModels / "Collada/box_nested_animation.dae");
  const size_t p = looping.find("<p>");
  ASSERT_NE(p, std::string::npos);
  looping.insert(p + 5, "x");
  write_bytes(dir.path() / "letter_in_p.dae", looping);
  EXPECT_TRUE(test::refused_mentioning(import_clip(dir.path() / "letter_in_p.dae"),
                                       {(dir.path() / "letter_in_p.dae").string(), "<p> index list"}));

  // Found by fuzzing: assimp 5.2 reads a vertex's skin weights by its
  // position index without a bounds check, and files each weight under the
  // bone its joint index names, unchecked (a NULL read, or a write past the
  // bones): a skin whose <vertex_weights> disagree with its geometry, or
  // their <vcount> and <v> with each other, is refused first.
  const auto mutated = [&](std::initializer_list<std::pair<std::string_view, std::string_view>> edits) {
    std::string bytes = read_bytes(kModels / "Collada/box_nested_animation.dae");
    for (const auto& [from, to] : edits) {
      const size_t at = bytes.find(from);
      EXPECT_NE(at, std::string::npos) << from;
      if (at != std::string::npos) bytes.replace(at, from.size(), to);
    }
    return bytes;
  };
  const std::string weights = "<vertex_weights count=\"8\">";
  const std::string vcount = "<vcount>1 1 1 1 1 1 1 1 </vcount>";
  const std::string v = "<v>0 0 0 1 0 2 0 3 0 4 0 5 0 6 0 7</v>";
  const struct {
    const char* name;
    std::string bytes;
    const char* problem;
  } skins[] = {
      // The fuzzer's input: <vcount> and <v> still for 8 vertices.
      {"fewer_weights_than_positions.dae", mutated({{weights, "<vertex_weights count=\"6\">"}}),
       "weighs 6 vertices (<vertex_weights count>), fewer than the 8 positions of its geometry 'Cube-mesh'"},
      // The same, consistent in itself.
      {"six_weights_for_eight_positions.dae",
       mutated({{weights, "<vertex_weights count=\"6\">"},
                {vcount, "<vcount>1 1 1 1 1 1 </vcount>"},
                {v, "<v>0 0 0 1 0 2 0 3 0 4 0 5</v>"}}),
       "fewer than the 8 positions"},
      {"short_vcount.dae", mutated({{vcount, "<vcount>1 1 1 1 1 1 1 </vcount>"}}), "<vcount> lists 7 vertices"},
      {"short_v.dae", mutated({{v, "<v>0 0 0 1 0 2 0 3 0 4 0 5 0 6</v>"}}), "<v> holds 14 indices, not the 8"},
      {"long_vcount_sum.dae", mutated({{vcount, "<vcount>1 1 1 1 1 1 1 2 </vcount>"}}), "<v> holds 16 indices"},
      {"joint_past_names.dae", mutated({{v, "<v>0 0 0 1 0 2 0 3 0 4 0 5 0 6 1 7</v>"}}),
       "names joint 1 of the 1 in source 'Armature_Cube-skin-joints'"},
  };
  for (const auto& c : skins) {
    SCOPED_TRACE(c.name);
    const fs::path path = dir.path() / c.name;
    write_bytes(path, c.bytes);
    EXPECT_TRUE(test::refused_mentioning(import_clip(path), {path.string(), "Collada skin of controller", c.problem}));
  }

  // Found by fuzzing: assimp 5.2 reads an accessor's values past the end of
  // an array that declares fewer (a wild read, here a float4x4 from 8 values).
  const fs::path short_array = dir.path() / "short_bind_poses.dae";
  write_bytes(short_array, mutated({{"id=\"Armature_Cube-skin-bind_poses-array\" count=\"16\"",
                                     "id=\"Armature_Cube-skin-bind_poses-array\" count=\"8\""}}));
  EXPECT_TRUE(test::refused_mentioning(
      import_clip(short_array), {short_array.string(), "Collada accessor reads 1 values of stride 16 from array "
                                                       "'Armature_Cube-skin-bind_poses-array', which holds 8"}));

  // Found by fuzzing: an array whose count attribute is mangled is empty to
  // assimp 5.2, whose accessor then reads its values from nothing (a NULL
  // read); the guard counts it as holding none.
  const fs::path no_count = dir.path() / "normals_without_count.dae";
  write_bytes(no_count, mutated({{"id=\"Cube-mesh-normals-array\" count=\"18\"",
                                  "id=\"Cube-mesh-normals-array\" count\xb3=\"18\""}}));
  EXPECT_TRUE(test::refused_mentioning(
      import_clip(no_count), {no_count.string(), "Collada accessor reads 6 values of stride 3 from array "
                                                 "'Cube-mesh-normals-array', which holds 0"}));

  // Found by fuzzing: assimp 5.2 reads a <polylist count="N">'s N polygon
  // sizes from its <vcount> unchecked (a NULL read when it is missing).
  const std::string polylist = "<vcount>3 3 3 3 3 3 3 3 3 3 3 3 </vcount>";
  const struct {
    const char* name;
    std::string bytes;
    const char* problem;
  } polylists[] = {
      {"polylist_without_vcount.dae", mutated({{polylist, ""}}), "declares 12 polygons but its <vcount> lists 0"},
      {"polylist_short_vcount.dae", mutated({{polylist, "<vcount>3 3 3 3 3 3 3 3 3 3 3 </vcount>"}}),
       "declares 12 polygons but its <vcount> lists 11"},
  };
  for (const auto& c : polylists) {
    SCOPED_TRACE(c.name);
    const fs::path path = dir.path() / c.name;
    write_bytes(path, c.bytes);
    EXPECT_TRUE(test::refused_mentioning(import_clip(path), {path.string(), "Collada <polylist>", c.problem}));
  }

  // Found by fuzzing: two animated bones of one name make assimp 5.2 free
  // their keys twice. Other models may share a name (real files do).
  std::string bones = read_bytes(kModels / "FBX/animation_with_skeleton.fbx");
  const size_t bone = bones.find(std::string("Bone.002\0\1Model", 14));
  ASSERT_NE(bone, std::string::npos);
  bones[bone + 7] = '1';
  write_bytes(dir.path() / "two_bones.fbx", bones);
  EXPECT_TRUE(test::refused_mentioning(import_clip(dir.path() / "two_bones.fbx"),
                                       {(dir.path() / "two_bones.fbx").string(),
                                        "two bones (LimbNode models) named 'Model::Bone.001'"}));
  write_bytes(dir.path() / "two_bones_ascii.fbx",
              "; FBX 7.4.0 project file\nObjects:  {\n"
              "\tModel: 1, \"Model::Cube\", \"Mesh\" {\n\t}\n\tModel: 2, \"Model::Cube\", \"Mesh\" {\n\t}\n"
              "\tModel: 3, \"Model::Arm\", \"LimbNode\" {\n\t}\n\tModel: 4, \"Model::Arm\", \"LimbNode\" {\n\t}\n}\n");
  EXPECT_TRUE(test::refused_mentioning(import_clip(dir.path() / "two_bones_ascii.fbx"),
                                       {(dir.path() / "two_bones_ascii.fbx").string(),
                                        "ASCII FBX has two bones (LimbNode models) named 'Model::Arm'"}));

  // Found by fuzzing: assimp 5.2 inserts a key for every half turn of a
  // rotation curve, so one value of -7.4e9 degrees made it take gigabytes.
  std::string curves = read_bytes(kModels / "FBX/animation_with_skeleton.fbx");
  const size_t values = curves.find("KeyValueFloat");
  ASSERT_NE(values, std::string::npos);
  const size_t array = values + 13;  // the name, then one 'f' array: length, encoding, stored bytes, data
  ASSERT_EQ(curves[array], 'f');
  uint32_t encoding = 1;
  std::memcpy(&encoding, curves.data() + array + 5, 4);
  ASSERT_EQ(encoding, 0u) << "the first curve of the test model is stored raw";
  const float forged = -7.4e9f;
  std::memcpy(curves.data() + array + 13, &forged, 4);
  write_bytes(dir.path() / "spinning.fbx", curves);
  EXPECT_TRUE(test::refused_mentioning(import_clip(dir.path() / "spinning.fbx"),
                                       {(dir.path() / "spinning.fbx").string(),
                                        "FBX animation curves turn more than 1000000 half turns"}));
  const std::string ascii_curve = "; FBX 7.4.0 project file\nObjects:  {\n AnimationCurve: 1, \"c\", \"\" {\n"
                                  "  KeyValueFloat: *3 {\n   a: 0,90,%s\n  }\n }\n}\n";
  for (const char* value : {"-7.4e9", "nan", "inf"}) {
    char text[256];
    std::snprintf(text, sizeof text, ascii_curve.c_str(), value);
    write_bytes(dir.path() / "spinning_ascii.fbx", text);
    EXPECT_TRUE(test::refused_mentioning(import_clip(dir.path() / "spinning_ascii.fbx"),
                                         {(dir.path() / "spinning_ascii.fbx").string(), "FBX animation curve"}))
        << value;
  }

  std::string deep_fbx = "; FBX 7.4.0 project file\nFBXHeaderExtension:  {\n";
  for (int i = 0; i < 20000; ++i) deep_fbx += "A: {\n";
  write_bytes(dir.path() / "deep.fbx", deep_fbx);
  EXPECT_TRUE(test::refused_mentioning(import_clip(dir.path() / "deep.fbx"),
                                       {(dir.path() / "deep.fbx").string(), "nested more than 256"}));

  write_bytes(dir.path() / "count.fbx",
              "; FBX 7.4.0 project file\nObjects:  {\n Geometry: 1, \"g\", \"Mesh\" {\n"
              "  Vertices: *99999999999 {\n   a: 0,0,0\n  }\n }\n}\n");
  EXPECT_TRUE(test::refused_mentioning(import_clip(dir.path() / "count.fbx"),
                                       {(dir.path() / "count.fbx").string(), "99999999999 values"}));
}

TEST(AssimpImport, RefusesABinaryFbxArrayItsBytesCannotHold) {
  REQUIRE_MODELS();
  // huesitos' first deflated array, its length raised past what its
  // stored bytes can inflate to.
  std::string fbx = read_bytes(kModels / "FBX/huesitos.fbx");
  size_t at = std::string::npos;
  for (size_t i = 27; i + 13 < fbx.size(); ++i) {
    uint32_t encoding = 0, stored = 0;
    std::memcpy(&encoding, fbx.data() + i + 5, 4);
    std::memcpy(&stored, fbx.data() + i + 9, 4);
    if ((fbx[i] == 'd' || fbx[i] == 'i' || fbx[i] == 'f') && encoding == 1 && stored > 16 && stored < 100000) {
      at = i;
      break;
    }
  }
  ASSERT_NE(at, std::string::npos);
  const uint32_t huge = 0x7fffffff;
  std::memcpy(fbx.data() + at + 1, &huge, 4);
  test::TempDir dir;
  write_bytes(dir.path() / "forged.fbx", fbx);
  EXPECT_TRUE(test::refused_mentioning(import_clip(dir.path() / "forged.fbx"),
                                       {(dir.path() / "forged.fbx").string(), "cannot come from its"}));
}

TEST(AssimpImport, RefusesWhatIsNotARegularFile) {
  test::TempDir dir;
  const fs::path fifo = dir.path() / "pipe.fbx";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_TRUE(test::refused_mentioning(import_clip(fifo), {fifo.string(), "FIFO"}));
  fs::create_directory(dir.path() / "folder.dae");
  EXPECT_TRUE(test::refused_mentioning(import_clip(dir.path() / "folder.dae"), {"folder.dae", "directory"}));
  EXPECT_TRUE(test::refused_mentioning(import_clip(dir.path() / "missing.fbx"), {"missing.fbx", "no such file"}));
}

TEST(AssimpImport, ImportableExtensions) {
  for (const char* name : {"a.fbx", "a.FBX", "a.dae", "a.DAE", "a.zae", "a.ZAE"}) {
    EXPECT_TRUE(is_importable(name)) << name;
  }
  EXPECT_FALSE(is_importable("a.zip"));
  EXPECT_FALSE(is_importable("a.obj"));
}

}  // namespace
}  // namespace ks
