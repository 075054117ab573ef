#pragma once
// Skeleton: the bone hierarchy a clip animates. Plain data; validate() states
// and checks the rules every stage after import relies on.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "keystream/runtime/result.h"
#include "keystream/runtime/transform.h"

namespace ks {

/// The tip of a leaf bone (a BVH "End Site"): no channels, only an offset.
/// Kept so that leaf bones can be drawn with a length.
struct EndSite {
  int32_t parent = -1;  // bone the tip hangs from
  Vec3 offset;          // in the parent's space, metres
};

/// Bone hierarchy with rest pose and, where the source has a skin, the
/// inverse bind matrices that map model space to each bone's bind space.
struct Skeleton {
  std::vector<std::string> bone_names;   // unique, non-empty
  std::vector<int32_t> parents;          // -1 for a root, else an earlier bone
  std::vector<Transform> rest_pose;      // local transforms, metres
  std::vector<Mat4> inverse_bind;        // empty, or one per bone (identity off the skin)
  std::vector<int32_t> skin_joints;      // bone of each joint of the source skin, in its order
  std::vector<EndSite> end_sites;        // optional leaf tips

  size_t bone_count() const { return bone_names.size(); }

  /// Index of the bone named `name`, or -1. Linear: to match many names, use bone_index_by_name.
  int32_t find_bone(std::string_view name) const;

  /// Checks, naming the first rule broken:
  /// - 1 to 65535 bones (tracks are addressed with 16 bits downstream);
  /// - names, parents and rest pose have one entry per bone;
  /// - names are non-empty and unique;
  /// - every parent is -1 or the index of an earlier bone (parents before children);
  /// - rest translations and scales are finite, rest rotations unit quaternions;
  /// - inverse_bind is empty or has one finite matrix per bone;
  /// - skin joints are distinct existing bones;
  /// - end sites hang from existing bones with finite offsets.
  Status validate() const;
};

/// Each of `bone_names` by name, mapped to its index (the first, where names
/// repeat), so that matching many names costs one lookup each. The keys view
/// `bone_names`, which must outlive the map.
std::unordered_map<std::string_view, int32_t> bone_index_by_name(std::span<const std::string> bone_names);

/// Model-space transform of every bone in `local` (one per bone, parents
/// before children). Used for rest-pose measurements and by tests.
std::vector<Transform> local_to_model(const Skeleton& skeleton, const std::vector<Transform>& local);

}  // namespace ks
