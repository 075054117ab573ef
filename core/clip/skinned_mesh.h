#pragma once
// SkinnedMesh: the triangles a skin deforms, kept from the source so the
// studio can draw the character. Joint indices are skeleton bone indices.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "keystream/runtime/result.h"
#include "keystream/runtime/transform.h"

namespace ks {

/// A decoded base colour image: RGBA, 8 bits a channel, sRGB-encoded (as
/// glTF stores base colour), rows top first.
struct MeshTexture {
  uint32_t width = 0;
  uint32_t height = 0;
  std::vector<uint8_t> rgba;  // width * height * 4 bytes
};

/// A run of triangles drawn with one base colour texture (or none).
struct MeshPart {
  uint32_t first_index = 0;  // into SkinnedMesh::indices
  uint32_t index_count = 0;
  int32_t texture = -1;      // into SkinnedMesh::textures; -1: the vertex colours alone
};

/// One morph target of the mesh one node draws: displacements of a run of
/// SkinnedMesh vertices, added in bind pose (before skinning) times its weight.
struct MorphTarget {
  std::string name;                   // the mesh's extras.targetNames entry, else the target's index
  std::string node;                   // the node drawing it, as morph-weight scalar tracks name it (ScalarTrack::node)
  uint32_t mesh = 0;                  // the source's mesh index
  uint32_t target_index = 0;          // in that mesh, as ScalarTrack::target_index counts
  float default_weight = 0.f;         // the node's (else the mesh's) default weight, for when no track drives it
  uint32_t first_vertex = 0;          // the run of vertices it moves starts here
  std::vector<Vec3> position_deltas;  // metres, one per vertex of the run
  std::vector<Vec3> normal_deltas;    // empty, or one per vertex of the run
};

/// Triangle mesh with up to four bone influences per vertex, in bind pose,
/// model space, metres.
struct SkinnedMesh {
  std::vector<Vec3> positions;
  std::vector<Vec3> normals;                      // unit, one per vertex
  std::vector<Vec3> colors;                       // linear base colour, one per vertex
  std::vector<std::array<uint16_t, 4>> joints;    // skeleton bone indices
  std::vector<std::array<float, 4>> weights;      // non-negative, summing to 1
  std::vector<uint32_t> indices;                  // three per triangle
  // Base colour textures, read only when asked for (ImportSettings::read_textures):
  std::vector<std::array<float, 2>> uvs;          // empty, or one per vertex (glTF's, v down)
  std::vector<MeshTexture> textures;
  std::vector<MeshPart> parts;                    // empty: one untextured part of every index
  std::vector<MorphTarget> morph_targets;         // glTF morph targets, in node and target order

  size_t vertex_count() const { return positions.size(); }

  /// Checks, naming the first rule broken: per-vertex arrays have one entry
  /// per vertex; values are finite; joints are below `bone_count`; weights are
  /// non-negative and sum to 1 within 1e-3; indices come in threes and are
  /// below the vertex count; uvs are empty or one per vertex, finite;
  /// textures hold width * height * 4 bytes; parts lie within the indices,
  /// on whole triangles, name a texture that exists (or -1), and need uvs
  /// when they name one; a morph target's run lies within the vertices, its
  /// normal deltas are none or one per position delta, its deltas and
  /// default weight are finite.
  Status validate(size_t bone_count) const;
};

}  // namespace ks
