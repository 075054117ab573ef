#include "keystream/io/assimp_animation.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <type_traits>

#include "keystream/clip/excerpt.h"
#include "keystream/io/assimp_morph.h"
#include "keystream/io/channel_resample.h"

namespace ks::assimp {

namespace {

// assimp's own players assume this rate where a file gives none.
constexpr double kDefaultTicksPerSecond = 25.0;

struct Keys {
  std::vector<float> times;
  std::vector<float> values;
};

// Key times in seconds, checked finite and non-decreasing.
template <typename Key>
Result<std::vector<float>> key_times(const Key* keys, unsigned count, double ticks_per_second,
                                     const std::string& where) {
  std::vector<float> times(count);
  for (unsigned k = 0; k < count; ++k) {
    const double t = keys[k].mTime / ticks_per_second;
    if (!std::isfinite(t) || std::fabs(t) > 1e7) {
      return Error{where + " key " + std::to_string(k) + " has a time that is not a usable number"};
    }
    times[k] = static_cast<float>(t);
    if (k > 0 && times[k] < times[k - 1]) {
      return Error{where + " key times decrease (key " + std::to_string(k) + " at " + std::to_string(times[k]) +
                   " s comes after " + std::to_string(times[k - 1]) + " s)"};
    }
  }
  return times;
}

// The channels of one node: translation, rotation and scale, each where it
// has keys, in the skeleton's units.
Status add_node_channels(const aiNodeAnim& source, size_t node, int target, const SceneSkeleton& skeleton,
                         double ticks_per_second, const std::string& where, std::vector<gltf::Channel>& out) {
  const double metres = skeleton.translation_scale[node];
  const double scale = node == 0 ? 1.0 / skeleton.root_scale : 1.0;
  const auto add = [&](gltf::Path path, auto* keys, unsigned count, const char* what) -> Status {
    if (count == 0) return {};
    if (keys == nullptr) return Error{where + " has no " + what + " keys but a count of them"};
    Result<std::vector<float>> times = key_times(keys, count, ticks_per_second, where + " " + what);
    if (!times) return Error{times.error()};
    gltf::Channel channel;
    channel.bone = target;
    channel.path = path;
    channel.interpolation = gltf::Interpolation::kLinear;
    channel.components = path == gltf::Path::kRotation ? 4 : 3;
    channel.times = std::move(times.value());
    channel.values.reserve(count * static_cast<size_t>(channel.components));
    for (unsigned k = 0; k < count; ++k) {
      if constexpr (std::is_same_v<std::remove_cv_t<std::remove_pointer_t<decltype(keys)>>, aiQuatKey>) {
        const aiQuaternion& q = keys[k].mValue;
        channel.values.insert(channel.values.end(), {q.x, q.y, q.z, q.w});
      } else {
        const double factor = path == gltf::Path::kTranslation ? metres : scale;
        const aiVector3D& v = keys[k].mValue;
        channel.values.insert(channel.values.end(), {static_cast<float>(v.x * factor), static_cast<float>(v.y * factor),
                                                     static_cast<float>(v.z * factor)});
      }
    }
    if (!std::all_of(channel.values.begin(), channel.values.end(), [](float v) { return std::isfinite(v); })) {
      return Error{where + " has " + what + " keys that are not finite"};
    }
    out.push_back(std::move(channel));
    return {};
  };
  if (Status s = add(gltf::Path::kTranslation, source.mPositionKeys, source.mNumPositionKeys, "position"); !s) return s;
  if (Status s = add(gltf::Path::kRotation, source.mRotationKeys, source.mNumRotationKeys, "rotation"); !s) return s;
  return add(gltf::Path::kScale, source.mScalingKeys, source.mNumScalingKeys, "scaling");
}

// Folds the helper nodes of a clip sampled over skeleton.targets into the bones.
RawClip fold_clip(const SceneSkeleton& skeleton, const RawClip& targets) {
  RawClip clip;
  clip.name = targets.name;
  clip.sample_rate_hz = targets.sample_rate_hz;
  clip.frame_count = targets.frame_count;
  clip.scalars = targets.scalars;
  // No bone source keys: a folded bone mixes several nodes' keys, each at its own frames.
  const size_t bones = skeleton.skeleton.bone_count();
  clip.bones.resize(bones);
  for (BoneTracks& tracks : clip.bones) {
    tracks.translations.resize(clip.frame_count);
    tracks.rotations.resize(clip.frame_count);
    tracks.scales.resize(clip.frame_count);
  }
  std::vector<Transform> bone_pose(bones);
  for (uint32_t f = 0; f < clip.frame_count; ++f) {
    fold_pose(skeleton, targets.pose_at(f), bone_pose);
    for (size_t b = 0; b < bones; ++b) {
      clip.bones[b].translations[f] = bone_pose[b].translation;
      clip.bones[b].rotations[f] = bone_pose[b].rotation;
      clip.bones[b].scales[f] = bone_pose[b].scale;
    }
  }
  for (BoneTracks& tracks : clip.bones) make_rotations_continuous(tracks.rotations);
  for (const SourceKeyPose& key : targets.key_poses) {
    SourceKeyPose& folded = clip.key_poses.emplace_back();
    folded.frame_time = key.frame_time;
    folded.pose.resize(bones);
    fold_pose(skeleton, key.pose, folded.pose);
  }
  return clip;
}

}  // namespace

std::vector<std::string> animation_names(const aiScene& scene) {
  std::vector<std::string> names;
  for (unsigned a = 0; a < scene.mNumAnimations; ++a) {
    const aiString& name = scene.mAnimations[a]->mName;
    names.emplace_back(name.C_Str(), name.length);
  }
  return names;
}

Result<RawClip> resample_animation(const aiScene& scene, const NodeTree& tree, const SceneSkeleton& skeleton,
                                   unsigned index, bool collada, const ImportSettings& settings, double& start_s,
                                   std::vector<std::string>& warnings) {
  const aiAnimation& animation = *scene.mAnimations[index];
  const std::string clip_name =
      animation.mName.length == 0 ? "animation_" + std::to_string(index) : std::string(animation.mName.C_Str());
  const std::string quoted = "'" + excerpt(clip_name) + "'";
  double ticks_per_second = animation.mTicksPerSecond;
  if (!(ticks_per_second > 0.0) || !std::isfinite(ticks_per_second)) {
    warnings.push_back(quoted + " states no ticks per second; assimp's default, 25, is used");
    ticks_per_second = kDefaultTicksPerSecond;
  }

  MorphWeights morph = read_morph_weights(animation, tree, scene, ticks_per_second, quoted, warnings);
  std::vector<int> morphed;  // nodes a morph channel names, read or not
  for (unsigned c = 0; collada && animation.mMorphMeshChannels != nullptr && c < animation.mNumMorphMeshChannels; ++c) {
    if (animation.mMorphMeshChannels[c] != nullptr) {
      morphed.push_back(morph_channel_node(tree, animation.mMorphMeshChannels[c]->mName));
    }
  }
  std::vector<gltf::Channel> channels;
  std::vector<aiAnimBehaviour> behaviour;  // per channel: what it asks for outside its keys
  for (unsigned c = 0; c < animation.mNumChannels; ++c) {
    const aiNodeAnim* source = animation.mChannels[c];
    const int node = source == nullptr ? -1 : find_node(tree, source->mNodeName);
    // No node, or one the skeleton leaves out (a camera or a light):
    // read_skeleton warned.
    if (node < 0 || skeleton.target_of_node[static_cast<size_t>(node)] < 0) continue;
    // assimp 5.2 writes a Collada node's morph weights into its first
    // transform too, so the node channel it makes for that node is not the file's.
    if (std::find(morphed.begin(), morphed.end(), node) != morphed.end()) {
      warnings.push_back(quoted + " node '" + excerpt(source->mNodeName.C_Str()) +
                         "': assimp 5.2 mixes its morph weights into its transform; the node keeps its rest pose");
      continue;
    }
    const std::string where = quoted + " node '" + excerpt(source->mNodeName.C_Str()) + "'";
    const size_t before = channels.size();
    if (Status s =
            add_node_channels(*source, static_cast<size_t>(node), skeleton.target_of_node[static_cast<size_t>(node)],
                              skeleton, ticks_per_second, where, channels);
        !s) {
      return Error{s.error()};
    }
    const aiAnimBehaviour held = source->mPreState != aiAnimBehaviour_CONSTANT ? source->mPreState : source->mPostState;
    behaviour.insert(behaviour.end(), channels.size() - before, held);
  }
  if (animation.mNumMeshChannels > 0) {
    warnings.push_back(quoted + ": " + std::to_string(animation.mNumMeshChannels) +
                       " mesh (vertex) animation channels were ignored");
  }
  // Morph weights hold their first and last keys, as glTF's do.
  behaviour.insert(behaviour.end(), morph.channels.size(), aiAnimBehaviour_CONSTANT);
  channels.insert(channels.end(), std::make_move_iterator(morph.channels.begin()),
                  std::make_move_iterator(morph.channels.end()));
  if (channels.empty()) return Error{quoted + " moves no node and no morph weight"};

  double first = channels.front().times.front(), last = channels.front().times.back();
  for (const gltf::Channel& channel : channels) {
    first = std::min(first, static_cast<double>(channel.times.front()));
    last = std::max(last, static_cast<double>(channel.times.back()));
  }
  size_t partial = 0;
  for (size_t c = 0; c < channels.size(); ++c) {
    const bool spans = channels[c].times.front() <= first && channels[c].times.back() >= last;
    if (!spans && behaviour[c] != aiAnimBehaviour_CONSTANT) ++partial;
  }
  if (partial > 0) {
    warnings.push_back(quoted + ": " + std::to_string(partial) +
                       " channels start after or end before the animation and ask for their node's rest value "
                       "(or a repeat) there; they hold their first and last key instead");
  }
  const double duration_s = animation.mDuration / ticks_per_second;
  if (std::isfinite(duration_s) && duration_s > last + 1.0 / 30.0) {
    char text[96];
    std::snprintf(text, sizeof text, "lasts %.4g s by the file but its keys end at %.4g s", duration_s, last);
    warnings.push_back(quoted + " " + text + "; the clip ends at the last key");
  }

  // Sampled over the targets (the bones, or the bones and the helpers folded into them).
  const Skeleton& sampled = skeleton.folds_helpers ? skeleton.targets : skeleton.skeleton;
  // Without helpers, targets and bones are the same nodes in the same order.
  Result<RawClip> clip =
      gltf::resample_channels(clip_name, sampled, channels, std::move(morph.tracks), settings, start_s, warnings);
  if (!clip || !skeleton.folds_helpers) return clip;
  return fold_clip(skeleton, clip.value());
}

}  // namespace ks::assimp
