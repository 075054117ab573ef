#pragma once
// The node graph of a glTF model and the skeleton taken from it (internal to
// the glTF importer): the graph is checked to be a forest, the skin to import
// is chosen, its joints and their ancestors become bones, parents first.

#include <string>
#include <vector>

#include "core/offline/skeleton.h"
#include "core/runtime/result.h"

namespace tinygltf {
class Model;
}

namespace ks::gltf {

/// Parent of every node (-1 for roots), after checking that children exist,
/// that no node has two parents, that there is no cycle and that every
/// scene lists existing nodes.
Result<std::vector<int>> node_parents(const tinygltf::Model& model);

/// The skin to import: the one of the first node with a mesh and a skin,
/// else skin 0; -1 when the file has no skin. Warns when there are several.
Result<int> choose_skin(const tinygltf::Model& model, std::vector<std::string>& warnings);

/// Bones in parent-before-child order (depth first, children in file order):
/// the skin's joints and their ancestors, or every node when `skin` is -1.
/// `parents` comes from node_parents. Refuses more than 65535 bones.
Result<std::vector<int>> bone_nodes(const tinygltf::Model& model, const std::vector<int>& parents, int skin);

/// The Skeleton of `bones` (from bone_nodes): unique names ("node_<i>" for
/// unnamed nodes), rest pose from each node's matrix or TRS, and the skin's
/// joints and inverse bind matrices. Sets `bone_of_node` to each node's
/// bone, or -1 for nodes that are not bones.
Result<Skeleton> build_skeleton(const tinygltf::Model& model, const std::vector<int>& parents,
                                const std::vector<int>& bones, int skin, std::vector<int>& bone_of_node);

}  // namespace ks::gltf
