#pragma once
// Morph targets of glTF meshes (internal to the glTF importer): each
// primitive's POSITION and NORMAL displacements read and checked, and the
// SkinnedMesh::morph_targets of each node that draws a kept mesh.

#include <cstdint>
#include <string>
#include <vector>

#include "keystream/clip/skinned_mesh.h"
#include "keystream/runtime/result.h"

namespace tinygltf {
class Model;
struct Primitive;
}  // namespace tinygltf

namespace ks::gltf {

/// One primitive's targets: per target, a displacement per vertex (zeros
/// where the target has no POSITION), and normal displacements per vertex or
/// none (the target has no NORMAL).
struct PrimitiveTargets {
  std::vector<std::vector<Vec3>> positions;
  std::vector<std::vector<Vec3>> normals;
};

/// Bytes of morph displacements kept for `targets` targets of `vertices`
/// vertices: 24 per vertex and target (a position and a normal).
uint64_t morph_bytes(uint64_t targets, uint64_t vertices);

/// The morph displacements an import keeps, bytes: 16 times the bytes of the
/// file's buffers, at least 32 MiB. A sparse or buffer-less accessor holds a
/// whole mesh's displacements in a few bytes, so the accessors alone do not
/// bound what a file can make us allocate.
uint64_t morph_byte_limit(const tinygltf::Model& model);

/// What an import may still keep (morph_byte_limit, less what it took).
struct MorphBudget {
  uint64_t left_bytes = 0;
  /// Takes `bytes` if they are left; false (taking nothing) otherwise.
  bool take(uint64_t bytes);
};

/// Checks what the file declares about morph targets outside the
/// primitives: every primitive of a mesh has the same number of targets, and
/// the `weights` of each mesh and of each node drawing one are absent or one
/// finite number per target.
Status check_morph_declarations(const tinygltf::Model& model);

/// Reads and checks every target of `primitive` (of `vertex_count`
/// vertices): POSITION and NORMAL are VEC3 FLOAT accessors, one finite
/// element per vertex, read with the accessors' index and range checks;
/// other attributes (TANGENT) are not read. `where` names the mesh and
/// primitive. Without `keep` the targets are only checked, one at a time,
/// and none are returned.
Result<PrimitiveTargets> read_primitive_targets(const tinygltf::Model& model, const tinygltf::Primitive& primitive,
                                                size_t vertex_count, const std::string& where, bool keep);

/// Appends node `node`'s morph targets to `mesh`: for each target of its
/// mesh, the displacements of `primitives` (that mesh's kept primitives, in
/// the order their vertices were appended from `first_vertex`), named as
/// morph-weight scalar tracks name the node and target, with the node's
/// default weight, else the mesh's, else 0.
void append_node_targets(const tinygltf::Model& model, int node, const std::vector<const PrimitiveTargets*>& primitives,
                         uint32_t first_vertex, SkinnedMesh& mesh);

}  // namespace ks::gltf
