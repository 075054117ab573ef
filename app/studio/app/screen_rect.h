#pragma once
// A named rectangle of the window, in framebuffer pixels from its top-left
// corner: what the screenshot mode prints of a panel's parts, so the tests
// know where in the PNG to look.

#include <imgui.h>

#include <algorithm>
#include <string>
#include <utility>

namespace ks::studio {

struct ScreenRect {
  std::string name;
  int x = 0, y = 0, width = 0, height = 0;
};

/// The part of min..max inside the current ImGui window (a panel scrolled
/// past its foot shows none of it: height 0), named `name`.
inline ScreenRect visible_rect(std::string name, ImVec2 min, ImVec2 max) {
  const ImVec2 window_min = ImGui::GetWindowPos(), window_size = ImGui::GetWindowSize();
  const float x0 = std::max(min.x, window_min.x), y0 = std::max(min.y, window_min.y);
  const float x1 = std::min(max.x, window_min.x + window_size.x), y1 = std::min(max.y, window_min.y + window_size.y);
  return {std::move(name), static_cast<int>(x0), static_cast<int>(y0), static_cast<int>(std::max(x1 - x0, 0.f)),
          static_cast<int>(std::max(y1 - y0, 0.f))};
}

/// The visible part of the last item ImGui drew (a plot), named `name`.
inline ScreenRect last_item_rect(std::string name) {
  return visible_rect(std::move(name), ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
}

}  // namespace ks::studio
