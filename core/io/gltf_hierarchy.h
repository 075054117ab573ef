#pragma once
// The node graph of a glTF model and the skeleton taken from it (internal to
// the glTF importer): the graph is checked to be a forest; the joints of
// every skin, every node an animation moves, and their ancestors become
// bones, parents first; cameras and lights only as ancestors. Nothing an animation moves is left out: a character
// of several skinned meshes, or limbs driven by nodes outside a skin, imports
// whole.

#include <string>
#include <vector>

#include "keystream/clip/skeleton.h"
#include "keystream/runtime/result.h"

namespace tinygltf {
class Model;
class Node;
}

namespace ks::gltf {

/// Parent of every node (-1 for roots), after checking that children exist,
/// that no node has two parents, that there is no cycle and that every
/// scene lists existing nodes.
Result<std::vector<int>> node_parents(const tinygltf::Model& model);

/// The skin whose joints Skeleton::skin_joints lists: the one of the first
/// node with a mesh and a skin, else skin 0; -1 when the file has no skin.
Result<int> choose_skin(const tinygltf::Model& model);

/// True for a node that holds a camera or a light (KHR_lights_punctual).
bool is_scene_helper(const tinygltf::Node& node);

/// Bones in parent-before-child order (depth first, children in file order):
/// every skin's joints and every node a translation, rotation or scale
/// channel of any animation targets, with their ancestors; every node when
/// the file has no skin. A camera or light node, and the nodes below it,
/// are bones only as ancestors of others or where moved (a camera or light
/// never is): a warning names those left out. `parents` comes
/// from node_parents. Refuses more than 65535 bones.
Result<std::vector<int>> bone_nodes(const tinygltf::Model& model, const std::vector<int>& parents,
                                    std::vector<std::string>& warnings);

/// The Skeleton of `bones` (from bone_nodes): unique names ("node_<i>" for
/// unnamed nodes), rest pose from each node's matrix or TRS, the joints of
/// skin `skin` (choose_skin) and the inverse bind matrices of every skin.
/// Sets `bone_of_node` to each node's bone, or -1 for nodes that are not
/// bones. Skins that share a joint must agree on its inverse bind matrix:
/// `usable_skin[s]` is false for a skin that does not (its meshes cannot be
/// drawn with the skeleton's matrices), with a warning naming it.
Result<Skeleton> build_skeleton(const tinygltf::Model& model, const std::vector<int>& parents,
                                const std::vector<int>& bones, int skin, std::vector<int>& bone_of_node,
                                std::vector<char>& usable_skin, std::vector<std::string>& warnings);

/// The skeleton of a model and how its nodes map to bones: node_parents,
/// choose_skin, bone_nodes and build_skeleton in turn, as the importer and
/// the export's bone matching both need them.
struct ModelSkeleton {
  Skeleton skeleton;
  std::vector<int> parents;       // parent of each node (node_parents)
  std::vector<int> bones;         // node of each bone (bone_nodes)
  std::vector<int> bone_of_node;  // bone of each node, -1 for nodes that are not bones
  std::vector<char> usable_skin;  // per skin: its meshes can be drawn (build_skeleton)
};
Result<ModelSkeleton> read_skeleton(const tinygltf::Model& model, std::vector<std::string>& warnings);

}  // namespace ks::gltf
