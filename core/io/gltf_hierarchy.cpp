#include "keystream/io/gltf_hierarchy.h"

#include <tiny_gltf.h>

#include <algorithm>
#include <cmath>
#include <unordered_set>

#include "keystream/clip/excerpt.h"
#include "keystream/clip/matrix_decompose.h"
#include "keystream/io/gltf_accessor.h"
#include "keystream/io/scene_helpers.h"

namespace ks::gltf {

namespace {

// Rest transform of a node from its matrix or its T/R/S properties.
Result<Transform> node_rest_transform(const tinygltf::Node& node, size_t index) {
  const std::string where = "node " + std::to_string(index);
  Transform t;
  if (!node.matrix.empty()) {
    if (node.matrix.size() != 16)
      return Error{where + ": matrix has " + std::to_string(node.matrix.size()) + " values, not 16"};
    const std::vector<double>& m = node.matrix;  // column-major
    for (double v : m) {
      if (!std::isfinite(v)) return Error{where + ": matrix is not finite"};
    }
    return decompose_matrix(std::span<const double, 16>(m.data(), 16));
  }
  if (!node.translation.empty()) {
    if (node.translation.size() != 3) return Error{where + ": translation does not have 3 values"};
    t.translation = {static_cast<float>(node.translation[0]), static_cast<float>(node.translation[1]),
                     static_cast<float>(node.translation[2])};
  }
  if (!node.rotation.empty()) {
    if (node.rotation.size() != 4) return Error{where + ": rotation does not have 4 values"};
    const Quat q{static_cast<float>(node.rotation[0]), static_cast<float>(node.rotation[1]),
                 static_cast<float>(node.rotation[2]), static_cast<float>(node.rotation[3])};
    if (!is_finite(q) || !(length(q) > 0.5f)) return Error{where + ": rotation is not a unit quaternion"};
    t.rotation = normalize(q);
  }
  if (!node.scale.empty()) {
    if (node.scale.size() != 3) return Error{where + ": scale does not have 3 values"};
    t.scale = {static_cast<float>(node.scale[0]), static_cast<float>(node.scale[1]), static_cast<float>(node.scale[2])};
  }
  if (!is_finite(t.translation) || !is_finite(t.scale)) return Error{where + ": translation or scale is not finite"};
  return t;
}

}  // namespace

Result<std::vector<int>> node_parents(const tinygltf::Model& model) {
  const size_t n = model.nodes.size();
  std::vector<int> parents(n, -1);
  for (size_t i = 0; i < n; ++i) {
    for (int child : model.nodes[i].children) {
      if (child < 0 || static_cast<size_t>(child) >= n) {
        return Error{"node " + std::to_string(i) + " has child " + std::to_string(child) + ", which does not exist (" +
                     std::to_string(n) + " nodes)"};
      }
      if (parents[static_cast<size_t>(child)] != -1 || static_cast<size_t>(child) == i) {
        return Error{"node " + std::to_string(child) + " has more than one parent (nodes " +
                     std::to_string(parents[static_cast<size_t>(child)]) + " and " + std::to_string(i) +
                     "); the node hierarchy must be a tree"};
      }
      parents[static_cast<size_t>(child)] = static_cast<int>(i);
    }
  }
  // With one parent each, a walk up longer than the node count is a cycle.
  for (size_t i = 0; i < n; ++i) {
    size_t steps = 0;
    for (int p = parents[i]; p != -1; p = parents[static_cast<size_t>(p)]) {
      if (++steps > n) {
        return Error{"node " + std::to_string(i) + " is its own ancestor (the hierarchy has a cycle)"};
      }
    }
  }
  for (size_t s = 0; s < model.scenes.size(); ++s) {
    for (int root : model.scenes[s].nodes) {
      if (root < 0 || static_cast<size_t>(root) >= n) {
        return Error{"scene " + std::to_string(s) + " lists node " + std::to_string(root) + ", which does not exist"};
      }
    }
  }
  return parents;
}

Result<int> choose_skin(const tinygltf::Model& model) {
  if (model.skins.empty()) return -1;
  int chosen = -1;
  for (const tinygltf::Node& node : model.nodes) {
    if (node.skin >= 0 && node.mesh >= 0) {
      chosen = node.skin;
      break;
    }
  }
  if (chosen < 0) chosen = 0;
  if (static_cast<size_t>(chosen) >= model.skins.size()) {
    return Error{"a node uses skin " + std::to_string(chosen) + ", which does not exist"};
  }
  return chosen;
}

bool is_scene_helper(const tinygltf::Node& node) {
  return node.camera >= 0 || node.extensions.count("KHR_lights_punctual") != 0;
}

Result<std::vector<int>> bone_nodes(const tinygltf::Model& model, const std::vector<int>& parents,
                                    std::vector<std::string>& warnings) {
  const size_t n = model.nodes.size();
  // helper: a camera or light node, or a node below one (its rig: a
  // target, a lens). Such a node is a bone only as the ancestor of a joint
  // or of a moved node that is no camera or light: not merely for being in
  // a skinless file, where every other node is a bone, nor for being moved.
  // Parents may come after children in the file: each node climbs to the
  // first ancestor already known, then its path takes the answer, so a
  // deep chain costs its length once (node_parents checked for cycles).
  std::vector<char> helper(n, 2);  // 2: not known yet
  std::vector<size_t> path;
  for (size_t node = 0; node < n; ++node) {
    int a = static_cast<int>(node);
    for (; a != -1 && helper[static_cast<size_t>(a)] == 2; a = parents[static_cast<size_t>(a)]) {
      path.push_back(static_cast<size_t>(a));
    }
    char below_helper = a == -1 ? 0 : helper[static_cast<size_t>(a)];
    for (auto it = path.rbegin(); it != path.rend(); ++it) {
      below_helper = below_helper || is_scene_helper(model.nodes[*it]) ? 1 : 0;
      helper[*it] = below_helper;
    }
    path.clear();
  }
  std::vector<char> wanted(n, 0);
  if (model.skins.empty()) {
    for (size_t node = 0; node < n; ++node) wanted[node] = helper[node] ? 0 : 1;
  }
  const auto want = [&](int node) {
    for (int a = node; a != -1 && !wanted[static_cast<size_t>(a)]; a = parents[static_cast<size_t>(a)]) {
      wanted[static_cast<size_t>(a)] = 1;
    }
  };
  for (size_t skin = 0; skin < model.skins.size(); ++skin) {
    const tinygltf::Skin& s = model.skins[skin];
    if (s.joints.empty()) return Error{"skin " + std::to_string(skin) + " has no joints"};
    for (int joint : s.joints) {
      if (joint < 0 || static_cast<size_t>(joint) >= n) {
        return Error{"skin " + std::to_string(skin) + " lists joint node " + std::to_string(joint) +
                     ", which does not exist"};
      }
      want(joint);
    }
  }
  // Every node an animation moves, in any animation: the skeleton is the
  // same whichever animation is imported.
  for (const tinygltf::Animation& animation : model.animations) {
    for (const tinygltf::AnimationChannel& channel : animation.channels) {
      const bool moves = channel.target_path == "translation" || channel.target_path == "rotation" ||
                         channel.target_path == "scale";
      if (moves && channel.target_node >= 0 && static_cast<size_t>(channel.target_node) < n &&
          !is_scene_helper(model.nodes[static_cast<size_t>(channel.target_node)])) {
        want(channel.target_node);
      }
    }
  }
  size_t left_out = 0;
  std::vector<std::string> quoted;
  for (size_t node = 0; node < n; ++node) {
    if (!helper[node] || wanted[node] || ++left_out > kLeftOutNamesQuoted) continue;
    const std::string& name = model.nodes[node].name;
    quoted.push_back(name.empty() ? "node_" + std::to_string(node) : excerpt(name));
  }
  if (left_out > 0) warnings.push_back(left_out_helpers_warning(left_out, quoted));
  // Depth-first from each root, children in file order (iterative: a deep
  // hierarchy must not overflow the stack).
  std::vector<int> order;
  std::vector<int> stack;
  for (size_t root = 0; root < n; ++root) {
    if (parents[root] != -1 || !wanted[root]) continue;
    stack.push_back(static_cast<int>(root));
    while (!stack.empty()) {
      const int node = stack.back();
      stack.pop_back();
      order.push_back(node);
      const std::vector<int>& children = model.nodes[static_cast<size_t>(node)].children;
      for (auto it = children.rbegin(); it != children.rend(); ++it) {
        if (wanted[static_cast<size_t>(*it)]) stack.push_back(*it);
      }
    }
  }
  if (order.empty()) {
    return Error{left_out > 0 ? "the file has no bones: its nodes are cameras and lights" : "the file has no nodes"};
  }
  if (order.size() > 65535)
    return Error{"the skeleton would have " + std::to_string(order.size()) + " bones; at most 65535 are supported"};
  return order;
}

Result<Skeleton> build_skeleton(const tinygltf::Model& model, const std::vector<int>& parents,
                                const std::vector<int>& bones, int skin, std::vector<int>& bone_of_node,
                                std::vector<char>& usable_skin, std::vector<std::string>& warnings) {
  Skeleton skeleton;
  bone_of_node.assign(model.nodes.size(), -1);
  for (size_t b = 0; b < bones.size(); ++b) bone_of_node[static_cast<size_t>(bones[b])] = static_cast<int>(b);

  std::unordered_set<std::string> used;
  for (size_t b = 0; b < bones.size(); ++b) {
    const size_t node = static_cast<size_t>(bones[b]);
    std::string name = model.nodes[node].name.empty() ? "node_" + std::to_string(node) : model.nodes[node].name;
    for (int suffix = 2; used.count(name); ++suffix) {
      name = (model.nodes[node].name.empty() ? "node_" + std::to_string(node) : model.nodes[node].name) + "_" +
             std::to_string(suffix);
    }
    used.insert(name);
    skeleton.bone_names.push_back(name);
    skeleton.parents.push_back(parents[node] < 0 ? -1 : bone_of_node[static_cast<size_t>(parents[node])]);
    Result<Transform> rest = node_rest_transform(model.nodes[node], node);
    if (!rest) return Error{rest.error()};
    skeleton.rest_pose.push_back(rest.value());
  }

  if (skin >= 0) {
    for (int joint : model.skins[static_cast<size_t>(skin)].joints) {
      skeleton.skin_joints.push_back(bone_of_node[static_cast<size_t>(joint)]);
    }
  }
  // Every skin's inverse bind matrices; a joint two skins share must have
  // the same one in both, or the second skin's meshes cannot be drawn.
  usable_skin.assign(model.skins.size(), 1);
  if (!model.skins.empty()) skeleton.inverse_bind.assign(bones.size(), Mat4{});
  std::vector<int> bound_by(bones.size(), -1);  // the skin that set each bone's matrix
  for (size_t k = 0; k < model.skins.size(); ++k) {
    const tinygltf::Skin& s = model.skins[k];
    const std::string what = "skin " + std::to_string(k);
    std::vector<float> matrices(s.joints.size() * 16, 0.f);
    for (size_t j = 0; j < s.joints.size(); ++j) {
      for (int d = 0; d < 4; ++d) matrices[j * 16 + static_cast<size_t>(d) * 5] = 1.f;  // identity
    }
    if (s.inverseBindMatrices >= 0) {
      Result<std::vector<float>> read = read_floats(model, s.inverseBindMatrices,
                                                    {TINYGLTF_TYPE_MAT4, {TINYGLTF_COMPONENT_TYPE_FLOAT}},
                                                    what + " inverse bind matrices");
      if (!read) return Error{read.error()};
      if (read.value().size() < s.joints.size() * 16) {
        return Error{what + " has " + std::to_string(read.value().size() / 16) + " inverse bind matrices for " +
                     std::to_string(s.joints.size()) + " joints"};
      }
      std::copy_n(read.value().begin(), matrices.size(), matrices.begin());
    }
    for (size_t j = 0; j < s.joints.size() && usable_skin[k]; ++j) {
      const size_t bone = static_cast<size_t>(bone_of_node[static_cast<size_t>(s.joints[j])]);
      Mat4& m = skeleton.inverse_bind[bone];
      if (bound_by[bone] < 0) {
        std::copy_n(matrices.begin() + static_cast<std::ptrdiff_t>(j * 16), 16, m.m);
        bound_by[bone] = static_cast<int>(k);
        continue;
      }
      for (size_t e = 0; e < 16; ++e) {
        if (std::fabs(m.m[e] - matrices[j * 16 + e]) > 1e-4f * std::max(1.f, std::fabs(m.m[e]))) {
          usable_skin[k] = 0;
          warnings.push_back(what + " binds joint '" + excerpt(skeleton.bone_names[bone]) +
                             "' differently from skin " + std::to_string(bound_by[bone]) +
                             "; its meshes are not shown (the animation is imported whole)");
          break;
        }
      }
    }
  }
  return skeleton;
}

Result<ModelSkeleton> read_skeleton(const tinygltf::Model& model, std::vector<std::string>& warnings) {
  Result<std::vector<int>> parents = node_parents(model);
  if (!parents) return Error{parents.error()};
  Result<int> skin = choose_skin(model);
  if (!skin) return Error{skin.error()};
  Result<std::vector<int>> bones = bone_nodes(model, parents.value(), warnings);
  if (!bones) return Error{bones.error()};
  ModelSkeleton out;
  out.parents = std::move(parents.value());
  out.bones = std::move(bones.value());
  Result<Skeleton> skeleton = build_skeleton(model, out.parents, out.bones, skin.value(), out.bone_of_node,
                                             out.usable_skin, warnings);
  if (!skeleton) return Error{skeleton.error()};
  out.skeleton = std::move(skeleton.value());
  return out;
}

}  // namespace ks::gltf
