#include "keystream/clip/skeleton.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "keystream/clip/excerpt.h"

namespace ks {

namespace {

constexpr size_t kMaxBones = 65535;
constexpr float kUnitTolerance = 1e-4f;

bool is_unit(Quat q) { return is_finite(q) && std::fabs(length(q) - 1.f) <= kUnitTolerance; }

}  // namespace

int32_t Skeleton::find_bone(std::string_view name) const {
  for (size_t i = 0; i < bone_names.size(); ++i) {
    if (bone_names[i] == name) return static_cast<int32_t>(i);
  }
  return -1;
}

std::unordered_map<std::string_view, int32_t> bone_index_by_name(std::span<const std::string> bone_names) {
  std::unordered_map<std::string_view, int32_t> index;
  index.reserve(bone_names.size());
  for (size_t i = 0; i < bone_names.size(); ++i) index.emplace(bone_names[i], static_cast<int32_t>(i));
  return index;
}

Status Skeleton::validate() const {
  const size_t n = bone_count();
  if (n == 0) return Error{"skeleton has no bones"};
  if (n > kMaxBones) {
    return Error{"skeleton has " + std::to_string(n) + " bones; at most 65535 are supported"};
  }
  if (parents.size() != n || rest_pose.size() != n) {
    return Error{"skeleton has " + std::to_string(n) + " names but " + std::to_string(parents.size()) +
                 " parents and " + std::to_string(rest_pose.size()) + " rest transforms"};
  }
  if (!inverse_bind.empty() && inverse_bind.size() != n) {
    return Error{"skeleton has " + std::to_string(inverse_bind.size()) + " inverse bind matrices for " +
                 std::to_string(n) + " bones"};
  }
  // The first bone whose name an earlier bone has (n when none): each name
  // sorted with its index, one allocation for any number of bones.
  size_t first_repeat = n;
  {
    std::vector<std::pair<std::string_view, size_t>> sorted(n);
    for (size_t i = 0; i < n; ++i) sorted[i] = {bone_names[i], i};
    std::sort(sorted.begin(), sorted.end());
    for (size_t k = 1; k < n; ++k) {
      if (sorted[k].first == sorted[k - 1].first) first_repeat = std::min(first_repeat, sorted[k].second);
    }
  }
  for (size_t i = 0; i < n; ++i) {
    // Built only for a message: a rig may have 65,535 bones.
    const auto where = [&] { return "bone " + std::to_string(i) + " '" + excerpt(bone_names[i]) + "'"; };
    if (bone_names[i].empty()) return Error{"bone " + std::to_string(i) + " has an empty name"};
    if (i == first_repeat) return Error{where() + ": name is used by an earlier bone"};
    if (parents[i] < -1 || parents[i] >= static_cast<int32_t>(i)) {
      return Error{where() + ": parent " + std::to_string(parents[i]) +
                   " is not an earlier bone (parents must come before children)"};
    }
    const Transform& rest = rest_pose[i];
    if (!is_finite(rest.translation) || !is_finite(rest.scale)) {
      return Error{where() + ": rest translation or scale is not finite"};
    }
    if (!is_unit(rest.rotation)) return Error{where() + ": rest rotation is not a unit quaternion"};
    if (!inverse_bind.empty()) {
      for (float v : inverse_bind[i].m) {
        if (!std::isfinite(v)) return Error{where() + ": inverse bind matrix is not finite"};
      }
    }
  }
  std::vector<char> is_joint(n, 0);
  for (size_t j = 0; j < skin_joints.size(); ++j) {
    const int32_t bone = skin_joints[j];
    if (bone < 0 || bone >= static_cast<int32_t>(n) || is_joint[static_cast<size_t>(bone)]) {
      return Error{"skin joint " + std::to_string(j) + " is bone " + std::to_string(bone) +
                   ", which does not exist or is listed twice"};
    }
    is_joint[static_cast<size_t>(bone)] = 1;
  }
  for (size_t i = 0; i < end_sites.size(); ++i) {
    if (end_sites[i].parent < 0 || end_sites[i].parent >= static_cast<int32_t>(n)) {
      return Error{"end site " + std::to_string(i) + " hangs from bone " + std::to_string(end_sites[i].parent) +
                   ", which does not exist"};
    }
    if (!is_finite(end_sites[i].offset)) return Error{"end site " + std::to_string(i) + " offset is not finite"};
  }
  return {};
}

std::vector<Transform> local_to_model(const Skeleton& skeleton, const std::vector<Transform>& local) {
  std::vector<Transform> model(local.size());
  for (size_t i = 0; i < local.size(); ++i) {
    const int32_t parent = i < skeleton.parents.size() ? skeleton.parents[i] : -1;
    model[i] = parent < 0 ? local[i] : combine(model[static_cast<size_t>(parent)], local[i]);
  }
  return model;
}

}  // namespace ks
