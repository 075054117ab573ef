// Settings' additive base (panels.h): the clip is fitted as it is or as an
// additive layer to a base, which the app makes from the clip as imported
// (app/studio/settings/additive_choice.h).

#include <imgui.h>
#include <imgui_stdlib.h>

#include <string>
#include <vector>

#include "app/studio/panels/panels.h"
#include "app/studio/settings/additive_choice.h"
#include "keystream/clip/excerpt.h"

namespace ks::studio {

namespace {

enum Choice : int { kNone, kFirstFrame, kBindPose, kFileAnimation, kFile };
constexpr const char* kChoices = "none\0first frame\0bind pose\0an animation of this file\0another file\0";

// The choice showing `state.additive`.
int applied_choice(const StudioState& state) {
  switch (state.additive.base) {
    case AdditiveBase::kNone: return kNone;
    case AdditiveBase::kFirstFrame: return kFirstFrame;
    case AdditiveBase::kBindPose: return kBindPose;
    case AdditiveBase::kClip: break;
  }
  const bool this_file = file_animation_index(state.additive, state.clip_path, state.imported->animation_names) >= 0;
  return this_file ? kFileAnimation : kFile;
}

void request(StudioState& state, AdditiveBaseSpec spec) {
  state.additive_requested = std::move(spec);
  state.additive_edit.choice = -1;
}

// The file field: applied on Enter or Apply, read as the command line reads it.
void draw_file_field(StudioState& state) {
  std::string& text = state.additive_edit.file;
  // Room for Apply on the line: the label goes after it.
  const ImGuiStyle& style = ImGui::GetStyle();
  ImGui::SetNextItemWidth(ImGui::CalcItemWidth() - ImGui::CalcTextSize("Apply").x - 2.f * style.FramePadding.x -
                          style.ItemSpacing.x);
  const bool entered = ImGui::InputTextWithHint("##base file", "FILE[#ANIMATION]", &text,
                                                ImGuiInputTextFlags_EnterReturnsTrue);
  if (ImGui::IsItemEdited()) state.additive_edit.choice = kFile;  // typed: kept until applied
  if (ImGui::IsItemHovered()) {
    ImGui::SetTooltip(
        "A file on the clip's skeleton (its bones by name and in order), '#' and an\n"
        "animation of it by name or index; sampled at the clip's frame times");
  }
  ImGui::SameLine();
  const bool apply = ImGui::Button("Apply");
  ImGui::SameLine();
  ImGui::TextUnformatted("base file");
  if (!apply && !entered) return;
  Result<AdditiveBaseSpec> parsed = parse_additive_base(text);
  if (!parsed) {
    state.additive_error = parsed.error();
    return;
  }
  request(state, std::move(parsed.value()));
}

}  // namespace

void draw_additive_settings(StudioState& state) {
  if (!state.imported) return;
  const std::vector<std::string>& names = state.imported->animation_names;
  // An animation of this file needs a file keystream compress reads (not a .ks).
  const bool importable = is_importable(state.clip_path) && !names.empty();
  int choice = state.additive_edit.choice >= 0 ? state.additive_edit.choice : applied_choice(state);
  if (ImGui::Combo("additive base", &choice, kChoices)) {
    switch (choice) {
      case kNone: request(state, {}); break;
      case kFirstFrame: request(state, {AdditiveBase::kFirstFrame, {}, {}}); break;
      case kBindPose: request(state, {AdditiveBase::kBindPose, {}, {}}); break;
      case kFileAnimation:
        if (importable) {
          // Another animation than the open one, when there is one: a clip on itself is no layer.
          const int other = names.size() > 1 && state.imported->animation_index == 0 ? 1 : 0;
          request(state, file_animation_base(state.clip_path, names, other));
        } else {
          state.additive_error = "an animation of this file: keystream compress cannot read " +
                                 excerpt(state.clip_path.filename().string(), kPathExcerptChars);
        }
        break;
      case kFile:
        state.additive_edit.choice = kFile;
        if (state.additive.base == AdditiveBase::kClip) state.additive_edit.file = to_string(state.additive);
        break;
      default: break;
    }
  }
  if (ImGui::IsItemHovered()) {
    ImGui::SetTooltip(
        "Fit the clip as an additive layer: per frame its difference to the base\n"
        "(rotation base^-1 q, translation difference, scale ratio), as keystream\n"
        "compress --additive-base does. The tolerance holds on the pose composed\n"
        "on the base; the curves show the layer.");
  }
  if (choice == kFileAnimation && state.additive_edit.choice < 0 && importable) {
    const int index = file_animation_index(state.additive, state.clip_path, names);
    const auto shown = [&](size_t i) { return names[i].empty() ? std::string("(unnamed)") : excerpt(names[i], 120); };
    if (ImGui::BeginCombo("base animation", index >= 0 ? shown(static_cast<size_t>(index)).c_str() : "")) {
      for (size_t i = 0; i < names.size(); ++i) {
        ImGui::PushID(static_cast<int>(i));
        if (ImGui::Selectable(shown(i).c_str(), static_cast<int>(i) == index)) {
          request(state, file_animation_base(state.clip_path, names, static_cast<int>(i)));
        }
        ImGui::PopID();
      }
      ImGui::EndCombo();
    }
  }
  if (choice == kFile) {
    // Until the user types, the field shows the base applied.
    if (state.additive_edit.choice < 0) state.additive_edit.file = to_string(state.additive);
    draw_file_field(state);
  }
  if (!state.additive_error.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.f, 0.4f, 0.4f, 1.f));
    ImGui::TextWrapped("%s", excerpt(state.additive_error, 500).c_str());
    ImGui::PopStyleColor();
  } else if (state.additive.base != AdditiveBase::kNone) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    ImGui::TextWrapped("the layer is fitted; errors on the pose composed on the base");
    ImGui::PopStyleColor();
  }
}

}  // namespace ks::studio
