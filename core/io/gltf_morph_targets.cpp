#include "keystream/io/gltf_morph_targets.h"

#include <tiny_gltf.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "keystream/io/gltf_accessor.h"
#include "keystream/io/gltf_morph_weights.h"

namespace ks::gltf {

namespace {

constexpr uint64_t kMinMorphBytes = uint64_t{32} << 20;
constexpr uint64_t kMorphBytesPerBufferByte = 16;
constexpr uint64_t kBytesPerDisplacement = 2 * sizeof(Vec3);  // a position and a normal

// `weights` (a mesh's or a node's) are absent or one finite float per target.
Status check_default_weights(const std::vector<double>& weights, size_t count, const std::string& what) {
  if (weights.empty()) return {};
  if (weights.size() != count) {
    return Error{what + " has " + std::to_string(weights.size()) + " default morph weights for its " +
                 std::to_string(count) + " morph targets"};
  }
  for (size_t t = 0; t < weights.size(); ++t) {
    if (!std::isfinite(weights[t]) || std::fabs(weights[t]) > std::numeric_limits<float>::max()) {
      return Error{what + ": default morph weight " + std::to_string(t) + " is not a finite number"};
    }
  }
  return {};
}

std::vector<Vec3> to_vec3(const std::vector<float>& v) {
  std::vector<Vec3> out(v.size() / 3);
  for (size_t i = 0; i < out.size(); ++i) out[i] = {v[i * 3], v[i * 3 + 1], v[i * 3 + 2]};
  return out;
}

}  // namespace

uint64_t morph_bytes(uint64_t targets, uint64_t vertices) {
  // Targets and vertices come from accessor counts and array sizes: each
  // far below 2^32, so the product stays below 2^64.
  return targets * vertices * kBytesPerDisplacement;
}

uint64_t morph_byte_limit(const tinygltf::Model& model) {
  uint64_t buffer_bytes = 0;
  for (const tinygltf::Buffer& buffer : model.buffers) buffer_bytes += buffer.data.size();
  return std::max(kMinMorphBytes, buffer_bytes * kMorphBytesPerBufferByte);
}

bool MorphBudget::take(uint64_t bytes) {
  if (bytes > left_bytes) return false;
  left_bytes -= bytes;
  return true;
}

Status check_morph_declarations(const tinygltf::Model& model) {
  std::vector<size_t> counts(model.meshes.size(), 0);
  for (size_t m = 0; m < model.meshes.size(); ++m) {
    const tinygltf::Mesh& mesh = model.meshes[m];
    const std::string where = mesh_label(model, static_cast<int>(m));
    for (size_t p = 0; p < mesh.primitives.size(); ++p) {
      const size_t here = mesh.primitives[p].targets.size();
      if (p == 0) counts[m] = here;
      if (here != counts[m]) {
        return Error{where + " primitive " + std::to_string(p) + " has " + std::to_string(here) +
                     " morph targets and primitive 0 has " + std::to_string(counts[m]) +
                     " (every primitive of a mesh must have the same)"};
      }
    }
    if (Status s = check_default_weights(mesh.weights, counts[m], where); !s) return s;
  }
  for (size_t n = 0; n < model.nodes.size(); ++n) {
    const tinygltf::Node& node = model.nodes[n];
    // A node's weights mean something only with a mesh; read_meshes has checked the index.
    if (node.mesh < 0 || node.weights.empty()) continue;
    const std::string where = "node " + std::to_string(n) + " (drawing " + mesh_label(model, node.mesh) + ")";
    if (Status s = check_default_weights(node.weights, counts[static_cast<size_t>(node.mesh)], where); !s) return s;
  }
  return {};
}

Result<PrimitiveTargets> read_primitive_targets(const tinygltf::Model& model, const tinygltf::Primitive& primitive,
                                                size_t vertex_count, const std::string& where, bool keep) {
  PrimitiveTargets out;
  const AccessorRequest vec3{TINYGLTF_TYPE_VEC3, {TINYGLTF_COMPONENT_TYPE_FLOAT}};
  for (size_t t = 0; t < primitive.targets.size(); ++t) {
    const std::string target_where = where + " morph target " + std::to_string(t);
    std::vector<Vec3> positions(keep ? vertex_count : 0), normals;
    for (const char* semantic : {"POSITION", "NORMAL"}) {
      const auto accessor = primitive.targets[t].find(semantic);
      if (accessor == primitive.targets[t].end()) continue;
      const std::string what = target_where + " " + semantic;
      Result<std::vector<float>> values = read_floats(model, accessor->second, vec3, what);
      if (!values) return Error{values.error()};
      if (values.value().size() / 3 != vertex_count) {
        return Error{what + " has " + std::to_string(values.value().size() / 3) + " displacements for " +
                     std::to_string(vertex_count) + " vertices"};
      }
      if (keep) (semantic[0] == 'P' ? positions : normals) = to_vec3(values.value());
    }
    if (!keep) continue;
    out.positions.push_back(std::move(positions));
    out.normals.push_back(std::move(normals));
  }
  return out;
}

void append_node_targets(const tinygltf::Model& model, int node, const std::vector<const PrimitiveTargets*>& primitives,
                         uint32_t first_vertex, SkinnedMesh& mesh) {
  if (primitives.empty() || primitives[0]->positions.empty()) return;
  const tinygltf::Node& drawer = model.nodes[static_cast<size_t>(node)];
  const tinygltf::Mesh& source = model.meshes[static_cast<size_t>(drawer.mesh)];
  const size_t count = primitives[0]->positions.size();
  // The weights channel's import warns about a names list that does not fit.
  std::vector<std::string> unused_warnings;
  const std::vector<std::string> names =
      morph_target_names(source, count, mesh_label(model, drawer.mesh), unused_warnings);
  const std::vector<double>& defaults = drawer.weights.size() == count ? drawer.weights : source.weights;
  const std::string node_name = morph_node_name(model, node);
  for (size_t t = 0; t < count; ++t) {
    MorphTarget& target = mesh.morph_targets.emplace_back();
    target.name = names[t];
    target.node = node_name;
    target.mesh = static_cast<uint32_t>(drawer.mesh);
    target.target_index = static_cast<uint32_t>(t);
    target.default_weight = defaults.size() == count ? static_cast<float>(defaults[t]) : 0.f;
    target.first_vertex = first_vertex;
    // Normal deltas for the whole run when any primitive has them; zeros for the others.
    const bool normals = std::any_of(primitives.begin(), primitives.end(),
                                     [t](const PrimitiveTargets* p) { return !p->normals[t].empty(); });
    for (const PrimitiveTargets* p : primitives) {
      const std::vector<Vec3>& positions = p->positions[t];
      target.position_deltas.insert(target.position_deltas.end(), positions.begin(), positions.end());
      if (!normals) continue;
      if (p->normals[t].empty()) {
        target.normal_deltas.resize(target.normal_deltas.size() + positions.size(), Vec3{});
      } else {
        target.normal_deltas.insert(target.normal_deltas.end(), p->normals[t].begin(), p->normals[t].end());
      }
    }
  }
}

}  // namespace ks::gltf
