#include "core/io/gltf_animation.h"

#include <tiny_gltf.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>

#include "core/io/excerpt.h"
#include "core/io/gltf_accessor.h"

namespace ks::gltf {

namespace {

constexpr float kFallbackRateHz = 30.f;
// Bones x frames beyond this would need gigabytes; refuse rather than crash.

// ---------------------------------------------------------------------------
// Channels

enum class Path { kTranslation, kRotation, kScale };
enum class Interpolation { kStep, kLinear, kCubicSpline };

// One channel's keys, checked and ready to sample.
struct Channel {
  int bone = -1;
  Path path = Path::kTranslation;
  Interpolation interpolation = Interpolation::kLinear;
  std::vector<float> times;   // non-decreasing, seconds
  std::vector<float> values;  // components per key (x3 for CUBICSPLINE: in-tangent, value, out-tangent)
  int components = 3;
};

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

// The keys' own rate when every key time of every channel lies on one
// uniform grid starting at `start_s`; otherwise 0.
double uniform_key_rate(const std::vector<Channel>& channels, double start_s, double end_s) {
  // The smallest gap between keys, and how far float rounding of the two key
  // times may have moved it (late in a long clip, a few microseconds).
  double smallest_gap = 0.0, gap_error = 0.0;
  for (const Channel& channel : channels) {
    for (size_t k = 1; k < channel.times.size(); ++k) {
      const double gap = static_cast<double>(channel.times[k]) - channel.times[k - 1];
      if (gap > 1e-6 && (smallest_gap == 0.0 || gap < smallest_gap)) {
        smallest_gap = gap;
        const float t = std::fabs(channel.times[k]);
        gap_error = 2.0 * (static_cast<double>(std::nextafter(t, INFINITY)) - t);
      }
    }
  }
  const double span = end_s - start_s;
  if (smallest_gap == 0.0 || span <= 0.0) return 0.0;
  // The span is a whole number of steps; it pins the step more precisely
  // than a single float difference does. Every count of steps the measured
  // gap allows is tried, fewest first (more steps would also fit the keys).
  const double fewest = std::max(1.0, std::floor(span / (smallest_gap + gap_error)));
  const double most = std::ceil(span / std::max(smallest_gap - gap_error, 1e-9));
  for (double steps = fewest; steps <= most && steps <= fewest + 64.0; ++steps) {
    const double step = span / steps;
    bool on_grid = true;
    for (const Channel& channel : channels) {
      for (const float t : channel.times) {
        const double position = (t - start_s) / step;
        on_grid = on_grid && std::fabs(position - std::round(position)) <= 1e-3;
      }
    }
    if (!on_grid) continue;
    double rate = 1.0 / step;
    // Float key times put 24 Hz at 23.99999; report the rate people expect.
    if (std::fabs(rate - std::round(rate)) < 1e-3 * rate) rate = std::round(rate);
    return rate;
  }
  return 0.0;
}

// The resampling rate: the setting, else the keys' own rate where uniform,
// else 30 Hz. Between its keys a LINEAR channel is exactly what resampling
// at the key rate and interpolating gives back; a STEP jump or a CUBICSPLINE
// bulge is not, so those get a whole multiple of the key rate of at least
// 30 Hz (keys still land on frames).
double resampling_rate(const std::vector<Channel>& channels, double start_s, double end_s,
                       const ImportSettings& settings) {
  if (settings.sample_rate_hz > 0.f) return settings.sample_rate_hz;
  double key_rate = uniform_key_rate(channels, start_s, end_s);
  // Keys further apart than a second still land on frames at a whole
  // multiple of their rate; keys closer than the fastest rate cannot.
  if (key_rate > 0.0 && key_rate < kMinSampleRateHz) key_rate *= std::ceil(kMinSampleRateHz / key_rate - 1e-9);
  if (key_rate <= 0.0 || key_rate > kMaxSampleRateHz) return kFallbackRateHz;
  const bool all_linear = std::all_of(channels.begin(), channels.end(),
                                      [](const Channel& c) { return c.interpolation == Interpolation::kLinear; });
  if (all_linear || key_rate >= kFallbackRateHz) return key_rate;
  return key_rate * std::ceil(kFallbackRateHz / key_rate - 1e-9);
}

// Value of `channel` at time t (seconds) as the glTF specification defines
// it: held before the first key and after the last.
std::array<double, 4> sample_channel(const Channel& channel, double t) {
  const size_t comps = static_cast<size_t>(channel.components);
  const bool cubic = channel.interpolation == Interpolation::kCubicSpline;
  const size_t stride = cubic ? comps * 3 : comps;
  const size_t value_offset = cubic ? comps : 0;  // skip the in-tangent
  auto value = [&](size_t key, size_t c) {
    return static_cast<double>(channel.values[key * stride + value_offset + c]);
  };
  std::array<double, 4> out{0, 0, 0, 0};

  const size_t n = channel.times.size();
  // First key with time > t; the segment is [next - 1, next].
  const size_t next = static_cast<size_t>(
      std::upper_bound(channel.times.begin(), channel.times.end(), t, [](double a, float b) { return a < b; }) -
      channel.times.begin());
  if (next == 0 || next == n) {
    const size_t key = next == 0 ? 0 : n - 1;
    for (size_t c = 0; c < comps; ++c) out[c] = value(key, c);
    return out;
  }
  const size_t k = next - 1;
  const double t0 = channel.times[k];
  const double t1 = channel.times[next];
  const double dt = t1 - t0;
  const double s = dt > 0.0 ? (t - t0) / dt : 0.0;

  if (channel.interpolation == Interpolation::kStep) {
    for (size_t c = 0; c < comps; ++c) out[c] = value(k, c);
  } else if (channel.interpolation == Interpolation::kLinear) {
    if (channel.path == Path::kRotation) {
      // Spherical linear interpolation along the shorter arc.
      double d = 0.0;
      for (size_t c = 0; c < 4; ++c) d += value(k, c) * value(next, c);
      const double sign = d < 0.0 ? -1.0 : 1.0;
      d = std::fabs(d);
      double w0 = 1.0 - s;
      double w1 = s;
      if (d < 0.9995) {
        const double theta = std::acos(std::min(d, 1.0));
        const double sin_theta = std::sin(theta);
        w0 = std::sin((1.0 - s) * theta) / sin_theta;
        w1 = std::sin(s * theta) / sin_theta;
      }
      for (size_t c = 0; c < 4; ++c) out[c] = w0 * value(k, c) + w1 * sign * value(next, c);
    } else {
      for (size_t c = 0; c < comps; ++c) out[c] = (1.0 - s) * value(k, c) + s * value(next, c);
    }
  } else {
    const double s2 = s * s;
    const double s3 = s2 * s;
    const double h00 = 2 * s3 - 3 * s2 + 1, h10 = s3 - 2 * s2 + s, h01 = -2 * s3 + 3 * s2, h11 = s3 - s2;
    for (size_t c = 0; c < comps; ++c) {
      const double out_tangent = channel.values[k * stride + 2 * comps + c];
      const double in_tangent = channel.values[next * stride + c];
      out[c] = h00 * value(k, c) + h10 * dt * out_tangent + h01 * value(next, c) + h11 * dt * in_tangent;
    }
  }
  return out;
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
  const double rate = resampling_rate(channels, start, end, settings);
  clip.sample_rate_hz = static_cast<float>(rate);
  start_s = start;

  // The last frame is the first at or after the last key, so no key is cut
  // off; the slack absorbs float key times (82.00008 frames is 82).
  const double frames = std::ceil(duration * rate - 0.01) + 1.0;
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
  if (Status s = check_clip_size(skeleton.bone_count(), clip.frame_count, settings); !s) {
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
      const std::array<double, 4> v = sample_channel(channel, start + f / rate);
      const Vec3 v3{static_cast<float>(v[0]), static_cast<float>(v[1]), static_cast<float>(v[2])};
      switch (channel.path) {
        case Path::kTranslation: tracks.translations[f] = v3; break;
        case Path::kScale: tracks.scales[f] = v3; break;
        case Path::kRotation: {
          const Quat q{static_cast<float>(v[0]), static_cast<float>(v[1]), static_cast<float>(v[2]),
                       static_cast<float>(v[3])};
          if (!(length(q) > 1e-6f)) {
            return Error{"'" + excerpt(clip.name) + "' bone '" +
                         excerpt(skeleton.bone_names[static_cast<size_t>(channel.bone)]) +
                         "' has a zero rotation at frame " + std::to_string(f)};
          }
          tracks.rotations[f] = q;
          break;
        }
      }
    }
  }
  for (BoneTracks& tracks : clip.bones) make_rotations_continuous(tracks.rotations);
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
