#include "app/studio/viewport/additive_pose.h"

#include <algorithm>
#include <cassert>

#include "keystream/runtime/additive.h"

namespace ks::studio {

namespace {

// Where `frame_time` falls among a clip's frames: frames f0 and f1, a of the way.
struct FrameSpan {
  uint32_t f0 = 0, f1 = 0;
  float a = 0.f;
};

FrameSpan frame_span(uint32_t frame_count, float frame_time) {
  if (frame_count == 0) return {};
  const uint32_t last = frame_count - 1;
  // NaN becomes frame 0, as in source_pose_at.
  const float t = frame_time > 0.f ? std::min(frame_time, static_cast<float>(last)) : 0.f;
  const uint32_t f0 = std::min(static_cast<uint32_t>(t), last);
  return {f0, std::min(f0 + 1, last), t - static_cast<float>(f0)};
}

// Bone `b` of the base (`bones` bones) at `at`; one frame's pose as it is.
Transform base_bone(const AdditiveBasePoses& base, const FrameSpan& at, size_t b, size_t bones) {
  const Transform& p0 = base.at(at.f0, bones)[b];
  if (at.a == 0.f || base.poses.size() <= bones) return p0;
  const Transform& p1 = base.at(at.f1, bones)[b];
  const float a = at.a;
  const Quat q0 = p0.rotation;
  const Quat q1 = dot(q0, p1.rotation) < 0.f ? -p1.rotation : p1.rotation;
  return {p0.translation + a * (p1.translation - p0.translation),
          normalize(Quat{q0.x + a * (q1.x - q0.x), q0.y + a * (q1.y - q0.y), q0.z + a * (q1.z - q0.z),
                         q0.w + a * (q1.w - q0.w)}),
          p0.scale + a * (p1.scale - p0.scale)};
}

}  // namespace

void base_pose_at(const AdditiveBasePoses& base, uint32_t frame_count, float frame_time, std::span<Transform> out) {
  assert(base.poses.size() >= out.size());
  const FrameSpan at = frame_span(frame_count, frame_time);
  for (size_t b = 0; b < out.size(); ++b) out[b] = base_bone(base, at, b, out.size());
}

void shown_pose(const RawClip& clip, std::span<const Transform> rest_pose, float frame_time, bool layer_alone,
                std::span<Transform> pose) {
  if (!clip.additive_base.additive()) return;
  if (layer_alone) {
    assert(rest_pose.size() == pose.size());
    apply_additive(rest_pose, pose, 1.f, pose);
    return;
  }
  assert(clip.additive_base.poses.size() >= pose.size());
  const FrameSpan at = frame_span(clip.frame_count, frame_time);
  for (size_t b = 0; b < pose.size(); ++b) {
    pose[b] = apply_additive(base_bone(clip.additive_base, at, b, pose.size()), pose[b], 1.f);
  }
}

}  // namespace ks::studio
