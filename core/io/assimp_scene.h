#pragma once
// An FBX or Collada file read by assimp, and the facts about its scene the
// rest of the assimp importer needs (internal to it): the node tree in
// depth-first order and the file's unit.

#include <assimp/scene.h>

#include <assimp/Importer.hpp>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "keystream/io/assimp_guard.h"
#include "keystream/io/import.h"
#include "keystream/runtime/result.h"

namespace ks::assimp {

/// Most nodes a scene may have: a skeleton holds at most 65535 bones, and
/// every node is visited a few times per frame when a clip is sampled.
inline constexpr size_t kMaxSceneNodes = size_t{1} << 18;

/// Parses `bytes` (a file whose extension, lower case, is `ext`: ".fbx",
/// ".dae" or ".zae") with `importer`, after check_input (assimp_guard.h),
/// with only the loader of that format registered (Collada's for a .zae,
/// whose document the check reads out) so that no other assimp loader ever
/// sees the bytes. Post-processing, chosen so the scene keeps the file's
/// own transforms: triangulate, join identical vertices, at most four bone
/// weights per vertex (renormalised), smooth normals only where a mesh has
/// none, and assimp's validation, which refuses out-of-range indices; FBX
/// pivots are folded into their node where assimp can (fewer $AssimpFbx$
/// helper nodes). The error is the check's or assimp's message, shortened;
/// what the check found goes to `findings`, when given.
Result<const aiScene*> read_scene(Assimp::Importer& importer, std::string_view bytes, std::string_view ext,
                                  uint64_t max_bone_frames = kDefaultMaxBoneFrames,
                                  GuardFindings* findings = nullptr);

/// The nodes of a scene, parents before children (depth first, children in
/// file order: the order aiNode::FindNode searches in).
struct NodeTree {
  std::vector<const aiNode*> nodes;
  std::vector<int> parents;                          // -1 for the root
  std::unordered_map<std::string, int> first_named;  // the first node of each name
};

/// Walks the tree without recursion; refuses more than kMaxSceneNodes nodes.
Result<NodeTree> flatten_nodes(const aiScene& scene);

/// Index in `tree` of the first node named `name` (as FindNode finds it), or -1.
int find_node(const NodeTree& tree, const aiString& name);

/// Metres per unit of the file's node translations and vertices: an FBX file
/// states its unit as UnitScaleFactor, centimetres per unit (1 when the file
/// lacks it, with a warning); a Collada file's <unit> is already in the
/// scene (assimp scales the root node by it), so 1.
Result<double> metres_per_unit(const aiScene& scene, std::string_view ext, std::vector<std::string>& warnings);

/// True for the mesh assimp makes of the nodes of a file without geometry
/// (its skeleton mesh builder: material "SkeletonMaterial", a bone for every
/// node, cameras and lights among them): no part of the file, so neither
/// drawn nor a source of bones.
bool is_generated_skeleton_mesh(const aiScene& scene, const aiMesh& mesh);

/// `node`'s name, or "node_<index>" when it has none.
std::string node_name(const NodeTree& tree, size_t index);

/// `m` column-major (m[column * 4 + row]), in double.
void column_major(const aiMatrix4x4& m, double out[16]);

}  // namespace ks::assimp
