#include "keystream/io/assimp_morph.h"

#include <algorithm>
#include <cmath>
#include <glm/mat3x3.hpp>
#include <glm/matrix.hpp>
#include <limits>
#include <unordered_map>
#include <unordered_set>

#include "keystream/clip/excerpt.h"

namespace ks::assimp {

namespace {

// Weights past this are no weights (and would overflow a float when resampled).
constexpr double kMaxWeight = 1e30;
constexpr uint32_t kUnseen = std::numeric_limits<uint32_t>::max();

Vec3 to_vec3(const glm::dvec3& v) {
  return {static_cast<float>(v.x), static_cast<float>(v.y), static_cast<float>(v.z)};
}

bool finite(const glm::dvec3& v) {
  return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z);
}

// A normal in model space, unit, as append_mesh (assimp_mesh.cpp) places the mesh's.
glm::dvec3 model_normal(const glm::dmat3& normal_matrix, const aiVector3D& n) {
  const glm::dvec3 out = normal_matrix * glm::dvec3(n.x, n.y, n.z);
  const double length = glm::length(out);
  return length > 1e-12 && std::isfinite(length) ? out / length : glm::dvec3(0.0, 1.0, 0.0);
}

// The node a channel's name points at: the node of that name (Collada), or
// for FBX's "MODEL*N", geometry N of model MODEL. Empty `problem` on success.
int channel_node(const NodeTree& tree, const aiString& name, std::string& problem) {
  if (const int node = find_node(tree, name); node >= 0) return node;
  const std::string text(name.C_Str(), name.length);
  const size_t star = text.rfind('*');
  const std::string digits = star == std::string::npos ? std::string() : text.substr(star + 1);
  if (digits.empty() || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    problem = "names no node";
    return -1;
  }
  const int node = find_node(tree, aiString(text.substr(0, star)));
  if (node < 0) {
    problem = "names no node";
  } else if (digits != "0") {
    problem = "names geometry " + excerpt(digits) + " of node '" + excerpt(text.substr(0, star)) +
              "'; only a node's first geometry can be matched to its meshes";
  }
  return problem.empty() ? node : -1;
}

// `name`, or where a track has it already, `name#2`, `name#3`... the first
// free; the next suffix is kept per name, so that thousands of targets of
// one name (FBX in-between shapes share their channel's) cost linear time.
std::string unique_name(const std::string& name, std::unordered_set<std::string>& taken,
                        std::unordered_map<std::string, size_t>& next_suffix) {
  if (taken.insert(name).second) return name;
  for (size_t& suffix = next_suffix.try_emplace(name, 2).first->second;; ++suffix) {
    std::string candidate = name + "#" + std::to_string(suffix);
    if (taken.insert(candidate).second) {
      ++suffix;
      return candidate;
    }
  }
}

// One channel's keys, per target: times (seconds) and weights.
struct TargetKeys {
  std::vector<std::vector<float>> times, weights;
};

// Reads `channel`'s keys for `targets` targets (0: as many as its keys
// index, up to `max_targets`); a message naming the problem otherwise.
std::string read_keys(const aiMeshMorphAnim& channel, uint32_t targets, uint32_t max_targets, double ticks_per_second,
                      TargetKeys& out) {
  if (channel.mNumKeys == 0 || channel.mKeys == nullptr) return "has no keys";
  const bool counted = targets == 0;
  for (unsigned k = 0; counted && k < channel.mNumKeys; ++k) {
    const aiMeshMorphKey& key = channel.mKeys[k];
    if (key.mNumValuesAndWeights > 0 && key.mValues == nullptr) return "key " + std::to_string(k) + " has no values";
    for (unsigned v = 0; v < key.mNumValuesAndWeights; ++v) {
      if (key.mValues[v] >= max_targets) {
        return "key " + std::to_string(k) + " names target " + std::to_string(key.mValues[v]) + ", past the " +
               std::to_string(max_targets) + " scalar tracks a clip may still have";
      }
      targets = std::max(targets, key.mValues[v] + 1);
    }
  }
  out.times.assign(targets, {});
  out.weights.assign(targets, {});
  std::vector<uint32_t> listed_by(targets, kUnseen);  // per target, the last key listing it
  double previous = -INFINITY;
  for (unsigned k = 0; k < channel.mNumKeys; ++k) {
    const aiMeshMorphKey& key = channel.mKeys[k];
    const std::string at = "key " + std::to_string(k);
    const double t = key.mTime / ticks_per_second;
    if (!std::isfinite(t) || std::fabs(t) > 1e7) return at + " has a time that is not a usable number";
    if (t < previous) return "key times decrease (" + at + ")";
    previous = t;
    const unsigned n = key.mNumValuesAndWeights;
    if (n == 0) continue;
    if (key.mValues == nullptr || key.mWeights == nullptr) return at + " has no values or weights";
    if (n > targets) {
      return at + " lists " + std::to_string(n) + " weights for " + std::to_string(targets) + " morph targets";
    }
    for (unsigned v = 0; v < n; ++v) {
      const unsigned target = key.mValues[v];
      const double weight = key.mWeights[v];
      if (target >= targets) {
        return at + " names morph target " + std::to_string(target) + " of " + std::to_string(targets);
      }
      if (!std::isfinite(weight) || std::fabs(weight) > kMaxWeight) return at + " has a weight that is not finite";
      if (listed_by[target] == k) return at + " lists morph target " + std::to_string(target) + " twice";
      listed_by[target] = k;
      out.times[target].push_back(static_cast<float>(t));
      out.weights[target].push_back(static_cast<float>(weight));
    }
  }
  return {};
}

}  // namespace

int morph_channel_node(const NodeTree& tree, const aiString& name) {
  std::string problem;
  return channel_node(tree, name, problem);
}

std::string morph_target_name(const aiMesh& mesh, unsigned target) {
  const aiAnimMesh* anim = mesh.mAnimMeshes[target];
  if (anim == nullptr || anim->mName.length == 0) return std::to_string(target);
  return std::string(anim->mName.C_Str(), anim->mName.length);
}

void append_morph_targets(const aiMesh& mesh, unsigned mesh_index, const std::string& node, uint32_t first_vertex,
                          const glm::dmat4& skinned, const glm::dmat4& rigid, const std::vector<char>& weighed,
                          SkinnedMesh& out, size_t& skipped) {
  const size_t n = mesh.mNumVertices;
  const glm::dmat3 linear[2] = {glm::dmat3(rigid), glm::dmat3(skinned)};
  const glm::dmat3 normal_matrix[2] = {glm::transpose(glm::inverse(linear[0])),
                                       glm::transpose(glm::inverse(linear[1]))};
  for (unsigned t = 0; t < mesh.mNumAnimMeshes; ++t) {
    const aiAnimMesh* anim = mesh.mAnimMeshes == nullptr ? nullptr : mesh.mAnimMeshes[t];
    if (anim == nullptr || anim->mNumVertices != n || anim->mVertices == nullptr) {
      ++skipped;
      continue;
    }
    MorphTarget target;
    target.name = morph_target_name(mesh, t);
    target.node = node;
    target.mesh = mesh_index;
    target.target_index = t;
    target.first_vertex = first_vertex;
    target.position_deltas.reserve(n);
    bool usable = true;
    for (size_t v = 0; v < n && usable; ++v) {
      const aiVector3D& moved = anim->mVertices[v];
      const aiVector3D& rest = mesh.mVertices[v];
      const glm::dvec3 delta =
          linear[weighed[v] ? 1 : 0] * (glm::dvec3(moved.x, moved.y, moved.z) - glm::dvec3(rest.x, rest.y, rest.z));
      usable = finite(delta);
      target.position_deltas.push_back(to_vec3(delta));
    }
    // Normals as the mesh's are drawn (unit, model space): the delta is between those.
    if (usable && anim->mNormals != nullptr && mesh.mNormals != nullptr) {
      target.normal_deltas.reserve(n);
      for (size_t v = 0; v < n && usable; ++v) {
        const glm::dmat3& m = normal_matrix[weighed[v] ? 1 : 0];
        const glm::dvec3 delta = model_normal(m, anim->mNormals[v]) - model_normal(m, mesh.mNormals[v]);
        usable = finite(delta);
        target.normal_deltas.push_back(to_vec3(delta));
      }
    }
    if (!usable) {
      ++skipped;
      continue;
    }
    out.morph_targets.push_back(std::move(target));
  }
}

MorphWeights read_morph_weights(const aiAnimation& animation, const NodeTree& tree, const aiScene& scene,
                                double ticks_per_second, const std::string& where, std::vector<std::string>& warnings) {
  MorphWeights out;
  std::unordered_set<std::string> names;
  std::unordered_map<std::string, size_t> next_suffix;
  size_t renamed = 0;
  for (unsigned c = 0; c < animation.mNumMorphMeshChannels; ++c) {
    const aiMeshMorphAnim* channel =
        animation.mMorphMeshChannels == nullptr ? nullptr : animation.mMorphMeshChannels[c];
    if (channel == nullptr) {
      warnings.push_back(where + ": morph-target channel " + std::to_string(c) + " is missing; ignored");
      continue;
    }
    const std::string label = where + " morph-target channel '" + excerpt(channel->mName.C_Str()) + "'";
    std::string problem;
    const int node = channel_node(tree, channel->mName, problem);
    if (node < 0) {
      warnings.push_back(label + " " + problem + "; ignored");
      continue;
    }
    const std::string node_label = node_name(tree, static_cast<size_t>(node));
    if (std::find(out.nodes.begin(), out.nodes.end(), node) != out.nodes.end()) {
      warnings.push_back(label + " drives node '" + excerpt(node_label) + "' as an earlier channel does; ignored");
      continue;
    }

    // The targets: those of the node's meshes that have any (their counts agree
    // when one geometry was split by material), else the keys' indices.
    const aiNode& drawer = *tree.nodes[static_cast<size_t>(node)];
    const aiMesh* first = nullptr;
    bool disagree = false;
    for (unsigned k = 0; k < drawer.mNumMeshes; ++k) {
      const unsigned index = drawer.mMeshes[k];
      const aiMesh* mesh = index < scene.mNumMeshes ? scene.mMeshes[index] : nullptr;
      if (mesh == nullptr || mesh->mNumAnimMeshes == 0) continue;
      if (first == nullptr) first = mesh;
      disagree = disagree || mesh->mNumAnimMeshes != first->mNumAnimMeshes;
    }
    if (drawer.mNumMeshes == 0) {
      warnings.push_back(label + " drives node '" + excerpt(node_label) + "', which draws no mesh; ignored");
      continue;
    }
    const uint32_t room = kMaxScalarTracks - static_cast<uint32_t>(out.tracks.size());
    const uint32_t targets = first == nullptr ? 0 : first->mNumAnimMeshes;
    if (targets > room) {
      warnings.push_back(label + ": more morph targets than the " + std::to_string(kMaxScalarTracks) +
                         " scalar tracks a clip may have; ignored");
      continue;
    }
    TargetKeys keys;
    if (problem = read_keys(*channel, targets, room, ticks_per_second, keys); !problem.empty()) {
      warnings.push_back(label + " " + problem + "; ignored");
      continue;
    }
    if (std::all_of(keys.times.begin(), keys.times.end(), [](const auto& times) { return times.empty(); })) {
      warnings.push_back(label + " lists no weights; ignored");
      continue;
    }
    if (first == nullptr) {
      warnings.push_back(label + ": node '" + excerpt(node_label) +
                         "' has no morph targets assimp could read (assimp 5.2 drops Collada morph controllers); its " +
                         std::to_string(keys.times.size()) + " weights are imported, named by index, and not drawn");
    } else if (disagree) {
      warnings.push_back(label + ": the meshes of node '" + excerpt(node_label) +
                         "' disagree on their morph targets; the first mesh's are named");
    }

    out.nodes.push_back(node);
    for (uint32_t t = 0; t < keys.times.size(); ++t) {
      const std::string wanted =
          node_label + "/" + (first != nullptr ? morph_target_name(*first, t) : std::to_string(t));
      ScalarTrack& track = out.tracks.emplace_back();
      track.name = unique_name(wanted, names, next_suffix);
      renamed += track.name != wanted;
      track.target = ScalarTarget::kMorphWeight;
      track.node = node_label;
      track.target_index = t;
      if (keys.times[t].empty()) continue;  // listed by no key: stays 0
      gltf::Channel& weights = out.channels.emplace_back();
      weights.path = gltf::Path::kWeight;
      weights.scalar = static_cast<int>(out.tracks.size() - 1);
      weights.components = 1;
      weights.interpolation = gltf::Interpolation::kLinear;  // as assimp's players blend morph keys
      weights.times = std::move(keys.times[t]);
      weights.values = std::move(keys.weights[t]);
    }
  }
  if (renamed > 0) {
    warnings.push_back(where + ": " + std::to_string(renamed) +
                       " morph-weight track names were taken by earlier tracks and get a '#N' suffix");
  }
  return out;
}

}  // namespace ks::assimp
