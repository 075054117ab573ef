#include "app/studio/bone_tree_rows.h"

#include <cassert>

namespace ks::studio {

BoneChildren bone_children(std::span<const int32_t> parents) {
  const size_t bone_count = parents.size();
  BoneChildren out;
  out.first.assign(bone_count + 1, 0);
  // Count per parent, then prefix sums, then fill: two passes, no per-bone vectors.
  for (size_t b = 0; b < bone_count; ++b) {
    const int32_t parent = parents[b];
    assert(parent < 0 || static_cast<size_t>(parent) < bone_count);
    if (parent < 0) {
      out.roots.push_back(static_cast<int32_t>(b));
    } else {
      ++out.first[static_cast<size_t>(parent) + 1];
    }
  }
  for (size_t b = 0; b < bone_count; ++b) out.first[b + 1] += out.first[b];
  out.bones.resize(out.first[bone_count]);
  std::vector<uint32_t> next(out.first.begin(), out.first.end() - 1);
  for (size_t b = 0; b < bone_count; ++b) {
    if (parents[b] >= 0) out.bones[next[static_cast<size_t>(parents[b])]++] = static_cast<int32_t>(b);
  }
  return out;
}

void visible_bone_rows(const BoneChildren& children, std::span<const uint8_t> collapsed,
                       std::vector<BoneTreeRow>& rows) {
  assert(collapsed.size() + 1 == children.first.size());
  rows.clear();
  // An explicit stack of rows still to emit, pushed in reverse so that they
  // pop in bone order.
  std::vector<BoneTreeRow> pending;
  for (size_t i = children.roots.size(); i-- > 0;) pending.push_back({children.roots[i], 0});
  while (!pending.empty()) {
    const BoneTreeRow row = pending.back();
    pending.pop_back();
    rows.push_back(row);
    const size_t bone = static_cast<size_t>(row.bone);
    if (collapsed[bone] != 0) continue;
    for (uint32_t i = children.first[bone + 1]; i-- > children.first[bone];) {
      pending.push_back({children.bones[i], row.depth + 1});
    }
  }
}

}  // namespace ks::studio
