#include "keystream/io/gltf_user_curves.h"

#include <tiny_gltf.h>

#include "keystream/clip/excerpt.h"
#include "keystream/io/gltf_accessor.h"

namespace ks::gltf {

namespace {

// Components of a curve's output accessor: SCALAR 1 .. VEC4 4; 0 for any other.
int curve_components(int type) {
  switch (type) {
    case TINYGLTF_TYPE_SCALAR: return 1;
    case TINYGLTF_TYPE_VEC2: return 2;
    case TINYGLTF_TYPE_VEC3: return 3;
    case TINYGLTF_TYPE_VEC4: return 4;
    default: return 0;
  }
}

// The accessor index member `member` of a curve, or -1 when it is not a whole number.
int accessor_member(const tinygltf::Value& curve, const char* member) {
  if (!curve.Has(member)) return -1;
  const tinygltf::Value& v = curve.Get(member);
  if (v.IsInt()) return v.Get<int>();
  if (v.IsNumber()) {
    const double d = v.Get<double>();
    if (d >= 0.0 && d <= 2147483647.0 && d == static_cast<double>(static_cast<int>(d))) return static_cast<int>(d);
  }
  return -1;
}

}  // namespace

Status add_user_curves(const tinygltf::Model& model, const tinygltf::Animation& animation, const std::string& where,
                       MorphWeightTracks& tracks, std::vector<Channel>& channels, std::vector<std::string>& warnings) {
  if (!animation.extras.IsObject() || !animation.extras.Has("keystream_curves")) return {};
  const tinygltf::Value& curves = animation.extras.Get("keystream_curves");
  if (!curves.IsObject()) {
    warnings.push_back(where + ": extras.keystream_curves is not an object of curves and was ignored");
    return {};
  }
  for (const std::string& name : curves.Keys()) {
    const std::string curve_where = where + " curve '" + excerpt(name) + "'";
    if (name.empty()) return Error{where + ": extras.keystream_curves has a curve with an empty name"};
    const tinygltf::Value& curve = curves.Get(name);
    const int input = curve.IsObject() ? accessor_member(curve, "input") : -1;
    const int output = curve.IsObject() ? accessor_member(curve, "output") : -1;
    if (input < 0 || output < 0) {
      return Error{curve_where + " is not an object with accessor indices \"input\" and \"output\""};
    }
    Result<std::vector<float>> times = read_key_times(model, input, curve_where);
    if (!times) return Error{times.error()};
    if (static_cast<size_t>(output) >= model.accessors.size()) {
      return Error{curve_where + " output: accessor " + std::to_string(output) + " does not exist (" +
                   std::to_string(model.accessors.size()) + " accessors)"};
    }
    const int components = curve_components(model.accessors[static_cast<size_t>(output)].type);
    if (components == 0)
      return Error{curve_where + " output: accessor " + std::to_string(output) + " is not SCALAR or VEC2..VEC4"};
    const AccessorRequest request{
        model.accessors[static_cast<size_t>(output)].type, {TINYGLTF_COMPONENT_TYPE_FLOAT}, false};
    Result<std::vector<float>> values = read_floats(model, output, request, curve_where + " output");
    if (!values) return Error{values.error()};
    if (values.value().size() != times.value().size() * static_cast<size_t>(components)) {
      return Error{curve_where + " has " + std::to_string(values.value().size() / static_cast<size_t>(components)) +
                   " values for " + std::to_string(times.value().size()) + " keys"};
    }
    if (tracks.tracks.size() >= kMaxScalarTracks) {
      return Error{curve_where + ": more than the " + std::to_string(kMaxScalarTracks) +
                   " scalar tracks a clip may have"};
    }
    ScalarTrack& track = tracks.tracks.emplace_back();
    track.name = unique_track_name(name, tracks);
    if (track.name != name) {
      warnings.push_back(curve_where + " has the name of a morph-weight track and is '" + excerpt(track.name) + "'");
    }
    track.components = static_cast<uint32_t>(components);
    track.target = ScalarTarget::kCurve;
    Channel& channel = channels.emplace_back();
    channel.path = Path::kWeight;
    channel.scalar = static_cast<int>(tracks.tracks.size() - 1);
    channel.components = components;
    channel.interpolation = Interpolation::kLinear;
    channel.times = std::move(times.value());
    channel.values = std::move(values.value());
  }
  return {};
}

}  // namespace ks::gltf
