#pragma once
// BoneTreePanel: the "Bones" window: the hierarchy, each bone's
// object-space max against its tolerance, and the selected bone's tolerance
// override (set, remove; under the tree, or in place from a row's context
// menu). It keeps the tree's shape and which branches are closed, so a frame
// costs the rows in view, not the bones in the rig. Made for deep rigs: a
// filter box, indentation that shrinks so the deepest names stay in the
// column, and a selection made elsewhere (viewport, --select, the default)
// opens its branch and scrolls into view. Below the bones, a "Curves" group
// lists the clip's scalar tracks (morph weights, user curves), each with its
// error against its precision; selecting one shows it in the Curves panel
// and puts its precision override under the tree (bone_tree_curves.cpp).

#include <imgui.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "app/studio/app/screen_rect.h"
#include "app/studio/app/studio_state.h"
#include "app/studio/panels/bone_tree_rows.h"

namespace ks::studio {

/// The rows' colours: within the bound, over it, and still (no animated
/// track: a bone's error is then its parents', a scalar track is exact;
/// dimmed, so the tracks that move stand out).
inline const ImVec4 kTreeMetColor(0.45f, 0.9f, 0.45f, 1.f);
inline const ImVec4 kTreeOverColor(1.f, 0.35f, 0.3f, 1.f);
inline const ImVec4 kTreeStillColor(0.5f, 0.5f, 0.52f, 1.f);

/// Pixels of one row of the tree's tables (a line of text).
inline float table_row_height() {
  return ImGui::GetTextLineHeight() + 2.f * ImGui::GetStyle().CellPadding.y;
}

/// What the tree showed in the last frame drawn, for the screenshot mode's
/// report (and its tests).
struct BoneTreeReport {
  size_t rows = 0;                  // rows the tree holds (all open ones, or the filter's)
  float indent_step = 0.f;          // pixels per level
  int32_t selected_row = -1;        // the selected bone's row, -1 when no row shows it
  bool selected_in_view = false;    // its row was drawn inside the scrolled area
  bool selected_name_fits = false;  // and its whole name was in view, not scrolled off sideways
  size_t curve_rows = 0;            // rows of the Curves group (scalar tracks, filtered)
  int32_t selected_curve_row = -1;  // the selected scalar track's row, -1 when none shows it
  bool selected_curve_in_view = false;
  ScreenRect curve_group;  // the Curves group's rows, "bones-curves" (no name when not drawn)
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
  /// Pixels the Curves group takes of `available` (0 when the clip has no scalar track).
  float curve_group_height(const StudioState& state, float available) const;
  /// The Curves group: its header, and its rows when open, in `height` pixels.
  void draw_curve_group(StudioState& state, const FitResult* r, float height);
  void draw_curve_row(StudioState& state, int32_t row_index, const FitResult* r);
  /// The selected scalar track's precision and its override editor (under
  /// the tree, and in a curve row's right-click menu).
  static void draw_precision_fields(StudioState& state);

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

  // The Curves group.
  std::vector<int32_t> m_curve_rows;  // the scalar tracks it shows (the filter's)
  bool m_curves_open = true;          // its header is open
  int m_seen_scalar = -1;             // the scalar track selection last shown, as m_seen_selection
  int m_scroll_curve_frames = 0;      // frames left to bring the selected scalar track into view
  BoneTreeReport m_report;
};

}  // namespace ks::studio
