#pragma once
// What the viewport draws of an additive clip (DESIGN §3, §9): a local pose
// of its layer, source or decoded, composed on the clip's base (what an
// engine shows at weight 1, and what the fit bounds) or applied to the
// bind pose alone (the layer by itself).

#include <span>

#include "keystream/clip/raw_clip.h"
#include "keystream/runtime/transform.h"

namespace ks::studio {

/// The base's local pose at fractional `frame_time` of a clip of
/// `frame_count` frames: its one pose, or its poses of the two neighbouring
/// frames interpolated as source_pose_at does (a whole frame is that frame's
/// pose exactly). `out` has one transform per bone.
void base_pose_at(const AdditiveBasePoses& base, uint32_t frame_count, float frame_time, std::span<Transform> out);

/// Turns `pose`, `clip`'s additive layer at `frame_time`, into what is
/// drawn, in place: composed on the clip's base at that time, or with
/// `layer_alone` on `rest_pose`. At a whole frame the composition is
/// compose_on_base's. A clip that is not additive leaves `pose` as it is.
void shown_pose(const RawClip& clip, std::span<const Transform> rest_pose, float frame_time, bool layer_alone,
                std::span<Transform> pose);

}  // namespace ks::studio
