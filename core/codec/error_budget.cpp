#include "keystream/codec/error_budget.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <string_view>
#include <unordered_map>

#include "keystream/clip/excerpt.h"

namespace ks {

Result<BoneTolerances> resolve_bone_tolerances(const Skeleton& skeleton, float tolerance_m, float shell_distance_m,
                                               std::span<const BoneTolerance> overrides) {
  const size_t bone_count = skeleton.bone_count();
  std::vector<const BoneTolerance*> own(bone_count, nullptr);
  const std::unordered_map<std::string_view, int32_t> index = bone_index_by_name(skeleton.bone_names);
  for (const BoneTolerance& o : overrides) {
    const auto found = index.find(o.bone);
    const int32_t bone = found == index.end() ? -1 : found->second;
    if (bone < 0) return Error{"bone tolerance: the skeleton has no bone named \"" + excerpt(o.bone) + "\""};
    if (own[static_cast<size_t>(bone)] != nullptr) {
      return Error{"bone tolerance: bone \"" + excerpt(o.bone) + "\" has two tolerances"};
    }
    if (!std::isfinite(o.tolerance_m) || !(o.tolerance_m > 0.f)) {
      return Error{"bone tolerance of \"" + excerpt(o.bone) + "\": the tolerance must be a positive number of metres"};
    }
    if (!std::isfinite(o.shell_distance_m) || o.shell_distance_m < 0.f) {
      return Error{"bone tolerance of \"" + excerpt(o.bone) +
                   "\": the shell distance must be a positive number of metres"};
    }
    own[static_cast<size_t>(bone)] = &o;
  }
  BoneTolerances resolved;
  resolved.tolerance_m.resize(bone_count);
  resolved.shell_distance_m.resize(bone_count);
  for (size_t b = 0; b < bone_count; ++b) {
    const int32_t parent = skeleton.parents[b];
    float e = parent < 0 ? tolerance_m : resolved.tolerance_m[static_cast<size_t>(parent)];
    float d = parent < 0 ? shell_distance_m : resolved.shell_distance_m[static_cast<size_t>(parent)];
    if (own[b] != nullptr) {
      e = own[b]->tolerance_m;
      if (own[b]->shell_distance_m > 0.f) d = own[b]->shell_distance_m;
    }
    resolved.tolerance_m[b] = e;
    resolved.shell_distance_m[b] = d;
  }
  return resolved;
}

std::vector<Transform> model_space_frames(const Skeleton& skeleton, const RawClip& clip) {
  const size_t bones = skeleton.bone_count();
  std::vector<Transform> model(size_t{clip.frame_count} * bones);
  std::vector<Transform> local(bones);
  for (uint32_t f = 0; f < clip.frame_count; ++f) {
    for (size_t b = 0; b < bones; ++b) {
      local[b] = {clip.bones[b].translations[f], clip.bones[b].rotations[f], clip.bones[b].scales[f]};
    }
    local_to_model(skeleton.parents, local, std::span<Transform>(model).subspan(f * bones, bones));
  }
  return model;
}

std::vector<BoneLever> bone_levers(const Skeleton& skeleton, const RawClip& clip, std::span<const Transform> model,
                                   std::span<const float> shell_distance_m) {
  const size_t bones = skeleton.bone_count();
  std::vector<BoneLever> levers(bones);
  std::vector<float> smallest_scale(bones, std::numeric_limits<float>::max());
  std::vector<float> largest_parent_scale(bones, 0.f);
  for (uint32_t f = 0; f < clip.frame_count; ++f) {
    const Transform* pose = model.data() + size_t{f} * bones;
    for (size_t b = 0; b < bones; ++b) {
      const Vec3 s = pose[b].scale;
      smallest_scale[b] = std::min({smallest_scale[b], std::fabs(s.x), std::fabs(s.y), std::fabs(s.z)});
      const int32_t parent = skeleton.parents[b];
      const Vec3 ps = parent < 0 ? Vec3{1.f, 1.f, 1.f} : pose[parent].scale;
      largest_parent_scale[b] =
          std::max({largest_parent_scale[b], std::fabs(ps.x), std::fabs(ps.y), std::fabs(ps.z)});
      // b's virtual vertices, and their distance from every joint above.
      const float d = shell_distance_m[b];
      for (const Vec3& offset : {Vec3{d, 0, 0}, Vec3{0, d, 0}, Vec3{0, 0, d}}) {
        const Vec3 vertex = transform_point(pose[b], offset);
        for (int32_t a = static_cast<int32_t>(b); a >= 0; a = skeleton.parents[static_cast<size_t>(a)]) {
          float& lever = levers[static_cast<size_t>(a)].rotation_m;
          lever = std::max(lever, length(vertex - pose[a].translation));
        }
      }
    }
  }
  for (size_t b = 0; b < bones; ++b) {
    levers[b].translation = largest_parent_scale[b];
    // A scale error s moves a point at distance r from the joint by about
    // s / scale * r along each axis: sqrt(3) of that at most.
    levers[b].scale_m = std::sqrt(3.f) * levers[b].rotation_m / std::max(smallest_scale[b], 1e-6f);
  }
  return levers;
}

std::vector<float> track_shares(std::span<const int32_t> parents, std::span<const float> tolerance_m,
                                std::span<const uint8_t> animated) {
  const size_t bones = parents.size();
  std::vector<float> weight(bones, 0.f);      // animated tracks of each bone
  std::vector<float> chain_weight(bones, 0.f);  // animated tracks on the chain root..b
  for (size_t b = 0; b < bones; ++b) {
    for (int k = 0; k < 3; ++k) weight[b] += animated[3 * b + static_cast<size_t>(k)] != 0 ? 1.f : 0.f;
    chain_weight[b] = weight[b] + (parents[b] < 0 ? 0.f : chain_weight[static_cast<size_t>(parents[b])]);
  }
  // Per bone, the smallest tolerance per chain track of any bone below it
  // (children come after parents: walk backward).
  std::vector<float> share(bones, std::numeric_limits<float>::max());
  for (size_t b = bones; b-- > 0;) {
    if (chain_weight[b] > 0.f) share[b] = std::min(share[b], tolerance_m[b] / chain_weight[b]);
    if (parents[b] >= 0) {
      float& up = share[static_cast<size_t>(parents[b])];
      up = std::min(up, share[b]);
    }
  }
  for (size_t b = 0; b < bones; ++b) {
    if (share[b] == std::numeric_limits<float>::max()) share[b] = tolerance_m[b];
  }
  return share;
}

}  // namespace ks
