#pragma once
// Error budgets from the hierarchy (DESIGN §5 step 1): from the object-space
// tolerance of every bone to a threshold for every track, in its own unit.
//
// A rotation error of theta (radians) at bone a moves a vertex of its
// subtree by at most theta * l_a, where l_a, the bone's lever, is the
// farthest distance over the clip from a's joint to a virtual vertex of
// any bone of its subtree (the shell distance d included). A translation
// error moves the subtree rigidly, scaled by the parent's model scale; a
// scale error scales the lever. A bone's vertices move by the sum of the
// errors along its chain, so the tolerance E_b of every bone b is split
// along the chain: each animated track gets an equal share of the smallest
// E_b / (animated tracks on b's chain) below it, which keeps every chain's
// sum within every tolerance on it.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "keystream/clip/raw_clip.h"
#include "keystream/clip/skeleton.h"
#include "keystream/runtime/result.h"
#include "keystream/runtime/transform.h"

namespace ks {

/// An object-space tolerance for one bone and, unless overridden deeper,
/// every bone below it.
struct BoneTolerance {
  std::string bone;              // the bone's name
  float tolerance_m = 0.0001f;   // E, metres
  float shell_distance_m = 0.f;  // d, metres; 0 keeps the one inherited from above
  bool operator==(const BoneTolerance&) const = default;
};

/// Every bone's tolerance and shell distance: the clip-wide values, replaced
/// by an override on its bone and the bones below it. Refuses an override
/// naming no bone, a bone named twice, or a value that is not positive.
struct BoneTolerances {
  std::vector<float> tolerance_m;       // per bone
  std::vector<float> shell_distance_m;  // per bone
};
Result<BoneTolerances> resolve_bone_tolerances(const Skeleton& skeleton, float tolerance_m, float shell_distance_m,
                                               std::span<const BoneTolerance> overrides);

/// Model-space transforms of every frame of `clip`: [frame * bones + bone].
std::vector<Transform> model_space_frames(const Skeleton& skeleton, const RawClip& clip);

/// What a bone's errors cost its subtree.
struct BoneLever {
  float rotation_m = 0.f;     // l_a: metres a vertex moves per radian of rotation error
  float translation = 1.f;    // metres a vertex moves per metre of translation error (the parent's scale)
  float scale_m = 0.f;        // metres a vertex moves per unit of scale error
};

/// Levers of every bone over the clip, with the virtual vertices at each
/// bone's shell distance.
std::vector<BoneLever> bone_levers(const Skeleton& skeleton, const RawClip& clip, std::span<const Transform> model,
                                   std::span<const float> shell_distance_m);

/// Per bone, the metres of error its animated tracks may each spend so that
/// every chain's sum stays within every tolerance on it. `animated` holds
/// per track (3 per bone) whether it can have an error at all.
std::vector<float> track_shares(std::span<const int32_t> parents, std::span<const float> tolerance_m,
                                std::span<const uint8_t> animated);

}  // namespace ks
