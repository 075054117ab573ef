// The Bones panel: the hierarchy as a tree, each bone with its object-space
// max over the clip against its tolerance ("0.08 / 0.10 mm", green when
// within, red when over); clicking selects the bone for the curves and the
// viewport. Under the tree, the selected bone's tolerance: an override of E
// and d set there becomes a BoneTolerance in the fit settings (it and the
// bones below it) and refits; it can be removed again.

#include <imgui.h>

#include <algorithm>
#include <string>

#include "app/studio/bone_tolerance_edit.h"
#include "app/studio/bone_tree_panel.h"
#include "core/clip/excerpt.h"

namespace ks::studio {

namespace {

const ImVec4 kMetColor(0.45f, 0.9f, 0.45f, 1.f);
const ImVec4 kOverColor(1.f, 0.35f, 0.3f, 1.f);

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
    ImGui::TextColored(kOverColor, "over: the codings on its chain cannot go below %.4f mm",
                       static_cast<double>(r.fitted.bones[bone].floor_m) * 1000.0);
  }
  static constexpr const char* kKinds[3] = {"translation", "rotation", "scale"};
  static constexpr const char* kCodings[3] = {"identity", "constant", "animated"};
  for (size_t k = 0; k < 3; ++k) {
    const FittedTrack& t = r.fitted.tracks[3 * bone + k];
    ImGui::Text("%-11s %-8s %zu keys", kKinds[k], kCodings[static_cast<size_t>(t.coding)],
                t.coding == TrackCoding::kAnimated ? t.keys.size() : size_t{0});
  }
  ImGui::EndTooltip();
}

// The selected bone's tolerance, where it comes from, and the override editor.
void draw_override_editor(StudioState& state) {
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
    const float d = applies != nullptr && applies->shell_distance_m > 0.f ? applies->shell_distance_m
                                                                         : fit.shell_distance_m;
    edit.shell_distance_cm = d * 100.f;
  }
  ImGui::Separator();
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

}  // namespace

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
  ImGui::TextDisabled("object-space max / tolerance; * has an override; click to select");
  const FitResult* r = state.current_result();
  // The editor keeps its height at the bottom; the tree scrolls above it.
  const float editor_height = 6.f * ImGui::GetFrameHeightWithSpacing() + ImGui::GetStyle().ItemSpacing.y;
  const float tree_height = std::max(ImGui::GetContentRegionAvail().y - editor_height, 4.f * ImGui::GetFrameHeight());
  // A table keeps the error column aligned however deep the tree indents.
  if (ImGui::BeginTable("bones", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY, ImVec2(0.f, tree_height))) {
    ImGui::TableSetupColumn("bone", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableSetupColumn("max / E", ImGuiTableColumnFlags_WidthFixed, ImGui::CalcTextSize("0.000 / 0.00 mm").x);
    // Every row is one line high, so the clipper submits only those in view.
    bool toggled = false;
    ImGuiListClipper clipper;
    clipper.Begin(static_cast<int>(m_rows.size()));
    while (clipper.Step()) {
      for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
        toggled |= draw_row(state, m_rows[static_cast<size_t>(i)], r);
      }
    }
    ImGui::EndTable();
    // Rebuilt after the loop: the clipper walks the rows it was given.
    if (toggled) visible_bone_rows(m_children, m_collapsed, m_rows);
  }
  draw_override_editor(state);
  ImGui::End();
}

void BoneTreePanel::open_clip(const std::shared_ptr<const ImportedClip>& clip) {
  m_clip = clip;
  m_children = bone_children(clip->skeleton.parents);
  m_collapsed.assign(clip->skeleton.bone_count(), 0);
  visible_bone_rows(m_children, m_collapsed, m_rows);
}

bool BoneTreePanel::draw_row(StudioState& state, BoneTreeRow row, const FitResult* r) {
  const Skeleton& skeleton = state.clip->skeleton;
  const size_t b = static_cast<size_t>(row.bone);
  const bool leaf = m_children.child_count(b) == 0;
  // The rows are flat: the panel, not ImGui's tree stack, keeps what is open.
  ImGuiTreeNodeFlags flags = ImGuiTreeNodeFlags_OpenOnArrow | ImGuiTreeNodeFlags_SpanAvailWidth |
                             ImGuiTreeNodeFlags_NoTreePushOnOpen | (leaf ? ImGuiTreeNodeFlags_Leaf : 0);
  if (row.bone == state.selected_bone) flags |= ImGuiTreeNodeFlags_Selected;
  float error_m = 0.f, tolerance_m = 0.f;
  const bool measured = bone_error(r, b, &error_m, &tolerance_m);
  const bool over = measured && error_m > tolerance_m;
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  // Past kMaxIndentLevels a deep chain stops indenting, so its names stay in the column.
  const float indent = static_cast<float>(std::min(row.depth, kMaxIndentLevels)) * ImGui::GetStyle().IndentSpacing;
  if (indent > 0.f) ImGui::Indent(indent);
  if (over) ImGui::PushStyleColor(ImGuiCol_Text, kOverColor);
  // A bone with an override of its own is marked with a star.
  const bool has_override = find_bone_tolerance(state.settings.fit, skeleton.bone_names[b]) != nullptr;
  ImGui::SetNextItemOpen(m_collapsed[b] == 0);
  const bool open = ImGui::TreeNodeEx(reinterpret_cast<void*>(static_cast<intptr_t>(row.bone)), flags, "%s%s",
                                      excerpt(skeleton.bone_names[b], 120).c_str(), has_override ? " *" : "");
  if (over) ImGui::PopStyleColor();
  const bool toggled = ImGui::IsItemToggledOpen();
  if (toggled) m_collapsed[b] = open ? 0 : 1;
  if (ImGui::IsItemClicked() && !toggled) state.selected_bone = row.bone;
  if (measured && ImGui::IsItemHovered()) bone_tooltip(state, *r, b);
  if (indent > 0.f) ImGui::Unindent(indent);
  ImGui::TableNextColumn();
  if (measured) {
    ImGui::TextColored(over ? kOverColor : kMetColor, "%s", format_error_pair_mm(error_m, tolerance_m).c_str());
  }
  return toggled;
}

}  // namespace ks::studio
