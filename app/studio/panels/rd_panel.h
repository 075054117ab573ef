#pragma once
// RdPanel ("Rate–distortion", View menu, Ctrl+D): the open clip's stream
// size against its largest object-space error over a sweep of tolerances
// (rd_sweep.h), on log axes, with the current fit marked; each point's
// keys, jump frames and seek cost in a table below. Clicking a point or a
// row sets the tolerance, and the studio re-fits.

#include <imgui.h>

#include <optional>
#include <string>
#include <vector>

#include "app/studio/app/studio_state.h"
#include "app/studio/jobs/rd_sweep.h"

namespace ks::studio {

class RdPanel {
 public:
  bool visible = false;

  /// Draws the window (when visible) from `worker`'s latest sweep, read only
  /// then (it is a copy under the worker's lock), and the current fit; a
  /// click sets state.settings' tolerance and asks for a re-fit.
  void draw(StudioState& state, const RdSweepWorker& worker);

  /// What the panel showed at its last draw, for screenshot tests:
  /// "rd N points of M, current E mm, hovered none".
  const std::string& report() const { return m_report; }
  /// Where the table's row of point `index` was drawn (screen px), if it was:
  /// tests click it as a person would.
  std::optional<ImVec2> row_center(size_t index) const;

 private:
  void draw_plot(StudioState& state, const RdSweep& sweep, float height);
  void draw_table(StudioState& state, const RdSweep& sweep);

  std::string m_report;
  std::vector<ImVec2> m_row_centers;  // per point, its table row's centre at the last draw
};

}  // namespace ks::studio
