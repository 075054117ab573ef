#include "keystream/io/gltf_morph_weights.h"

#include <tiny_gltf.h>

#include "keystream/clip/excerpt.h"
#include "keystream/io/gltf_accessor.h"

namespace ks::gltf {

namespace {

// The morph-target count of a mesh: the glTF specification has every
// primitive of a mesh hold the same number of targets, in the same order.
Result<size_t> target_count(const tinygltf::Mesh& mesh, const std::string& mesh_where) {
  size_t count = 0;
  for (size_t p = 0; p < mesh.primitives.size(); ++p) {
    const size_t here = mesh.primitives[p].targets.size();
    if (p == 0) {
      count = here;
    } else if (here != count) {
      return Error{mesh_where + " primitive " + std::to_string(p) + " has " + std::to_string(here) +
                   " morph targets and primitive 0 has " + std::to_string(count) +
                   " (every primitive of a mesh must have the same)"};
    }
  }
  return count;
}

// Adds one ScalarTrack per target of node `node`'s mesh; returns the index
// of the first.
uint32_t add_node_tracks(const tinygltf::Model& model, int node, const std::string& node_name, size_t count,
                         const std::string& where, MorphWeightTracks& tracks, std::vector<std::string>& warnings) {
  const int mesh = model.nodes[static_cast<size_t>(node)].mesh;
  const std::vector<std::string> names =
      morph_target_names(model.meshes[static_cast<size_t>(mesh)], count, mesh_label(model, mesh), warnings);
  const auto first = static_cast<uint32_t>(tracks.tracks.size());
  size_t renamed = 0;
  std::string first_renamed;
  for (size_t t = 0; t < count; ++t) {
    ScalarTrack& track = tracks.tracks.emplace_back();
    const std::string wanted = node_name + "/" + names[t];
    track.name = unique_track_name(wanted, tracks);
    if (track.name != wanted && renamed++ == 0) {
      first_renamed = "'" + excerpt(wanted) + "' is '" + excerpt(track.name) + "'";
    }
    track.components = 1;
    track.target = ScalarTarget::kMorphWeight;
    track.node = node_name;
    track.target_index = static_cast<uint32_t>(t);
  }
  if (renamed > 0) {
    warnings.push_back(where + ": " + std::to_string(renamed) +
                       " morph-weight track names were taken by earlier tracks and get a '#N' suffix (" +
                       first_renamed + ")");
  }
  return first;
}

// The weights of target `target` alone, key by key, in the layout of a
// one-component channel: [value] or, for CUBICSPLINE, [in, value, out].
std::vector<float> target_values(const std::vector<float>& values, size_t keys, size_t count, size_t target,
                                 bool cubic) {
  std::vector<float> out;
  out.reserve(keys * (cubic ? 3 : 1));
  const size_t per_key = count * (cubic ? 3 : 1);
  for (size_t k = 0; k < keys; ++k) {
    const float* key = values.data() + k * per_key;
    if (cubic) {
      out.insert(out.end(), {key[target], key[count + target], key[2 * count + target]});
    } else {
      out.push_back(key[target]);
    }
  }
  return out;
}

}  // namespace

// The next suffix tried is kept per name, so that a mesh of thousands of
// targets of one name costs linear time, not quadratic.
std::string unique_track_name(const std::string& name, MorphWeightTracks& tracks) {
  if (tracks.names.insert(name).second) return name;
  size_t& suffix = tracks.next_suffix.try_emplace(name, 2).first->second;
  for (;; ++suffix) {
    std::string candidate = name + "#" + std::to_string(suffix);
    if (tracks.names.insert(candidate).second) {
      ++suffix;
      return candidate;
    }
  }
}

std::string mesh_label(const tinygltf::Model& model, int mesh) {
  const std::string& name = model.meshes[static_cast<size_t>(mesh)].name;
  return "mesh " + std::to_string(mesh) + (name.empty() ? "" : " '" + excerpt(name) + "'");
}

// The name of each of the mesh's `count` targets: extras.targetNames (the
// convention Blender, three.js and Babylon follow) where it holds a
// non-empty string per target, else the target's index. A list that does not
// fit is not trusted in part: its names could belong to other targets.
std::vector<std::string> morph_target_names(const tinygltf::Mesh& mesh, size_t count, const std::string& mesh_where,
                                            std::vector<std::string>& warnings) {
  std::vector<std::string> names(count);
  for (size_t t = 0; t < count; ++t) names[t] = std::to_string(t);
  if (!mesh.extras.Has("targetNames")) return names;
  const tinygltf::Value& listed = mesh.extras.Get("targetNames");
  bool usable = listed.IsArray() && listed.ArrayLen() == count;
  for (size_t t = 0; usable && t < count; ++t) {
    const tinygltf::Value& name = listed.Get(static_cast<int>(t));
    usable = name.IsString() && !name.Get<std::string>().empty();
  }
  if (!usable) {
    warnings.push_back(mesh_where + ": extras.targetNames is not one non-empty string for each of its " +
                       std::to_string(count) + " morph targets; the targets are named by index");
    return names;
  }
  for (size_t t = 0; t < count; ++t) names[t] = listed.Get(static_cast<int>(t)).Get<std::string>();
  return names;
}

std::string morph_node_name(const tinygltf::Model& model, int node) {
  const std::string& name = model.nodes[static_cast<size_t>(node)].name;
  return name.empty() ? "node " + std::to_string(node) : name;
}

Status add_weight_channel(const tinygltf::Model& model, int node, size_t channel_index, int output,
                          Interpolation interpolation, const std::vector<float>& times, const std::string& where,
                          MorphWeightTracks& tracks, std::vector<Channel>& channels,
                          std::vector<std::string>& warnings) {
  // Which targets the weights drive: without a mesh of morph targets, the
  // values per key cannot even be counted.
  const int mesh = model.nodes[static_cast<size_t>(node)].mesh;
  const std::string node_name = morph_node_name(model, node);
  const std::string node_where = "node " + std::to_string(node) + " '" + excerpt(node_name) + "'";
  if (mesh < 0) {
    return Error{where + " animates the morph-target weights of " + node_where + ", which has no mesh"};
  }
  if (static_cast<size_t>(mesh) >= model.meshes.size()) {
    return Error{where + " animates " + node_where + ", which uses mesh " + std::to_string(mesh) +
                 ", which does not exist"};
  }
  const std::string mesh_where = mesh_label(model, mesh);
  Result<size_t> counted = target_count(model.meshes[static_cast<size_t>(mesh)], mesh_where);
  if (!counted) return Error{where + ": " + counted.error()};
  const size_t count = counted.value();
  if (count == 0) {
    return Error{where + " animates the morph-target weights of " + node_where + ", whose " + mesh_where +
                 " has no morph targets"};
  }
  const bool repeated = tracks.of_node.count(node) > 0;
  if (!repeated && count > kMaxScalarTracks - tracks.tracks.size()) {
    return Error{where + ": " + mesh_where + " has " + std::to_string(count) + " morph targets; with the " +
                 std::to_string(tracks.tracks.size()) + " morph-weight tracks before them that is more than the " +
                 std::to_string(kMaxScalarTracks) + " scalar tracks a clip may have"};
  }

  // The glTF specification allows FLOAT weights or normalised integers.
  const AccessorRequest request{
      TINYGLTF_TYPE_SCALAR,
      {TINYGLTF_COMPONENT_TYPE_FLOAT, TINYGLTF_COMPONENT_TYPE_BYTE, TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE,
       TINYGLTF_COMPONENT_TYPE_SHORT, TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT},
      true};
  Result<std::vector<float>> values = read_floats(model, output, request, where + " output");
  if (!values) return Error{values.error()};
  const tinygltf::Accessor& accessor = model.accessors[static_cast<size_t>(output)];  // read_floats checked the index
  if (accessor.componentType != TINYGLTF_COMPONENT_TYPE_FLOAT && !accessor.normalized) {
    return Error{where + " output: accessor " + std::to_string(output) +
                 " holds integer weights that are not normalised (glTF allows FLOAT or normalised integers)"};
  }
  const bool cubic = interpolation == Interpolation::kCubicSpline;
  const size_t per_key = count * (cubic ? 3 : 1);
  if (values.value().size() != times.size() * per_key) {
    return Error{where + " has " + std::to_string(values.value().size()) + " weight values for " +
                 std::to_string(times.size()) + " keys, but " + node_where + " (" + mesh_where + ") has " +
                 std::to_string(count) + " morph targets: " + std::to_string(times.size() * per_key) +
                 " values expected" + (cubic ? " (CUBICSPLINE has 3 per key and target)" : "")};
  }

  // A later channel on the node replaces the earlier one's channels in
  // place, as the warning says: the earlier one is dropped whole, and many
  // channels on one node cannot multiply what is kept.
  size_t first_channel = channels.size();
  uint32_t first_track = 0;
  if (auto it = tracks.of_node.find(node); it != tracks.of_node.end()) {
    warnings.push_back(where + " animates the same property as channel " + std::to_string(it->second.channel) +
                       "; the later one is used");
    it->second.channel = channel_index;
    first_channel = it->second.first_channel;
    first_track = it->second.first_track;
  } else {
    first_track = add_node_tracks(model, node, node_name, count, where, tracks, warnings);
    tracks.of_node[node] = {channel_index, first_track, first_channel};
    channels.resize(channels.size() + count);
  }
  for (size_t t = 0; t < count; ++t) {
    Channel& channel = channels[first_channel + t];
    channel.path = Path::kWeight;
    channel.scalar = static_cast<int>(first_track + t);
    channel.components = 1;
    channel.interpolation = interpolation;
    channel.times = times;
    channel.values = target_values(values.value(), times.size(), count, t, cubic);
  }
  return {};
}

}  // namespace ks::gltf
