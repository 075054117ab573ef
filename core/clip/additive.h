#pragma once
// Making additive clips (DESIGN §3): the difference of a clip to a base,
// frame by frame, which the codec compresses like any clip while measuring
// every error on the composed pose (core/runtime/additive.h composes).

#include <span>
#include <string>
#include <vector>

#include "keystream/clip/raw_clip.h"
#include "keystream/clip/skeleton.h"
#include "keystream/runtime/result.h"
#include "keystream/runtime/stream_format.h"
#include "keystream/runtime/transform.h"

namespace ks {

/// What a clip is made additive to.
struct AdditiveSource {
  AdditiveBase base = AdditiveBase::kNone;  // kFirstFrame, kBindPose or kClip
  const RawClip* clip = nullptr;            // kClip: the base clip, on the same skeleton
  std::string name;                         // kClip: its file and animation, for the stream's metadata
};

/// `clip` as the difference to `source`'s base at every frame (rotation
/// base^-1 q, translation difference, scale ratio), carrying the base
/// (RawClip::additive_base); scalar tracks stay as they are, key poses
/// between frames are dropped (the base is not defined there). A base clip
/// is sampled at the clip's frame times (linearly between its frames, its
/// last frame held past its end) and clears the bones' source keys; a
/// first-frame or bind-pose base keeps them. Refuses kNone, an additive
/// clip, a base clip of another bone count or an additive one, and a base
/// with a scale component 0 (it has no ratio).
Result<RawClip> make_additive(const Skeleton& skeleton, const RawClip& clip, const AdditiveSource& source);

/// Composes an additive clip's pose at `frame` onto its base, in place, at
/// weight 1 (`pose` has one local transform per bone). A clip that is not
/// additive leaves `pose` as it is.
void compose_on_base(const RawClip& clip, uint32_t frame, std::span<Transform> pose);

/// The clip an additive clip composes to at every frame (not additive, no
/// key poses; scalar tracks kept): compose_on_base's poses, rotations only
/// negated into one hemisphere. A clip that is not additive, unchanged.
RawClip composed_clip(const RawClip& clip);

}  // namespace ks
