#pragma once
// BoneTreePanel: the "Bones" window: the hierarchy, each bone's
// object-space max against its tolerance, and the selected bone's tolerance
// override (set, remove). It keeps the tree's shape and which branches are
// closed, so a frame costs the rows in view, not the bones in the rig.

#include <cstdint>
#include <memory>
#include <vector>

#include "app/studio/bone_tree_rows.h"
#include "app/studio/studio_state.h"

namespace ks::studio {

class BoneTreePanel {
 public:
  /// Draws the window; call once a frame between ImGui::NewFrame and
  /// ImGui::Render. A click on a bone selects it; the override editor sets
  /// state.refit_requested.
  void draw(StudioState& state);

 private:
  static constexpr int32_t kMaxIndentLevels = 32;

  void open_clip(const std::shared_ptr<const ImportedClip>& clip);
  /// One row; true when the user opened or closed its branch.
  bool draw_row(StudioState& state, BoneTreeRow row, const FitResult* r);

  std::weak_ptr<const ImportedClip> m_clip;  // the clip the tree was built for (a freed one never matches)
  BoneChildren m_children;
  std::vector<uint8_t> m_collapsed;  // per bone: its branch is closed
  std::vector<BoneTreeRow> m_rows;   // what the tree shows, rebuilt when a branch opens or closes
};

}  // namespace ks::studio
