#include "keystream/clip/skinned_mesh.h"

#include <cmath>
#include <string>

namespace ks {

Status SkinnedMesh::validate(size_t bone_count) const {
  const size_t n = vertex_count();
  if (normals.size() != n || colors.size() != n || joints.size() != n || weights.size() != n) {
    return Error{"mesh has " + std::to_string(n) + " positions but " + std::to_string(normals.size()) +
                 " normals, " + std::to_string(colors.size()) + " colours, " + std::to_string(joints.size()) +
                 " joint sets and " + std::to_string(weights.size()) + " weight sets"};
  }
  for (size_t v = 0; v < n; ++v) {
    const std::string where = "mesh vertex " + std::to_string(v);
    if (!is_finite(positions[v]) || !is_finite(normals[v]) || !is_finite(colors[v])) {
      return Error{where + ": position, normal or colour is not finite"};
    }
    float sum = 0.f;
    for (int k = 0; k < 4; ++k) {
      if (joints[v][k] >= bone_count) {
        return Error{where + ": joint " + std::to_string(joints[v][k]) + " is not a bone (" +
                     std::to_string(bone_count) + " bones)"};
      }
      if (!std::isfinite(weights[v][k]) || weights[v][k] < 0.f) {
        return Error{where + ": weight " + std::to_string(weights[v][k]) + " is negative or not finite"};
      }
      sum += weights[v][k];
    }
    if (std::fabs(sum - 1.f) > 1e-3f) {
      return Error{where + ": weights sum to " + std::to_string(sum) + ", not 1"};
    }
  }
  if (indices.size() % 3 != 0) {
    return Error{"mesh has " + std::to_string(indices.size()) + " indices, not a multiple of 3"};
  }
  for (size_t i = 0; i < indices.size(); ++i) {
    if (indices[i] >= n) {
      return Error{"mesh index " + std::to_string(i) + " is " + std::to_string(indices[i]) + " but there are " +
                   std::to_string(n) + " vertices"};
    }
  }
  if (!uvs.empty() && uvs.size() != n) {
    return Error{"mesh has " + std::to_string(n) + " positions but " + std::to_string(uvs.size()) + " uvs"};
  }
  for (size_t v = 0; v < uvs.size(); ++v) {
    if (!std::isfinite(uvs[v][0]) || !std::isfinite(uvs[v][1])) {
      return Error{"mesh vertex " + std::to_string(v) + ": uv is not finite"};
    }
  }
  for (size_t t = 0; t < textures.size(); ++t) {
    const MeshTexture& texture = textures[t];
    if (texture.rgba.size() != uint64_t{texture.width} * texture.height * 4 || texture.rgba.empty()) {
      return Error{"mesh texture " + std::to_string(t) + " is " + std::to_string(texture.width) + " x " +
                   std::to_string(texture.height) + " with " + std::to_string(texture.rgba.size()) + " bytes"};
    }
  }
  for (size_t p = 0; p < parts.size(); ++p) {
    const MeshPart& part = parts[p];
    const std::string where = "mesh part " + std::to_string(p);
    if (uint64_t{part.first_index} + part.index_count > indices.size() || part.first_index % 3 != 0 ||
        part.index_count % 3 != 0) {
      return Error{where + " covers indices " + std::to_string(part.first_index) + " + " +
                   std::to_string(part.index_count) + ", not whole triangles of the " +
                   std::to_string(indices.size())};
    }
    if (part.texture < -1 || (part.texture >= 0 && static_cast<size_t>(part.texture) >= textures.size())) {
      return Error{where + " uses texture " + std::to_string(part.texture) + " of " +
                   std::to_string(textures.size())};
    }
    if (part.texture >= 0 && uvs.empty()) return Error{where + " is textured but the mesh has no uvs"};
  }
  for (size_t t = 0; t < morph_targets.size(); ++t) {
    const MorphTarget& target = morph_targets[t];
    const std::string where = "mesh morph target " + std::to_string(t);
    const size_t run = target.position_deltas.size();
    if (target.first_vertex > n || run > n - target.first_vertex) {
      return Error{where + " moves vertices " + std::to_string(target.first_vertex) + " + " + std::to_string(run) +
                   " but there are " + std::to_string(n)};
    }
    if (!target.normal_deltas.empty() && target.normal_deltas.size() != run) {
      return Error{where + " has " + std::to_string(run) + " position deltas but " +
                   std::to_string(target.normal_deltas.size()) + " normal deltas"};
    }
    if (!std::isfinite(target.default_weight)) return Error{where + ": default weight is not finite"};
    for (size_t v = 0; v < run; ++v) {
      if (!is_finite(target.position_deltas[v]) ||
          (!target.normal_deltas.empty() && !is_finite(target.normal_deltas[v]))) {
        return Error{where + ": the delta of vertex " + std::to_string(target.first_vertex + v) + " is not finite"};
      }
    }
  }
  return {};
}

}  // namespace ks
