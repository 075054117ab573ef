#include "app/studio/panels/bone_tree_rows.h"

#include <algorithm>
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
  // Sized once (at most one row per bone): growing by doubling a rig of
  // 50,000 bones would hold the old and the new buffer at once.
  rows.reserve(collapsed.size());
  // An explicit stack of rows still to emit, pushed in reverse so that they
  // pop in bone order.
  std::vector<BoneTreeRow> pending;
  pending.reserve(collapsed.size());
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

bool bone_name_matches(std::string_view name, std::string_view filter) {
  const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
  const auto it = std::search(name.begin(), name.end(), filter.begin(), filter.end(),
                              [&](char a, char b) { return lower(a) == lower(b); });
  return it != name.end() || filter.empty();
}

void filtered_bone_rows(const BoneChildren& children, std::span<const int32_t> parents,
                        std::span<const std::string> names, std::string_view filter, std::vector<BoneTreeRow>& rows) {
  const size_t bone_count = parents.size();
  assert(names.size() == bone_count && children.first.size() == bone_count + 1);
  // 2: the name matches; 1: an ancestor of a match. Each ancestor walk stops
  // at the first bone already marked, so the marking is linear in the bones.
  std::vector<uint8_t> shown(bone_count, 0);
  for (size_t b = 0; b < bone_count; ++b) {
    if (!bone_name_matches(names[b], filter)) continue;
    shown[b] = 2;
    for (int32_t p = parents[b]; p >= 0 && shown[static_cast<size_t>(p)] == 0; p = parents[static_cast<size_t>(p)]) {
      shown[static_cast<size_t>(p)] = 1;
    }
  }
  rows.clear();
  std::vector<BoneTreeRow> pending;
  for (size_t i = children.roots.size(); i-- > 0;) {
    const int32_t root = children.roots[i];
    if (shown[static_cast<size_t>(root)] != 0) pending.push_back({root, 0, shown[static_cast<size_t>(root)] == 1});
  }
  while (!pending.empty()) {
    const BoneTreeRow row = pending.back();
    pending.pop_back();
    rows.push_back(row);
    const size_t bone = static_cast<size_t>(row.bone);
    for (uint32_t i = children.first[bone + 1]; i-- > children.first[bone];) {
      const int32_t child = children.bones[i];
      const uint8_t mark = shown[static_cast<size_t>(child)];
      if (mark != 0) pending.push_back({child, row.depth + 1, mark == 1});
    }
  }
}

bool open_branches_above(std::span<const int32_t> parents, int32_t bone, std::span<uint8_t> collapsed) {
  bool opened = false;
  if (bone < 0 || static_cast<size_t>(bone) >= parents.size()) return false;
  // A parent index is a valid bone or negative (bone_children's rule), and
  // at most parents.size() steps are taken, so even a cycle ends.
  int32_t p = parents[static_cast<size_t>(bone)];
  for (size_t steps = 0; p >= 0 && steps < parents.size(); ++steps, p = parents[static_cast<size_t>(p)]) {
    opened |= collapsed[static_cast<size_t>(p)] != 0;
    collapsed[static_cast<size_t>(p)] = 0;
  }
  return opened;
}

int32_t row_of_bone(std::span<const BoneTreeRow> rows, int32_t bone) {
  const auto it = std::find_if(rows.begin(), rows.end(), [&](const BoneTreeRow& row) { return row.bone == bone; });
  return it == rows.end() ? -1 : static_cast<int32_t>(it - rows.begin());
}

float indent_step(int32_t max_depth, float column_width, float name_width, float step, float min_step) {
  if (max_depth <= 0) return step;
  const float fitting = (column_width - name_width) / static_cast<float>(max_depth);
  return std::clamp(fitting, min_step, step);
}

}  // namespace ks::studio
