#include "keystream/io/gltf_export_animation.h"

#include <tiny_gltf.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <unordered_map>
#include <utility>

#include "keystream/clip/excerpt.h"
#include "keystream/io/gltf_morph_weights.h"

namespace ks::gltf {

namespace {

// The importer reads uniform keys whose rate is this close (relative) to a
// whole number back at the whole number (gltf_animation.cpp); keep in step.
constexpr double kWholeRateTolerance = 1e-3;

// The rate key times are written at: see gltf_export.h for why whole rates win.
double key_rate(float sample_rate_hz) {
  const double rate = sample_rate_hz;
  const double whole = std::round(rate);
  return std::fabs(rate - whole) < kWholeRateTolerance * rate ? whole : rate;
}

int append_floats(tinygltf::Model& model, const std::vector<float>& values, int type, size_t components) {
  tinygltf::Accessor accessor;
  accessor.bufferView = append_view(model, values.data(), values.size() * sizeof(float));
  accessor.componentType = TINYGLTF_COMPONENT_TYPE_FLOAT;
  accessor.type = type;
  accessor.count = values.size() / components;
  if (type == TINYGLTF_TYPE_SCALAR && !values.empty()) {  // animation inputs must state their range
    const auto [low, high] = std::minmax_element(values.begin(), values.end());
    accessor.minValues = {*low};
    accessor.maxValues = {*high};
  }
  model.accessors.push_back(accessor);
  return static_cast<int>(model.accessors.size() - 1);
}

// The keys of every channel: one per frame, at f / key_rate.
struct Keys {
  int input = -1;  // accessor of the key times, seconds
  uint32_t count = 0;
};

// Adds a LINEAR sampler from the keys to `values` and a channel animating
// `path` of `node` with it.
void add_channel(tinygltf::Model& model, tinygltf::Animation& animation, const Keys& keys, int node, const char* path,
                 const std::vector<float>& values, int type, size_t components) {
  tinygltf::AnimationSampler sampler;
  sampler.input = keys.input;
  sampler.output = append_floats(model, values, type, components);
  sampler.interpolation = "LINEAR";
  animation.samplers.push_back(sampler);
  tinygltf::AnimationChannel channel;
  channel.sampler = static_cast<int>(animation.samplers.size() - 1);
  channel.target_node = node;
  channel.target_path = path;
  animation.channels.push_back(channel);
}

void add_bone_channels(tinygltf::Model& model, tinygltf::Animation& animation, const Keys& keys, const RawClip& clip,
                       std::span<const int> node_of_bone) {
  std::vector<float> values;
  for (size_t b = 0; b < clip.bones.size(); ++b) {
    const BoneTracks& tracks = clip.bones[b];
    values.clear();
    for (const Vec3& t : tracks.translations) values.insert(values.end(), {t.x, t.y, t.z});
    add_channel(model, animation, keys, node_of_bone[b], "translation", values, TINYGLTF_TYPE_VEC3, 3);
    values.clear();
    for (const Quat& r : tracks.rotations) {
      const Quat q = normalize(r);  // glTF requires unit rotations; validate() allows 1e-4 off
      values.insert(values.end(), {q.x, q.y, q.z, q.w});
    }
    add_channel(model, animation, keys, node_of_bone[b], "rotation", values, TINYGLTF_TYPE_VEC4, 4);
    values.clear();
    for (const Vec3& s : tracks.scales) values.insert(values.end(), {s.x, s.y, s.z});
    add_channel(model, animation, keys, node_of_bone[b], "scale", values, TINYGLTF_TYPE_VEC3, 3);
  }
}

// ---------------------------------------------------------------------------
// Morph weights: one channel per node, every target of its mesh per key.

// Morph targets of `node`'s mesh: 0 without a mesh, -1 when its primitives
// disagree (glTF has every primitive hold the same targets).
int morph_target_count(const tinygltf::Model& model, int node) {
  const int mesh = model.nodes[static_cast<size_t>(node)].mesh;
  if (mesh < 0 || static_cast<size_t>(mesh) >= model.meshes.size()) return 0;
  const std::vector<tinygltf::Primitive>& primitives = model.meshes[static_cast<size_t>(mesh)].primitives;
  if (primitives.empty()) return 0;
  const size_t count = primitives[0].targets.size();
  for (const tinygltf::Primitive& primitive : primitives) {
    if (primitive.targets.size() != count) return -1;
  }
  return static_cast<int>(count);
}

// The weights of targets no track drives: the node's, else its mesh's (as
// glTF instantiates a mesh), else 0.
std::vector<float> default_weights(const tinygltf::Model& model, int node, size_t count) {
  const tinygltf::Node& n = model.nodes[static_cast<size_t>(node)];
  const std::vector<double>& mesh_weights = model.meshes[static_cast<size_t>(n.mesh)].weights;
  const std::vector<double>& given = n.weights.size() == count ? n.weights : mesh_weights;
  std::vector<float> weights(count, 0.f);
  if (given.size() == count) {
    for (size_t t = 0; t < count; ++t) weights[t] = static_cast<float>(given[t]);
  }
  return weights;
}

// Tracks left out for one reason: a mesh of hundreds of targets gives one
// warning, not hundreds.
struct LeftOut {
  std::string first_track;
  size_t count = 0;
};

// For every node of `model` some morph-weight track of `scalars` drives, the
// track of each of its mesh's targets (-1: none). A node's tracks are those
// naming it (morph_node_name, as the importer names them) by target index;
// where several nodes with morph targets share the name, the first track of
// a target goes to the first such node, the second to the second, and so
// on, as the importer's "#2" names came about for nodes in order. Warns of
// every track left out, naming it.
std::map<int, std::vector<int>> match_weight_tracks(const tinygltf::Model& model,
                                                    const std::vector<ScalarTrack>& scalars,
                                                    const std::string& document, std::vector<std::string>& warnings) {
  std::map<int, std::vector<int>> tracks_of_node;
  const bool any = std::any_of(scalars.begin(), scalars.end(),
                               [](const ScalarTrack& track) { return track.target == ScalarTarget::kMorphWeight; });
  if (!any) return tracks_of_node;
  std::unordered_map<std::string, std::vector<int>> morph_nodes_named;  // nodes with morph targets
  std::unordered_map<std::string, int> other_node_named;                // a node of the name without usable targets
  for (size_t n = 0; n < model.nodes.size(); ++n) {
    const int node = static_cast<int>(n);
    const std::string name = morph_node_name(model, node);
    if (morph_target_count(model, node) > 0) {
      morph_nodes_named[name].push_back(node);
    } else {
      other_node_named.try_emplace(name, node);
    }
  }

  std::map<std::string, LeftOut> left_out;  // by reason; std::map: warnings in a stable order
  auto leave_out = [&](const ScalarTrack& track, const std::string& reason) {
    LeftOut& group = left_out[reason];
    if (group.count++ == 0) group.first_track = track.name;
  };
  std::map<std::pair<std::string, uint32_t>, size_t> earlier;  // tracks of (node name, target) so far
  std::set<std::string> shared_names;
  for (size_t s = 0; s < scalars.size(); ++s) {
    const ScalarTrack& track = scalars[s];
    if (track.target != ScalarTarget::kMorphWeight) continue;
    const std::string node_name = "node '" + excerpt(track.node) + "'";
    const auto named = morph_nodes_named.find(track.node);
    if (named == morph_nodes_named.end()) {
      const auto other = other_node_named.find(track.node);
      if (other == other_node_named.end()) {
        leave_out(track, document + " has no " + node_name);
      } else if (morph_target_count(model, other->second) < 0) {
        leave_out(track, "the primitives of the mesh of " + node_name + " have different numbers of morph targets");
      } else {
        leave_out(track, node_name + " in " + document + " has no mesh with morph targets");
      }
      continue;
    }
    if (track.components != 1) {
      leave_out(track, "a morph weight has one component, not " + std::to_string(track.components));
      continue;
    }
    const std::vector<int>& nodes = named->second;
    size_t& occurrence = earlier[{track.node, track.target_index}];
    if (occurrence >= nodes.size()) {
      leave_out(track, "earlier tracks drive the same target of every " + node_name);
      continue;
    }
    const int node = nodes[occurrence++];
    if (nodes.size() > 1 && shared_names.insert(track.node).second) {
      warnings.push_back(document + " has " + std::to_string(nodes.size()) + " nodes with morph targets named '" +
                         excerpt(track.node) + "': their morph-weight tracks go to them in node order");
    }
    const auto count = static_cast<uint32_t>(morph_target_count(model, node));
    if (track.target_index >= count) {
      leave_out(track, "the mesh of " + node_name + " has only " + std::to_string(count) + " morph targets");
      continue;
    }
    std::vector<int>& targets = tracks_of_node[node];
    targets.resize(count, -1);
    targets[track.target_index] = static_cast<int>(s);
  }
  for (const auto& [reason, group] : left_out) {
    const std::string more = group.count > 1 ? " and " + std::to_string(group.count - 1) + " more are" : " is";
    warnings.push_back("morph-weight track '" + excerpt(group.first_track) + "'" + more + " not exported: " + reason);
  }
  return tracks_of_node;
}

void add_weights_channels(tinygltf::Model& model, tinygltf::Animation& animation, const Keys& keys, const RawClip& clip,
                          const std::string& document, std::vector<std::string>& warnings) {
  const std::map<int, std::vector<int>> tracks_of_node = match_weight_tracks(model, clip.scalars, document, warnings);
  for (const auto& [node, track_of_target] : tracks_of_node) {
    const size_t count = track_of_target.size();
    const std::vector<float> defaults = default_weights(model, node, count);
    std::vector<float> values(size_t{keys.count} * count);
    for (uint32_t f = 0; f < keys.count; ++f) {
      for (size_t t = 0; t < count; ++t) {
        const int s = track_of_target[t];
        values[f * count + t] = s < 0 ? defaults[t] : clip.scalars[static_cast<size_t>(s)].values[f];
      }
    }
    add_channel(model, animation, keys, node, "weights", values, TINYGLTF_TYPE_SCALAR, 1);
  }
}

// ---------------------------------------------------------------------------
// User curves: no glTF target, so extras.keystream_curves, sampler-like.

void add_curves(tinygltf::Model& model, tinygltf::Animation& animation, const Keys& keys, const RawClip& clip) {
  static constexpr int kTypes[kMaxScalarComponents] = {TINYGLTF_TYPE_SCALAR, TINYGLTF_TYPE_VEC2, TINYGLTF_TYPE_VEC3,
                                                       TINYGLTF_TYPE_VEC4};
  tinygltf::Value::Object curves;
  for (const ScalarTrack& track : clip.scalars) {
    if (track.target != ScalarTarget::kCurve) continue;
    const int output = append_floats(model, track.values, kTypes[track.components - 1], track.components);
    tinygltf::Value::Object curve;
    curve.emplace("input", tinygltf::Value(keys.input));
    curve.emplace("output", tinygltf::Value(output));
    curves.emplace(track.name, tinygltf::Value(std::move(curve)));
  }
  if (curves.empty()) return;
  tinygltf::Value::Object extras;
  extras.emplace("keystream_curves", tinygltf::Value(std::move(curves)));
  animation.extras = tinygltf::Value(std::move(extras));
}

}  // namespace

int append_view(tinygltf::Model& model, const void* data, size_t size) {
  std::vector<unsigned char>& bytes = model.buffers[0].data;
  bytes.resize((bytes.size() + 3) / 4 * 4, 0);  // accessors need 4-byte alignment
  tinygltf::BufferView view;
  view.buffer = 0;
  view.byteOffset = bytes.size();
  view.byteLength = size;
  const auto* first = static_cast<const unsigned char*>(data);
  bytes.insert(bytes.end(), first, first + size);
  model.bufferViews.push_back(view);
  return static_cast<int>(model.bufferViews.size() - 1);
}

void append_animation(tinygltf::Model& model, const RawClip& clip, std::span<const int> node_of_bone,
                      const std::string& document, std::vector<std::string>& warnings) {
  const double rate = key_rate(clip.sample_rate_hz);
  std::vector<float> times(clip.frame_count);
  for (uint32_t f = 0; f < clip.frame_count; ++f) times[f] = static_cast<float>(f / rate);
  const Keys keys{append_floats(model, times, TINYGLTF_TYPE_SCALAR, 1), clip.frame_count};

  tinygltf::Animation animation;
  animation.name = clip.name;
  add_bone_channels(model, animation, keys, clip, node_of_bone);
  add_weights_channels(model, animation, keys, clip, document, warnings);
  add_curves(model, animation, keys, clip);
  model.animations.push_back(std::move(animation));
}

}  // namespace ks::gltf
