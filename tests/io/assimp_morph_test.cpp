// Tests for core/io/assimp_morph.h: assimp's morph targets (aiAnimMesh) and
// morph-weight channels (aiMeshMorphAnim) become SkinnedMesh morph targets
// and "NODE/TARGET" scalar tracks. assimp 5.2 reads no morph targets from
// any file we can make (its Collada parser drops <morph> controllers, and
// no installed model has FBX blend shapes), so most tests build the aiScene
// in memory; a generated Collada file carries weights alone.

#include "keystream/io/assimp_morph.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <memory>
#include <sstream>

#include "keystream/io/assimp_animation.h"
#include "keystream/io/assimp_import.h"
#include "keystream/io/assimp_mesh.h"
#include "keystream/io/assimp_skeleton.h"
#include "keystream/io/import.h"
#include "tests/temp_dir.h"

namespace ks {
namespace {

constexpr double kTicksPerSecond = 10.0;

// One key of a morph channel: a time in ticks and (target, weight) pairs.
struct Key {
  double ticks = 0.0;
  std::vector<std::pair<unsigned, double>> weights;
};

// Keys at 0, 0.5 and 1 s; target 1 ("blink") is not listed at 0.5 s, as an
// FBX blend-shape channel keyed at other times than its neighbour is.
std::vector<Key> sparse_keys() {
  return {{0.0, {{0, 0.0}, {1, 1.0}}}, {5.0, {{0, 1.0}}}, {10.0, {{0, 0.5}, {1, 0.0}}}};
}

// Target t's weight at `seconds`, linear between the keys that list it.
double expected_weight(unsigned target, double seconds) {
  if (target == 0) return seconds <= 0.5 ? 2.0 * seconds : 1.0 - (seconds - 0.5);
  return 1.0 - seconds;
}

aiVector3D* copy(const std::vector<aiVector3D>& v) {
  auto* out = new aiVector3D[v.size()];
  std::copy(v.begin(), v.end(), out);
  return out;
}

// Root above "Bone" (rotated by a node channel) and "Face" (scale 2,
// translated) drawing mesh 0: a quad facing +z with targets "smile" (vertex
// 2 up by 1, its normal turned to +y) and "blink" (vertex 1 out along z).
// Animation 0 holds one morph channel named `channel`, with `keys`.
std::unique_ptr<aiScene> make_scene(const std::string& channel, const std::vector<Key>& keys) {
  auto scene = std::make_unique<aiScene>();
  scene->mRootNode = new aiNode("Root");
  auto* bone = new aiNode("Bone");
  auto* face = new aiNode("Face");
  face->mTransformation = aiMatrix4x4(2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2, 5, 0, 0, 0, 1);
  face->mNumMeshes = 1;
  face->mMeshes = new unsigned[1]{0};
  scene->mRootNode->addChildren(2, std::vector<aiNode*>{bone, face}.data());

  const std::vector<aiVector3D> positions = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}};
  const std::vector<aiVector3D> normals(4, aiVector3D(0, 0, 1));
  auto* mesh = new aiMesh;
  mesh->mName.Set("quad");
  mesh->mPrimitiveTypes = aiPrimitiveType_TRIANGLE;
  mesh->mNumVertices = 4;
  mesh->mVertices = copy(positions);
  mesh->mNormals = copy(normals);
  mesh->mNumFaces = 2;
  mesh->mFaces = new aiFace[2];
  for (unsigned f = 0; f < 2; ++f) {
    mesh->mFaces[f].mNumIndices = 3;
    mesh->mFaces[f].mIndices = f == 0 ? new unsigned[3]{0, 1, 2} : new unsigned[3]{0, 2, 3};
  }
  mesh->mNumAnimMeshes = 2;
  mesh->mAnimMeshes = new aiAnimMesh*[2];
  for (unsigned t = 0; t < 2; ++t) {
    auto* target = new aiAnimMesh;
    target->mName.Set(t == 0 ? "smile" : "blink");
    target->mNumVertices = 4;
    std::vector<aiVector3D> moved = positions, turned = normals;
    if (t == 0) moved[2].y += 1, turned[2] = aiVector3D(0, 1, 0);
    if (t == 1) moved[1].z += 1;
    target->mVertices = copy(moved);
    target->mNormals = copy(turned);
    mesh->mAnimMeshes[t] = target;
  }
  scene->mNumMeshes = 1;
  scene->mMeshes = new aiMesh* [1] { mesh };

  auto* animation = new aiAnimation;
  animation->mName.Set("talk");
  animation->mTicksPerSecond = kTicksPerSecond;
  animation->mDuration = 10.0;
  auto* turn = new aiNodeAnim;
  turn->mNodeName.Set("Bone");
  turn->mNumRotationKeys = 2;
  turn->mRotationKeys = new aiQuatKey[2]{{0.0, aiQuaternion(1, 0, 0, 0)}, {10.0, aiQuaternion(0.7071f, 0.7071f, 0, 0)}};
  animation->mNumChannels = 1;
  animation->mChannels = new aiNodeAnim* [1] { turn };
  auto* morph = new aiMeshMorphAnim;
  morph->mName.Set(channel);
  morph->mNumKeys = static_cast<unsigned>(keys.size());
  morph->mKeys = new aiMeshMorphKey[keys.size()];
  for (size_t k = 0; k < keys.size(); ++k) {
    aiMeshMorphKey& key = morph->mKeys[k];
    key.mTime = keys[k].ticks;
    key.mNumValuesAndWeights = static_cast<unsigned>(keys[k].weights.size());
    if (keys[k].weights.empty()) continue;
    key.mValues = new unsigned[keys[k].weights.size()];
    key.mWeights = new double[keys[k].weights.size()];
    for (size_t v = 0; v < keys[k].weights.size(); ++v) {
      key.mValues[v] = keys[k].weights[v].first;
      key.mWeights[v] = keys[k].weights[v].second;
    }
  }
  animation->mNumMorphMeshChannels = 1;
  animation->mMorphMeshChannels = new aiMeshMorphAnim* [1] { morph };
  scene->mNumAnimations = 1;
  scene->mAnimations = new aiAnimation* [1] { animation };
  return scene;
}

// What the assimp importer makes of a scene in memory (assimp_import.cpp's steps).
struct SceneImport {
  RawClip clip;
  std::optional<SkinnedMesh> mesh;
  std::vector<std::string> warnings;
};

SceneImport import_scene(const aiScene& scene, bool collada = false) {
  SceneImport out;
  Result<assimp::NodeTree> tree = assimp::flatten_nodes(scene);
  EXPECT_TRUE(tree.ok());
  Result<assimp::SceneSkeleton> skeleton = assimp::read_skeleton(scene, tree.value(), 1.0, out.warnings);
  EXPECT_TRUE(skeleton.ok()) << skeleton.error();
  Result<std::optional<SkinnedMesh>> mesh =
      assimp::read_meshes(scene, tree.value(), 1.0, skeleton.value(), out.warnings);
  EXPECT_TRUE(mesh.ok()) << mesh.error();
  double start_s = 0.0;
  Result<RawClip> clip = assimp::resample_animation(scene, tree.value(), skeleton.value(), 0, collada, ImportSettings{},
                                                    start_s, out.warnings);
  EXPECT_TRUE(clip.ok()) << clip.error();
  if (!clip || !mesh) return out;
  out.clip = std::move(clip.value());
  out.mesh = std::move(mesh.value());
  EXPECT_TRUE(out.clip.validate(skeleton.value().skeleton).ok());
  if (out.mesh) {
    EXPECT_TRUE(out.mesh->validate(skeleton.value().skeleton.bone_count()).ok());
  }
  return out;
}

bool warned(const std::vector<std::string>& warnings, const std::string& part) {
  for (const std::string& warning : warnings) {
    if (warning.find(part) != std::string::npos) return true;
  }
  return false;
}

std::string all(const std::vector<std::string>& warnings) {
  std::string out;
  for (const std::string& warning : warnings) out += warning + "\n";
  return out;
}

// Every frame of tracks `names` against expected_weight, within float rounding.
void expect_weights(const RawClip& clip, const std::vector<std::string>& names, const std::string& node) {
  ASSERT_EQ(clip.scalars.size(), names.size());
  for (uint32_t t = 0; t < names.size(); ++t) {
    const ScalarTrack& track = clip.scalars[t];
    EXPECT_EQ(track.name, names[t]);
    EXPECT_EQ(track.target, ScalarTarget::kMorphWeight);
    EXPECT_EQ(track.node, node);
    EXPECT_EQ(track.target_index, t);
    EXPECT_EQ(track.components, 1u);
    ASSERT_EQ(track.values.size(), clip.frame_count);
    for (uint32_t f = 0; f < clip.frame_count; ++f) {
      EXPECT_NEAR(track.values[f], expected_weight(t, f / clip.sample_rate_hz), 1e-6)
          << track.name << " frame " << f << " at " << clip.sample_rate_hz << " Hz";
    }
  }
}

TEST(AssimpMorph, AnFbxChannelBecomesOneTrackPerTargetOfTheNodesMesh) {
  const auto scene = make_scene("Face*0", sparse_keys());
  const SceneImport imported = import_scene(*scene);
  EXPECT_EQ(imported.clip.frame_count, static_cast<uint32_t>(std::lround(imported.clip.sample_rate_hz)) + 1);
  // "blink" has no key at 0.5 s: it runs straight from its 0 s key to its 1 s one.
  expect_weights(imported.clip, {"Face/smile", "Face/blink"}, "Face");
}

TEST(AssimpMorph, AColladaChannelNamesItsNodeAndItsTransformChannelIsDropped) {
  const auto scene = make_scene("Face", sparse_keys());
  // assimp 5.2 makes a node channel for a Collada node with morph weights, from the weights.
  aiAnimation& animation = *scene->mAnimations[0];
  auto* spurious = new aiNodeAnim;
  spurious->mNodeName.Set("Face");
  spurious->mNumScalingKeys = 1;
  spurious->mScalingKeys = new aiVectorKey[1]{{0.0, aiVector3D(0.5f, 1, 1)}};
  auto** channels = new aiNodeAnim* [2] { animation.mChannels[0], spurious };
  delete[] animation.mChannels;
  animation.mChannels = channels;
  animation.mNumChannels = 2;
  const SceneImport imported = import_scene(*scene, true);
  expect_weights(imported.clip, {"Face/smile", "Face/blink"}, "Face");
  EXPECT_TRUE(warned(imported.warnings, "node 'Face': assimp 5.2 mixes its morph weights")) << all(imported.warnings);
}

TEST(AssimpMorph, MorphTargetsAreDisplacementsInModelSpaceAndAreDrawn) {
  const auto scene = make_scene("Face*0", sparse_keys());
  const SceneImport imported = import_scene(*scene);
  ASSERT_TRUE(imported.mesh.has_value());
  const std::vector<MorphTarget>& targets = imported.mesh->morph_targets;
  ASSERT_EQ(targets.size(), 2u);
  EXPECT_FALSE(warned(imported.warnings, "not drawn")) << all(imported.warnings);
  for (uint32_t t = 0; t < 2; ++t) {
    EXPECT_EQ(targets[t].name, t == 0 ? "smile" : "blink");
    EXPECT_EQ(targets[t].node, "Face");
    EXPECT_EQ(targets[t].mesh, 0u);
    EXPECT_EQ(targets[t].target_index, t);
    EXPECT_EQ(targets[t].default_weight, 0.f);
    EXPECT_EQ(targets[t].first_vertex, 0u);
    ASSERT_EQ(targets[t].position_deltas.size(), 4u);
    ASSERT_EQ(targets[t].normal_deltas.size(), 4u);
  }
  // Face's scale of 2 scales the displacements; its translation does not move them.
  const auto near = [](Vec3 a, Vec3 b) {
    return std::fabs(a.x - b.x) + std::fabs(a.y - b.y) + std::fabs(a.z - b.z) < 1e-6;
  };
  EXPECT_TRUE(near(targets[0].position_deltas[2], {0, 2, 0}));
  EXPECT_TRUE(near(targets[0].position_deltas[0], {0, 0, 0}));
  EXPECT_TRUE(near(targets[1].position_deltas[1], {0, 0, 2}));
  EXPECT_TRUE(near(targets[0].normal_deltas[2], {0, 1, -1}));  // unit +z to unit +y
  EXPECT_TRUE(near(targets[1].normal_deltas[1], {0, 0, 0}));
}

TEST(AssimpMorph, TargetsSharingANameGetANumberAndAWarning) {
  const auto scene = make_scene("Face*0", sparse_keys());
  scene->mMeshes[0]->mAnimMeshes[1]->mName.Set("smile");
  const SceneImport imported = import_scene(*scene);
  ASSERT_EQ(imported.clip.scalars.size(), 2u);
  EXPECT_EQ(imported.clip.scalars[1].name, "Face/smile#2");
  EXPECT_TRUE(warned(imported.warnings, "1 morph-weight track names were taken")) << all(imported.warnings);
}

TEST(AssimpMorph, ATargetWithTheWrongVertexCountIsSkippedWithAWarning) {
  const auto scene = make_scene("Face*0", sparse_keys());
  scene->mMeshes[0]->mAnimMeshes[1]->mNumVertices = 3;
  const SceneImport imported = import_scene(*scene);
  ASSERT_TRUE(imported.mesh.has_value());
  ASSERT_EQ(imported.mesh->morph_targets.size(), 1u);
  EXPECT_EQ(imported.mesh->morph_targets[0].name, "smile");
  EXPECT_TRUE(warned(imported.warnings, "1 morph targets have positions that are missing")) << all(imported.warnings);
  scene->mMeshes[0]->mAnimMeshes[1]->mNumVertices = 4;  // as allocated, for the destructor
}

TEST(AssimpMorph, AChannelNamingNoNodeIsAWarningNamingIt) {
  for (const char* name : {"Nobody", "Nobody*0", "Face*x"}) {
    const auto scene = make_scene(name, sparse_keys());
    const SceneImport imported = import_scene(*scene);
    EXPECT_TRUE(imported.clip.scalars.empty());
    EXPECT_TRUE(warned(imported.warnings, "morph-target channel '" + std::string(name) + "' names no node; ignored"))
        << all(imported.warnings);
  }
  const auto scene = make_scene("Face*1", sparse_keys());
  const SceneImport imported = import_scene(*scene);
  EXPECT_TRUE(imported.clip.scalars.empty());
  EXPECT_TRUE(warned(imported.warnings, "'Face*1' names geometry 1 of node 'Face'")) << all(imported.warnings);
}

TEST(AssimpMorph, AChannelOnANodeWithoutAMeshIsAWarning) {
  const auto scene = make_scene("Bone", sparse_keys());
  const SceneImport imported = import_scene(*scene);
  EXPECT_TRUE(imported.clip.scalars.empty());
  EXPECT_TRUE(warned(imported.warnings, "'Bone' drives node 'Bone', which draws no mesh; ignored"))
      << all(imported.warnings);
}

TEST(AssimpMorph, MalformedKeysAreWarningsNamingTheChannelNeverACrash) {
  const double nan = std::nan("");
  const struct {
    std::vector<Key> keys;
    const char* warning;
  } cases[] = {
      {{{0, {{0, 0.5}, {5, 1.0}}}}, "key 0 names morph target 5 of 2"},
      {{{0, {{0, 0.5}, {1, 1.0}, {0, 0.2}}}}, "key 0 lists 3 weights for 2 morph targets"},
      {{{0, {{0, 0.5}, {0, 1.0}}}}, "key 0 lists morph target 0 twice"},
      {{{0, {{0, nan}}}}, "key 0 has a weight that is not finite"},
      {{{0, {{0, 1e300}}}}, "key 0 has a weight that is not finite"},
      {{{5, {{0, 0.5}}}, {0, {{0, 1.0}}}}, "key times decrease (key 1)"},
      {{{nan, {{0, 0.5}}}}, "key 0 has a time that is not a usable number"},
      {{}, "has no keys"},
      {{{0, {}}, {5, {}}}, "lists no weights"},
  };
  for (const auto& c : cases) {
    const auto scene = make_scene("Face*0", c.keys);
    const SceneImport imported = import_scene(*scene);
    EXPECT_TRUE(imported.clip.scalars.empty()) << c.warning;
    EXPECT_TRUE(warned(imported.warnings, "morph-target channel 'Face*0' " + std::string(c.warning) + "; ignored"))
        << c.warning << "\n"
        << all(imported.warnings);
  }
  // A count without its arrays.
  const auto scene = make_scene("Face*0", sparse_keys());
  aiMeshMorphKey& key = scene->mAnimations[0]->mMorphMeshChannels[0]->mKeys[1];
  delete[] key.mValues;
  delete[] key.mWeights;
  key.mValues = nullptr;
  key.mWeights = nullptr;
  const SceneImport imported = import_scene(*scene);
  EXPECT_TRUE(imported.clip.scalars.empty());
  EXPECT_TRUE(warned(imported.warnings, "'Face*0' key 1 has no values or weights; ignored")) << all(imported.warnings);
}

TEST(AssimpMorph, ANodeWhoseMeshHasNoTargetsGetsATrackPerIndexTheKeysName) {
  const auto scene = make_scene("Face", sparse_keys());
  aiMesh& mesh = *scene->mMeshes[0];
  for (unsigned t = 0; t < mesh.mNumAnimMeshes; ++t) delete mesh.mAnimMeshes[t];
  delete[] mesh.mAnimMeshes;
  mesh.mAnimMeshes = nullptr;
  mesh.mNumAnimMeshes = 0;
  const SceneImport imported = import_scene(*scene);
  expect_weights(imported.clip, {"Face/0", "Face/1"}, "Face");
  EXPECT_TRUE(warned(imported.warnings, "node 'Face' has no morph targets assimp could read"))
      << all(imported.warnings);
  ASSERT_TRUE(imported.mesh.has_value());
  EXPECT_TRUE(imported.mesh->morph_targets.empty());
}

// A Collada file whose node "Face" draws a quad (by <instance_geometry>:
// assimp 5.2 refuses a <morph> controller) and whose animation keys the
// node's morph weights 0 and 1 as sparse_keys() does (every target at every
// key), as "Face-morph-weights(N)": the one target form assimp 5.2 reads,
// and only on a node with a transform (without, or with '/', it crashes).
std::string collada_morph_file(bool transform = true, const std::string& separator = "-") {
  std::ostringstream out;
  out << R"(<?xml version="1.0" encoding="utf-8"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
<asset><unit name="meter" meter="1"/><up_axis>Y_UP</up_axis></asset>
<library_geometries><geometry id="quad" name="quad"><mesh>
<source id="quad-pos"><float_array id="quad-pos-array" count="12">0 0 0 1 0 0 1 1 0 0 1 0</float_array>
<technique_common><accessor source="#quad-pos-array" count="4" stride="3"><param name="X" type="float"/>)"
      << R"(<param name="Y" type="float"/><param name="Z" type="float"/></accessor></technique_common></source>
<vertices id="quad-verts"><input semantic="POSITION" source="#quad-pos"/></vertices>
<triangles count="2"><input semantic="VERTEX" source="#quad-verts" offset="0"/><p>0 1 2 0 2 3</p></triangles>
</mesh></geometry></library_geometries>
<library_animations><animation id="Face" name="Face">)";
  const char* weights[2] = {"0 1 0.5", "1 0.5 0"};
  for (int t = 0; t < 2; ++t) {
    const std::string id = "w" + std::to_string(t);
    const auto source = [&](const std::string& name, const char* values, const char* param) {
      out << R"(<source id=")" << id << name << R"("><float_array id=")" << id << name << R"(-array" count="3">)"
          << values << R"(</float_array><technique_common><accessor source="#)" << id << name
          << R"(-array" count="3" stride="1"><param name=")" << param
          << R"(" type="float"/></accessor></technique_common></source>)";
    };
    out << R"(<animation id=")" << id << R"(">)";
    source("-in", "0 0.5 1", "TIME");
    source("-out", weights[t], "WEIGHT");
    out << R"(<sampler id=")" << id << R"(-sampler"><input semantic="INPUT" source="#)" << id
        << R"(-in"/><input semantic="OUTPUT" source="#)" << id << R"(-out"/></sampler><channel source="#)" << id
        << R"(-sampler" target="Face)" << separator << "morph-weights(" << t << R"x()"/></animation>)x";
  }
  out << R"(</animation></library_animations>
<library_visual_scenes><visual_scene id="Scene" name="Scene"><node id="Face" name="Face" type="NODE">
)" << (transform ? R"(<matrix sid="transform">1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1</matrix>)" : "")
      << R"(<instance_geometry url="#quad"/></node>
</visual_scene></library_visual_scenes>
<scene><instance_visual_scene url="#Scene"/></scene>
</COLLADA>
)";
  return out.str();
}

TEST(AssimpMorph, ColladaMorphWeightsImportThroughTheWorkerAsTracksByIndex) {
  const test::TempDir dir;
  const std::filesystem::path path = dir / "weights.dae";
  std::ofstream(path, std::ios::binary) << collada_morph_file();
  for (const bool contained : {true, false}) {
    const Result<ImportedClip> imported =
        contained ? import_assimp(path, ImportSettings{}) : import_assimp_here(path, ImportSettings{});
    ASSERT_TRUE(imported.ok()) << imported.error();
    const ImportedClip& clip = imported.value();
    EXPECT_TRUE(check_imported(clip).ok());
    ASSERT_EQ(clip.clip.scalars.size(), 2u);
    for (uint32_t t = 0; t < 2; ++t) {
      const ScalarTrack& track = clip.clip.scalars[t];
      EXPECT_EQ(track.name, "Face/" + std::to_string(t));
      EXPECT_EQ(track.node, "Face");
      EXPECT_EQ(track.target_index, t);
      EXPECT_EQ(track.target, ScalarTarget::kMorphWeight);
      for (uint32_t f = 0; f < clip.clip.frame_count; ++f) {
        EXPECT_NEAR(track.values[f], expected_weight(t, clip.source_start_s + f / clip.clip.sample_rate_hz), 1e-6)
            << track.name << " frame " << f;
      }
    }
    EXPECT_TRUE(warned(clip.warnings, "node 'Face' has no morph targets assimp could read")) << all(clip.warnings);
    EXPECT_TRUE(warned(clip.warnings, "node 'Face': assimp 5.2 mixes its morph weights")) << all(clip.warnings);
    // Face keeps its rest pose, not the weights assimp wrote into its matrix.
    for (const BoneTracks& bone : clip.clip.bones) {
      for (const Vec3& scale : bone.scales) EXPECT_NEAR(scale.x, 1.f, 1e-6);
    }
  }
}

// The two forms of morph-weight channel that crash assimp 5.2 are refused
// before it reads them, in this process too (the fuzzer's way).
TEST(AssimpMorph, ColladaMorphChannelsThatCrashAssimpAreRefusedNamingTheFile) {
  const test::TempDir dir;
  const std::filesystem::path path = dir / "crash.dae";
  std::ofstream(path, std::ios::binary) << collada_morph_file(false);
  Result<ImportedClip> imported = import_assimp_here(path, ImportSettings{});
  ASSERT_FALSE(imported.ok());
  EXPECT_NE(imported.error().find(path.string() + ": Collada <channel> target 'Face-morph-weights(0)' applies to " +
                                  "node 'Face', which has no transform"),
            std::string::npos)
      << imported.error();
  std::ofstream(path, std::ios::binary) << collada_morph_file(true, "/");
  imported = import_assimp_here(path, ImportSettings{});
  ASSERT_FALSE(imported.ok());
  EXPECT_NE(imported.error().find("target 'Face/morph-weights(0)' names morph weights after a '/'"), std::string::npos)
      << imported.error();
}

}  // namespace
}  // namespace ks
