#include "core/io/gltf_animation.h"

#include <tiny_gltf.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>

#include "core/clip/excerpt.h"
#include "core/io/gltf_accessor.h"
#include "core/io/gltf_channel.h"
#include "core/io/gltf_sample_rate.h"

namespace ks::gltf {

namespace {

// ---------------------------------------------------------------------------
// Channels

Result<std::vector<Channel>> read_channels(const tinygltf::Model& model, int animation_index,
                                           const std::vector<int>& bone_of_node, std::vector<std::string>& warnings) {
  const tinygltf::Animation& animation = model.animations[static_cast<size_t>(animation_index)];
  const std::string anim_name = "animation " + std::to_string(animation_index);
  std::vector<Channel> channels;
  size_t off_skeleton = 0;
  size_t morph_weights = 0;
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
      ++morph_weights;
      continue;
    } else {
      return Error{where + " has target path '" + source.target_path + "'"};
    }
    const tinygltf::AnimationSampler& sampler = animation.samplers[static_cast<size_t>(source.sampler)];
    if (sampler.interpolation == "LINEAR" || sampler.interpolation.empty()) {
      channel.interpolation = Interpolation::kLinear;
    } else if (sampler.interpolation == "STEP") {
      channel.interpolation = Interpolation::kStep;
    } else if (sampler.interpolation == "CUBICSPLINE") {
      channel.interpolation = Interpolation::kCubicSpline;
    } else {
      return Error{where + " has interpolation '" + sampler.interpolation + "' (expected LINEAR, STEP or CUBICSPLINE)"};
    }

    Result<std::vector<float>> times =
        read_floats(model, sampler.input, {TINYGLTF_TYPE_SCALAR, {TINYGLTF_COMPONENT_TYPE_FLOAT}}, where + " input");
    if (!times) return Error{times.error()};
    channel.times = std::move(times.value());
    if (channel.times.empty()) return Error{where + " has no keys"};
    for (size_t k = 0; k < channel.times.size(); ++k) {
      if (channel.times[k] < 0.f) return Error{where + " key " + std::to_string(k) + " has a negative time"};
      if (k > 0 && channel.times[k] < channel.times[k - 1]) {
        return Error{where + " key times are not increasing (key " + std::to_string(k) + " at " +
                     std::to_string(channel.times[k]) + " s comes after " + std::to_string(channel.times[k - 1]) +
                     " s)"};
      }
    }

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
  if (off_skeleton > 0) {
    warnings.push_back(std::to_string(off_skeleton) + " channels animate nodes outside the skeleton and were ignored");
  }
  if (morph_weights > 0) {
    warnings.push_back(std::to_string(morph_weights) + " morph-target weight channels were ignored");
  }
  // Sampling applies channels in order, so a later channel for the same
  // property overwrites an earlier one, as the warning says.
  return channels;
}

// ---------------------------------------------------------------------------
// Resampling

// Writes `channel`'s sampled value `v` into its property of a transform.
// A rotation is normalised in double, so a key too long to square in float
// (components of 3e38) keeps its direction; false for one of no direction
// (zero length), with its length in `rotation_length`.
bool store(const Channel& channel, const std::array<double, 4>& v, Vec3& translation, Quat& rotation, Vec3& scale,
           double& rotation_length) {
  const Vec3 v3{static_cast<float>(v[0]), static_cast<float>(v[1]), static_cast<float>(v[2])};
  switch (channel.path) {
    case Path::kTranslation: translation = v3; return true;
    case Path::kScale: scale = v3; return true;
    case Path::kRotation: break;
  }
  rotation_length = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3]);
  if (!(rotation_length > 1e-6) || !std::isfinite(rotation_length)) return false;
  const double n = rotation_length;
  rotation = {static_cast<float>(v[0] / n), static_cast<float>(v[1] / n), static_cast<float>(v[2] / n),
              static_cast<float>(v[3] / n)};
  return true;
}

// The key times that fall between frames at `rate`, ascending, split by
// whether the channel is continuous there (LINEAR, CUBICSPLINE) or jumps
// (STEP).
struct OffGridKeys {
  std::vector<double> continuous;
  std::vector<double> step;
};

OffGridKeys off_grid_keys(const std::vector<Channel>& channels, double start, double rate) {
  OffGridKeys keys;
  for (const Channel& channel : channels) {
    std::vector<double>& out = channel.interpolation == Interpolation::kStep ? keys.step : keys.continuous;
    for (const float t : channel.times) {
      if (!on_frame(t, start, rate)) out.push_back(t);
    }
  }
  for (std::vector<double>* times : {&keys.continuous, &keys.step}) {
    std::sort(times->begin(), times->end());
    times->erase(std::unique(times->begin(), times->end()), times->end());
  }
  return keys;
}

// What the bound promises at the file's own keys (DESIGN §3: against the
// file's keys, not only the resample). The rate puts a frame on every key
// where it can (gltf_sample_rate.h); a LINEAR or CUBICSPLINE key it still
// misses becomes a key pose, the source's exact pose at the key's time,
// and the decoded clip is held to the bound there as at any frame. A STEP
// key between frames is not one: a resampled clip can only jump at a frame,
// so the jump moves to the next frame (with a warning saying by how much),
// and in key poses a STEP channel holds the value of the frame before, as
// the resampled clip does until its jump. The bound then covers every
// frame and every continuous key, and the only liberty taken with the
// source, the timing of a STEP jump, is reported.
Result<std::vector<SourceKeyPose>> key_poses(const std::vector<Channel>& channels, const std::vector<double>& times,
                                             double start, double rate, const Skeleton& skeleton,
                                             const std::string& clip_name) {
  std::vector<SourceKeyPose> poses;
  poses.reserve(times.size());
  for (const double t : times) {
    SourceKeyPose& key = poses.emplace_back();
    key.frame_time = static_cast<float>((t - start) * rate);
    key.pose = skeleton.rest_pose;
    double frame_before = start + std::floor((t - start) * rate) / rate;
    frame_before += on_frame_slack_s(frame_before, start, rate);  // as the frames sample STEP channels
    for (const Channel& channel : channels) {
      const bool step = channel.interpolation == Interpolation::kStep;
      Transform& out = key.pose[static_cast<size_t>(channel.bone)];
      double length = 0.0;
      if (!store(channel, sample_channel(channel, step ? frame_before : t), out.translation, out.rotation, out.scale,
                 length)) {
        char text[32];
        std::snprintf(text, sizeof text, "%.6g", length);
        return Error{"'" + excerpt(clip_name) + "' bone '" +
                     excerpt(skeleton.bone_names[static_cast<size_t>(channel.bone)]) +
                     "' has a rotation that is not a usable quaternion at " + std::to_string(t) + " s (length " +
                     text + ")"};
      }
    }
  }
  return poses;
}

Result<RawClip> sample_clip(const tinygltf::Model& model, int animation_index, const Skeleton& skeleton,
                            const std::vector<Channel>& channels, const ImportSettings& settings, double& start_s,
                            std::vector<std::string>& warnings) {
  RawClip clip;
  const std::string& name = model.animations[static_cast<size_t>(animation_index)].name;
  clip.name = name.empty() ? "animation_" + std::to_string(animation_index) : name;

  // The clip runs from the first key to the last: a source that starts at
  // 1/24 s (a Blender frame 1) has no held pose before it.
  double start = channels.empty() ? 0.0 : channels.front().times.front();
  double end = start;
  for (const Channel& channel : channels) {
    start = std::min(start, static_cast<double>(channel.times.front()));
    end = std::max(end, static_cast<double>(channel.times.back()));
  }
  const double duration = end - start;
  const double rate = resampling_rate(channels, start, end, skeleton.bone_count(), settings);
  clip.sample_rate_hz = static_cast<float>(rate);
  start_s = start;

  // No key is cut off: the last frame is the first at or after the last key.
  const double frames = frame_count_at(duration, rate);
  if (frames > kMaxFrameCount) {
    // Printed as a double: the frame count of a forged key time may be far
    // beyond any integer type.
    char count[64];
    std::snprintf(count, sizeof count, "%.6g", frames);
    return Error{"'" + excerpt(clip.name) + "' lasts " + std::to_string(duration) + " s, which at " +
                 std::to_string(rate) + " Hz is " + count +
                 " frames; at most 65535 are supported (choose a lower sample rate)"};
  }
  clip.frame_count = static_cast<uint32_t>(frames);
  if (clip.frame_count < kMinFrameCount) {
    warnings.push_back("'" + excerpt(clip.name) + "' is a single pose; it is imported as two identical frames");
    clip.frame_count = kMinFrameCount;
  }
  const OffGridKeys off_grid = off_grid_keys(channels, start, rate);
  if (Status s = check_clip_size(skeleton.bone_count(), clip.frame_count + uint64_t{off_grid.continuous.size()},
                                 settings);
      !s) {
    return Error{"'" + excerpt(clip.name) + "': " + s.error()};
  }

  clip.bones.resize(skeleton.bone_count());
  for (size_t b = 0; b < skeleton.bone_count(); ++b) {
    const Transform& rest = skeleton.rest_pose[b];
    clip.bones[b].translations.assign(clip.frame_count, rest.translation);
    clip.bones[b].rotations.assign(clip.frame_count, rest.rotation);
    clip.bones[b].scales.assign(clip.frame_count, rest.scale);
  }
  for (const Channel& channel : channels) {
    BoneTracks& tracks = clip.bones[static_cast<size_t>(channel.bone)];
    for (uint32_t f = 0; f < clip.frame_count; ++f) {
      double length = 0.0;
      double t = start + f / rate;
      if (channel.interpolation == Interpolation::kStep) t += on_frame_slack_s(t, start, rate);
      if (!store(channel, sample_channel(channel, t), tracks.translations[f], tracks.rotations[f], tracks.scales[f],
                 length)) {
        char text[32];
        std::snprintf(text, sizeof text, "%.6g", length);
        return Error{"'" + excerpt(clip.name) + "' bone '" +
                     excerpt(skeleton.bone_names[static_cast<size_t>(channel.bone)]) +
                     "' has a rotation that is not a usable quaternion at frame " + std::to_string(f) + " (length " +
                     text + ")"};
      }
    }
  }
  for (BoneTracks& tracks : clip.bones) make_rotations_continuous(tracks.rotations);

  Result<std::vector<SourceKeyPose>> poses = key_poses(channels, off_grid.continuous, start, rate, skeleton, clip.name);
  if (!poses) return Error{poses.error()};
  clip.key_poses = std::move(poses.value());
  char rate_text[32];
  std::snprintf(rate_text, sizeof rate_text, "%.6g", rate);
  if (!off_grid.continuous.empty()) {
    warnings.push_back("'" + excerpt(clip.name) + "': " + std::to_string(off_grid.continuous.size()) +
                       " key times fall between frames at " + rate_text +
                       " Hz; the decoded clip is measured at each of them too");
  }
  if (!off_grid.step.empty()) {
    double latest_ms = 0.0;
    for (const double t : off_grid.step) {
      latest_ms = std::max(latest_ms, 1e3 * ((std::ceil((t - start) * rate) / rate) - (t - start)));
    }
    char late[32];
    std::snprintf(late, sizeof late, "%.3g", latest_ms);
    warnings.push_back("'" + excerpt(clip.name) + "': " + std::to_string(off_grid.step.size()) +
                       " STEP key times fall between frames at " + rate_text +
                       " Hz; each jump happens at the next frame, up to " + late + " ms late");
  }
  return clip;
}

}  // namespace

Result<int> choose_animation(const tinygltf::Model& model, const ImportSettings& settings) {
  if (model.animations.empty()) return Error{"the file has no animations to import"};
  if (!settings.animation_name.empty()) {
    std::string names;
    for (size_t i = 0; i < model.animations.size(); ++i) {
      if (model.animations[i].name == settings.animation_name) return static_cast<int>(i);
      names += (i ? ", '" : "'") + excerpt(model.animations[i].name) + "'";
    }
    return Error{"no animation is named '" + excerpt(settings.animation_name) + "' (the file has " +
                 excerpt(names, 300) + ")"};
  }
  if (static_cast<size_t>(settings.animation_index) >= model.animations.size()) {
    return Error{"animation index " + std::to_string(settings.animation_index) + " is out of range (the file has " +
                 std::to_string(model.animations.size()) + " animations, 0 to " +
                 std::to_string(model.animations.size() - 1) + ")"};
  }
  return settings.animation_index;
}

Result<RawClip> resample_animation(const tinygltf::Model& model, int animation_index, const Skeleton& skeleton,
                                   const std::vector<int>& bone_of_node, const ImportSettings& settings,
                                   double& start_s, std::vector<std::string>& warnings) {
  Result<std::vector<Channel>> channels = read_channels(model, animation_index, bone_of_node, warnings);
  if (!channels) return Error{channels.error()};
  return sample_clip(model, animation_index, skeleton, channels.value(), settings, start_s, warnings);
}

}  // namespace ks::gltf
