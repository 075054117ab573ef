#pragma once
// The skeleton of an assimp scene (internal to the assimp importer): the
// nodes that mesh bones name, every node an animation moves, and their
// ancestors, in metres. assimp's "$AssimpFbx$" helper nodes, which carry an
// FBX node's pivots and offsets where assimp could not evaluate them into
// the node, are folded into the bone below them: the bone's local transform
// is the product of theirs and its own, so the pose is the file's.

#include <string>
#include <vector>

#include "keystream/clip/skeleton.h"
#include "keystream/io/assimp_scene.h"
#include "keystream/runtime/result.h"

namespace ks::assimp {

struct SceneSkeleton {
  Skeleton skeleton;              // the bones; inverse_bind and skin_joints are read_meshes' to fill
  std::vector<int> bone_of_node;  // each node's bone, -1 for the others (helpers among them)
  std::vector<int> node_of_bone;
  // What animation channels move: the bones' nodes and the helper nodes
  // folded into them. Equal to `skeleton` (and not used) when none is.
  bool folds_helpers = false;
  Skeleton targets;
  std::vector<int> target_of_node;                // -1 for nodes no channel can move
  std::vector<std::vector<int>> targets_of_bone;  // per bone, the targets composed (in order) into it
  // Units: node translations are scaled to metres by translation_scale; the
  // root's uniform scale (a Collada <unit>) is moved into the translations
  // below it, so that bones measure metres and scales stay near 1.
  std::vector<double> translation_scale;  // per node, metres per unit of its translation
  double root_scale = 1.0;                // divided out of the root's scale
};

/// True for a helper node assimp's FBX loader makes ("<name>_$AssimpFbx$_<what>").
bool is_fbx_helper(const aiNode& node);

/// The skeleton of `scene`: unique bone names (a node without one is
/// "node_<i>", a repeated one gets "_2", "_3"...), rest pose from node
/// matrices in metres (`metres_per_unit`: assimp_scene.h). A bone name or
/// channel naming no node is a warning; so is a node matrix with a shear,
/// which a bone cannot hold. Refuses a scene with no bone and no animated
/// node, or more than 65535 bones.
Result<SceneSkeleton> read_skeleton(const aiScene& scene, const NodeTree& tree, double metres_per_unit,
                                    std::vector<std::string>& warnings);

/// A transform of node `node` (its rest transform, or one from its keys)
/// in the skeleton's units: translation in metres, the root's unit scale
/// divided out.
Transform to_metres(const SceneSkeleton& skeleton, size_t node, Transform local);

/// Composes, for every bone, the local transforms of its targets (the pose
/// `targets`, one per target) into `bones` (one per bone).
void fold_pose(const SceneSkeleton& skeleton, const std::vector<Transform>& targets, std::vector<Transform>& bones);

}  // namespace ks::assimp
