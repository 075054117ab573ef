// The Bones panel's flat tree (app/studio/panels/bone_tree_rows.h): children lists
// in bone order, rows depth first with closed branches left out, and rigs
// the panel must stay usable on: 50,000 siblings under one root (one row
// when the root is closed) and a chain too deep for recursion. The filter
// box's rows (matches and the ancestors that place them), opening the
// branches above a selection made elsewhere, and the indentation that keeps
// a deep rig's names in the column.

#include "app/studio/panels/bone_tree_rows.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ks::studio {
namespace {

std::vector<int32_t> bones_of(const std::vector<BoneTreeRow>& rows) {
  std::vector<int32_t> bones;
  for (const BoneTreeRow& row : rows) bones.push_back(row.bone);
  return bones;
}

std::vector<int32_t> depths_of(const std::vector<BoneTreeRow>& rows) {
  std::vector<int32_t> depths;
  for (const BoneTreeRow& row : rows) depths.push_back(row.depth);
  return depths;
}

// 0 root; 1 and 4 its children; 2, 3 under 1; 5 a second root; 6 under 5,
// listed before its parent's later sibling would be.
const std::vector<int32_t> kParents = {-1, 0, 1, 1, 0, -1, 5};

TEST(BoneChildren, ListsChildrenInBoneOrderAndRootsApart) {
  const BoneChildren children = bone_children(kParents);
  EXPECT_EQ(children.roots, (std::vector<int32_t>{0, 5}));
  ASSERT_EQ(children.first.size(), kParents.size() + 1);
  EXPECT_EQ(children.child_count(0), 2u);
  EXPECT_EQ(children.child_count(1), 2u);
  EXPECT_EQ(children.child_count(2), 0u);
  EXPECT_EQ(children.child_count(5), 1u);
  EXPECT_EQ(children.bones, (std::vector<int32_t>{1, 4, 2, 3, 6}));
}

TEST(BoneChildren, EmptySkeletonHasNoRows) {
  const BoneChildren children = bone_children({});
  std::vector<BoneTreeRow> rows = {{3, 1}};
  visible_bone_rows(children, {}, rows);
  EXPECT_TRUE(rows.empty());
}

TEST(VisibleBoneRows, AllOpenIsDepthFirstWithDepths) {
  const BoneChildren children = bone_children(kParents);
  const std::vector<uint8_t> collapsed(kParents.size(), 0);
  std::vector<BoneTreeRow> rows;
  visible_bone_rows(children, collapsed, rows);
  EXPECT_EQ(bones_of(rows), (std::vector<int32_t>{0, 1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(depths_of(rows), (std::vector<int32_t>{0, 1, 2, 2, 1, 0, 1}));
}

TEST(VisibleBoneRows, ClosedBranchShowsItsBoneButNotBelow) {
  const BoneChildren children = bone_children(kParents);
  std::vector<uint8_t> collapsed(kParents.size(), 0);
  collapsed[1] = 1;
  collapsed[2] = 1;  // closed inside a closed branch: no effect on what shows
  std::vector<BoneTreeRow> rows;
  visible_bone_rows(children, collapsed, rows);
  EXPECT_EQ(bones_of(rows), (std::vector<int32_t>{0, 1, 4, 5, 6}));
  collapsed[1] = 0;
  visible_bone_rows(children, collapsed, rows);
  EXPECT_EQ(bones_of(rows), (std::vector<int32_t>{0, 1, 2, 3, 4, 5, 6}));
}

TEST(VisibleBoneRows, FiftyThousandSiblings) {
  constexpr int32_t kSiblings = 50'000;
  std::vector<int32_t> parents(kSiblings + 1, 0);
  parents[0] = -1;
  const BoneChildren children = bone_children(parents);
  EXPECT_EQ(children.child_count(0), static_cast<size_t>(kSiblings));
  std::vector<uint8_t> collapsed(parents.size(), 0);
  std::vector<BoneTreeRow> rows;
  visible_bone_rows(children, collapsed, rows);
  ASSERT_EQ(rows.size(), parents.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    ASSERT_EQ(rows[i].bone, static_cast<int32_t>(i));
    ASSERT_EQ(rows[i].depth, i == 0 ? 0 : 1);
  }
  collapsed[0] = 1;
  visible_bone_rows(children, collapsed, rows);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].bone, 0);
}

TEST(VisibleBoneRows, ChainDeeperThanAStackWouldTake) {
  constexpr int32_t kDepth = 200'000;
  std::vector<int32_t> parents(kDepth);
  for (int32_t b = 0; b < kDepth; ++b) parents[static_cast<size_t>(b)] = b - 1;
  const BoneChildren children = bone_children(parents);
  const std::vector<uint8_t> collapsed(parents.size(), 0);
  std::vector<BoneTreeRow> rows;
  visible_bone_rows(children, collapsed, rows);
  ASSERT_EQ(rows.size(), parents.size());
  EXPECT_EQ(rows.back().bone, kDepth - 1);
  EXPECT_EQ(rows.back().depth, kDepth - 1);
}

std::vector<bool> contexts_of(const std::vector<BoneTreeRow>& rows) {
  std::vector<bool> contexts;
  for (const BoneTreeRow& row : rows) contexts.push_back(row.context);
  return contexts;
}

const std::vector<std::string> kNames = {"Hips", "Spine", "L_Hand", "R_Hand", "Neck", "Prop", "prop_handle"};

TEST(BoneNameMatches, IgnoresCaseAndEmptyMatchesAll) {
  EXPECT_TRUE(bone_name_matches("CC_Base_L_Hand", "l_hand"));
  EXPECT_TRUE(bone_name_matches("CC_Base_L_Hand", "BASE"));
  EXPECT_TRUE(bone_name_matches("anything", ""));
  EXPECT_FALSE(bone_name_matches("CC_Base_L_Hand", "foot"));
  EXPECT_FALSE(bone_name_matches("", "x"));
}

TEST(FilteredBoneRows, MatchesWithTheirAncestorsAsContext) {
  const BoneChildren children = bone_children(kParents);
  std::vector<BoneTreeRow> rows;
  filtered_bone_rows(children, kParents, kNames, "hand", rows);
  // "prop_handle" matches too, under its root 5 as context.
  EXPECT_EQ(bones_of(rows), (std::vector<int32_t>{0, 1, 2, 3, 5, 6}));
  EXPECT_EQ(depths_of(rows), (std::vector<int32_t>{0, 1, 2, 2, 0, 1}));
  EXPECT_EQ(contexts_of(rows), (std::vector<bool>{true, true, false, false, true, false}));
  // Case is ignored.
  filtered_bone_rows(children, kParents, kNames, "PROP", rows);
  EXPECT_EQ(bones_of(rows), (std::vector<int32_t>{5, 6}));
  EXPECT_EQ(contexts_of(rows), (std::vector<bool>{false, false}));
  filtered_bone_rows(children, kParents, kNames, "no such bone", rows);
  EXPECT_TRUE(rows.empty());
  // The empty filter is the whole tree, open.
  filtered_bone_rows(children, kParents, kNames, "", rows);
  EXPECT_EQ(bones_of(rows), (std::vector<int32_t>{0, 1, 2, 3, 4, 5, 6}));
}

TEST(FilteredBoneRows, DeepChainMarksEachAncestorOnce) {
  constexpr int32_t kDepth = 100'000;
  std::vector<int32_t> parents(kDepth);
  std::vector<std::string> names(kDepth);
  for (int32_t b = 0; b < kDepth; ++b) {
    parents[static_cast<size_t>(b)] = b - 1;
    names[static_cast<size_t>(b)] = "bone" + std::to_string(b);
  }
  const BoneChildren children = bone_children(parents);
  std::vector<BoneTreeRow> rows;
  filtered_bone_rows(children, parents, names, "9", rows);  // matches all over the chain
  ASSERT_EQ(rows.size(), static_cast<size_t>(kDepth));      // the last bone, 99999, matches
  EXPECT_EQ(rows.back().bone, kDepth - 1);
  EXPECT_FALSE(rows.back().context);
  EXPECT_TRUE(rows[1].context);  // bone 1 has no 9
}

TEST(OpenBranchesAbove, OpensEveryAncestorAndSaysSo) {
  const BoneChildren children = bone_children(kParents);
  std::vector<uint8_t> collapsed(kParents.size(), 1);
  EXPECT_TRUE(open_branches_above(kParents, 3, collapsed));
  EXPECT_EQ(collapsed, (std::vector<uint8_t>{0, 0, 1, 1, 1, 1, 1}));  // 3's own branch stays closed
  EXPECT_FALSE(open_branches_above(kParents, 2, collapsed));          // already open above
  EXPECT_FALSE(open_branches_above(kParents, 5, collapsed));          // a root has nothing above
  EXPECT_FALSE(open_branches_above(kParents, -1, collapsed));
  EXPECT_FALSE(open_branches_above(kParents, 7, collapsed));
  std::vector<BoneTreeRow> rows;
  visible_bone_rows(children, collapsed, rows);
  EXPECT_EQ(row_of_bone(rows, 3), 3);
  EXPECT_EQ(row_of_bone(rows, 6), -1);  // under the closed root 5
}

TEST(IndentStep, FullStepUntilTheDeepestNameWouldNotFit) {
  EXPECT_FLOAT_EQ(indent_step(5, 400.f, 150.f, 21.f, 4.f), 21.f);   // 5 x 21 + 150 fits in 400
  EXPECT_FLOAT_EQ(indent_step(25, 400.f, 150.f, 21.f, 4.f), 10.f);  // 25 levels share 250 px
  EXPECT_FLOAT_EQ(indent_step(200, 400.f, 150.f, 21.f, 4.f), 4.f);  // never below the minimum
  EXPECT_FLOAT_EQ(indent_step(0, 10.f, 150.f, 21.f, 4.f), 21.f);    // one level: nothing to share
  EXPECT_FLOAT_EQ(indent_step(3, 100.f, 150.f, 21.f, 4.f), 4.f);    // a column narrower than a name
}

}  // namespace
}  // namespace ks::studio
