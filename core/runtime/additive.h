#pragma once
// Additive poses (DESIGN §3, §8): an additive clip stores, per bone, the
// difference of a pose to a base (rotation base^-1 q, translation t - tb,
// scale s / sb); apply_additive composes such a difference onto any pose at
// a weight, the way an engine layers it. The runtime's half: what an engine
// ships; core/clip/additive.h makes additive clips.

#include <cassert>
#include <cmath>
#include <span>

#include "keystream/runtime/transform.h"

namespace ks {

/// One bone's composition: base ⊕ add at `weight`. Weight 1 gives the pose
/// the additive clip was made from; 0 gives `base`. In between, the
/// translation and scale ratio are interpolated linearly and the rotation
/// from the identity to `add` normalised-linearly (the short way round).
inline Transform apply_additive(const Transform& base, const Transform& add, float weight) {
  const Quat identity{};
  const Quat toward = dot(identity, add.rotation) < 0.f ? -add.rotation : add.rotation;
  const float keep = 1.f - weight;
  const Quat partial =
      weight == 1.f ? toward
                    : normalize(Quat{keep * identity.x + weight * toward.x, keep * identity.y + weight * toward.y,
                                     keep * identity.z + weight * toward.z, keep * identity.w + weight * toward.w});
  const Vec3 one{1.f, 1.f, 1.f};
  const Vec3 ratio = weight == 1.f ? add.scale : one + weight * (add.scale - one);
  return {base.translation + weight * add.translation, normalize(base.rotation * partial), mul(base.scale, ratio)};
}

/// Composes every bone of `add` onto `base` at `weight` into `out` (which
/// may be `base` or `add`); the three spans have one transform per bone.
inline void apply_additive(std::span<const Transform> base, std::span<const Transform> add, float weight,
                           std::span<Transform> out) {
  assert(base.size() == add.size() && out.size() == add.size());
  for (size_t b = 0; b < add.size(); ++b) out[b] = apply_additive(base[b], add[b], weight);
}

/// The additive transform taking `base` to `pose`: apply_additive(base,
/// difference, 1) gives `pose` back (up to rounding). A base scale component
/// of 0 has no ratio; the caller refuses it first.
inline Transform additive_difference(const Transform& base, const Transform& pose) {
  return {pose.translation - base.translation, normalize(conjugate(base.rotation) * pose.rotation),
          Vec3{pose.scale.x / base.scale.x, pose.scale.y / base.scale.y, pose.scale.z / base.scale.z}};
}

}  // namespace ks
