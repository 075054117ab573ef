#pragma once
// SetPanel: the Set tab beside the curves (View menu, Ctrl+T; DESIGN §9). Every clip of
// the open set in a sortable table (frames, bytes and share of the set,
// keys, ratio, largest object-space error against its tolerance, scalar
// precision, worst bone, fit time, status) with the set's totals; a click
// opens that clip in the single-clip panels. The studio's settings apply
// to the whole set; they load from and save to a --bone-tolerances file,
// and Save all and Copy as command write what `keystream compress
// --all-animations` would.

#include <imgui.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "app/studio/app/screen_rect.h"
#include "app/studio/app/studio_state.h"
#include "app/studio/set/set_figures.h"
#include "app/studio/set/set_fitter.h"
#include "app/studio/set/set_save.h"
#include "app/studio/settings/compress_command_line.h"

namespace ks::studio {

class SetPanel {
 public:
  /// A new set was opened: the paths start beside its first source.
  void reset(const SetFitter& set);
  /// Draws the set into the current window (its tab) from `view`, the set's
  /// latest snapshot; the buttons read `set` itself.
  void draw(StudioState& state, const SetFitter& set, const SetSnapshot& view);
  /// The tab's label: the clips and, while fitting, how far.
  static std::string tab_label(const SetSnapshot& view);

  /// The tolerance file the set's settings are saved to and the command reads.
  std::filesystem::path tolerance_path() const { return m_tolerance_text; }
  std::filesystem::path output_folder() const { return m_folder_text; }
  void set_tolerance_path(const std::filesystem::path& path) { m_tolerance_text = path.string(); }
  void set_output_folder(const std::filesystem::path& path) { m_folder_text = path.string(); }

  /// Loads the tolerance file into `state`'s settings (a refit follows).
  Status load_tolerances(StudioState& state);
  /// Saves `state`'s settings to the tolerance file.
  Status save_tolerances(const StudioState& state);
  /// Save all into the output folder; replaces existing files only with `replace`.
  Result<size_t> save_all(const SetFitter& set, bool replace);
  /// The command that cooks the set as the studio shows it.
  CompressCommand command(const StudioState& state, const SetFitter& set) const;

  /// What the panel showed at its last draw, for screenshot tests:
  /// "set R rows, D done, F failed, B bytes, worst E of T mm (CLIP)".
  const std::string& report() const { return m_report; }
  /// The table ("set-table") and its visible status cells ("set-status") at the last draw.
  const std::vector<ScreenRect>& rects() const { return m_rects; }
  /// The row of a clip clicked this frame, if any (the app opens it).
  std::optional<SetRow> take_clicked();
  /// Copy as command was pressed this frame (the app shows the command).
  bool take_command_request();

 private:
  void draw_toolbar(StudioState& state, const SetFitter& set);
  void draw_table(const StudioState& state, const std::vector<SetRow>& rows, const std::vector<SetFigures>& figures,
                  const SetTotals& totals);
  void draw_save_all(const SetFitter& set);

  std::string m_tolerance_text;
  std::string m_folder_text;
  std::string m_message;  // the last load, save or Save all outcome
  bool m_failed = false;
  SetColumn m_sort = SetColumn::kClip;
  bool m_descending = false;
  std::optional<SetRow> m_clicked;
  bool m_command_requested = false;
  // Save all: the plan asked about (existing files are replaced only on Replace).
  bool m_save_open = false;
  SaveAllPlan m_plan;
  std::string m_report;
  std::vector<ScreenRect> m_rects;
};

}  // namespace ks::studio
