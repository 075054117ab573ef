#pragma once
// Skinned mesh extraction from a glTF model (internal to the glTF importer):
// triangle primitives read and checked, skin joints mapped to skeleton bones,
// morph targets kept.

#include <optional>
#include <string>
#include <vector>

#include "keystream/clip/skinned_mesh.h"
#include "keystream/runtime/result.h"

namespace tinygltf {
class Model;
}

namespace ks::gltf {

/// Checks every triangle primitive of every mesh, morph targets included
/// (so that a malformed file is refused even where the broken mesh is not
/// drawn), and gathers the primitives of the nodes that use a skin marked in
/// `usable_skin` into one mesh, in bind pose, with the four largest weights
/// of each vertex and joints mapped through the node's skin to bones
/// (`bone_of_node`). In a file without skins, where every node is a bone,
/// each node's mesh is drawn rigidly with its bone instead (the vertices
/// all its nodes add bounded by the file's buffers; past that, with a
/// warning). nullopt when no node draws such a mesh.
/// Each drawing node's morph targets become SkinnedMesh::morph_targets
/// (gltf_morph_targets.h), as many as morph_byte_limit allows, then with a
/// warning.
/// Primitives that are not triangle lists are skipped with a warning; a
/// primitive without NORMAL gets area-weighted vertex normals. With
/// `read_textures`, each primitive's base colour texture (its image bytes
/// loaded with ExternalFileRules::read_images) is decoded once per image into
/// the mesh's textures, with one part per primitive and uvs for every
/// vertex; a texture that cannot be used leaves its primitive in its base
/// colour, with a warning.
Result<std::optional<SkinnedMesh>> read_meshes(const tinygltf::Model& model, const std::vector<char>& usable_skin,
                                               const std::vector<int>& bone_of_node, bool read_textures,
                                               std::vector<std::string>& warnings);

}  // namespace ks::gltf
