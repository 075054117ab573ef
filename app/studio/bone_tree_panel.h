#pragma once
// BoneTreePanel: the "Bones" window: the hierarchy, each bone's
// object-space max against its tolerance, and the selected bone's tolerance
// override (set, remove; under the tree, or in place from a row's context
// menu). It keeps the tree's shape and which branches are closed, so a frame
// costs the rows in view, not the bones in the rig. Made for deep rigs: a
// filter box, indentation that shrinks so the deepest names stay in the
// column, and a selection made elsewhere (viewport, --select, the default)
// opens its branch and scrolls into view.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "app/studio/bone_tree_rows.h"
#include "app/studio/studio_state.h"

namespace ks::studio {

/// What the tree showed in the last frame drawn, for the screenshot mode's
/// report (and its tests).
struct BoneTreeReport {
  size_t rows = 0;                  // rows the tree holds (all open ones, or the filter's)
  float indent_step = 0.f;          // pixels per level
  int32_t selected_row = -1;        // the selected bone's row, -1 when no row shows it
  bool selected_in_view = false;    // its row was drawn inside the scrolled area
  bool selected_name_fits = false;  // and its whole name was in view, not scrolled off sideways
};

class BoneTreePanel {
 public:
  /// Draws the window; call once a frame between ImGui::NewFrame and
  /// ImGui::Render. A click on a bone selects it; the override editor sets
  /// state.refit_requested.
  void draw(StudioState& state);

  /// Shows only the bones whose names contain `text` (any case), with their
  /// ancestors; "" shows the whole tree again.
  void set_filter(const std::string& text);
  const BoneTreeReport& report() const { return m_report; }

 private:
  void open_clip(const std::shared_ptr<const ImportedClip>& clip);
  void rebuild_rows(const StudioState& state);
  /// One row; true when the user opened or closed its branch.
  bool draw_row(StudioState& state, int32_t row_index, const FitResult* r);

  std::weak_ptr<const ImportedClip> m_clip;  // the clip the tree was built for (a freed one never matches)
  BoneChildren m_children;
  std::vector<uint8_t> m_collapsed;  // per bone: its branch is closed
  std::vector<BoneTreeRow> m_rows;   // what the tree shows, rebuilt when a branch opens or closes
  int32_t m_max_depth = 0;           // deepest row of m_rows
  float m_widest_label = 0.f;        // pixels: the widest name of m_rows, with room for " *"
  char m_filter[128] = {};           // the filter box's text
  bool m_rows_stale = true;          // the filter or a branch changed: rebuild m_rows
  int m_seen_selection = -1;         // the selection the tree last showed: another one is scrolled to
  int32_t m_scroll_to_row = -1;      // the row to bring into view this frame
  int m_scroll_frames = 0;           // frames left to bring the selection into view
  float m_indent_step = 0.f;
  float m_frozen_width = 0.f;  // pixels: the error column, which does not scroll sideways
  BoneTreeReport m_report;
};

}  // namespace ks::studio
