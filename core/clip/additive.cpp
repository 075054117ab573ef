#include "keystream/clip/additive.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "keystream/clip/excerpt.h"
#include "keystream/runtime/additive.h"

namespace ks {

namespace {

// `base`'s pose at `time` seconds: linear between its frames (rotations
// normalised), its last frame past its end.
std::vector<Transform> base_clip_pose(const RawClip& base, float time) {
  const float at = std::max(0.f, time * base.sample_rate_hz);
  const uint32_t last = base.frame_count - 1;
  const uint32_t f = std::min(static_cast<uint32_t>(at), last);
  const float u = f == last ? 0.f : at - static_cast<float>(f);
  std::vector<Transform> pose = base.pose_at(f);
  if (u <= 0.f) return pose;
  const std::vector<Transform> next = base.pose_at(f + 1);
  for (size_t b = 0; b < pose.size(); ++b) {
    const Quat& q0 = pose[b].rotation;
    const Quat q1 = dot(q0, next[b].rotation) < 0.f ? -next[b].rotation : next[b].rotation;
    pose[b] = {pose[b].translation + u * (next[b].translation - pose[b].translation),
               normalize(Quat{q0.x + u * (q1.x - q0.x), q0.y + u * (q1.y - q0.y), q0.z + u * (q1.z - q0.z),
                              q0.w + u * (q1.w - q0.w)}),
               pose[b].scale + u * (next[b].scale - pose[b].scale)};
  }
  return pose;
}

}  // namespace

Result<RawClip> make_additive(const Skeleton& skeleton, const RawClip& clip, const AdditiveSource& source) {
  if (source.base == AdditiveBase::kNone) return Error{"no additive base given"};
  if (clip.additive_base.additive()) return Error{"the clip is additive already"};
  AdditiveBasePoses base{source.base, {}, {}};
  switch (source.base) {
    case AdditiveBase::kFirstFrame: base.poses = clip.pose_at(0); break;
    case AdditiveBase::kBindPose: base.poses = skeleton.rest_pose; break;
    case AdditiveBase::kClip: {
      const RawClip* other = source.clip;
      if (other == nullptr) return Error{"the additive base clip is missing"};
      const std::string named = "the additive base \"" + excerpt(source.name) + "\"";
      if (other->bones.size() != clip.bones.size()) {
        return Error{named + " animates " + std::to_string(other->bones.size()) + " bones, the clip " +
                     std::to_string(clip.bones.size())};
      }
      if (other->additive_base.additive()) return Error{named + " is itself additive"};
      if (other->frame_count == 0) return Error{named + " has no frames"};
      base.name = source.name;
      base.poses.reserve(size_t{clip.frame_count} * clip.bones.size());
      for (uint32_t f = 0; f < clip.frame_count; ++f) {
        const std::vector<Transform> pose = base_clip_pose(*other, static_cast<float>(f) / clip.sample_rate_hz);
        base.poses.insert(base.poses.end(), pose.begin(), pose.end());
      }
      break;
    }
    case AdditiveBase::kNone: break;
  }
  if (base.poses.size() < clip.bones.size()) return Error{"the additive base has a pose of fewer bones than the clip"};
  RawClip out = clip;
  out.key_poses.clear();
  out.additive_base = std::move(base);
  if (Status s = out.validate_additive_base(skeleton); !s) return Error{s.error()};
  for (uint32_t f = 0; f < clip.frame_count; ++f) {
    const std::span<const Transform> at = out.additive_base.at(f, clip.bones.size());
    for (size_t b = 0; b < clip.bones.size(); ++b) {
      BoneTracks& bone = out.bones[b];
      const Transform d =
          additive_difference(at[b], Transform{bone.translations[f], bone.rotations[f], bone.scales[f]});
      bone.translations[f] = d.translation;
      bone.rotations[f] = d.rotation;
      bone.scales[f] = d.scale;
    }
  }
  for (BoneTracks& bone : out.bones) make_rotations_continuous(bone.rotations);
  // Against a constant base the difference (base^-1 q, t - tb, s / sb)
  // interpolates between the source's keys as the clip does; against a base
  // clip, which varies per frame, it does not.
  if (source.base == AdditiveBase::kClip) {
    for (BoneTracks& bone : out.bones) {
      for (SourceKeys& keys : bone.source_keys) keys = {};
    }
  }
  return out;
}

void compose_on_base(const RawClip& clip, uint32_t frame, std::span<Transform> pose) {
  if (!clip.additive_base.additive()) return;
  const std::span<const Transform> base = clip.additive_base.at(frame, pose.size());
  apply_additive(base, pose, 1.f, pose);
}

RawClip composed_clip(const RawClip& clip) {
  RawClip out = clip;
  if (!clip.additive_base.additive()) return out;
  out.additive_base = {};
  out.key_poses.clear();
  std::vector<Transform> pose;
  for (uint32_t f = 0; f < clip.frame_count; ++f) {
    pose = clip.pose_at(f);
    compose_on_base(clip, f, pose);
    for (size_t b = 0; b < pose.size(); ++b) {
      out.bones[b].translations[f] = pose[b].translation;
      out.bones[b].rotations[f] = pose[b].rotation;
      out.bones[b].scales[f] = pose[b].scale;
    }
  }
  // Only negated into one hemisphere, not normalised: negation is exact, so
  // the composed pose stays the one compose_on_base gives, bit for bit in
  // model space (the fit's source is this clip, measure's compose_on_base).
  for (BoneTracks& bone : out.bones) {
    for (size_t f = 1; f < bone.rotations.size(); ++f) {
      if (dot(bone.rotations[f - 1], bone.rotations[f]) < 0.f) bone.rotations[f] = -bone.rotations[f];
    }
  }
  return out;
}

}  // namespace ks
