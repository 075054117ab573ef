#pragma once
// glTF morph-target `weights` channels to scalar tracks (internal to the glTF
// importer): each channel becomes one ScalarTrack per target of its node's
// mesh, named "NODE/TARGET", and one single-component Channel per target that
// resample_channels samples into it (DESIGN §3).

#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "keystream/clip/raw_clip.h"
#include "keystream/io/gltf_channel.h"
#include "keystream/runtime/result.h"

namespace tinygltf {
class Model;
struct Mesh;
}

namespace ks::gltf {

/// The scalar tracks of one animation's weights channels, as they are read.
struct MorphWeightTracks {
  std::vector<ScalarTrack> tracks;  // names and targets; resample_channels fills the values

  struct NodeTracks {
    size_t channel = 0;        // the animation channel whose weights they hold
    uint32_t first_track = 0;  // index of the node's first track in `tracks`
    size_t first_channel = 0;  // index of its first Channel among the animation's
  };
  std::map<int, NodeTracks> of_node;                    // node index -> its tracks
  std::unordered_set<std::string> names;                // every name given, so that each is unique
  std::unordered_map<std::string, size_t> next_suffix;  // per wanted name, the next "#N" to try
};

/// `name`, or where a track already has it, `name#2`, `name#3`... the first
/// not taken; taken from then on.
std::string unique_track_name(const std::string& name, MorphWeightTracks& tracks);

/// The name a node goes by in scalar track names: its own, or "node N".
std::string morph_node_name(const tinygltf::Model& model, int node);

/// "mesh 3 'Face'", as errors and warnings name a mesh.
std::string mesh_label(const tinygltf::Model& model, int mesh);

/// The name of each of `mesh`'s `count` targets: extras.targetNames where it
/// holds a non-empty string per target, else the target's index (with a
/// warning naming `mesh_where` when the list is there but does not fit).
std::vector<std::string> morph_target_names(const tinygltf::Mesh& mesh, size_t count, const std::string& mesh_where,
                                            std::vector<std::string>& warnings);

/// Adds channel `channel_index` of an animation (`where` names it in errors),
/// which animates the morph-target weights of node `node` with keys `times`
/// (read and checked) and sampler output accessor `output`. The accessor is
/// SCALAR, FLOAT or a normalised integer type, one value per target per key
/// (three per target for CUBICSPLINE: in-tangents, values, out-tangents).
/// A node's first channel adds one ScalarTrack per target to `tracks`, named
/// "NODE/TARGET" (TARGET from the mesh's extras.targetNames, else the
/// target's index; a name already taken gets "#2", "#3"... with a warning),
/// and appends one Path::kWeight Channel per target to `channels`. A later
/// channel on the same node replaces those Channels, with the warning bones
/// get ("the later one is used").
/// Refuses a node without a mesh or whose mesh has no morph targets,
/// primitives disagreeing on the target count, an output accessor whose
/// count is not keys x targets (x3), integer values that are not normalised,
/// and more than kMaxScalarTracks tracks in all.
Status add_weight_channel(const tinygltf::Model& model, int node, size_t channel_index, int output,
                          Interpolation interpolation, const std::vector<float>& times, const std::string& where,
                          MorphWeightTracks& tracks, std::vector<Channel>& channels,
                          std::vector<std::string>& warnings);

}  // namespace ks::gltf
