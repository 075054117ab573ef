// Morph targets of glTF meshes kept for the studio (core/io/gltf_morph_targets.h,
// through import_gltf): their displacements, names and default weights, the
// rigid mesh of a file without skins, malformed targets refused naming the
// file, mesh, primitive and target, and the bound on what a file can make
// us keep.

#include <gtest/gtest.h>
#include <tiny_gltf.h>

#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "keystream/io/gltf_import.h"
#include "tests/io/morph_test_files.h"
#include "tests/refused_mentioning.h"
#include "tests/temp_dir.h"

namespace ks {
namespace {

using test::kMorphNode;
using test::kMorphTargets;
using test::MorphFileExpectation;
using test::refused_mentioning;
using test::TempDir;

const std::filesystem::path kMorphCube = std::filesystem::path(KS_ASSIMP_MODELS_DIR) /
                                         "glTF2/glTF-Sample-Models/AnimatedMorphCube-glTF/AnimatedMorphCube.gltf";

ImportedClip import_ok(const std::filesystem::path& path) {
  Result<ImportedClip> result = import_gltf(path, {});
  EXPECT_TRUE(result.ok()) << result.error();
  if (!result) return {};
  return std::move(result.value());
}

bool warned(const ImportedClip& clip, const std::string& part) {
  for (const std::string& warning : clip.warnings) {
    if (warning.find(part) != std::string::npos) return true;
  }
  return false;
}

// The skinned morph file after `edit` changes or breaks it.
template <class Edit>
std::filesystem::path write_edited(const TempDir& dir, Edit edit) {
  MorphFileExpectation expected;
  test::GltfDocument doc = test::make_skinned_morph_document({}, expected);
  edit(doc);
  const std::filesystem::path path = dir / "morph.gltf";
  std::ofstream(path, std::ios::binary) << doc.text();
  return path;
}

// Target t of the skinned morph file moves vertex v along axis t by 0.1 (v + 1).
Vec3 file_delta(size_t target, size_t vertex) {
  float d[3] = {0.f, 0.f, 0.f};
  d[target] = 0.1f * static_cast<float>(vertex + 1);
  return {d[0], d[1], d[2]};
}

void expect_near(Vec3 a, Vec3 b, const std::string& what) {
  EXPECT_NEAR(a.x, b.x, 1e-6f) << what;
  EXPECT_NEAR(a.y, b.y, 1e-6f) << what;
  EXPECT_NEAR(a.z, b.z, 1e-6f) << what;
}

// A FLOAT VEC3 accessor of `values` in a buffer view of its own; its index.
int add_vec3(test::GltfDocument& doc, const std::vector<float>& values) {
  return doc.buffer.add_floats(values, "VEC3", 3);
}

TEST(GltfMorphTargets, TheSkinnedMorphFileKeepsEveryTarget) {
  TempDir dir;
  const auto path = dir / "morph.gltf";
  test::write_skinned_morph_file(path);
  const ImportedClip c = import_ok(path);
  ASSERT_TRUE(c.mesh.has_value());
  ASSERT_EQ(c.mesh->morph_targets.size(), static_cast<size_t>(kMorphTargets));
  const char* names[] = {"smile", "blink", "frown"};
  for (size_t t = 0; t < c.mesh->morph_targets.size(); ++t) {
    const MorphTarget& target = c.mesh->morph_targets[t];
    EXPECT_EQ(target.name, names[t]);
    EXPECT_EQ(target.node, "face");  // as the scalar tracks name it
    EXPECT_EQ(target.node, c.clip.scalars[t].node);
    EXPECT_EQ(target.target_index, c.clip.scalars[t].target_index);
    EXPECT_EQ(target.mesh, 0u);
    EXPECT_EQ(target.default_weight, 0.f);
    EXPECT_EQ(target.first_vertex, 0u);
    EXPECT_TRUE(target.normal_deltas.empty());  // the file's targets have no NORMAL
    ASSERT_EQ(target.position_deltas.size(), 4u);
    for (size_t v = 0; v < 4; ++v) {
      expect_near(target.position_deltas[v], file_delta(t, v),
                  "target " + std::to_string(t) + " vertex " + std::to_string(v));
    }
  }
  EXPECT_TRUE(c.mesh->validate(c.skeleton.bone_count()).ok());
}

TEST(GltfMorphTargets, DefaultWeightsAreTheNodesElseTheMeshs) {
  TempDir dir;
  auto path = write_edited(dir, [](test::GltfDocument& doc) { doc.json["meshes"][0]["weights"] = {0.25, 0.5, 1.0}; });
  ImportedClip c = import_ok(path);
  ASSERT_TRUE(c.mesh.has_value());
  ASSERT_EQ(c.mesh->morph_targets.size(), 3u);
  EXPECT_EQ(c.mesh->morph_targets[0].default_weight, 0.25f);
  EXPECT_EQ(c.mesh->morph_targets[2].default_weight, 1.f);
  path = write_edited(dir, [](test::GltfDocument& doc) {
    doc.json["meshes"][0]["weights"] = {0.25, 0.5, 1.0};
    doc.json["nodes"][kMorphNode]["weights"] = {0.75, 0.0, -0.5};
  });
  c = import_ok(path);
  ASSERT_TRUE(c.mesh.has_value());
  EXPECT_EQ(c.mesh->morph_targets[0].default_weight, 0.75f);
  EXPECT_EQ(c.mesh->morph_targets[2].default_weight, -0.5f);
}

TEST(GltfMorphTargets, EachNodeDrawingTheMeshGetsItsOwnRunOfTheTargets) {
  TempDir dir;
  const auto path = write_edited(dir, [](test::GltfDocument& doc) {
    doc.json["nodes"].push_back({{"name", "mirror"}, {"mesh", 0}, {"skin", 0}});
    doc.json["scenes"][0]["nodes"].push_back(4);
  });
  const ImportedClip c = import_ok(path);
  ASSERT_TRUE(c.mesh.has_value());
  ASSERT_EQ(c.mesh->vertex_count(), 8u);
  ASSERT_EQ(c.mesh->morph_targets.size(), 6u);
  EXPECT_EQ(c.mesh->morph_targets[3].node, "mirror");
  EXPECT_EQ(c.mesh->morph_targets[3].target_index, 0u);
  EXPECT_EQ(c.mesh->morph_targets[3].first_vertex, 4u);
  expect_near(c.mesh->morph_targets[5].position_deltas[3], file_delta(2, 3), "mirror's frown");
}

TEST(GltfMorphTargets, ANodesPrimitivesMakeOneRunAndNormalsAreKeptWhereAnyHasThem) {
  TempDir dir;
  const auto path = write_edited(dir, [](test::GltfDocument& doc) {
    nlohmann::json second = doc.json["meshes"][0]["primitives"][0];
    second["targets"][1]["NORMAL"] = add_vec3(doc, {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1});
    doc.json["meshes"][0]["primitives"].push_back(second);
  });
  const ImportedClip c = import_ok(path);
  ASSERT_TRUE(c.mesh.has_value());
  ASSERT_EQ(c.mesh->morph_targets.size(), 3u);
  const MorphTarget& blink = c.mesh->morph_targets[1];
  EXPECT_EQ(blink.first_vertex, 0u);
  ASSERT_EQ(blink.position_deltas.size(), 8u);
  expect_near(blink.position_deltas[6], file_delta(1, 2), "second primitive");
  // The first primitive has no NORMAL in the target: zeros there.
  ASSERT_EQ(blink.normal_deltas.size(), 8u);
  expect_near(blink.normal_deltas[1], {0.f, 0.f, 0.f}, "first primitive's normal");
  expect_near(blink.normal_deltas[5], {0.f, 0.f, 1.f}, "second primitive's normal");
  EXPECT_TRUE(c.mesh->morph_targets[0].normal_deltas.empty());
}

// A file without skins draws each node's mesh rigidly with the node's bone,
// its morph targets bound to the tracks that animate them.
TEST(GltfMorphTargets, AnimatedMorphCubeIsDrawnRigidlyWithItsTargets) {
  if (!std::filesystem::exists(kMorphCube)) GTEST_SKIP() << kMorphCube << " is not installed (scripts/setup)";
  const ImportedClip c = import_ok(kMorphCube);
  ASSERT_TRUE(c.mesh.has_value());
  ASSERT_EQ(c.mesh->vertex_count(), 24u);
  for (size_t v = 0; v < 24; ++v) {
    EXPECT_EQ(c.mesh->joints[v][0], 0u);  // the cube's node is the only bone
    EXPECT_EQ(c.mesh->weights[v][0], 1.f);
  }
  ASSERT_EQ(c.mesh->morph_targets.size(), 2u);

  tinygltf::TinyGLTF loader;
  tinygltf::Model model;
  std::string error, warning;
  ASSERT_TRUE(loader.LoadASCIIFromFile(&model, &error, &warning, kMorphCube.string())) << error;
  const auto vec3s = [&](int index) {
    const tinygltf::Accessor& accessor = model.accessors[static_cast<size_t>(index)];
    const tinygltf::BufferView& view = model.bufferViews[static_cast<size_t>(accessor.bufferView)];
    std::vector<Vec3> out(accessor.count);
    std::memcpy(out.data(), model.buffers[0].data.data() + view.byteOffset + accessor.byteOffset,
                out.size() * sizeof(Vec3));
    return out;
  };
  for (size_t t = 0; t < 2; ++t) {
    const MorphTarget& target = c.mesh->morph_targets[t];
    EXPECT_EQ(target.node, "AnimatedMorphCube");
    EXPECT_EQ(target.name, std::to_string(t));
    EXPECT_EQ(target.node, c.clip.scalars[t].node);
    const std::map<std::string, int>& accessors = model.meshes[0].primitives[0].targets[t];
    const std::vector<Vec3> positions = vec3s(accessors.at("POSITION"));
    const std::vector<Vec3> normals = vec3s(accessors.at("NORMAL"));
    ASSERT_EQ(target.position_deltas.size(), 24u);
    ASSERT_EQ(target.normal_deltas.size(), 24u);
    for (size_t v = 0; v < 24; ++v) {
      expect_near(target.position_deltas[v], positions[v], "position " + std::to_string(v));
      expect_near(target.normal_deltas[v], normals[v], "normal " + std::to_string(v));
    }
  }
  EXPECT_TRUE(c.mesh->validate(c.skeleton.bone_count()).ok());
}

// ---------------------------------------------------------------------------
// Malformed targets: refused, naming the file, mesh, primitive and target

struct BrokenTarget {
  const char* name;
  void (*edit)(test::GltfDocument& doc);
  std::vector<std::string_view> mentions;
};

TEST(GltfMorphTargets, MalformedTargetsAreRefusedNamingWhere) {
  const BrokenTarget cases[] = {
      {"accessor_missing",
       [](test::GltfDocument& d) { d.json["meshes"][0]["primitives"][0]["targets"][1]["POSITION"] = 99; },
       {"mesh 0 primitive 0 morph target 1 POSITION", "accessor 99 does not exist"}},
      {"wrong_type",
       [](test::GltfDocument& d) {
         d.json["meshes"][0]["primitives"][0]["targets"][2]["POSITION"] =
             d.json["meshes"][0]["primitives"][0]["attributes"]["WEIGHTS_0"];
       },
       {"mesh 0 primitive 0 morph target 2 POSITION", "type VEC4, expected VEC3"}},
      {"too_few",
       [](test::GltfDocument& d) {
         d.json["meshes"][0]["primitives"][0]["targets"][0]["POSITION"] = add_vec3(d, {0, 0, 0, 0, 0, 0, 0, 0, 0});
       },
       {"mesh 0 primitive 0 morph target 0 POSITION", "3 displacements for 4 vertices"}},
      {"normal_of_shorts",
       [](test::GltfDocument& d) {
         d.json["meshes"][0]["primitives"][0]["targets"][0]["NORMAL"] =
             d.json["meshes"][0]["primitives"][0]["attributes"]["JOINTS_0"];
       },
       {"mesh 0 primitive 0 morph target 0 NORMAL"}},
      {"past_the_view",
       [](test::GltfDocument& d) {
         const int accessor = d.json["meshes"][0]["primitives"][0]["targets"][1]["POSITION"].get<int>();
         d.buffer.accessors[static_cast<size_t>(accessor)]["byteOffset"] = 4;
       },
       {"mesh 0 primitive 0 morph target 1 POSITION", "run past the end"}},
      {"not_finite",
       [](test::GltfDocument& d) {
         const float inf = std::numeric_limits<float>::infinity();
         d.json["meshes"][0]["primitives"][0]["targets"][2]["POSITION"] =
             add_vec3(d, {0, 0, 0, 0, 0, inf, 0, 0, 0, 0, 0, 0});
       },
       {"mesh 0 primitive 0 morph target 2 POSITION", "element 1 is not a finite number"}},
      {"primitives_disagree",
       [](test::GltfDocument& d) {
         nlohmann::json second = d.json["meshes"][0]["primitives"][0];
         second["targets"].erase(2);
         d.json["meshes"][0]["primitives"].push_back(second);
       },
       {"mesh 0 'face_mesh' primitive 1 has 2 morph targets and primitive 0 has 3"}},
      {"mesh_weights",
       [](test::GltfDocument& d) {
         d.json["meshes"][0]["weights"] = {0.5, 0.5};
       },
       {"mesh 0 'face_mesh' has 2 default morph weights for its 3 morph targets"}},
      {"node_weights",
       [](test::GltfDocument& d) {
         d.json["nodes"][kMorphNode]["weights"] = {1, 0, 0, 0};
       },
       {"node 3 (drawing mesh 0 'face_mesh') has 4 default morph weights for its 3 morph targets"}},
      {"weight_too_large",
       [](test::GltfDocument& d) {
         d.json["meshes"][0]["weights"] = {0.0, 1e300, 0.0};
       },
       {"mesh 0 'face_mesh': default morph weight 1 is not a finite number"}},
      // A mesh no node draws is checked all the same.
      {"undrawn_mesh",
       [](test::GltfDocument& d) {
         nlohmann::json other = d.json["meshes"][0];
         other["primitives"][0]["targets"][0]["POSITION"] = 77;
         d.json["meshes"].push_back(other);
       },
       {"mesh 1 primitive 0 morph target 0 POSITION", "accessor 77 does not exist"}},
  };
  TempDir dir;
  for (const BrokenTarget& broken : cases) {
    const auto path = write_edited(dir, broken.edit);
    const Result<ImportedClip> result = import_gltf(path, {});
    EXPECT_TRUE(refused_mentioning(result, {path.string()})) << broken.name;
    for (const std::string_view part : broken.mentions) {
      EXPECT_TRUE(refused_mentioning(result, {part})) << broken.name;
    }
  }
}

// 3 targets x 24 bytes for each of these vertices: 43 MB, past 32 MiB.
constexpr size_t kBoundVertices = 600000;

// A few bytes of JSON can declare displacements of any size (accessors
// without a buffer view are zeros): past what the file's size allows, the
// mesh is drawn without them and the import says so.
TEST(GltfMorphTargets, DisplacementsPastTheFilesBoundAreNotKept) {
  TempDir dir;
  const auto path = write_edited(dir, [](test::GltfDocument& d) {
    const auto implicit = [&](const char* type, int component_type) {
      d.buffer.accessors.push_back({{"componentType", component_type}, {"count", kBoundVertices}, {"type", type}});
      return static_cast<int>(d.buffer.accessors.size() - 1);
    };
    nlohmann::json& primitive = d.json["meshes"][0]["primitives"][0];
    primitive["attributes"] = {{"POSITION", implicit("VEC3", 5126)},
                               {"JOINTS_0", implicit("VEC4", 5123)},
                               {"WEIGHTS_0", implicit("VEC4", 5126)}};
    primitive.erase("indices");
    for (nlohmann::json& target : primitive["targets"]) target["POSITION"] = implicit("VEC3", 5126);
  });
  const ImportedClip c = import_ok(path);
  ASSERT_TRUE(c.mesh.has_value());
  EXPECT_EQ(c.mesh->vertex_count(), kBoundVertices);
  EXPECT_TRUE(c.mesh->morph_targets.empty());
  EXPECT_TRUE(warned(c, "the morph targets of 1 nodes are not drawn")) << "no warning";
  EXPECT_EQ(c.clip.scalars.size(), 3u);  // the weights still import
}

}  // namespace
}  // namespace ks
