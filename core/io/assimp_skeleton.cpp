#include "keystream/io/assimp_skeleton.h"

#include <algorithm>
#include <cmath>
#include <span>
#include <string_view>
#include <unordered_set>

#include "keystream/clip/excerpt.h"
#include "keystream/clip/matrix_decompose.h"
#include "keystream/io/assimp_morph.h"
#include "keystream/io/scene_helpers.h"

namespace ks::assimp {

namespace {

// Relative difference a matrix may have from the T/R/S it decomposes into
// before the difference (a shear) is reported.
constexpr double kShearTolerance = 1e-4;

// Column-major product a * b.
void multiply(const double a[16], const double b[16], double out[16]) {
  for (int column = 0; column < 4; ++column) {
    for (int row = 0; row < 4; ++row) {
      double sum = 0.0;
      for (int k = 0; k < 4; ++k) sum += a[k * 4 + row] * b[column * 4 + k];
      out[column * 4 + row] = sum;
    }
  }
}

void to_columns(const Transform& t, double out[16]) {
  const Mat4 m = to_matrix(t);
  for (int i = 0; i < 16; ++i) out[i] = m.m[i];
}

// Largest difference of `m` from the matrix of its T/R/S, relative to its size.
double shear_of(const double m[16], const Transform& t) {
  double rebuilt[16];
  to_columns(t, rebuilt);
  double largest = 0.0, size = 1e-12;
  for (int i = 0; i < 12; ++i) {  // the linear part: translation is carried exactly
    largest = std::max(largest, std::fabs(m[i] - rebuilt[i]));
    size = std::max(size, std::fabs(m[i]));
  }
  return largest / size;
}

// A node's name up to assimp's FBX helper suffix: the FBX node it belongs to.
std::string_view fbx_node_name(const aiNode& node) {
  const std::string_view name(node.mName.C_Str(), node.mName.length);
  return name.substr(0, name.find("_$AssimpFbx$_"));
}

// Cameras and lights in the node tree. `own`: a camera's or a light's node,
// 3ds Max's look-at target of one ("<name>.Target"), or assimp's FBX
// helpers of either; `below`: those and every node under one.
struct SceneHelpers {
  std::vector<char> own, below;
};
SceneHelpers scene_helpers(const aiScene& scene, const NodeTree& tree) {
  std::unordered_set<std::string_view> names;
  for (unsigned c = 0; scene.mCameras != nullptr && c < scene.mNumCameras; ++c) {
    if (scene.mCameras[c] != nullptr) names.insert({scene.mCameras[c]->mName.C_Str(), scene.mCameras[c]->mName.length});
  }
  for (unsigned l = 0; scene.mLights != nullptr && l < scene.mNumLights; ++l) {
    if (scene.mLights[l] != nullptr) names.insert({scene.mLights[l]->mName.C_Str(), scene.mLights[l]->mName.length});
  }
  SceneHelpers out{std::vector<char>(tree.nodes.size(), 0), std::vector<char>(tree.nodes.size(), 0)};
  if (names.empty()) return out;
  constexpr std::string_view kTarget = ".Target";
  for (size_t n = 1; n < tree.nodes.size(); ++n) {  // parents first; the root is none
    const std::string_view name = fbx_node_name(*tree.nodes[n]);
    const bool target = name.size() > kTarget.size() && name.substr(name.size() - kTarget.size()) == kTarget;
    out.own[n] = names.count(name) != 0 || (target && names.count(name.substr(0, name.size() - kTarget.size())) != 0);
    out.below[n] = out.own[n] || out.below[static_cast<size_t>(tree.parents[n])];
  }
  return out;
}

// The nodes the skeleton keeps: mesh bones, animated nodes, their ancestors,
// and the nodes below a kept helper (what the helper moves). Cameras and
// lights, and what hangs below them, only as the ancestors of the others
// (a warning names those left out; `only_helpers` tells whether they were
// all there was).
std::vector<char> kept_nodes(const aiScene& scene, const NodeTree& tree, std::vector<std::string>& warnings,
                             bool& only_helpers) {
  const SceneHelpers helpers = scene_helpers(scene, tree);
  std::vector<char> kept(tree.nodes.size(), 0);
  size_t unknown_bones = 0, unknown_channels = 0;
  for (unsigned m = 0; m < scene.mNumMeshes; ++m) {
    const aiMesh* mesh = scene.mMeshes[m];
    if (mesh == nullptr || is_generated_skeleton_mesh(scene, *mesh)) continue;
    for (unsigned b = 0; b < mesh->mNumBones; ++b) {
      const int node = find_node(tree, mesh->mBones[b]->mName);
      node < 0 ? static_cast<void>(++unknown_bones) : static_cast<void>(kept[static_cast<size_t>(node)] = 1);
    }
  }
  for (unsigned a = 0; a < scene.mNumAnimations; ++a) {
    const aiAnimation* animation = scene.mAnimations[a];
    for (unsigned c = 0; c < animation->mNumChannels; ++c) {
      const int node = find_node(tree, animation->mChannels[c]->mNodeName);
      if (node < 0) {
        ++unknown_channels;
      } else if (!helpers.own[static_cast<size_t>(node)]) {
        kept[static_cast<size_t>(node)] = 1;
      }
    }
    // A node whose morph weights are animated is a bone too, so that a clip
    // of weights alone has one (read_morph_weights names those it cannot use).
    for (unsigned c = 0; animation->mMorphMeshChannels != nullptr && c < animation->mNumMorphMeshChannels; ++c) {
      if (animation->mMorphMeshChannels[c] == nullptr) continue;
      const int node = morph_channel_node(tree, animation->mMorphMeshChannels[c]->mName);
      if (node >= 0) kept[static_cast<size_t>(node)] = 1;
    }
  }
  if (unknown_bones > 0) {
    warnings.push_back(std::to_string(unknown_bones) +
                       " mesh bones name no node of the scene; their meshes are not drawn");
  }
  if (unknown_channels > 0) {
    warnings.push_back(std::to_string(unknown_channels) +
                       " animation channels name no node of the scene and were ignored");
  }
  // Ancestors: children come after parents, so one backward pass marks them.
  for (size_t n = tree.nodes.size(); n-- > 1;) {
    if (kept[n]) kept[static_cast<size_t>(tree.parents[n])] = 1;
  }
  // A helper moves the nodes below it: keep them, forward (parents first).
  for (size_t n = 1; n < tree.nodes.size(); ++n) {
    const int parent = tree.parents[n];
    if (kept[static_cast<size_t>(parent)] && is_fbx_helper(*tree.nodes[static_cast<size_t>(parent)])) kept[n] = 1;
  }
  size_t left_out = 0;
  std::vector<std::string> quoted;
  bool any_kept = false;
  for (size_t n = 0; n < tree.nodes.size(); ++n) {
    any_kept = any_kept || kept[n];
    if (!helpers.below[n] || kept[n] || is_fbx_helper(*tree.nodes[n])) continue;
    if (++left_out <= kLeftOutNamesQuoted) quoted.push_back(excerpt(node_name(tree, n)));
  }
  if (left_out > 0) warnings.push_back(left_out_helpers_warning(left_out, quoted));
  only_helpers = !any_kept && left_out > 0;
  return kept;
}

}  // namespace

bool is_fbx_helper(const aiNode& node) {
  return std::string_view(node.mName.C_Str(), node.mName.length).find("_$AssimpFbx$_") != std::string_view::npos;
}

Transform to_metres(const SceneSkeleton& skeleton, size_t node, Transform local) {
  const double scale = skeleton.translation_scale[node];
  local.translation = {static_cast<float>(local.translation.x * scale), static_cast<float>(local.translation.y * scale),
                       static_cast<float>(local.translation.z * scale)};
  if (node == 0 && skeleton.root_scale != 1.0) {
    const float inverse = static_cast<float>(1.0 / skeleton.root_scale);
    local.scale = local.scale * inverse;
  }
  return local;
}

Result<SceneSkeleton> read_skeleton(const aiScene& scene, const NodeTree& tree, double metres_per_unit,
                                    std::vector<std::string>& warnings) {
  SceneSkeleton out;
  const size_t node_count = tree.nodes.size();
  bool only_helpers = false;
  const std::vector<char> kept = kept_nodes(scene, tree, warnings, only_helpers);

  // The file's rest transforms, and the unit.
  std::vector<Transform> rest(node_count);
  size_t sheared = 0;
  std::string first_sheared;
  for (size_t n = 0; n < node_count; ++n) {
    if (!kept[n]) continue;
    double m[16];
    column_major(tree.nodes[n]->mTransformation, m);
    if (!std::all_of(m, m + 16, [](double v) { return std::isfinite(v); })) {
      return Error{"node '" + excerpt(node_name(tree, n)) + "' has a transform that is not finite"};
    }
    rest[n] = decompose_matrix(std::span<const double, 16>(m, 16));
    if (shear_of(m, rest[n]) > kShearTolerance && sheared++ == 0) first_sheared = node_name(tree, n);
  }
  if (sheared > 0) {
    warnings.push_back(std::to_string(sheared) + " node transforms (the first '" + excerpt(first_sheared) +
                       "') have a shear, which a bone cannot hold; each bone keeps its nearest scale and rotation");
  }
  const Vec3 root_scale = rest[0].scale;
  const bool uniform = root_scale.x > 0.f && std::fabs(root_scale.y - root_scale.x) <= 1e-5f * root_scale.x &&
                       std::fabs(root_scale.z - root_scale.x) <= 1e-5f * root_scale.x;
  out.root_scale = uniform ? root_scale.x : 1.0;
  out.translation_scale.assign(node_count, metres_per_unit * out.root_scale);
  out.translation_scale[0] = metres_per_unit;

  // Targets: every kept node, parents first. Bones: the kept nodes that are not helpers.
  out.target_of_node.assign(node_count, -1);
  out.bone_of_node.assign(node_count, -1);
  std::unordered_set<std::string> used;
  for (size_t n = 0; n < node_count; ++n) {
    if (!kept[n]) continue;
    const int parent = tree.parents[n];
    out.target_of_node[n] = static_cast<int>(out.targets.bone_count());
    std::string name = node_name(tree, n);
    for (int suffix = 2; used.count(name); ++suffix) name = node_name(tree, n) + "_" + std::to_string(suffix);
    used.insert(name);
    out.targets.bone_names.push_back(name);
    out.targets.parents.push_back(parent < 0 ? -1 : out.target_of_node[static_cast<size_t>(parent)]);
    out.targets.rest_pose.push_back(to_metres(out, n, rest[n]));
    if (is_fbx_helper(*tree.nodes[n])) {
      out.folds_helpers = true;
      continue;
    }
    // The nearest ancestor that is a bone; the helpers between are folded in.
    std::vector<int> targets{out.target_of_node[n]};
    int ancestor = parent;
    while (ancestor >= 0 && out.bone_of_node[static_cast<size_t>(ancestor)] < 0) {
      targets.insert(targets.begin(), out.target_of_node[static_cast<size_t>(ancestor)]);
      ancestor = tree.parents[static_cast<size_t>(ancestor)];
    }
    out.bone_of_node[n] = static_cast<int>(out.skeleton.bone_count());
    out.node_of_bone.push_back(static_cast<int>(n));
    out.skeleton.bone_names.push_back(name);
    out.skeleton.parents.push_back(ancestor < 0 ? -1 : out.bone_of_node[static_cast<size_t>(ancestor)]);
    out.targets_of_bone.push_back(std::move(targets));
  }
  if (out.skeleton.bone_count() == 0) {
    return Error{only_helpers ? "the scene has no bones: it animates only cameras and lights"
                              : "the scene has no bones and no animated nodes"};
  }
  if (out.targets.bone_count() > 65535) {
    return Error{"the scene has " + std::to_string(out.targets.bone_count()) +
                 " bones and animated nodes; at most 65535 are supported"};
  }
  size_t stray_helpers = 0;
  for (size_t n = 0; n < node_count; ++n) {
    if (kept[n] && is_fbx_helper(*tree.nodes[n]) && tree.nodes[n]->mNumChildren == 0) ++stray_helpers;
  }
  if (stray_helpers > 0) {
    warnings.push_back(std::to_string(stray_helpers) +
                       " $AssimpFbx$ helper nodes have no node below them; "
                       "what they move is not part of the skeleton");
  }
  out.skeleton.rest_pose.resize(out.skeleton.bone_count());
  fold_pose(out, out.targets.rest_pose, out.skeleton.rest_pose);
  return out;
}

void fold_pose(const SceneSkeleton& skeleton, const std::vector<Transform>& targets, std::vector<Transform>& bones) {
  for (size_t b = 0; b < skeleton.targets_of_bone.size(); ++b) {
    const std::vector<int>& chain = skeleton.targets_of_bone[b];
    if (chain.size() == 1) {
      bones[b] = targets[static_cast<size_t>(chain[0])];
      continue;
    }
    double product[16], next[16], local[16];
    to_columns(targets[static_cast<size_t>(chain[0])], product);
    for (size_t k = 1; k < chain.size(); ++k) {
      to_columns(targets[static_cast<size_t>(chain[k])], local);
      multiply(product, local, next);
      std::copy(next, next + 16, product);
    }
    bones[b] = decompose_matrix(std::span<const double, 16>(product, 16));
  }
}

}  // namespace ks::assimp
