// The Bones panel: the hierarchy as a tree, each bone with its largest
// decoded error, coloured green (within half the threshold), yellow (within
// it) or red (over it); clicking selects the bone for the curves.

#include <imgui.h>

#include <algorithm>
#include <vector>

#include "app/studio/panels.h"

namespace ks::studio {

namespace {

// The bone's worst track error as a fraction of its threshold (1 = at it).
float error_fraction(const FitResult& r, size_t bone) {
  float worst = 0.f;
  for (size_t kind = 0; kind < 3; ++kind) {
    const FittedTrack& t = r.fitted.tracks[3 * bone + kind];
    const float error = r.measurement.tracks[3 * bone + kind].max;
    if (t.threshold > 0.f) worst = std::max(worst, error / t.threshold);
  }
  return worst;
}

ImVec4 fraction_colour(float f) {
  if (f > 1.f) return ImVec4(1.f, 0.35f, 0.3f, 1.f);
  if (f > 0.5f) return ImVec4(1.f, 0.85f, 0.3f, 1.f);
  return ImVec4(0.45f, 0.9f, 0.45f, 1.f);
}

void draw_bone(StudioState& state, const std::vector<std::vector<int>>& children, int bone, const FitResult* r) {
  const Skeleton& skeleton = state.clip->skeleton;
  const bool leaf = children[static_cast<size_t>(bone)].empty();
  ImGuiTreeNodeFlags flags = ImGuiTreeNodeFlags_OpenOnArrow | ImGuiTreeNodeFlags_DefaultOpen |
                             ImGuiTreeNodeFlags_SpanAvailWidth | (leaf ? ImGuiTreeNodeFlags_Leaf : 0);
  if (bone == state.selected_bone) flags |= ImGuiTreeNodeFlags_Selected;
  const float fraction = r ? error_fraction(*r, static_cast<size_t>(bone)) : 0.f;
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  if (r) ImGui::PushStyleColor(ImGuiCol_Text, fraction_colour(fraction));
  const bool open = ImGui::TreeNodeEx(reinterpret_cast<void*>(static_cast<intptr_t>(bone)), flags, "%s",
                                      skeleton.bone_names[static_cast<size_t>(bone)].c_str());
  if (r) ImGui::PopStyleColor();
  if (ImGui::IsItemClicked() && !ImGui::IsItemToggledOpen()) state.selected_bone = bone;
  if (r && ImGui::IsItemHovered()) {
    ImGui::BeginTooltip();
    static const char* kinds[3] = {"translation", "rotation", "scale"};
    static const float scale[3] = {1000.f, 1.f, 1.f};
    static const char* units[3] = {"mm", "deg", ""};
    for (size_t k = 0; k < 3; ++k) {
      const size_t t = 3 * static_cast<size_t>(bone) + k;
      ImGui::Text("%-11s max %.4f %s / %.4f, %zu keys", kinds[k], r->measurement.tracks[t].max * scale[k], units[k],
                  r->fitted.tracks[t].threshold * scale[k], r->fitted.tracks[t].keys.size());
    }
    ImGui::EndTooltip();
  }
  ImGui::TableNextColumn();
  if (r) ImGui::TextColored(fraction_colour(fraction), "%3.0f%%", fraction * 100.f);
  if (open) {
    for (const int child : children[static_cast<size_t>(bone)]) draw_bone(state, children, child, r);
    ImGui::TreePop();
  }
}

}  // namespace

void draw_bone_tree_panel(StudioState& state) {
  if (!ImGui::Begin("Bones")) {
    ImGui::End();
    return;
  }
  if (!state.clip) {
    ImGui::TextDisabled("no clip open");
    ImGui::End();
    return;
  }
  const Skeleton& skeleton = state.clip->skeleton;
  std::vector<std::vector<int>> children(skeleton.bone_count());
  std::vector<int> roots;
  for (size_t b = 0; b < skeleton.bone_count(); ++b) {
    const int parent = skeleton.parents[b];
    (parent < 0 ? roots : children[static_cast<size_t>(parent)]).push_back(static_cast<int>(b));
  }
  ImGui::TextDisabled("largest error / threshold; click to select");
  const FitResult* r = state.current_result();
  // A table keeps the error column aligned however deep the tree indents.
  if (ImGui::BeginTable("bones", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY)) {
    ImGui::TableSetupColumn("bone", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableSetupColumn("error", ImGuiTableColumnFlags_WidthFixed, ImGui::CalcTextSize("1000%").x);
    for (const int root : roots) draw_bone(state, children, root, r);
    ImGui::EndTable();
  }
  ImGui::End();
}

}  // namespace ks::studio
