#include "keystream/io/assimp_scene.h"

#include <assimp/BaseImporter.h>
#include <assimp/config.h>
#include <assimp/material.h>
#include <assimp/postprocess.h>

#include <cmath>
#include <exception>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "keystream/clip/excerpt.h"
#include "keystream/io/assimp_guard.h"

// Debian's assimp 5.2 is built with its assertions active, and they abort
// the process: a Collada file whose weights index past their array (found
// by fuzzing) ends every tool that reads it. Newer assimp lets a program
// set the handler; 5.2 exports only the handler itself, which a program may
// define in its place (the library calls it through its exported symbol).
// This one throws instead: assimp's ReadFile catches it as it catches its
// own import errors, and the file is refused with the assertion's text.
// Assertions inside a destructor or noexcept function still end the
// process (std::terminate), as they did.
namespace Assimp {
void aiAssertViolation(const char* failed, const char* file, int line) {
  throw std::runtime_error(std::string("assimp's check '") + failed + "' failed (" +
                           std::filesystem::path(file).filename().string() + ":" + std::to_string(line) + ")");
}
}  // namespace Assimp

namespace ks::assimp {

namespace {

// Post-processing, conservatively: each step either only re-expresses the
// file's geometry (triangles, shared vertices), enforces what SkinnedMesh
// holds (four weights, renormalised; normals where there are none), or
// checks (validation). None touches nodes or animations: steps that
// pre-transform vertices, optimise or rename the graph, or flip axes and
// winding would make the skeleton and its keys disagree with the file.
constexpr unsigned kPostProcess = aiProcess_Triangulate | aiProcess_JoinIdenticalVertices | aiProcess_LimitBoneWeights |
                                  aiProcess_GenSmoothNormals | aiProcess_ValidateDataStructure;

// Unregisters (and deletes, which UnregisterLoader leaves to its caller)
// every loader but the one for `ext`; false when assimp has none for it.
bool keep_only_loader(Assimp::Importer& importer, std::string_view ext) {
  const std::string wanted(ext.substr(1));
  Assimp::BaseImporter* keep = importer.GetImporter(wanted.c_str());
  if (keep == nullptr) return false;
  std::vector<Assimp::BaseImporter*> others;
  for (size_t i = 0; i < importer.GetImporterCount(); ++i) {
    if (importer.GetImporter(i) != keep) others.push_back(importer.GetImporter(i));
  }
  for (Assimp::BaseImporter* loader : others) {
    importer.UnregisterLoader(loader);
    delete loader;
  }
  return true;
}

}  // namespace

Result<const aiScene*> read_scene(Assimp::Importer& importer, std::string_view bytes, std::string_view ext,
                                  uint64_t max_bone_frames, GuardFindings* findings) {
  std::string rewritten;
  if (Status s = check_input(bytes, ext, rewritten, max_bone_frames, findings); !s) return Error{s.error()};
  if (!rewritten.empty()) bytes = rewritten;
  const std::string_view format = ext == ".zae" ? ".dae" : ext;  // a .zae's document is read as a .dae
  if (!keep_only_loader(importer, format)) {
    return Error{"this assimp has no loader for " + std::string(format) + " files"};
  }
  // Pivots evaluated into their node's transform wherever assimp can, so
  // that fewer $AssimpFbx$ helper nodes stand between bones (those left are
  // folded into their bone by the skeleton).
  importer.SetPropertyBool(AI_CONFIG_IMPORT_FBX_PRESERVE_PIVOTS, false);
  importer.SetPropertyInteger(AI_CONFIG_PP_LBW_MAX_WEIGHTS, 4);
  const aiScene* scene = nullptr;
  try {
    // The hint is the format: with one loader registered, assimp either
    // reads the bytes as it or refuses them.
    scene = importer.ReadFileFromMemory(bytes.data(), bytes.size(), kPostProcess,
                                        std::string(format.substr(1)).c_str());
  } catch (const std::exception& e) {  // assimp catches its own; memory exhaustion may still escape
    return Error{"assimp failed: " + excerpt(e.what(), 200)};
  }
  if (scene == nullptr) {
    const std::string message = importer.GetErrorString();
    return Error{"assimp cannot read it: " +
                 (message.empty() ? std::string("no reason given") : excerpt(message, 200))};
  }
  if (scene->mRootNode == nullptr) return Error{"the scene has no nodes"};
  return scene;
}

Result<NodeTree> flatten_nodes(const aiScene& scene) {
  NodeTree tree;
  std::vector<std::pair<const aiNode*, int>> stack{{scene.mRootNode, -1}};
  while (!stack.empty()) {
    const auto [node, parent] = stack.back();
    stack.pop_back();
    if (tree.nodes.size() >= kMaxSceneNodes) {
      return Error{"the scene has more than " + std::to_string(kMaxSceneNodes) + " nodes"};
    }
    const int index = static_cast<int>(tree.nodes.size());
    tree.nodes.push_back(node);
    tree.parents.push_back(parent);
    tree.first_named.try_emplace(std::string(node->mName.C_Str(), node->mName.length), index);
    // Pushed last to first, so the first child is walked first.
    for (unsigned c = node->mNumChildren; c-- > 0;) {
      if (node->mChildren[c] == nullptr) return Error{"node '" + excerpt(node->mName.C_Str()) + "' has a null child"};
      stack.emplace_back(node->mChildren[c], index);
    }
  }
  return tree;
}

int find_node(const NodeTree& tree, const aiString& name) {
  const auto it = tree.first_named.find(std::string(name.C_Str(), name.length));
  return it == tree.first_named.end() ? -1 : it->second;
}

Result<double> metres_per_unit(const aiScene& scene, std::string_view ext, std::vector<std::string>& warnings) {
  if (ext != ".fbx") return 1.0;
  double centimetres = 0.0;
  bool found = false;
  if (scene.mMetaData != nullptr) {
    for (unsigned k = 0; k < scene.mMetaData->mNumProperties; ++k) {
      if (std::string_view(scene.mMetaData->mKeys[k].C_Str()) != "UnitScaleFactor") continue;
      const aiMetadataEntry& entry = scene.mMetaData->mValues[k];
      if (entry.mData == nullptr) break;
      if (entry.mType == AI_DOUBLE) centimetres = *static_cast<const double*>(entry.mData), found = true;
      if (entry.mType == AI_FLOAT) centimetres = *static_cast<const float*>(entry.mData), found = true;
      if (entry.mType == AI_INT32) centimetres = *static_cast<const int32_t*>(entry.mData), found = true;
      break;
    }
  }
  if (!found) {
    warnings.push_back("the file states no UnitScaleFactor; its unit is taken as FBX's default, 1 cm");
    return 0.01;
  }
  if (!std::isfinite(centimetres) || !(centimetres > 0.0) || centimetres > 1e7) {
    return Error{"UnitScaleFactor " + std::to_string(centimetres) + " is not a length in centimetres"};
  }
  return centimetres * 0.01;
}

bool is_generated_skeleton_mesh(const aiScene& scene, const aiMesh& mesh) {
  if (scene.mMaterials == nullptr || mesh.mMaterialIndex >= scene.mNumMaterials) return false;
  const aiMaterial* material = scene.mMaterials[mesh.mMaterialIndex];
  aiString name;
  return material != nullptr && material->Get(AI_MATKEY_NAME, name) == AI_SUCCESS &&
         std::string_view(name.C_Str(), name.length) == "SkeletonMaterial";
}

std::string node_name(const NodeTree& tree, size_t index) {
  const aiString& name = tree.nodes[index]->mName;
  return name.length == 0 ? "node_" + std::to_string(index) : std::string(name.C_Str(), name.length);
}

void column_major(const aiMatrix4x4& m, double out[16]) {
  const ai_real rows[4][4] = {
      {m.a1, m.a2, m.a3, m.a4}, {m.b1, m.b2, m.b3, m.b4}, {m.c1, m.c2, m.c3, m.c4}, {m.d1, m.d2, m.d3, m.d4}};
  for (int column = 0; column < 4; ++column) {
    for (int row = 0; row < 4; ++row) out[column * 4 + row] = rows[row][column];
  }
}

}  // namespace ks::assimp
