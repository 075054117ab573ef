#pragma once
// The Bones panel's tree as a flat list of rows, kept free of ImGui so the
// tests can check it. A rig may have tens of thousands of bones: the panel
// builds the children lists once per clip and the rows only when a branch
// opens or closes, and each frame submits to ImGui just the rows in view
// (ImGuiListClipper), rather than walking the whole tree every frame.

#include <cstdint>
#include <span>
#include <vector>

namespace ks::studio {

/// Each bone's children, in bone order, as one array: the children of bone b
/// are bones[first[b] .. first[b + 1]). Roots (parent < 0) are listed apart.
struct BoneChildren {
  std::vector<int32_t> roots;
  std::vector<uint32_t> first;  // bone count + 1 entries
  std::vector<int32_t> bones;

  size_t child_count(size_t bone) const { return first[bone + 1] - first[bone]; }
};

/// The children lists of a skeleton given by its parent indices. Requires
/// every parent to be < 0 or a valid bone index.
BoneChildren bone_children(std::span<const int32_t> parents);

/// One row of the tree: a bone and how many ancestors it has.
struct BoneTreeRow {
  int32_t bone = -1;
  int32_t depth = 0;
};

/// The rows the tree shows, depth first: each bone followed by its subtree
/// unless `collapsed[bone]` is set (one entry per bone). Iterative, so a
/// chain of any depth cannot overflow the stack.
void visible_bone_rows(const BoneChildren& children, std::span<const uint8_t> collapsed,
                       std::vector<BoneTreeRow>& rows);

}  // namespace ks::studio
