// The Bones panel: the hierarchy as a tree, each bone with its object-space
// max over the clip against its tolerance ("0.08 / 0.10 mm", green when
// within, red when over, grey for bones that do not move); clicking selects
// the bone for the curves and the viewport. Under the tree, the selected
// bone's tolerance: an override of E and d set there (or from a row's
// right-click menu) becomes a BoneTolerance in the fit settings (it and the
// bones below it) and refits; it can be removed again. The Curves group
// below the tree is bone_tree_curves.cpp.

#include "app/studio/panels/bone_tree_panel.h"

#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <cstring>
#include <string>

#include "app/studio/plots/curve_label.h"
#include "app/studio/settings/bone_tolerance_edit.h"
#include "keystream/clip/excerpt.h"

namespace ks::studio {

namespace {

constexpr float kMinIndentStep = 4.f;  // pixels: levels stay apart on the deepest rigs
constexpr int kScrollFrames = 3;       // frames a selection made elsewhere is scrolled to
// The share of the name column the widest name may claim when the tree
// shrinks its indentation; past it, the column scrolls sideways.
constexpr float kNameShareOfColumn = 0.7f;

// True when none of the bone's tracks is animated in the fit: it holds one
// pose (constant, or the rest pose) for the whole clip.
bool bone_is_still(const FitResult* r, size_t bone) {
  return r != nullptr && 3 * bone + 2 < r->fitted.tracks.size() && !bone_moves(*r, bone);
}

// A bone's measured max and tolerance, when the result has them.
bool bone_error(const FitResult* r, size_t bone, float* error_m, float* tolerance_m) {
  if (r == nullptr || bone >= r->measurement.bone_error_m.size() || bone >= r->bone_tolerance_m.size()) return false;
  *error_m = r->measurement.bone_error_m[bone];
  *tolerance_m = r->bone_tolerance_m[bone];
  return true;
}

void bone_tooltip(const StudioState& state, const FitResult& r, size_t bone) {
  const Skeleton& skeleton = state.clip->skeleton;
  ImGui::BeginTooltip();
  // The whole name: a deep rig's may be cut at the column's edge.
  ImGui::TextUnformatted(excerpt(skeleton.bone_names[bone], 120).c_str());
  if (bone_is_still(&r, bone)) ImGui::TextDisabled("does not move: one pose for the whole clip");
  const float e = r.bone_tolerance_m[bone], d = r.bone_shell_distance_m[bone];
  ImGui::Text("tolerance %.3g mm at %.3g cm", static_cast<double>(e) * 1000.0, static_cast<double>(d) * 100.0);
  const int from = overriding_bone(skeleton, r.settings.fit, static_cast<int>(bone));
  if (from < 0) {
    ImGui::TextDisabled("the clip's tolerance");
  } else {
    ImGui::TextDisabled("override on %s", excerpt(skeleton.bone_names[static_cast<size_t>(from)], 120).c_str());
  }
  ImGui::Text("object-space max %.4f mm at frame %u", static_cast<double>(r.measurement.bone_error_m[bone]) * 1000.0,
              r.measurement.bone_worst_frame[bone]);
  if (bone < r.fitted.bones.size() && !r.fitted.bones[bone].met()) {
    ImGui::TextColored(kTreeOverColor, "over: the codings on its chain cannot go below %.4f mm",
                       static_cast<double>(r.fitted.bones[bone].floor_m) * 1000.0);
  }
  static constexpr const char* kKinds[3] = {"translation", "rotation", "scale"};
  for (size_t k = 0; k < 3; ++k) {
    const FittedTrack& t = r.fitted.tracks[3 * bone + k];
    // An animated track's curve and its keys, with those it kept of a keyed source's.
    const std::string curve = curve_label(t, state.clip->clip.bones[bone].source_keys[k]);
    if (curve.empty()) {
      ImGui::Text("%-11s %-8s 0 keys", kKinds[k], to_string(t.coding));
    } else {
      ImGui::Text("%-11s %s", kKinds[k], excerpt(curve, 120).c_str());
    }
  }
  ImGui::EndTooltip();
}

// The selected bone's tolerance, where it comes from, and the override
// editor: under the tree, and in a row's right-click menu.
void draw_override_fields(StudioState& state) {
  const Skeleton& skeleton = state.clip->skeleton;
  const int bone = state.selected_bone;
  if (bone < 0 || static_cast<size_t>(bone) >= skeleton.bone_count()) return;
  const std::string& name = skeleton.bone_names[static_cast<size_t>(bone)];
  FitSettings& fit = state.settings.fit;
  StudioState::OverrideEdit& edit = state.override_edit;
  const int from = overriding_bone(skeleton, fit, bone);
  const BoneTolerance* applies =
      from >= 0 ? find_bone_tolerance(fit, skeleton.bone_names[static_cast<size_t>(from)]) : nullptr;
  if (edit.bone != bone) {
    // Fill the fields with what the bone has now.
    edit.bone = bone;
    edit.tolerance_mm = (applies != nullptr ? applies->tolerance_m : fit.tolerance_m) * 1000.f;
    const float d =
        applies != nullptr && applies->shell_distance_m > 0.f ? applies->shell_distance_m : fit.shell_distance_m;
    edit.shell_distance_cm = d * 100.f;
  }
  ImGui::Text("Tolerance of %s", excerpt(name, 120).c_str());
  if (from < 0) {
    ImGui::TextDisabled("the clip's: %.3g mm at %.3g cm", static_cast<double>(fit.tolerance_m) * 1000.0,
                        static_cast<double>(fit.shell_distance_m) * 100.0);
  } else if (from != bone) {
    ImGui::TextDisabled("from the override on %s",
                        excerpt(skeleton.bone_names[static_cast<size_t>(from)], 120).c_str());
  } else {
    ImGui::TextDisabled("its own override (also for the bones below it)");
  }
  const ImGuiSliderFlags flags = ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp;
  ImGui::PushItemWidth(std::min(ImGui::GetContentRegionAvail().x - ImGui::CalcTextSize("d (cm) ").x, 240.f));
  ImGui::SliderFloat("E (mm)", &edit.tolerance_mm, 0.001f, 10.f, "%.3g mm", flags);
  ImGui::SliderFloat("d (cm)", &edit.shell_distance_cm, 0.1f, 200.f, "%.3g cm", flags);
  ImGui::PopItemWidth();
  if (ImGui::Button(from == bone ? "Update override" : "Set override")) {
    set_bone_tolerance(fit, BoneTolerance{name, edit.tolerance_mm / 1000.f, edit.shell_distance_cm / 100.f});
    state.refit_requested = true;
  }
  if (ImGui::IsItemHovered()) {
    ImGui::SetTooltip("Fit this bone and those below it (down to the next override) to E at d");
  }
  if (from == bone) {
    ImGui::SameLine();
    if (ImGui::Button("Remove override")) {
      remove_bone_tolerance(fit, name);
      edit.bone = -1;  // refill from what applies now
      state.refit_requested = true;
    }
  }
  if (fit.error_mode == ErrorMode::kLocal) ImGui::TextDisabled("(local mode fits per-kind thresholds instead)");
}

// What the colours and marks of the rows mean, on one line.
void draw_legend() {
  ImGui::TextColored(kTreeMetColor, "within");
  ImGui::SameLine();
  ImGui::TextColored(kTreeOverColor, "over");
  ImGui::SameLine();
  ImGui::TextColored(kTreeStillColor, "still");
  ImGui::SameLine();
  ImGui::TextDisabled("* override (?)");
  if (ImGui::IsItemHovered()) {
    ImGui::SetTooltip(
        "Each bone's object-space max over the clip against its tolerance E, in mm.\n"
        "Green: within E; red: over E; grey: no animated track (one pose;\n"
        "its error is its parents'). * marks a bone with its own override;\n"
        "right-click a bone to set one in place. Curves: each scalar track's\n"
        "largest error against its precision, in the track's unit.");
  }
}

}  // namespace

void BoneTreePanel::set_filter(const std::string& text) {
  std::strncpy(m_filter, text.c_str(), sizeof m_filter - 1);
  m_filter[sizeof m_filter - 1] = '\0';
  m_rows_stale = true;
}

void BoneTreePanel::draw(StudioState& state) {
  if (!ImGui::Begin("Bones")) {
    ImGui::End();
    return;
  }
  if (!state.clip) {
    ImGui::TextDisabled("no clip open");
    ImGui::End();
    return;
  }
  if (m_clip.lock() != state.clip) open_clip(state.clip);
  draw_legend();
  ImGui::SetNextItemWidth(-FLT_MIN);
  if (ImGui::InputTextWithHint("##filter", "filter by name", m_filter, sizeof m_filter)) m_rows_stale = true;
  // A selection made elsewhere (the viewport, --select, the default) opens
  // the branches above it and scrolls its row into view; one made by a
  // click in the tree is already in view.
  const bool selection_moved = state.selected_bone != m_seen_selection;
  if (selection_moved && m_filter[0] == '\0' &&
      open_branches_above(state.clip->skeleton.parents, state.selected_bone, m_collapsed)) {
    m_rows_stale = true;
  }
  if (m_rows_stale) rebuild_rows(state);
  if (selection_moved) {
    m_seen_selection = state.selected_bone;
    m_scroll_frames = kScrollFrames;
  }
  // The row is scrolled to over a few frames: a window's and a table's
  // sizes settle in their first frames, and each frame's scroll aims anew.
  m_scroll_to_row = -1;
  if (m_scroll_frames > 0) {
    --m_scroll_frames;
    m_scroll_to_row = row_of_bone(m_rows, state.selected_bone);
  }
  const FitResult* r = state.current_result();
  // The editor keeps its height at the bottom; the tree scrolls above it.
  const float editor_height = 6.f * ImGui::GetFrameHeightWithSpacing() + ImGui::GetStyle().ItemSpacing.y;
  const float below_filter = std::max(ImGui::GetContentRegionAvail().y - editor_height, 4.f * ImGui::GetFrameHeight());
  const float curves_height = curve_group_height(state, below_filter);
  float tree_height = std::max(below_filter - curves_height, 4.f * ImGui::GetFrameHeight());
  if (curves_height > 0.f) {
    // The Curves group follows the bones' rows rather than the panel's foot.
    const float rows_height = static_cast<float>(m_rows.size()) * table_row_height() + ImGui::GetStyle().ScrollbarSize;
    tree_height = std::max(std::min(tree_height, rows_height), 4.f * ImGui::GetFrameHeight());
  }
  m_report = {};
  m_report.rows = m_rows.size();
  m_report.selected_row = row_of_bone(m_rows, state.selected_bone);
  // The error column first and frozen: the names scroll sideways beside it
  // when a deep rig's do not fit, and the errors stay in view.
  const ImGuiTableFlags table_flags =
      ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_ScrollX | ImGuiTableFlags_SizingFixedFit;
  if (ImGui::BeginTable("bones", 2, table_flags, ImVec2(0.f, tree_height))) {
    const ImGuiStyle& style = ImGui::GetStyle();
    const float error_width = ImGui::CalcTextSize("0.000 / 0.00").x;
    const float arrow = ImGui::GetTreeNodeToLabelSpacing();
    const float visible_width =
        ImGui::GetContentRegionAvail().x - error_width - 4.f * style.CellPadding.x - style.ScrollbarSize;
    // Levels share what the widest name leaves of the visible column.
    m_indent_step =
        indent_step(m_max_depth, visible_width, arrow + std::min(m_widest_label, kNameShareOfColumn * visible_width),
                    style.IndentSpacing, kMinIndentStep);
    m_report.indent_step = m_indent_step;
    const float tree_width = static_cast<float>(m_max_depth) * m_indent_step + arrow + m_widest_label;
    m_frozen_width = error_width + 2.f * style.CellPadding.x;
    ImGui::TableSetupScrollFreeze(1, 0);
    ImGui::TableSetupColumn("max / E mm", ImGuiTableColumnFlags_WidthFixed, error_width);
    ImGui::TableSetupColumn("bone", ImGuiTableColumnFlags_WidthFixed, std::max(tree_width, visible_width));
    // Every row is one line high, so the clipper submits only those in view
    // (and the row to scroll to, wherever it is).
    bool toggled = false;
    ImGuiListClipper clipper;
    clipper.Begin(static_cast<int>(m_rows.size()));
    if (m_scroll_to_row >= 0) clipper.ForceDisplayRangeByIndices(m_scroll_to_row, m_scroll_to_row + 1);
    while (clipper.Step()) {
      for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) toggled |= draw_row(state, i, r);
    }
    ImGui::EndTable();
    // Rebuilt next frame: the clipper walks the rows it was given.
    if (toggled) m_rows_stale = true;
  }
  if (m_rows.empty() && m_filter[0] != '\0') ImGui::TextDisabled("no bone name contains '%s'", m_filter);
  if (curves_height > 0.f) draw_curve_group(state, r, curves_height);
  ImGui::Separator();
  // The editor of what the Curves panel shows: a scalar track's precision, or the bone's tolerance.
  if (state.selected_scalar >= 0) {
    draw_precision_fields(state);
  } else {
    draw_override_fields(state);
  }
  ImGui::End();
}

void BoneTreePanel::open_clip(const std::shared_ptr<const ImportedClip>& clip) {
  m_clip = clip;
  m_children = bone_children(clip->skeleton.parents);
  m_collapsed.assign(clip->skeleton.bone_count(), 0);
  m_seen_selection = -1;
  m_seen_scalar = -1;
  m_rows_stale = true;
}

void BoneTreePanel::rebuild_rows(const StudioState& state) {
  const Skeleton& skeleton = state.clip->skeleton;
  if (m_filter[0] != '\0') {
    filtered_bone_rows(m_children, skeleton.parents, skeleton.bone_names, m_filter, m_rows);
  } else {
    visible_bone_rows(m_children, m_collapsed, m_rows);
  }
  m_curve_rows.clear();
  const std::vector<ScalarTrack>& scalars = state.clip->clip.scalars;
  for (size_t s = 0; s < scalars.size(); ++s) {
    if (bone_name_matches(scalars[s].name, m_filter)) m_curve_rows.push_back(static_cast<int32_t>(s));
  }
  m_max_depth = 0;
  m_widest_label = 0.f;
  for (const BoneTreeRow& row : m_rows) {
    m_max_depth = std::max(m_max_depth, row.depth);
    const std::string& name = skeleton.bone_names[static_cast<size_t>(row.bone)];
    // Names past the excerpt's length are shown cut; " *" for an override.
    m_widest_label = std::max(m_widest_label, ImGui::CalcTextSize(excerpt(name, 120).c_str()).x);
  }
  m_widest_label += ImGui::CalcTextSize(" *").x;
  m_rows_stale = false;
}

bool BoneTreePanel::draw_row(StudioState& state, int32_t row_index, const FitResult* r) {
  const BoneTreeRow row = m_rows[static_cast<size_t>(row_index)];
  const Skeleton& skeleton = state.clip->skeleton;
  const size_t b = static_cast<size_t>(row.bone);
  const bool filtered = m_filter[0] != '\0';
  const bool leaf = m_children.child_count(b) == 0;
  // The rows are flat: the panel, not ImGui's tree stack, keeps what is open.
  // A filtered tree shows every match, so its branches do not close.
  ImGuiTreeNodeFlags flags = ImGuiTreeNodeFlags_SpanAvailWidth | ImGuiTreeNodeFlags_NoTreePushOnOpen;
  flags |= leaf || filtered ? ImGuiTreeNodeFlags_Leaf : ImGuiTreeNodeFlags_OpenOnArrow;
  const bool selected = row.bone == state.selected_bone;
  // Highlighted while the curves show the bone's tracks, not a scalar track's.
  if (selected && state.selected_scalar < 0) flags |= ImGuiTreeNodeFlags_Selected;
  float error_m = 0.f, tolerance_m = 0.f;
  const bool measured = bone_error(r, b, &error_m, &tolerance_m);
  const bool over = measured && error_m > tolerance_m;
  const bool dim = row.context || bone_is_still(r, b);
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  if (measured) {
    // Millimetres, without the unit (the legend says it): the names get the room.
    std::string pair = format_error_pair_mm(error_m, tolerance_m);
    if (pair.size() > 3 && pair.compare(pair.size() - 3, 3, " mm") == 0) pair.resize(pair.size() - 3);
    ImGui::TextColored(over ? kTreeOverColor : dim ? kTreeStillColor : kTreeMetColor, "%s", pair.c_str());
  }
  ImGui::TableNextColumn();
  const float indent = static_cast<float>(row.depth) * m_indent_step;
  if (indent > 0.f) ImGui::Indent(indent);
  if (over || dim) ImGui::PushStyleColor(ImGuiCol_Text, over ? kTreeOverColor : kTreeStillColor);
  // A bone with an override of its own is marked with a star.
  const bool has_override = find_bone_tolerance(state.settings.fit, skeleton.bone_names[b]) != nullptr;
  const std::string label = excerpt(skeleton.bone_names[b], 120) + (has_override ? " *" : "");
  ImGui::SetNextItemOpen(filtered || m_collapsed[b] == 0);
  const bool open =
      ImGui::TreeNodeEx(reinterpret_cast<void*>(static_cast<intptr_t>(row.bone)), flags, "%s", label.c_str());
  if (over || dim) ImGui::PopStyleColor();
  const bool toggled = !filtered && ImGui::IsItemToggledOpen();
  if (toggled) m_collapsed[b] = open ? 0 : 1;
  if (ImGui::IsItemClicked() && !toggled) {
    state.select_bone(row.bone);
    m_seen_selection = row.bone;  // in view already: no scroll
  }
  // Where the name's text ends, against the visible edge of the column (it
  // may scroll sideways): for the rows scrolled to or reported only.
  float label_left = 0.f, label_right = 0.f, visible_right = 0.f;
  if (row_index == m_scroll_to_row || selected) {
    label_left = ImGui::GetItemRectMin().x + ImGui::GetTreeNodeToLabelSpacing();
    label_right = label_left + ImGui::CalcTextSize(label.c_str()).x;
    visible_right = ImGui::GetWindowPos().x + ImGui::GetWindowWidth() - ImGui::GetStyle().ScrollbarSize;
  }
  if (row_index == m_scroll_to_row) {
    ImGui::SetScrollHereY(0.5f);
    // Sideways: the end of the name into view, but not its start out of it.
    const float visible_left = ImGui::GetWindowPos().x + m_frozen_width;
    float shift = std::max(label_right - visible_right, 0.f);
    if (label_left - shift < visible_left) shift = label_left - visible_left;
    if (shift != 0.f) ImGui::SetScrollX(ImGui::GetScrollX() + shift);
  }
  if (selected) {
    // In view: inside the scrolled area; fits: the whole name, arrow to
    // last letter, left of the visible edge (the column may scroll sideways).
    m_report.selected_in_view = ImGui::IsItemVisible();
    m_report.selected_name_fits = label_right <= visible_right;
  }
  if (measured && ImGui::IsItemHovered()) bone_tooltip(state, *r, b);
  // The override editor in place: right-click selects the bone and opens it.
  if (ImGui::BeginPopupContextItem("override")) {
    if (state.selected_bone != row.bone || state.selected_scalar >= 0) {
      state.select_bone(row.bone);
      m_seen_selection = row.bone;
    }
    draw_override_fields(state);
    ImGui::EndPopup();
  }
  if (indent > 0.f) ImGui::Unindent(indent);
  return toggled;
}

}  // namespace ks::studio
