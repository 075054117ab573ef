#include "keystream/io/channel_resample.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>
#include <cstdio>
#include <iterator>

#include "keystream/clip/excerpt.h"
#include "keystream/io/gltf_sample_rate.h"

namespace ks::gltf {

namespace {

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
    case Path::kWeight: return true;  // a scalar track, not part of a pose
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
// (STEP), and continuous ones by whether a bone's channel has them (a key
// pose holds bones only, so a scalar track's key is not one).
struct OffGridKeys {
  std::vector<double> continuous;         // of bone channels
  std::vector<double> continuous_scalar;  // of scalar channels only (morph weights)
  std::vector<double> step;
};

OffGridKeys off_grid_keys(const std::vector<Channel>& channels, double start, double rate) {
  OffGridKeys keys;
  for (const Channel& channel : channels) {
    std::vector<double>& out = channel.interpolation == Interpolation::kStep ? keys.step
                               : channel.path == Path::kWeight               ? keys.continuous_scalar
                                                                             : keys.continuous;
    for (const float t : channel.times) {
      if (!on_frame(t, start, rate)) out.push_back(t);
    }
  }
  for (std::vector<double>* times : {&keys.continuous, &keys.continuous_scalar, &keys.step}) {
    std::sort(times->begin(), times->end());
    times->erase(std::unique(times->begin(), times->end()), times->end());
  }
  // A time a bone's key already makes a key pose needs no word of its own.
  std::vector<double> scalar_only;
  std::set_difference(keys.continuous_scalar.begin(), keys.continuous_scalar.end(), keys.continuous.begin(),
                      keys.continuous.end(), std::back_inserter(scalar_only));
  keys.continuous_scalar = std::move(scalar_only);
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
      if (channel.path == Path::kWeight) continue;
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

// The frames `channel`'s keys fall on, where a LINEAR or STEP channel has
// every key on a frame (raw_clip.h SourceKeys), with frame 0 and the last
// frame added: the value held before the first key and after the last is
// what a key there holding it gives, linear or step alike.
SourceKeys source_keys_of(const Channel& channel, double start, double rate, uint32_t frame_count) {
  if (channel.interpolation == Interpolation::kCubicSpline) return {};
  SourceKeys keys;
  keys.interpolation =
      channel.interpolation == Interpolation::kStep ? ks::Interpolation::kStep : ks::Interpolation::kLinear;
  keys.frames.push_back(0);
  for (size_t k = 0; k < channel.times.size(); ++k) {
    const float t = channel.times[k];
    if (!on_frame(t, start, rate)) return {};
    // A last key within on_frame's slack past the last frame is on it.
    const uint32_t frame = std::min(static_cast<uint32_t>(std::round((t - start) * rate)), frame_count - 1);
    // Two keys at one frame (a jump) are no curve of one key per frame.
    if (k > 0 && frame == keys.frames.back()) return {};
    keys.frames.push_back(frame);
  }
  keys.frames.push_back(frame_count - 1);
  keys.frames.erase(std::unique(keys.frames.begin(), keys.frames.end()), keys.frames.end());
  return keys;
}

// Where a bone's source keys of `path` go in BoneTracks::source_keys.
size_t track_index(Path path) {
  switch (path) {
    case Path::kTranslation: return static_cast<size_t>(TrackKind::kTranslation);
    case Path::kRotation: return static_cast<size_t>(TrackKind::kRotation);
    case Path::kScale: return static_cast<size_t>(TrackKind::kScale);
    case Path::kWeight: break;
  }
  assert(false && "a weight channel drives a scalar track, not a bone's");
  return 0;
}

// The source time at which `channel` is sampled for frame `frame`: a STEP
// channel a hair late, so a key on a frame jumps at that frame.
double sample_time(const Channel& channel, uint32_t frame, double start, double rate) {
  const double t = start + frame / rate;
  return channel.interpolation == Interpolation::kStep ? t + on_frame_slack_s(t, start, rate) : t;
}

// As sample_time, but where one of a continuous channel's own keys lands on
// the frame (on_frame: within float noise of it), that key's time: the frame
// then holds the key's value exactly, not the slope's a microsecond away
// (AnimatedMorphCube's 30 Hz keys drift 3e-6 s from the frames, 3e-6 off in
// weight). Bone channels keep sampling at the frame time, so that clips
// imported before scalar tracks existed stay the same.
double scalar_sample_time(const Channel& channel, uint32_t frame, double start, double rate) {
  const double t = sample_time(channel, frame, start, rate);
  if (channel.interpolation == Interpolation::kStep) return t;  // its slack already reaches the key
  // The keys either side of t are the only ones that can be on this frame.
  const size_t after = static_cast<size_t>(
      std::lower_bound(channel.times.begin(), channel.times.end(), t, [](float key, double x) { return key < x; }) -
      channel.times.begin());
  double chosen = t;
  double closest = INFINITY;  // frames
  for (size_t k = after > 0 ? after - 1 : 0; k < std::min(after + 1, channel.times.size()); ++k) {
    const double key = channel.times[k];
    const double distance = std::fabs((key - start) * rate - frame);
    if (distance <= rate * on_frame_slack_s(key, start, rate) && distance < closest) {
      chosen = key;
      closest = distance;
    }
  }
  return chosen;
}

// Samples every weight channel into its scalar track at every frame, as the
// bone channels are sampled (scalar_sample_time: a key on a frame exactly).
// Refuses a value past float's range (a CUBICSPLINE tangent of 3e38 reaches
// it between keys).
Status sample_scalar_channels(const std::vector<Channel>& channels, double start, double rate, RawClip& clip) {
  for (const Channel& channel : channels) {
    if (channel.path != Path::kWeight) continue;
    assert(channel.scalar >= 0 && static_cast<size_t>(channel.scalar) < clip.scalars.size());
    ScalarTrack& track = clip.scalars[static_cast<size_t>(channel.scalar)];
    assert(channel.components >= 1 && static_cast<uint32_t>(channel.components) <= track.components);
    track.source_keys = source_keys_of(channel, start, rate, clip.frame_count);
    for (uint32_t f = 0; f < clip.frame_count; ++f) {
      const std::array<double, 4> v = sample_channel(channel, scalar_sample_time(channel, f, start, rate));
      for (size_t c = 0; c < static_cast<size_t>(channel.components); ++c) {
        const float value = static_cast<float>(v[c]);
        if (!std::isfinite(value)) {
          return Error{"'" + excerpt(clip.name) + "' scalar track '" + excerpt(track.name) +
                       "' leaves the range of a float at frame " + std::to_string(f) +
                       " (its keys or tangents are too large)"};
        }
        track.values[size_t{f} * track.components + c] = value;
      }
    }
  }
  return {};
}

}  // namespace

Result<RawClip> resample_channels(const std::string& clip_name, const Skeleton& skeleton,
                                  const std::vector<Channel>& channels, const ImportSettings& settings, double& start_s,
                                  std::vector<std::string>& warnings) {
  return resample_channels(clip_name, skeleton, channels, {}, settings, start_s, warnings);
}

Result<RawClip> resample_channels(const std::string& clip_name, const Skeleton& skeleton,
                                  const std::vector<Channel>& channels, std::vector<ScalarTrack> scalars,
                                  const ImportSettings& settings, double& start_s, std::vector<std::string>& warnings) {
  RawClip clip;
  clip.name = clip_name;

  // The clip runs from the first key to the last: a source that starts at
  // 1/24 s (a Blender frame 1) has no held pose before it.
  double start = channels.empty() ? 0.0 : channels.front().times.front();
  double end = start;
  for (const Channel& channel : channels) {
    start = std::min(start, static_cast<double>(channel.times.front()));
    end = std::max(end, static_cast<double>(channel.times.back()));
  }
  const double duration = end - start;
  // A scalar component costs at most what a bone does; the limit counts it as one.
  uint64_t scalar_components = 0;
  for (const ScalarTrack& track : scalars) scalar_components += track.components;
  const double rate = resampling_rate(channels, start, end, skeleton.bone_count() + scalar_components, settings);
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
                                 settings, scalar_components);
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
    if (channel.path == Path::kWeight) continue;
    BoneTracks& tracks = clip.bones[static_cast<size_t>(channel.bone)];
    tracks.source_keys[track_index(channel.path)] = source_keys_of(channel, start, rate, clip.frame_count);
    for (uint32_t f = 0; f < clip.frame_count; ++f) {
      double length = 0.0;
      if (!store(channel, sample_channel(channel, sample_time(channel, f, start, rate)), tracks.translations[f],
                 tracks.rotations[f], tracks.scales[f], length)) {
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
  clip.scalars = std::move(scalars);
  for (ScalarTrack& track : clip.scalars) track.values.assign(size_t{clip.frame_count} * track.components, 0.f);
  if (Status s = sample_scalar_channels(channels, start, rate, clip); !s) return Error{s.error()};

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
  if (!off_grid.continuous_scalar.empty()) {
    // A key pose holds bones only: there a scalar track is what its frames make of it.
    warnings.push_back("'" + excerpt(clip.name) + "': " + std::to_string(off_grid.continuous_scalar.size()) +
                       " scalar-track key times fall between frames at " + rate_text +
                       " Hz; the decoded tracks are measured at the frames only");
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

}  // namespace ks::gltf
