#pragma once
// Rows of widgets that wrap: the next widget goes on the same line when it
// still fits in the window, else it starts the next line. A narrow window
// (1280x800, a panel dragged small) then shows every control, a line lower,
// instead of cutting the last ones off at its edge.

#include <imgui.h>

namespace ks::studio {

/// The width of a checkbox or radio button labelled `label`.
inline float check_width(const char* label) {
  return ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(label, nullptr, true).x;
}

/// The width of a button labelled `label`.
inline float button_width(const char* label) {
  return ImGui::CalcTextSize(label, nullptr, true).x + 2.f * ImGui::GetStyle().FramePadding.x;
}

/// SameLine(0, spacing) when a widget `width` wide still fits to the right of
/// the last one, else nothing (the next widget starts a new line). A negative
/// spacing is the style's.
inline void same_line_if_fits(float width, float spacing = -1.f) {
  const float gap = spacing >= 0.f ? spacing : ImGui::GetStyle().ItemSpacing.x;
  const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
  if (ImGui::GetItemRectMax().x + gap + width <= right) ImGui::SameLine(0.f, gap);
}

}  // namespace ks::studio
