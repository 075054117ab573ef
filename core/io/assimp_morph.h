#pragma once
// Morph targets and their animated weights in an assimp scene (internal to
// the assimp importer): aiMesh::mAnimMeshes become SkinnedMesh morph targets
// (displacements from the mesh), and aiMeshMorphAnim channels become one
// morph-weight ScalarTrack per target, named "NODE/TARGET" as the glTF
// importer names them (gltf_morph_weights.h).

#include <cstdint>
#include <glm/mat4x4.hpp>
#include <string>
#include <vector>

#include "keystream/clip/raw_clip.h"
#include "keystream/clip/skinned_mesh.h"
#include "keystream/io/assimp_scene.h"
#include "keystream/io/gltf_channel.h"

namespace ks::assimp {

/// The node a morph channel named `name` drives: the node of that name
/// (Collada), or for FBX's "MODEL*0", model MODEL's node; -1 for none.
int morph_channel_node(const NodeTree& tree, const aiString& name);

/// The name of morph target `target` of `mesh`: its aiAnimMesh's name, else its index.
std::string morph_target_name(const aiMesh& mesh, unsigned target);

/// Appends the morph targets of `mesh` (scene mesh `mesh_index`, drawn by
/// node `node` from SkinnedMesh vertex `first_vertex`): assimp holds each
/// target's positions and normals whole, so each becomes the difference to
/// the mesh's, taken into model space by `skinned` for the vertices
/// `weighed` marks and by `rigid` for the others, as the vertices were.
/// A target whose vertex count is not the mesh's, or whose positions are
/// missing or not finite, is skipped and counted in `skipped`.
void append_morph_targets(const aiMesh& mesh, unsigned mesh_index, const std::string& node, uint32_t first_vertex,
                          const glm::dmat4& skinned, const glm::dmat4& rigid, const std::vector<char>& weighed,
                          SkinnedMesh& out, size_t& skipped);

/// The morph-weight tracks of one animation, ready for resample_channels.
struct MorphWeights {
  std::vector<ScalarTrack> tracks;      // names and targets; values empty
  std::vector<gltf::Channel> channels;  // Path::kWeight, LINEAR, one per target some key lists
  std::vector<int> nodes;               // the nodes they drive, each once (NodeTree indices)
};

/// Reads `animation`'s aiMeshMorphAnim channels (`where` names the
/// animation; key times divided by `ticks_per_second`). A channel names a
/// node (Collada: the node's own name) or "NODE*N", the N-th geometry of an
/// FBX model (N = 0 only is matched: assimp does not say which meshes a
/// later geometry made). Each target of the node's meshes gets a track; a
/// node whose meshes lost their targets (assimp 5.2 drops Collada morph
/// controllers) gets one per target index the keys list, named by index.
/// A key lists some targets: the others interpolate between their own keys
/// (an FBX blend-shape channel's curve has keys of its own, and assimp
/// merges the curves by time), hold their first and last, and a target no
/// key lists stays 0. What cannot be imported is a warning naming the
/// channel, and the channel is skipped: no node or mesh, keys that are
/// missing, not finite or out of order, a target index past the mesh's
/// targets, a key listing more values than there are targets or one target
/// twice, more than kMaxScalarTracks tracks.
MorphWeights read_morph_weights(const aiAnimation& animation, const NodeTree& tree, const aiScene& scene,
                                double ticks_per_second, const std::string& where, std::vector<std::string>& warnings);

}  // namespace ks::assimp
