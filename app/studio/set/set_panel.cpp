#include "app/studio/set/set_panel.h"

#include <imgui_stdlib.h>

#include <algorithm>
#include <cfloat>
#include <cinttypes>
#include <cstdio>

#include "app/studio/panels/flow_layout.h"
#include "app/studio/settings/bone_tolerance_edit.h"
#include "keystream/clip/excerpt.h"
#include "keystream/io/tolerance_file.h"

namespace ks::studio {

namespace {

const ImVec4 kOverColor(1.f, 0.45f, 0.4f, 1.f);
const ImVec4 kMetColor(0.55f, 0.85f, 0.55f, 1.f);
const ImVec4 kBusyColor(1.f, 0.8f, 0.3f, 1.f);

const char* stage_text(FitStage stage) {
  switch (stage) {
    case FitStage::kFitting: return "fitting";
    case FitStage::kPacking: return "packing";
    case FitStage::kMeasuring: return "measuring";
  }
  return "";
}

std::string mm(float metres) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", static_cast<double>(metres) * 1000.0);
  return text;
}

// A status cell: a progress bar while running, else a word (the error in a tooltip).
void status_cell(const SetRow& row) {
  switch (row.state) {
    case SetRowState::kRunning: {
      const std::string label = std::string(stage_text(row.stage)) + (row.stale ? " (shown: old settings)" : "");
      ImGui::ProgressBar(row.stage == FitStage::kFitting ? row.progress : 1.f, ImVec2(-1.f, 0.f), label.c_str());
      break;
    }
    case SetRowState::kWaiting: ImGui::TextColored(kBusyColor, row.stale ? "queued (old settings)" : "queued"); break;
    case SetRowState::kDone: ImGui::TextColored(kMetColor, "done"); break;
    case SetRowState::kFailed:
      ImGui::TextColored(kOverColor, "failed");
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", excerpt(row.error, 400).c_str());
      break;
  }
}

}  // namespace

void SetPanel::reset(const SetFitter& set) {
  const std::vector<std::filesystem::path>& sources = set.sources();
  if (sources.empty()) return;
  const std::filesystem::path& first = sources.front();
  const std::filesystem::path folder = first.has_parent_path() ? first.parent_path() : std::filesystem::path(".");
  const std::string stem = sources.size() == 1 ? first.stem().string() : folder.filename().string();
  m_tolerance_text = (folder / ((stem.empty() ? std::string("set") : stem) + ".tolerances.txt")).string();
  m_folder_text = folder.string();
  m_message.clear();
  m_save_open = false;
}

Status SetPanel::load_tolerances(StudioState& state) {
  Result<ToleranceFile> file = read_bone_tolerance_file(m_tolerance_text);
  m_failed = !file;
  if (!file) {
    m_message = file.error();
    return Error{file.error()};
  }
  apply_tolerance_file(file.value(), state.settings.fit);
  state.settings.fit.error_mode = ErrorMode::kObjectSpace;
  state.override_edit.bone = -1;  // the Bones panel's editor refills from the new values
  state.refit_requested = true;
  m_message = "loaded " + excerpt(m_tolerance_text, kPathExcerptChars);
  return {};
}

Status SetPanel::save_tolerances(const StudioState& state) {
  std::vector<std::string> inexact;
  const Status s = write_bone_tolerance_file(m_tolerance_text, state.settings.fit, &inexact);
  m_failed = !s;
  m_message = s ? "saved " + excerpt(m_tolerance_text, kPathExcerptChars) : s.error();
  for (const std::string& note : inexact) m_message += "\n" + note;
  return s;
}

Result<size_t> SetPanel::save_all(const SetFitter& set, bool replace) {
  const std::vector<SetRow> rows = set.rows();
  m_plan = plan_save_all(rows, m_folder_text);
  if (!m_plan.existing.empty() && !replace) {
    return Error{std::to_string(m_plan.existing.size()) + " of the files exist (" +
                 excerpt(m_plan.existing.front().string(), kPathExcerptChars) +
                 (m_plan.existing.size() > 1 ? ", ..." : "") + "); replace them or choose another folder"};
  }
  Result<size_t> written = ks::studio::save_all(rows, m_plan);
  m_failed = !written;
  m_message = written ? "wrote " + std::to_string(written.value()) + " stream files into " +
                            excerpt(m_folder_text, kPathExcerptChars)
                      : written.error();
  return written;
}

CompressCommand SetPanel::command(const StudioState& state, const SetFitter& set) const {
  return set_compress_command(set.sources(), state.import_settings, state.settings, m_folder_text, m_tolerance_text);
}

std::optional<SetRow> SetPanel::take_clicked() {
  std::optional<SetRow> clicked = std::move(m_clicked);
  m_clicked.reset();
  return clicked;
}

bool SetPanel::take_command_request() {
  const bool requested = m_command_requested;
  m_command_requested = false;
  return requested;
}

void SetPanel::draw(StudioState& state, const SetFitter& set, const SetSnapshot& view) {
  if (set.empty()) return;
  const std::vector<SetRow>& rows = view.rows;
  std::vector<SetFigures> figures;
  figures.reserve(rows.size());
  for (const SetRow& row : rows) figures.push_back(set_figures(row));
  const SetTotals totals = set_totals(rows, figures);
  const SetProgress& progress = view.progress;

  // What the set is and how far its fits are.
  const std::vector<std::filesystem::path>& sources = set.sources();
  const std::string what = sources.size() == 1 ? excerpt(sources.front().filename().string(), 120)
                                               : std::to_string(sources.size()) + " files";
  ImGui::Text("%s: %zu clips", what.c_str(), rows.size());
  ImGui::SameLine();
  if (progress.busy()) {
    char label[96];
    std::snprintf(label, sizeof label, "%zu of %zu clips fitted for these settings%s", progress.rows_current,
                  progress.rows, progress.files_listed < progress.files ? ", listing files" : "");
    const float share =
        progress.rows > 0 ? static_cast<float>(progress.rows_current) / static_cast<float>(progress.rows) : 0.f;
    ImGui::ProgressBar(share, ImVec2(ImGui::GetFontSize() * 24.f, 0.f), label);
  } else if (totals.failed > 0 || totals.over > 0) {
    ImGui::TextColored(kOverColor, "%zu failed, %zu over their bound", totals.failed, totals.over);
  } else {
    ImGui::TextColored(kMetColor, "every clip within its bound");
  }
  if (state.additive.base != AdditiveBase::kNone) {
    ImGui::TextColored(kBusyColor,
                       "The set fits its clips as imported: the additive base applies to the open clip alone.");
  }
  draw_toolbar(state, set);
  draw_table(state, rows, figures, totals);
  draw_save_all(set);

  char report[512];
  std::snprintf(report, sizeof report, "set %zu rows, %zu done, %zu failed, %zu bytes, worst %s of %s mm (%s)",
                rows.size(), totals.with_result, totals.failed, totals.bytes,
                totals.with_result ? mm(figures[totals.worst_clip].max_error_m).c_str() : "-",
                totals.with_result ? mm(figures[totals.worst_clip].tolerance_m).c_str() : "-",
                totals.with_result ? excerpt(set_row_label(rows[totals.worst_clip]), 120).c_str() : "-");
  m_report = report;
}

std::string SetPanel::tab_label(const SetSnapshot& view) {
  const SetProgress& p = view.progress;
  std::string label = "Set: " + std::to_string(p.rows) + (p.rows == 1 ? " clip" : " clips");
  if (p.busy()) label += ", " + std::to_string(p.rows_current) + " fitted";
  return label + "###set";
}

void SetPanel::draw_toolbar(StudioState& state, const SetFitter& set) {
  const float field = ImGui::GetFontSize() * 18.f;
  ImGui::SetNextItemWidth(field);
  ImGui::InputText("tolerance file", &m_tolerance_text);
  if (ImGui::IsItemHovered()) {
    ImGui::SetTooltip("A --bone-tolerances file: *=MM@CM for the set, NAME=MM[@CM] per bone");
  }
  ImGui::SameLine();
  if (ImGui::Button("Load")) static_cast<void>(load_tolerances(state));
  ImGui::SameLine();
  if (ImGui::Button("Save")) static_cast<void>(save_tolerances(state));
  // The output half follows on the same line when the window is wide enough.
  const float label_gap = ImGui::GetStyle().ItemInnerSpacing.x;
  same_line_if_fits(field + label_gap + ImGui::CalcTextSize("output folder").x, ImGui::GetFontSize() * 2.f);
  ImGui::SetNextItemWidth(field);
  ImGui::InputText("output folder", &m_folder_text);
  same_line_if_fits(button_width("Save all..."));
  if (ImGui::Button("Save all...")) {
    m_plan = plan_save_all(set.rows(), m_folder_text);
    m_save_open = true;
    ImGui::OpenPopup("Save all");
  }
  same_line_if_fits(button_width("Copy as command"));
  if (ImGui::Button("Copy as command")) m_command_requested = true;
  if (ImGui::IsItemHovered()) {
    ImGui::SetTooltip("keystream compress --all-animations reading the tolerance file: save it first");
  }
  if (!m_message.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, m_failed ? kOverColor : kMetColor);
    ImGui::TextWrapped("%s", excerpt(m_message, 600).c_str());
    ImGui::PopStyleColor();
  }
}

void SetPanel::draw_table(const StudioState& state, const std::vector<SetRow>& rows,
                          const std::vector<SetFigures>& figures, const SetTotals& totals) {
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_Sortable |
                                ImGuiTableFlags_ScrollY | ImGuiTableFlags_Resizable | ImGuiTableFlags_SizingStretchProp;
  if (!ImGui::BeginTable("set clips", static_cast<int>(SetColumn::kCount), flags)) return;
  ImGui::TableSetupScrollFreeze(0, 2);
  const char* const headings[] = {"clip",          "frames",         "bytes",      "share",  "keys",  "ratio",
                                  "max / tol. mm", "scalar / prec.", "worst bone", "fit ms", "status"};
  for (int c = 0; c < static_cast<int>(SetColumn::kCount); ++c) {
    const ImGuiTableColumnFlags column_flags = c == 0 ? ImGuiTableColumnFlags_DefaultSort : 0;
    ImGui::TableSetupColumn(headings[c], column_flags,
                            c == 0 ? 2.4f : (c == 6 || c == 7 || c == 8 || c == 10 ? 1.6f : 1.f),
                            static_cast<ImGuiID>(c));
  }
  ImGui::TableHeadersRow();
  if (ImGuiTableSortSpecs* specs = ImGui::TableGetSortSpecs(); specs != nullptr && specs->SpecsCount > 0) {
    m_sort = static_cast<SetColumn>(specs->Specs[0].ColumnUserID);
    m_descending = specs->Specs[0].SortDirection == ImGuiSortDirection_Descending;
    specs->SpecsDirty = false;
  }
  const bool one_file = !rows.empty() && rows.front().source == rows.back().source;
  // The set's totals, first and frozen with the header, so they stay in view.
  ImGui::TableNextRow(ImGuiTableRowFlags_Headers);
  ImGui::TableNextColumn();
  ImGui::Text("total: %zu clips", totals.clips);
  ImGui::TableNextColumn();
  ImGui::Text("%" PRIu64, totals.frames);
  ImGui::TableNextColumn();
  ImGui::Text("%zu", totals.bytes);
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(totals.with_result > 0 ? "100 %" : "");
  ImGui::TableNextColumn();
  ImGui::Text("%zu", totals.keys);
  ImGui::TableNextColumn();
  ImGui::Text("%.1f : 1", totals.ratio());
  ImGui::TableNextColumn();
  if (totals.with_result > 0) {
    const SetFigures& worst = figures[totals.worst_clip];
    ImGui::TextColored(totals.worst_error_share > 1.0 ? kOverColor : kMetColor, "%s",
                       format_error_pair_mm(worst.max_error_m, worst.tolerance_m).c_str());
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", excerpt(set_row_label(rows[totals.worst_clip]), 200).c_str());
  }
  ImGui::TableNextColumn();
  ImGui::TableNextColumn();
  if (totals.with_result > 0) {
    // The worst clip, where each row names its worst bone.
    const SetRow& worst = rows[totals.worst_clip];
    ImGui::Text("clip %s", excerpt(one_file ? worst.animation_name : set_row_label(worst), 80).c_str());
  }
  ImGui::TableNextColumn();
  ImGui::Text("%.0f", totals.fit_ms);
  ImGui::TableNextColumn();
  ImGui::Text("%zu / %zu done", totals.with_result, totals.clips);
  // Where the status cells were drawn, for the screenshot tests.
  ImVec2 status_min(FLT_MAX, FLT_MAX), status_max(-FLT_MAX, -FLT_MAX);
  const auto grow_status_rect = [&] {
    const ImVec2 lo = ImGui::GetItemRectMin(), hi = ImGui::GetItemRectMax();
    if (!ImGui::IsItemVisible()) return;
    status_min = ImVec2(std::min(status_min.x, lo.x), std::min(status_min.y, lo.y));
    status_max = ImVec2(std::max(status_max.x, hi.x), std::max(status_max.y, hi.y));
  };
  const std::filesystem::path& open_path = state.clip_path;
  const int open_animation = state.import_settings.animation_index;
  for (const size_t i : sorted_rows(rows, figures, m_sort, m_descending)) {
    const SetRow& row = rows[i];
    const SetFigures& f = figures[i];
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    const bool is_open = row.source == open_path && row.animation == open_animation;
    // One file's animations are named alone; several files' with the file.
    const std::string name = one_file ? row.animation_name : set_row_label(row);
    const std::string label = excerpt(name.empty() ? set_row_label(row) : name, 160) + "##" + std::to_string(i);
    if (ImGui::Selectable(label.c_str(), is_open, ImGuiSelectableFlags_SpanAllColumns) && !is_open) m_clicked = row;
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("Open %s in the clip panels", excerpt(set_row_label(row), 200).c_str());
    ImGui::TableNextColumn();
    if (!f.has_result) {
      for (int c = 1; c < static_cast<int>(SetColumn::kStatus); ++c) ImGui::TableNextColumn();
      status_cell(row);
      grow_status_rect();
      continue;
    }
    const auto dim_if_stale = [&] {
      if (row.stale) ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    };
    dim_if_stale();
    ImGui::Text("%u", f.frames);
    ImGui::TableNextColumn();
    ImGui::Text("%zu", f.bytes);
    ImGui::TableNextColumn();
    ImGui::Text("%.1f %%",
                totals.bytes > 0 ? 100.0 * static_cast<double>(f.bytes) / static_cast<double>(totals.bytes) : 0.0);
    ImGui::TableNextColumn();
    ImGui::Text("%zu", f.keys);
    ImGui::TableNextColumn();
    ImGui::Text("%.1f : 1", f.ratio);
    ImGui::TableNextColumn();
    if (row.stale) ImGui::PopStyleColor();
    ImGui::TextColored(
        row.stale ? ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled) : (f.error_share > 1.0 ? kOverColor : kMetColor),
        "%s", format_error_pair_mm(f.max_error_m, f.tolerance_m).c_str());
    ImGui::TableNextColumn();
    dim_if_stale();
    if (f.has_scalars) {
      ImGui::Text("%s", format_error_pair(f.scalar_error, f.scalar_precision, 6).c_str());
    } else {
      ImGui::TextDisabled("-");
    }
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(excerpt(f.worst_bone, 80).c_str());
    ImGui::TableNextColumn();
    ImGui::Text("%.0f", f.fit_ms);
    if (row.stale) ImGui::PopStyleColor();
    ImGui::TableNextColumn();
    status_cell(row);
    grow_status_rect();
  }
  ImGui::EndTable();
  m_rects.clear();
  const ImVec2 lo = ImGui::GetItemRectMin(), hi = ImGui::GetItemRectMax();
  m_rects.push_back(visible_rect("set-table", lo, hi));
  if (status_min.x < status_max.x) m_rects.push_back(visible_rect("set-status", status_min, status_max));
}

void SetPanel::draw_save_all(const SetFitter& set) {
  if (!m_save_open) return;
  ImGui::SetNextWindowSize(ImVec2(ImGui::GetFontSize() * 40.f, 0.f), ImGuiCond_Appearing);
  if (!ImGui::BeginPopupModal("Save all", &m_save_open, ImGuiWindowFlags_NoSavedSettings)) return;
  ImGui::TextWrapped(
      "One stream file per clip, %zu files, into %s, named as keystream compress --all-animations "
      "names them.",
      m_plan.outputs.size(), excerpt(m_plan.folder.string(), kPathExcerptChars).c_str());
  const bool ready = m_plan.blocker.empty();
  if (!ready) {
    ImGui::PushStyleColor(ImGuiCol_Text, kOverColor);
    ImGui::TextWrapped("%s", excerpt(m_plan.blocker, 400).c_str());
    ImGui::PopStyleColor();
  } else if (!m_plan.existing.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, kBusyColor);
    ImGui::TextWrapped("%zu of them exist and would be replaced, %s first.", m_plan.existing.size(),
                       excerpt(m_plan.existing.front().filename().string(), 120).c_str());
    ImGui::PopStyleColor();
  }
  ImGui::BeginDisabled(!ready);
  if (ImGui::Button(m_plan.existing.empty() ? "Save" : "Replace and save")) {
    static_cast<void>(save_all(set, /*replace=*/true));
    m_save_open = false;
    ImGui::CloseCurrentPopup();
  }
  ImGui::EndDisabled();
  ImGui::SameLine();
  if (ImGui::Button("Cancel") || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape), false)) {
    m_save_open = false;
    ImGui::CloseCurrentPopup();
  }
  ImGui::EndPopup();
}

}  // namespace ks::studio
