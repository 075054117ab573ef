#pragma once
// The Bones panel's tree as a flat list of rows, kept free of ImGui so the
// tests can check it. A rig may have tens of thousands of bones: the panel
// builds the children lists once per clip and the rows only when a branch
// opens or closes, and each frame submits to ImGui just the rows in view
// (ImGuiListClipper), rather than walking the whole tree every frame.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
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
  bool context = false;  // filtered rows: shown only as an ancestor of a match
};

/// The rows the tree shows, depth first: each bone followed by its subtree
/// unless `collapsed[bone]` is set (one entry per bone). Iterative, so a
/// chain of any depth cannot overflow the stack.
void visible_bone_rows(const BoneChildren& children, std::span<const uint8_t> collapsed,
                       std::vector<BoneTreeRow>& rows);

/// True when `name` contains `filter`, ignoring ASCII case (an empty filter
/// matches every name).
bool bone_name_matches(std::string_view name, std::string_view filter);

/// The rows of a filtered tree, depth first: every bone whose name matches
/// `filter` and, marked `context`, the ancestors that place it in the tree.
/// Branches are shown open whatever the panel's open state, so every match
/// is in view. `names` has one entry per bone.
void filtered_bone_rows(const BoneChildren& children, std::span<const int32_t> parents,
                        std::span<const std::string> names, std::string_view filter, std::vector<BoneTreeRow>& rows);

/// Opens the branches above `bone` (clears `collapsed` on its ancestors) so
/// that its row is shown; true when any was closed.
bool open_branches_above(std::span<const int32_t> parents, int32_t bone, std::span<uint8_t> collapsed);

/// The index of `bone`'s row, or -1 when no row shows it.
int32_t row_of_bone(std::span<const BoneTreeRow> rows, int32_t bone);

/// Pixels of indentation per tree level: the full `step` while the deepest
/// row (`max_depth` levels) still leaves `name_width` pixels of the
/// `column_width` for its name, less on deeper rigs (a 25-level chain in a
/// narrow panel), but never under `min_step`, so the levels stay apart.
float indent_step(int32_t max_depth, float column_width, float name_width, float step, float min_step);

}  // namespace ks::studio
