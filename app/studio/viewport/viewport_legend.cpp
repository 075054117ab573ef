// The Viewport panel's error reference: the controls choosing what the
// error colours are read against, the labels over the views and the legend
// under them (the rest of the panel is in viewport_panel.cpp).

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "app/studio/settings/bone_tolerance_edit.h"
#include "app/studio/viewport/viewport_panel.h"
#include "keystream/clip/excerpt.h"

namespace ks::studio {

namespace {

ImU32 to_imgui(glm::vec3 c, float alpha = 1.f) {
  // The ramp is linear; ImGui draws display colours.
  auto display = [](float v) { return std::pow(std::clamp(v, 0.f, 1.f), 1.f / 2.2f); };
  return ImGui::ColorConvertFloat4ToU32(ImVec4(display(c.r), display(c.g), display(c.b), alpha));
}

// "0.1 mm at 3 cm": a tolerance and its shell distance.
void format_tolerance(char* out, size_t size, float tolerance_m, float distance_m) {
  std::snprintf(out, size, "%.3g mm at %.3g cm", static_cast<double>(tolerance_m) * 1000.0,
                static_cast<double>(distance_m) * 100.0);
}

}  // namespace

void ViewportPanel::draw_tolerance_controls(const StudioState& state) {
  int reference = static_cast<int>(m_settings.reference);
  ImGui::SetNextItemWidth(170.f);
  if (ImGui::Combo("colours against", &reference, "the fit's tolerance\0another tolerance\0")) {
    m_settings.reference = static_cast<ErrorReference>(reference);
  }
  if (ImGui::IsItemHovered()) {
    ImGui::SetTooltip(
        "The fit's tolerance: each bone's own E at its own shell distance d, as fitted\n"
        "(Settings, and the overrides set in Bones): green where the promise holds.\n"
        "Another tolerance: one E at one d for every bone, which stays put while the\n"
        "settings move, so the colours show what a change did.");
  }
  ImGui::SameLine();
  if (m_settings.reference == ErrorReference::kFit) {
    const FitResult* result = state.current_result();
    const FitSettings& fit = result != nullptr ? result->settings.fit : state.settings.fit;
    char text[64];
    format_tolerance(text, sizeof text, fit.tolerance_m, fit.shell_distance_m);
    const size_t overrides = fit.bone_tolerances.size();
    ImGui::TextDisabled("E = %s%s%s", text, overrides == 0 ? "" : ", per-bone overrides in Bones",
                        fit.error_mode == ErrorMode::kLocal ? " (local mode: not promised)" : "");
    return;
  }
  float tolerance_mm = m_settings.fixed_tolerance_m * 1000.f;
  ImGui::SetNextItemWidth(150.f);
  if (ImGui::SliderFloat("E", &tolerance_mm, 0.001f, 100.f, "%.3g mm",
                         ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp)) {
    m_settings.fixed_tolerance_m = tolerance_mm / 1000.f;
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Error at the end of the green (Ctrl+click to type)");
  ImGui::SameLine();
  float distance_cm = m_settings.fixed_distance_m * 100.f;
  ImGui::SetNextItemWidth(150.f);
  if (ImGui::SliderFloat("d", &distance_cm, 0.1f, 200.f, "%.3g cm",
                         ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp)) {
    m_settings.fixed_distance_m = distance_cm / 100.f;
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("How far from each bone its virtual vertices are");
}

void ViewportPanel::draw_labels(const StudioState& state, glm::vec2 image_min) const {
  ImDrawList* draw_list = ImGui::GetWindowDrawList();
  const ImU32 text = IM_COL32(230, 230, 235, 255);
  for (const ViewRect& rect : m_view_rects) {
    const ImVec2 corner(static_cast<float>(rect.x) + 8.f, static_cast<float>(rect.y) + 6.f);
    // The overlay draws a mesh's compressed pose as edges over the original,
    // a bare skeleton's original translucent over the compressed.
    const bool mesh = m_renderer.has_mesh() && m_settings.show_mesh;
    const char* label = rect.name == "original"     ? "original (source samples)"
                        : rect.name == "compressed" ? "compressed (decoded by the player)"
                        : mesh                      ? "original, the compressed pose's edges over it"
                                                    : "compressed, original translucent";
    std::string shown = label;
    if (state.clip->clip.additive_base.additive()) {
      // Short: a side is half the viewport.
      const char* on = m_settings.layer_alone ? " on the bind pose" : " on its base";
      shown = rect.name == "original"     ? std::string("original: source layer") + on
              : rect.name == "compressed" ? std::string("compressed: decoded layer") + on
                                          : shown + ", layer" + on;
    }
    draw_list->AddText(corner, text, shown.c_str());
    const bool colored = m_settings.coloring == ErrorColoring::kError && m_has_decoded;
    if (state.clip->clip.additive_base.additive() && m_settings.layer_alone && colored && rect.name != "original") {
      draw_list->AddText(ImVec2(corner.x, corner.y + 18.f), IM_COL32(170, 170, 180, 255),
                         "colours: the error of the pose composed on its base");
    }
  }
  if (!m_has_decoded) {
    const ViewRect& last = m_view_rects.back();
    draw_list->AddText(ImVec2(static_cast<float>(last.x) + 8.f, static_cast<float>(last.y) + 24.f),
                       IM_COL32(255, 204, 77, 255), state.fitting ? "fitting..." : "no fit");
  }
  const size_t bone = static_cast<size_t>(state.selected_bone);
  if (bone < m_errors_m.size() && m_has_decoded) {
    char line[256];
    std::snprintf(line, sizeof(line), "%s now: %s", excerpt(state.clip->skeleton.bone_names[bone], 120).c_str(),
                  format_error_pair_mm(m_errors_m[bone], m_reference_tolerance_m[bone]).c_str());
    const ViewRect& last = m_view_rects.back();
    draw_list->AddText(ImVec2(static_cast<float>(last.x) + 8.f, static_cast<float>(last.y + last.height) - 22.f),
                       m_fractions[bone] > 1.f ? IM_COL32(255, 110, 100, 255) : text, line);
  }
  std::string errors = m_renderer.shader_errors();
  if (!m_renderer.morph_problem().empty()) errors += (errors.empty() ? "" : "\n") + m_renderer.morph_problem();
  if (!errors.empty()) {
    draw_list->AddText(ImVec2(image_min.x + 8.f, image_min.y + 44.f), IM_COL32(255, 90, 80, 255), errors.c_str());
  }
}

void ViewportPanel::draw_legend(const StudioState& state) {
  // The ramp from 0 to twice the tolerance, its stops labelled: only while
  // the compressed character wears those colours. In a narrow window it
  // leaves the text beside it half the width.
  const float top = ImGui::GetCursorPosY();
  const float width = std::min(0.5f * ImGui::GetContentRegionAvail().x, 420.f);
  if (m_settings.coloring == ErrorColoring::kError) {
    draw_error_ramp(width);
    ImGui::SameLine(0.f, 16.f);
  }
  draw_worst_now(state);
  // The views above leave this much next frame (the text may have wrapped).
  constexpr float kLeast = 58.f;
  m_legend_height = std::max(kLeast, ImGui::GetCursorPosY() - top + ImGui::GetStyle().ItemSpacing.y);
}

void ViewportPanel::draw_error_ramp(float width) const {
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const float bar_height = 12.f;
  ImDrawList* draw_list = ImGui::GetWindowDrawList();
  const float top = kErrorRampAt[3];
  for (int i = 0; i < 3; ++i) {
    const float x0 = origin.x + width * kErrorRampAt[i] / top, x1 = origin.x + width * kErrorRampAt[i + 1] / top;
    if (!(x1 > x0)) continue;  // the step at the tolerance
    const glm::vec3 a(kErrorRampStops[i][0], kErrorRampStops[i][1], kErrorRampStops[i][2]);
    const glm::vec3 b(kErrorRampStops[i + 1][0], kErrorRampStops[i + 1][1], kErrorRampStops[i + 1][2]);
    draw_list->AddRectFilledMultiColor(ImVec2(x0, origin.y), ImVec2(x1, origin.y + bar_height), to_imgui(a),
                                       to_imgui(b), to_imgui(b), to_imgui(a));
  }
  // Labels at 0, the tolerance and twice it: each bone's own E, or the fixed one in mm.
  const float label_at[3] = {0.f, 1.f, 2.f};
  for (const float at : label_at) {
    const float x = origin.x + width * at / top;
    char label[32];
    if (at == 0.f) {
      std::snprintf(label, sizeof label, "0");
    } else if (m_reference_is_fit) {
      std::snprintf(label, sizeof label, at == 1.f ? "E (each bone's)" : "2 E");
    } else {
      std::snprintf(label, sizeof label, "%.3g mm", static_cast<double>(m_settings.fixed_tolerance_m * at) * 1000.0);
    }
    const float text_width = ImGui::CalcTextSize(label).x;
    const float text_x = std::clamp(x - 0.5f * text_width, origin.x, origin.x + width - text_width);
    draw_list->AddLine(ImVec2(x, origin.y), ImVec2(x, origin.y + bar_height + 3.f), IM_COL32(230, 230, 235, 255));
    draw_list->AddText(ImVec2(text_x, origin.y + bar_height + 3.f), IM_COL32(230, 230, 235, 255), label);
  }
  ImGui::Dummy(ImVec2(width, bar_height + 20.f));
}

void ViewportPanel::draw_worst_now(const StudioState& state) const {
  ImGui::BeginGroup();
  // The worst bone now is the one furthest past (or nearest to) its own tolerance.
  size_t worst = 0;
  for (size_t b = 1; b < m_fractions.size(); ++b) {
    if (m_fractions[b] > m_fractions[worst]) worst = b;
  }
  if (m_has_decoded && !m_fractions.empty()) {
    const ImVec4 colour = m_fractions[worst] > 1.f ? ImVec4(1.f, 0.45f, 0.4f, 1.f) : ImVec4(0.85f, 0.85f, 0.88f, 1.f);
    // Wrapped at the window's edge: beside the legend, a narrow window leaves little room.
    ImGui::PushStyleColor(ImGuiCol_Text, colour);
    ImGui::TextWrapped("worst now: %s, %s (%.0f%%)", excerpt(state.clip->skeleton.bone_names[worst], 120).c_str(),
                       format_error_pair_mm(m_errors_m[worst], m_reference_tolerance_m[worst]).c_str(),
                       100.0 * static_cast<double>(m_fractions[worst]));
    ImGui::PopStyleColor();
    if (ImGui::IsItemHovered()) {
      ImGui::SetTooltip(
          "Measured at the time shown (frame %.2f), which may fall between source frames.\n"
          "Stats' object-space max is over the source frames and the file's key times,\n"
          "where the fit promises the tolerance: between frames the decoded curve may\n"
          "read a little higher than at any of them.",
          static_cast<double>(state.frame_time));
    }
  } else {
    ImGui::TextDisabled("no compressed pose yet");
  }
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  if (m_reference_is_fit) {
    ImGui::TextWrapped("object-space error / each bone's tolerance, at its shell distance");
  } else {
    char text[64];
    format_tolerance(text, sizeof text, m_settings.fixed_tolerance_m, m_settings.fixed_distance_m);
    ImGui::TextWrapped("object-space error against %s for every bone", text);
  }
  ImGui::PopStyleColor();
  ImGui::EndGroup();
}

}  // namespace ks::studio
