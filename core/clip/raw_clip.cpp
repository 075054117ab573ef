#include "keystream/clip/raw_clip.h"

#include <cmath>
#include <string>
#include <unordered_set>

#include "keystream/clip/excerpt.h"

namespace ks {

namespace {

constexpr float kUnitTolerance = 1e-4f;

std::string at(const Skeleton& skeleton, size_t bone, const char* track, size_t frame) {
  return "bone " + std::to_string(bone) + " '" + excerpt(skeleton.bone_names[bone]) + "' " + track + " at frame " +
         std::to_string(frame);
}

// What is wrong with a track's source keys, or "" (not keyed: the frames are ignored).
std::string source_keys_problem(const SourceKeys& keys, uint32_t frame_count) {
  if (!keys.keyed()) return {};
  const std::string what = std::string("source keys (") + to_string(keys.interpolation) + ") ";
  if (keys.frames.front() != 0) return what + "start at frame " + std::to_string(keys.frames.front()) + ", not 0";
  if (keys.frames.back() != frame_count - 1) {
    return what + "end at frame " + std::to_string(keys.frames.back()) + ", not the last frame " +
           std::to_string(frame_count - 1);
  }
  for (size_t k = 1; k < keys.frames.size(); ++k) {
    if (keys.frames[k] <= keys.frames[k - 1]) {
      return what + "are not strictly increasing (frame " + std::to_string(keys.frames[k]) + " after " +
             std::to_string(keys.frames[k - 1]) + ")";
    }
  }
  return {};
}

}  // namespace

std::vector<Transform> RawClip::pose_at(uint32_t frame) const {
  std::vector<Transform> pose(bones.size());
  for (size_t b = 0; b < bones.size(); ++b) {
    pose[b] = {bones[b].translations[frame], bones[b].rotations[frame], bones[b].scales[frame]};
  }
  return pose;
}

Status RawClip::validate(const Skeleton& skeleton) const {
  if (!std::isfinite(sample_rate_hz) || !(sample_rate_hz > 0.f)) {
    return Error{"sample rate " + std::to_string(sample_rate_hz) + " Hz is not a positive number"};
  }
  if (frame_count < kMinFrameCount || frame_count > kMaxFrameCount) {
    return Error{"clip has " + std::to_string(frame_count) + " frames; 2 to 65535 are supported"};
  }
  if (bones.size() != skeleton.bone_count()) {
    return Error{"clip animates " + std::to_string(bones.size()) + " bones but the skeleton has " +
                 std::to_string(skeleton.bone_count())};
  }
  for (size_t b = 0; b < bones.size(); ++b) {
    const BoneTracks& t = bones[b];
    if (t.translations.size() != frame_count || t.rotations.size() != frame_count ||
        t.scales.size() != frame_count) {
      return Error{"bone " + std::to_string(b) + " '" + excerpt(skeleton.bone_names[b]) + "' has " +
                   std::to_string(t.translations.size()) + "/" + std::to_string(t.rotations.size()) + "/" +
                   std::to_string(t.scales.size()) + " translation/rotation/scale samples for " +
                   std::to_string(frame_count) + " frames"};
    }
    for (size_t f = 0; f < frame_count; ++f) {
      if (!is_finite(t.translations[f])) return Error{at(skeleton, b, "translation", f) + " is not finite"};
      if (!is_finite(t.scales[f])) return Error{at(skeleton, b, "scale", f) + " is not finite"};
      const Quat q = t.rotations[f];
      if (!is_finite(q)) return Error{at(skeleton, b, "rotation", f) + " is not finite"};
      if (std::fabs(length(q) - 1.f) > kUnitTolerance) {
        return Error{at(skeleton, b, "rotation", f) + " is not a unit quaternion (length " +
                     std::to_string(length(q)) + ")"};
      }
      if (f > 0 && dot(t.rotations[f - 1], q) < 0.f) {
        return Error{at(skeleton, b, "rotation", f) +
                     " is in the opposite hemisphere from the frame before (negative dot product)"};
      }
    }
    const char* const kinds[3] = {"translation", "rotation", "scale"};  // TrackKind's order
    for (size_t k = 0; k < 3; ++k) {
      if (const std::string problem = source_keys_problem(t.source_keys[k], frame_count); !problem.empty()) {
        return Error{"bone " + std::to_string(b) + " '" + excerpt(skeleton.bone_names[b]) + "' " + kinds[k] + " " +
                     problem};
      }
    }
  }
  const float last = static_cast<float>(frame_count - 1);
  for (size_t k = 0; k < key_poses.size(); ++k) {
    const SourceKeyPose& key = key_poses[k];
    const std::string where = "key pose " + std::to_string(k);
    if (!std::isfinite(key.frame_time) || key.frame_time < 0.f || key.frame_time > last ||
        (k > 0 && key.frame_time < key_poses[k - 1].frame_time)) {
      return Error{where + " is at frame time " + std::to_string(key.frame_time) +
                   ", outside the clip or out of order"};
    }
    if (key.pose.size() != skeleton.bone_count()) {
      return Error{where + " has " + std::to_string(key.pose.size()) + " transforms for " +
                   std::to_string(skeleton.bone_count()) + " bones"};
    }
    for (const Transform& t : key.pose) {
      if (!is_finite(t.translation) || !is_finite(t.scale) || !is_finite(t.rotation) ||
          std::fabs(length(t.rotation) - 1.f) > kUnitTolerance) {
        return Error{where + " holds a transform that is not finite or a rotation that is not a unit quaternion"};
      }
    }
  }
  if (Status s = validate_additive_base(skeleton); !s) return s;
  return validate_scalars();
}

Status RawClip::validate_additive_base(const Skeleton& skeleton) const {
  if (!additive_base.additive()) return {};
  if (!key_poses.empty()) return Error{"an additive clip has key poses between frames, where its base is not defined"};
  const size_t n = skeleton.bone_count();
  if (additive_base.poses.size() != n && additive_base.poses.size() != n * frame_count) {
    return Error{"the additive base holds " + std::to_string(additive_base.poses.size()) + " transforms; " +
                 std::to_string(n) + " (one pose) or " + std::to_string(n * frame_count) + " (one per frame) were expected"};
  }
  for (size_t i = 0; i < additive_base.poses.size(); ++i) {
    const Transform& t = additive_base.poses[i];
    const std::string where = "the additive base's bone " + std::to_string(i % n) + " '" +
                              excerpt(skeleton.bone_names[i % n]) + "'" +
                              (additive_base.poses.size() > n ? " at frame " + std::to_string(i / n) : "");
    if (!is_finite(t.translation) || !is_finite(t.scale) || !is_finite(t.rotation) ||
        std::fabs(length(t.rotation) - 1.f) > kUnitTolerance) {
      return Error{where + " is not finite or its rotation is not a unit quaternion"};
    }
    if (t.scale.x == 0.f || t.scale.y == 0.f || t.scale.z == 0.f) {
      return Error{where + " has a scale component 0: a scale ratio to it cannot be taken"};
    }
  }
  return {};
}

Status RawClip::validate_scalars() const {
  if (scalars.size() > kMaxScalarTracks) {
    return Error{"clip has " + std::to_string(scalars.size()) + " scalar tracks; at most " +
                 std::to_string(kMaxScalarTracks) + " are supported"};
  }
  std::unordered_set<std::string_view> names;
  for (size_t s = 0; s < scalars.size(); ++s) {
    const ScalarTrack& track = scalars[s];
    const std::string where = "scalar track " + std::to_string(s) + " '" + excerpt(track.name) + "'";
    if (track.name.empty() || track.name.size() > 0xFFFFu) {
      return Error{where + " has a name of " + std::to_string(track.name.size()) + " bytes; 1 to 65535 are supported"};
    }
    if (!names.insert(track.name).second) return Error{where + " has the name of an earlier scalar track"};
    if (track.components < 1 || track.components > kMaxScalarComponents) {
      return Error{where + " has " + std::to_string(track.components) + " components; 1 to 4 are supported"};
    }
    if (track.values.size() != size_t{frame_count} * track.components) {
      return Error{where + " has " + std::to_string(track.values.size()) + " values for " +
                   std::to_string(frame_count) + " frames of " + std::to_string(track.components) + " components"};
    }
    for (size_t i = 0; i < track.values.size(); ++i) {
      if (!std::isfinite(track.values[i])) {
        return Error{where + " at frame " + std::to_string(i / track.components) + " is not finite"};
      }
    }
    if (const std::string problem = source_keys_problem(track.source_keys, frame_count); !problem.empty()) {
      return Error{where + " " + problem};
    }
  }
  return {};
}

const char* to_string(AdditiveBase base) {
  switch (base) {
    case AdditiveBase::kNone: return "none";
    case AdditiveBase::kFirstFrame: return "first-frame";
    case AdditiveBase::kBindPose: return "bind-pose";
    case AdditiveBase::kClip: return "clip";
  }
  return "unknown";
}

const char* to_string(ScalarTarget target) {
  switch (target) {
    case ScalarTarget::kCurve: return "curve";
    case ScalarTarget::kMorphWeight: return "morph weight";
  }
  return "unknown";
}

void make_rotations_continuous(std::span<Quat> rotations) {
  for (size_t i = 0; i < rotations.size(); ++i) {
    rotations[i] = normalize(rotations[i]);
    if (i > 0 && dot(rotations[i - 1], rotations[i]) < 0.f) rotations[i] = -rotations[i];
  }
}

void track_value(const BoneTracks& bone, TrackKind kind, uint32_t frame, float out[4]) {
  track_value(Transform{bone.translations[frame], bone.rotations[frame], bone.scales[frame]}, kind, out);
}

void track_value(const Transform& transform, TrackKind kind, float out[4]) {
  if (kind == TrackKind::kRotation) {
    const Quat& q = transform.rotation;
    out[0] = q.x, out[1] = q.y, out[2] = q.z, out[3] = q.w;
    return;
  }
  const Vec3& v = kind == TrackKind::kTranslation ? transform.translation : transform.scale;
  out[0] = v.x, out[1] = v.y, out[2] = v.z, out[3] = 0.f;
}

}  // namespace ks
