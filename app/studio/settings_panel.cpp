// The Settings panel: every codec setting the fit takes, with units. Any
// change asks the app for a re-fit (the worker drops stale requests).

#include <imgui.h>

#include "app/studio/panels.h"

namespace ks::studio {

namespace {

// A slider that also takes typed values (Ctrl+click), clamped to [lo, hi].
bool slider(const char* label, float* value, float lo, float hi, const char* format, bool logarithmic) {
  const ImGuiSliderFlags flags = ImGuiSliderFlags_AlwaysClamp | (logarithmic ? ImGuiSliderFlags_Logarithmic : 0);
  return ImGui::SliderFloat(label, value, lo, hi, format, flags);
}

}  // namespace

void draw_settings_panel(StudioState& state) {
  if (!ImGui::Begin("Settings")) {
    ImGui::End();
    return;
  }
  CodecSettings& s = state.settings;
  FitSettings& fit = s.fit;
  bool changed = false;
  ImGui::TextDisabled("Thresholds (Ctrl+click a slider to type)");
  float translation_mm = fit.translation_error_m * 1000.f;
  if (slider("translation (mm)", &translation_mm, 0.01f, 50.f, "%.3f mm", true)) {
    fit.translation_error_m = translation_mm / 1000.f;
    changed = true;
  }
  changed |= slider("rotation (deg)", &fit.rotation_error_deg, 0.001f, 10.f, "%.3f deg", true);
  changed |= slider("scale", &fit.scale_error, 0.00001f, 0.1f, "%.5f", true);

  ImGui::Separator();
  ImGui::TextDisabled("Quantization");
  int bits = static_cast<int>(fit.quantization.rotation_bits);
  if (ImGui::SliderInt("rotation bits", &bits, static_cast<int>(kMinRotationBits), static_cast<int>(kMaxRotationBits),
                       "%d bits per component", ImGuiSliderFlags_AlwaysClamp)) {
    fit.quantization.rotation_bits = static_cast<uint32_t>(bits);
    changed = true;
  }
  changed |= ImGui::Checkbox("widen where the threshold needs it", &fit.quantization.widen_rotation_bits);
  int range = fit.quantization.range_mode == RangeMode::kFixed ? 1 : 0;
  if (ImGui::Combo("vec3 range", &range, "per track\0fixed -10..10 m\0")) {
    fit.quantization.range_mode = range == 1 ? RangeMode::kFixed : RangeMode::kPerTrack;
    changed = true;
  }

  ImGui::Separator();
  ImGui::TextDisabled("Fitting and stream");
  int split = fit.split_rule == SplitRule::kMidpoint ? 1 : 0;
  if (ImGui::Combo("split rule", &split, "largest error\0midpoint\0")) {
    fit.split_rule = split == 1 ? SplitRule::kMidpoint : SplitRule::kLargestError;
    changed = true;
  }
  changed |= slider("discontinuity ratio", &fit.discontinuity_ratio, 0.f, 64.f, "%.1f (0 = never)", false);
  changed |= slider("jump interval (s)", &s.pack.jump_interval_s, 0.f, 10.f, "%.2f s (0 = none)", false);
  changed |= ImGui::Checkbox("zstd key stream blocks", &s.pack.zstd);
  if (s.pack.zstd) {
    ImGui::SameLine();
    ImGui::SetNextItemWidth(120.f);
    changed |= ImGui::SliderInt("level", &s.pack.zstd_level, 1, 19, "%d", ImGuiSliderFlags_AlwaysClamp);
  }
  if (ImGui::Button("Reset to defaults")) {
    s = CodecSettings{};
    changed = true;
  }
  if (changed) state.refit_requested = true;

  ImGui::Separator();
  if (state.fitting) {
    ImGui::TextColored(ImVec4(1.f, 0.8f, 0.3f, 1.f), "fitting...");
  } else if (state.result && !state.result->error.empty()) {
    ImGui::TextColored(ImVec4(1.f, 0.4f, 0.4f, 1.f), "fit failed:");
    ImGui::TextWrapped("%s", state.result->error.c_str());
  } else if (const FitResult* r = state.current_result()) {
    ImGui::Text("fit %.1f ms, pack %.1f ms, measure %.1f ms", r->fit_ms, r->pack_ms, r->measure_ms);
  } else {
    ImGui::TextDisabled("no clip open");
  }
  ImGui::End();
}

}  // namespace ks::studio
