#pragma once
// The meshes of an assimp scene, for the studio (internal to the assimp
// importer): one SkinnedMesh in model space, metres, and the inverse bind
// matrices that deform it.

#include <optional>
#include <string>
#include <vector>

#include "keystream/clip/skinned_mesh.h"
#include "keystream/io/assimp_skeleton.h"
#include "keystream/runtime/result.h"

namespace ks::assimp {

/// Every triangle mesh of `scene`, gathered into one mesh:
/// - a mesh with bones (drawn once, however many nodes instance it) through
///   its bones' offset matrices, which become the bones' inverse bind
///   matrices in `skeleton.skeleton` (converted to metres; a vertex's four
///   largest weights, renormalised);
/// - a mesh without bones, once per node instancing it, rigidly with the
///   nearest bone at or above that node (a prop, or the boxes of a node
///   animation), like a vertex of a skinned mesh that no bone weighs
///   (counted in a warning).
/// Bones no mesh binds get the identity, or the inverse of their rest
/// transform where a rigid mesh hangs from them; skin_joints lists the first
/// skinned mesh's bones. A mesh whose bones give a bone another bind matrix
/// than an earlier mesh did, or name no node, is not drawn (with a warning);
/// faces that are not triangles (points, lines) are skipped with a warning.
/// Each drawn instance of a mesh with morph targets (aiAnimMesh) adds them
/// to SkinnedMesh::morph_targets, named by the node drawing it
/// (assimp_morph.h). nullopt when the scene has no triangle.
Result<std::optional<SkinnedMesh>> read_meshes(const aiScene& scene, const NodeTree& tree, double metres_per_unit,
                                               SceneSkeleton& skeleton, std::vector<std::string>& warnings);

}  // namespace ks::assimp
