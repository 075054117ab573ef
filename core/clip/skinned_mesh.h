#pragma once
// SkinnedMesh: the triangles a skin deforms, kept from the source so the
// studio can draw the character. Joint indices are skeleton bone indices.

#include <array>
#include <cstdint>
#include <vector>

#include "core/runtime/result.h"
#include "core/runtime/transform.h"

namespace ks {

/// Triangle mesh with up to four bone influences per vertex, in bind pose,
/// model space, metres.
struct SkinnedMesh {
  std::vector<Vec3> positions;
  std::vector<Vec3> normals;                      // unit, one per vertex
  std::vector<Vec3> colors;                       // linear base colour, one per vertex
  std::vector<std::array<uint16_t, 4>> joints;    // skeleton bone indices
  std::vector<std::array<float, 4>> weights;      // non-negative, summing to 1
  std::vector<uint32_t> indices;                  // three per triangle

  size_t vertex_count() const { return positions.size(); }

  /// Checks, naming the first rule broken: per-vertex arrays have one entry
  /// per vertex; values are finite; joints are below `bone_count`; weights are
  /// non-negative and sum to 1 within 1e-3; indices come in threes and are
  /// below the vertex count.
  Status validate(size_t bone_count) const;
};

}  // namespace ks
