#include "keystream/io/gltf_animation.h"

#include <tiny_gltf.h>

#include <map>

#include "keystream/clip/excerpt.h"
#include "keystream/io/channel_resample.h"
#include "keystream/io/gltf_accessor.h"
#include "keystream/io/gltf_channel.h"
#include "keystream/io/gltf_morph_weights.h"
#include "keystream/io/gltf_user_curves.h"

namespace ks::gltf {

namespace {

// The interpolation a sampler names; the glTF default is LINEAR.
Result<Interpolation> sampler_interpolation(const tinygltf::AnimationSampler& sampler, const std::string& where) {
  if (sampler.interpolation == "LINEAR" || sampler.interpolation.empty()) return Interpolation::kLinear;
  if (sampler.interpolation == "STEP") return Interpolation::kStep;
  if (sampler.interpolation == "CUBICSPLINE") return Interpolation::kCubicSpline;
  return Error{where + " has interpolation '" + excerpt(sampler.interpolation) +
               "' (expected LINEAR, STEP or CUBICSPLINE)"};
}

// The channels of one animation, bone and morph-weight ones alike, with the
// scalar tracks the morph-weight ones drive.
struct AnimationChannels {
  std::vector<Channel> channels;
  MorphWeightTracks morph_weights;
};

Result<AnimationChannels> read_channels(const tinygltf::Model& model, int animation_index,
                                        const std::vector<int>& bone_of_node, std::vector<std::string>& warnings) {
  const tinygltf::Animation& animation = model.animations[static_cast<size_t>(animation_index)];
  const std::string anim_name = "animation " + std::to_string(animation_index);
  AnimationChannels read;
  std::vector<Channel>& channels = read.channels;
  size_t off_skeleton = 0;
  std::map<std::pair<int, int>, size_t> seen;  // (bone, path) -> channel index
  for (size_t c = 0; c < animation.channels.size(); ++c) {
    const tinygltf::AnimationChannel& source = animation.channels[c];
    const std::string where = anim_name + " channel " + std::to_string(c);
    if (source.target_node < 0 || static_cast<size_t>(source.target_node) >= model.nodes.size()) {
      return Error{where + " targets node " + std::to_string(source.target_node) + ", which does not exist"};
    }
    if (source.sampler < 0 || static_cast<size_t>(source.sampler) >= animation.samplers.size()) {
      return Error{where + " uses sampler " + std::to_string(source.sampler) + ", which does not exist (" +
                   std::to_string(animation.samplers.size()) + " samplers)"};
    }
    Channel channel;
    if (source.target_path == "translation") {
      channel.path = Path::kTranslation;
    } else if (source.target_path == "rotation") {
      channel.path = Path::kRotation;
      channel.components = 4;
    } else if (source.target_path == "scale") {
      channel.path = Path::kScale;
    } else if (source.target_path == "weights") {
      channel.path = Path::kWeight;
    } else {
      return Error{where + " has target path '" + excerpt(source.target_path) + "'"};
    }
    const tinygltf::AnimationSampler& sampler = animation.samplers[static_cast<size_t>(source.sampler)];
    Result<Interpolation> interpolation = sampler_interpolation(sampler, where);
    if (!interpolation) return Error{interpolation.error()};
    channel.interpolation = interpolation.value();
    Result<std::vector<float>> times = read_key_times(model, sampler.input, where);
    if (!times) return Error{times.error()};
    if (channel.path == Path::kWeight) {
      // One channel per morph target, each driving its own scalar track.
      if (Status s = add_weight_channel(model, source.target_node, c, sampler.output, channel.interpolation,
                                        times.value(), where, read.morph_weights, channels, warnings);
          !s) {
        return Error{s.error()};
      }
      continue;
    }
    channel.times = std::move(times.value());

    AccessorRequest request{
        channel.components == 4 ? TINYGLTF_TYPE_VEC4 : TINYGLTF_TYPE_VEC3, {TINYGLTF_COMPONENT_TYPE_FLOAT}, false};
    if (channel.path == Path::kRotation) {
      // KHR_animation_pointer-free quantised rotations are allowed by the core spec.
      request.component_types = {TINYGLTF_COMPONENT_TYPE_FLOAT, TINYGLTF_COMPONENT_TYPE_BYTE,
                                 TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE, TINYGLTF_COMPONENT_TYPE_SHORT,
                                 TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT};
      request.allow_normalized_integers = true;
    }
    Result<std::vector<float>> values = read_floats(model, sampler.output, request, where + " output");
    if (!values) return Error{values.error()};
    channel.values = std::move(values.value());
    const size_t per_key =
        static_cast<size_t>(channel.components) * (channel.interpolation == Interpolation::kCubicSpline ? 3 : 1);
    if (channel.values.size() != channel.times.size() * per_key) {
      return Error{where + " has " + std::to_string(channel.values.size() / static_cast<size_t>(channel.components)) +
                   " output values for " + std::to_string(channel.times.size()) + " keys" +
                   (channel.interpolation == Interpolation::kCubicSpline ? " (CUBICSPLINE needs 3 per key)" : "")};
    }

    channel.bone = bone_of_node[static_cast<size_t>(source.target_node)];
    if (channel.bone < 0) {
      ++off_skeleton;
      continue;
    }
    const auto key = std::make_pair(channel.bone, static_cast<int>(channel.path));
    if (auto it = seen.find(key); it != seen.end()) {
      warnings.push_back(where + " animates the same property as channel " + std::to_string(it->second) +
                         "; the later one is used");
    }
    seen[key] = c;
    channels.push_back(std::move(channel));
  }
  // User curves (what keystream export writes for them), after the weights
  // so that a morph weight keeps its name.
  if (Status s = add_user_curves(model, animation, anim_name, read.morph_weights, channels, warnings); !s) {
    return Error{s.error()};
  }
  if (off_skeleton > 0) {
    warnings.push_back(std::to_string(off_skeleton) + " channels animate nodes outside the skeleton and were ignored");
  }
  // Sampling applies channels in order, so a later channel for the same
  // property overwrites an earlier one, as the warning says.
  return read;
}

}  // namespace

Result<int> choose_animation(const tinygltf::Model& model, const ImportSettings& settings) {
  std::vector<std::string> names;
  for (const tinygltf::Animation& animation : model.animations) names.push_back(animation.name);
  return ks::choose_animation(names, settings);
}

Result<RawClip> resample_animation(const tinygltf::Model& model, int animation_index, const Skeleton& skeleton,
                                   const std::vector<int>& bone_of_node, const ImportSettings& settings,
                                   double& start_s, std::vector<std::string>& warnings) {
  Result<AnimationChannels> read = read_channels(model, animation_index, bone_of_node, warnings);
  if (!read) return Error{read.error()};
  const std::string& name = model.animations[static_cast<size_t>(animation_index)].name;
  return resample_channels(name.empty() ? "animation_" + std::to_string(animation_index) : name, skeleton,
                           read.value().channels, std::move(read.value().morph_weights.tracks), settings, start_s,
                           warnings);
}

}  // namespace ks::gltf
