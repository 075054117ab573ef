// The Bones panel's Curves group: the clip's scalar tracks (morph weights,
// user curves) below the bones, each with its largest error over the clip
// against its precision (green within, red over, grey for a constant
// track, which is exact), what it drives, its keys and, linear or step,
// its curve. A click shows the track in the Curves panel; its precision
// override is edited under the tree, or in place from the row's
// right-click menu.

#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "app/studio/panels/bone_tree_panel.h"
#include "app/studio/plots/curve_label.h"
#include "app/studio/settings/scalar_precision_edit.h"
#include "keystream/clip/excerpt.h"

namespace ks::studio {

namespace {

constexpr int kScrollFrames = 3;       // frames a selection made elsewhere is scrolled to, as the bones'
constexpr float kShareOfTree = 0.4f;   // the group takes at most this share of the tree's height ...
constexpr size_t kLeastShownRows = 3;  // ... or this many rows, whichever is more

// What the fit made of scalar track `s`, when the result has it.
struct ScalarFit {
  const FittedTrack* track = nullptr;
  float error = 0.f;  // measured on the decoded stream, the track's unit
  uint32_t worst_frame = 0;
  float precision = 0.f;
};
bool scalar_fit(const FitResult* r, size_t s, ScalarFit* out) {
  if (r == nullptr || s >= r->fitted.scalars.size() || s >= r->measurement.scalar_tracks.size()) return false;
  const size_t t = r->fitted.bone_track_count() + s;
  if (t >= r->fitted.tracks.size()) return false;
  out->track = &r->fitted.tracks[t];
  out->error = r->measurement.scalar_tracks[s].max;
  out->worst_frame = r->measurement.scalar_tracks[s].worst_frame;
  out->precision = r->fitted.scalars[s].precision;
  return true;
}

// The row's last column: a morph weight or a user curve (the name says
// which node and target a weight drives; the tooltip says it in full), and its keys.
std::string row_details(const ScalarTrack& source, const ScalarFit* fit) {
  std::string text = source.target == ScalarTarget::kMorphWeight ? "weight" : "curve";
  if (source.components > 1) text += " x" + std::to_string(source.components);
  if (fit == nullptr) return text;
  if (fit->track->coding != TrackCoding::kAnimated) return text + ", constant";
  const size_t keys = fit->track->keys.size();
  text += ", " + std::to_string(keys) + (keys == 1 ? " key" : " keys");
  // Hermite is the default and goes unsaid; a linear or step curve keeps a keyed source's keys.
  const Interpolation curve = fit->track->interpolation;
  return curve == Interpolation::kHermite ? text : text + ", " + curve_name(curve);
}

void curve_tooltip(const StudioState& state, const ScalarTrack& source, const ScalarFit& fit) {
  ImGui::BeginTooltip();
  ImGui::TextUnformatted(excerpt(source.name, 120).c_str());
  ImGui::TextDisabled("%s", excerpt(describe_scalar_track(source), 160).c_str());
  const bool own = find_scalar_precision(state.settings.fit, source.name) != nullptr;
  ImGui::Text("precision %.3g (%s)", static_cast<double>(fit.precision),
              own ? "its own override" : "the clip's, from Settings");
  ImGui::Text("max error %.3g at frame %u", static_cast<double>(fit.error), fit.worst_frame);
  if (fit.track->coding != TrackCoding::kAnimated) {
    ImGui::TextDisabled("constant: exact, no keys");
  } else {
    ImGui::TextUnformatted(excerpt(curve_label(*fit.track, source.source_keys), 120).c_str());
  }
  if (fit.error > fit.precision) {
    ImGui::TextColored(kTreeOverColor, "over: its coding cannot go below %.3g", static_cast<double>(fit.track->floor));
  }
  ImGui::EndTooltip();
}

}  // namespace

float BoneTreePanel::curve_group_height(const StudioState& state, float available) const {
  if (state.clip->clip.scalars.empty()) return 0.f;
  const ImGuiStyle& style = ImGui::GetStyle();
  const float header = ImGui::GetFrameHeight() + style.ItemSpacing.y;
  if (!m_curves_open) return header;
  const float row = table_row_height();
  const auto rows_height = [&](size_t rows) { return static_cast<float>(rows) * row + style.ScrollbarSize; };
  const float wanted = header + rows_height(std::max<size_t>(m_curve_rows.size(), 1));
  const float least = header + rows_height(std::min(m_curve_rows.size(), kLeastShownRows));
  return std::min(wanted, std::max(kShareOfTree * available, least));
}

void BoneTreePanel::draw_curve_group(StudioState& state, const FitResult* r, float height) {
  const float top = ImGui::GetCursorPosY();
  const size_t track_count = state.clip->clip.scalars.size();
  // A selection made elsewhere (--select-curve) opens the group and scrolls to its row.
  const bool selection_moved = state.selected_scalar != m_seen_scalar;
  if (selection_moved) {
    m_seen_scalar = state.selected_scalar;
    m_scroll_curve_frames = state.selected_scalar >= 0 ? kScrollFrames : 0;
    if (state.selected_scalar >= 0) ImGui::SetNextItemOpen(true);
  }
  char label[96];
  std::snprintf(label, sizeof label, "Curves: %zu scalar %s###curves", track_count,
                track_count == 1 ? "track" : "tracks");
  m_curves_open = ImGui::CollapsingHeader(label, ImGuiTreeNodeFlags_DefaultOpen);
  if (ImGui::IsItemHovered()) {
    ImGui::SetTooltip(
        "Morph-target weights and user curves: each one's largest error over the clip\n"
        "against its precision, in its own unit. Click one to plot it in Curves;\n"
        "right-click to set its precision in place.");
  }
  m_report.curve_rows = m_curve_rows.size();
  const auto selected_at = std::find(m_curve_rows.begin(), m_curve_rows.end(), state.selected_scalar);
  m_report.selected_curve_row =
      selected_at == m_curve_rows.end() ? -1 : static_cast<int32_t>(selected_at - m_curve_rows.begin());
  if (!m_curves_open) return;
  if (m_curve_rows.empty()) {
    ImGui::TextDisabled("no scalar track name contains '%s'", m_filter);
    return;
  }
  int32_t scroll_to = -1;
  if (m_scroll_curve_frames > 0) {
    --m_scroll_curve_frames;
    scroll_to = m_report.selected_curve_row;
  }
  const float table_height = std::max(height - (ImGui::GetCursorPosY() - top), ImGui::GetFrameHeight());
  const ImGuiTableFlags flags =
      ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_ScrollX | ImGuiTableFlags_SizingFixedFit;
  const ImVec2 at = ImGui::GetCursorScreenPos();
  m_report.curve_group =
      visible_rect("bones-curves", at, ImVec2(at.x + ImGui::GetContentRegionAvail().x, at.y + table_height));
  if (!ImGui::BeginTable("curves", 3, flags, ImVec2(0.f, table_height))) return;
  // The error first and frozen, as the bones': names and details fit their contents.
  ImGui::TableSetupScrollFreeze(1, 0);
  ImGui::TableSetupColumn("max / precision", ImGuiTableColumnFlags_WidthFixed);
  ImGui::TableSetupColumn("scalar track", ImGuiTableColumnFlags_WidthFixed);
  ImGui::TableSetupColumn("drives", ImGuiTableColumnFlags_WidthFixed);
  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(m_curve_rows.size()));
  if (scroll_to >= 0) clipper.ForceDisplayRangeByIndices(scroll_to, scroll_to + 1);
  while (clipper.Step()) {
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      draw_curve_row(state, i, r);
      if (i == scroll_to) ImGui::SetScrollHereY(0.5f);
    }
  }
  ImGui::EndTable();
}

void BoneTreePanel::draw_curve_row(StudioState& state, int32_t row_index, const FitResult* r) {
  const int32_t s = m_curve_rows[static_cast<size_t>(row_index)];
  const ScalarTrack& source = state.clip->clip.scalars[static_cast<size_t>(s)];
  ScalarFit fit;
  const bool measured = scalar_fit(r, static_cast<size_t>(s), &fit);
  const bool over = measured && fit.error > fit.precision;
  const bool still = measured && fit.track->coding != TrackCoding::kAnimated;
  ImGui::PushID(s);
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  if (measured) {
    ImGui::TextColored(over    ? kTreeOverColor
                       : still ? kTreeStillColor
                               : kTreeMetColor,
                       "%s", format_precision_pair(fit.error, fit.precision).c_str());
  }
  ImGui::TableNextColumn();
  if (over || still) ImGui::PushStyleColor(ImGuiCol_Text, over ? kTreeOverColor : kTreeStillColor);
  // A track with a precision of its own is marked with a star, as a bone with an override.
  const bool own = find_scalar_precision(state.settings.fit, source.name) != nullptr;
  const std::string label = excerpt(source.name, 120) + (own ? " *" : "");
  const bool selected = state.selected_scalar == s;
  if (ImGui::Selectable(label.c_str(), selected, ImGuiSelectableFlags_SpanAllColumns)) {
    state.selected_scalar = s;
    m_seen_scalar = s;  // in view already: no scroll
  }
  if (over || still) ImGui::PopStyleColor();
  if (selected) m_report.selected_curve_in_view = ImGui::IsItemVisible();
  if (measured && ImGui::IsItemHovered()) curve_tooltip(state, source, fit);
  if (ImGui::BeginPopupContextItem("precision")) {
    state.selected_scalar = s;
    m_seen_scalar = s;
    draw_precision_fields(state);
    ImGui::EndPopup();
  }
  ImGui::TableNextColumn();
  ImGui::TextDisabled("%s", row_details(source, measured ? &fit : nullptr).c_str());
  ImGui::PopID();
}

void BoneTreePanel::draw_precision_fields(StudioState& state) {
  const std::vector<ScalarTrack>& scalars = state.clip->clip.scalars;
  const int s = state.selected_scalar;
  if (s < 0 || static_cast<size_t>(s) >= scalars.size()) return;
  const std::string& name = scalars[static_cast<size_t>(s)].name;
  FitSettings& fit = state.settings.fit;
  StudioState::PrecisionEdit& edit = state.precision_edit;
  const ScalarPrecision* own = find_scalar_precision(fit, name);
  if (edit.track != s) {
    // Fill the field with what the track has now.
    edit.track = s;
    edit.precision = own != nullptr ? own->precision : fit.scalar_precision;
  }
  ImGui::Text("Precision of %s", excerpt(name, 120).c_str());
  if (own == nullptr) {
    ImGui::TextDisabled("the clip's: %.3g (Settings)", static_cast<double>(fit.scalar_precision));
  } else {
    ImGui::TextDisabled("its own override");
  }
  ImGui::PushItemWidth(std::min(ImGui::GetContentRegionAvail().x - ImGui::CalcTextSize("precision ").x, 240.f));
  ImGui::SliderFloat("precision", &edit.precision, kLeastEditedScalarPrecision, kMostEditedScalarPrecision, "%.3g",
                     ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp);
  ImGui::PopItemWidth();
  if (ImGui::Button(own != nullptr ? "Update override" : "Set override")) {
    set_scalar_precision(fit, ScalarPrecision{name, edit.precision});
    state.refit_requested = true;
  }
  if (ImGui::IsItemHovered()) {
    ImGui::SetTooltip("Fit this track within this precision at every frame, in its unit (a weight's is 0..1)");
  }
  if (own != nullptr) {
    ImGui::SameLine();
    if (ImGui::Button("Remove override")) {
      remove_scalar_precision(fit, name);
      edit.track = -1;  // refill from the clip's precision
      state.refit_requested = true;
    }
  }
}

}  // namespace ks::studio
