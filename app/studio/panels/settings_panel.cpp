// The Settings panel: what the fit promises first (the object-space
// tolerance E at the shell distance d, and the per-bone overrides the Bones
// panel sets; the scalar tracks' precision and its per-track overrides when
// the clip has any), then, under a collapsed "Advanced" header, the local mode's
// per-kind thresholds, the fitter's and the stream's details. Any change
// asks the app for a re-fit (the worker drops stale requests).

#include <imgui.h>

#include <cfloat>
#include <cstdio>
#include <string>

#include "app/studio/jobs/refit_worker.h"
#include "app/studio/panels/panels.h"
#include "app/studio/settings/bone_tolerance_edit.h"
#include "app/studio/settings/scalar_precision_edit.h"
#include "keystream/clip/excerpt.h"

namespace ks::studio {

namespace {

// A slider that also takes typed values (Ctrl+click), clamped to [lo, hi].
bool slider(const char* label, float* value, float lo, float hi, const char* format, bool logarithmic) {
  const ImGuiSliderFlags flags = ImGuiSliderFlags_AlwaysClamp | (logarithmic ? ImGuiSliderFlags_Logarithmic : 0);
  return ImGui::SliderFloat(label, value, lo, hi, format, flags);
}

// A setting in metres shown in `unit_scale` units (1000: mm, 100: cm).
// Converted back as keystream's options convert (millimetres times 1e-3f),
// so that File > Copy as command can spell every value it sets exactly:
// not every float is some float times 1e-3f.
bool scaled_slider(const char* label, float* value_m, float unit_scale, float lo, float hi, const char* format) {
  float shown = *value_m * unit_scale;
  if (!slider(label, &shown, lo, hi, format, true)) return false;
  *value_m = shown * (1.f / unit_scale);
  return true;
}

// E and d, and the list of per-bone overrides with a button to remove each.
bool draw_tolerance(FitSettings& fit) {
  bool changed = false;
  const bool local = fit.error_mode == ErrorMode::kLocal;
  if (local) {
    ImGui::TextColored(ImVec4(1.f, 0.8f, 0.3f, 1.f), "Local mode (Advanced): the tolerance is not used");
  }
  ImGui::BeginDisabled(local);
  changed |= scaled_slider("tolerance (mm)", &fit.tolerance_m, 1000.f, 0.001f, 10.f, "%.3g mm");
  if (ImGui::IsItemHovered()) {
    ImGui::SetTooltip(
        "E: at every source frame, every virtual vertex of every bone of the decoded\n"
        "pose lies within E of the source's. Ctrl+click to type.");
  }
  changed |= scaled_slider("shell distance (cm)", &fit.shell_distance_m, 100.f, 0.1f, 200.f, "%.3g cm");
  if (ImGui::IsItemHovered()) {
    ImGui::SetTooltip(
        "d: how far from each bone its virtual vertices are (about the reach of the\n"
        "skin around it). Default 3 cm, as ACL's.");
  }
  if (fit.bone_tolerances.empty()) {
    ImGui::TextDisabled("no per-bone overrides (set one in Bones)");
  } else {
    ImGui::TextDisabled("per-bone overrides (the bone and those below it):");
    for (size_t i = 0; i < fit.bone_tolerances.size(); ++i) {
      const BoneTolerance& o = fit.bone_tolerances[i];
      ImGui::PushID(static_cast<int>(i));
      if (ImGui::SmallButton("x")) {
        remove_bone_tolerance(fit, std::string(o.bone));  // a copy: the call erases o
        changed = true;
        ImGui::PopID();
        break;
      }
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("Remove this override");
      ImGui::SameLine();
      if (o.shell_distance_m > 0.f) {
        ImGui::Text("%s: %.3g mm at %.3g cm", o.bone.c_str(), static_cast<double>(o.tolerance_m) * 1000.0,
                    static_cast<double>(o.shell_distance_m) * 100.0);
      } else {
        ImGui::Text("%s: %.3g mm (d inherited)", o.bone.c_str(), static_cast<double>(o.tolerance_m) * 1000.0);
      }
      ImGui::PopID();
    }
  }
  ImGui::EndDisabled();
  return changed;
}

// The scalar tracks' precision (either mode promises it), and the per-track
// overrides with a button to remove each.
bool draw_scalar_precision(FitSettings& fit) {
  bool changed = slider("scalar precision", &fit.scalar_precision, kLeastEditedScalarPrecision,
                        kMostEditedScalarPrecision, "%.3g", true);
  if (ImGui::IsItemHovered()) {
    ImGui::SetTooltip(
        "Morph-target weights and user curves: at every source frame, every component of\n"
        "the decoded value within this of the source's, in the track's unit. Default\n"
        "0.0001, as ACL's. Ctrl+click to type.");
  }
  if (fit.scalar_precisions.empty()) {
    ImGui::TextDisabled("no per-track precisions (set one in Bones > Curves)");
    return changed;
  }
  ImGui::TextDisabled("per-track precisions:");
  ImGui::PushID("scalar precisions");  // apart from the bone overrides' buttons
  for (size_t i = 0; i < fit.scalar_precisions.size(); ++i) {
    const ScalarPrecision& o = fit.scalar_precisions[i];
    ImGui::PushID(static_cast<int>(i));
    if (ImGui::SmallButton("x")) {
      remove_scalar_precision(fit, std::string(o.track));  // a copy: the call erases o
      changed = true;
      ImGui::PopID();
      break;
    }
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Remove this precision");
    ImGui::SameLine();
    ImGui::Text("%s: %.3g", excerpt(o.track, 120).c_str(), static_cast<double>(o.precision));
    ImGui::PopID();
  }
  ImGui::PopID();
  return changed;
}

// Local mode and its thresholds, the fitter's choices, the stream's layout.
bool draw_advanced(CodecSettings& s) {
  FitSettings& fit = s.fit;
  bool changed = false;
  bool local = fit.error_mode == ErrorMode::kLocal;
  if (ImGui::Checkbox("local mode: per-kind thresholds", &local)) {
    fit.error_mode = local ? ErrorMode::kLocal : ErrorMode::kObjectSpace;
    changed = true;
  }
  if (ImGui::IsItemHovered()) {
    ImGui::SetTooltip(
        "Version 1's bound: every track within a threshold of its kind in its own\n"
        "space, whatever its bone's lever. No object-space promise.");
  }
  ImGui::BeginDisabled(!local);
  changed |= scaled_slider("translation (mm)", &fit.translation_error_m, 1000.f, 0.01f, 50.f, "%.3f mm");
  changed |= slider("rotation (deg)", &fit.rotation_error_deg, 0.001f, 10.f, "%.3f deg", true);
  changed |= slider("scale", &fit.scale_error, 0.00001f, 0.1f, "%.5f", true);
  ImGui::EndDisabled();

  ImGui::Separator();
  int split = fit.split_rule == SplitRule::kMidpoint ? 1 : 0;
  if (ImGui::Combo("split rule", &split, "largest error\0midpoint\0")) {
    fit.split_rule = split == 1 ? SplitRule::kMidpoint : SplitRule::kLargestError;
    changed = true;
  }
  changed |= slider("discontinuity ratio", &fit.discontinuity_ratio, 0.f, 64.f, "%.1f (0 = never)", false);
  bool skip_rest = fit.rest_tracks == RestTracks::kSkip;
  if (ImGui::Checkbox("skip rest tracks", &skip_rest)) {
    fit.rest_tracks = skip_rest ? RestTracks::kSkip : RestTracks::kKeep;
    changed = true;
  }
  if (ImGui::IsItemHovered()) {
    ImGui::SetTooltip(
        "A bone track that holds the skeleton's rest value stores nothing: the\n"
        "engine gives the rest pose (Player::set_rest_pose), tools read a copy\n"
        "in the metadata. Sizes without metadata drop by its values.");
  }
  changed |= ImGui::Checkbox("auto jump interval", &s.pack.auto_jump_interval);
  if (ImGui::IsItemHovered()) {
    ImGui::SetTooltip(
        "The shortest interval whose jump frames take at most 10%% of the stream,\n"
        "no shorter than seeks need (the timeline's ticks show the one chosen)");
  }
  ImGui::BeginDisabled(s.pack.auto_jump_interval);
  changed |= slider("jump interval (s)", &s.pack.jump_interval_s, 0.f, 10.f, "%.2f s (0 = none)", false);
  ImGui::EndDisabled();
  int names = static_cast<int>(s.pack.names);
  if (ImGui::Combo("names", &names, "full\0hash\0none\0")) {
    s.pack.names = static_cast<NameStorage>(names);
    changed = true;
  }
  if (ImGui::IsItemHovered()) {
    ImGui::SetTooltip(
        "What the metadata names: the clip, source and bones (full), a 32-bit\n"
        "FNV-1a hash per bone for an engine that binds by hash, or nothing (an\n"
        "engine that binds by index). The studio keeps showing the source's names.");
  }
  changed |= ImGui::Checkbox("zstd key stream blocks", &s.pack.zstd);
  if (s.pack.zstd) {
    ImGui::SameLine();
    ImGui::SetNextItemWidth(120.f);
    changed |= ImGui::SliderInt("level", &s.pack.zstd_level, 1, 19, "%d", ImGuiSliderFlags_AlwaysClamp);
  }
  return changed;
}

// A running fit as a bar: its pass over the tracks, then packing and
// measuring. Text wraps: the panel may be narrow.
void draw_fit_progress(const RefitStatus& s) {
  const ImVec4 busy_color(1.f, 0.8f, 0.3f, 1.f);
  if (!s.running) {
    ImGui::TextColored(busy_color, "fitting...");
    return;
  }
  char label[96];
  float fraction = 1.f;
  switch (s.stage) {
    case FitStage::kFitting:
      fraction = s.pass_tracks > 0 ? static_cast<float>(s.pass_tracks_done) / static_cast<float>(s.pass_tracks) : 0.f;
      std::snprintf(label, sizeof label, "pass %u: %u / %u tracks", s.pass, s.pass_tracks_done, s.pass_tracks);
      break;
    case FitStage::kPacking: std::snprintf(label, sizeof label, "packing"); break;
    case FitStage::kMeasuring: std::snprintf(label, sizeof label, "measuring"); break;
  }
  // A dark amber fill: the label, in the usual text colour, reads on it and past it.
  ImGui::PushStyleColor(ImGuiCol_PlotHistogram, ImVec4(0.55f, 0.38f, 0.05f, 1.f));
  ImGui::ProgressBar(fraction, ImVec2(-FLT_MIN, 0.f), label);
  ImGui::PopStyleColor();
  ImGui::PushStyleColor(ImGuiCol_Text, busy_color);
  ImGui::TextWrapped("fitting for %.1f s; a change of settings abandons a fit expected to take longer than %.2f s more",
                     s.running_s, RefitWorker::kKeepIfDoneWithin);
  ImGui::PopStyleColor();
}

void draw_fit_status(const StudioState& state) {
  if (state.fitting) {
    draw_fit_progress(state.refit);
  } else if (state.result && !state.result->error.empty()) {
    ImGui::TextColored(ImVec4(1.f, 0.4f, 0.4f, 1.f), "fit failed:");
    ImGui::TextWrapped("%s", excerpt(state.result->error, 500).c_str());  // may quote a whole name from the file
  } else if (const FitResult* r = state.current_result()) {
    // Wrapped: a narrow panel (1280x800) still shows all of it.
    ImGui::TextWrapped("fit %.1f ms (%u rounds), pack %.1f ms, measure %.1f ms", r->fit_ms, r->fitted.rounds,
                       r->pack_ms, r->measure_ms);
    if (state.refit.abandoned > 0) {
      ImGui::TextDisabled("%llu fits abandoned for newer settings",
                          static_cast<unsigned long long>(state.refit.abandoned));
    }
  } else {
    ImGui::TextDisabled("no clip open");
  }
}

}  // namespace

void draw_settings_panel(StudioState& state) {
  if (!ImGui::Begin("Settings")) {
    ImGui::End();
    return;
  }
  // Room for the longest label; the sliders take the rest.
  ImGui::PushItemWidth(-ImGui::CalcTextSize("discontinuity ratio ").x);
  CodecSettings& s = state.settings;
  bool changed = draw_tolerance(s.fit);
  if (state.clip && !state.clip->clip.scalars.empty()) changed |= draw_scalar_precision(s.fit);
  if (state.clip) draw_additive_settings(state);
  if (ImGui::CollapsingHeader("Advanced")) changed |= draw_advanced(s);
  if (ImGui::Button("Reset to defaults")) {
    s = CodecSettings{};
    changed = true;
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Every setting, the per-bone overrides included");
  ImGui::PopItemWidth();
  if (changed) {
    state.refit_requested = true;
    state.override_edit.bone = -1;  // the Bones panel's editors refill from the new settings
    state.precision_edit.track = -1;
  }
  ImGui::Separator();
  draw_fit_status(state);
  ImGui::End();
}

}  // namespace ks::studio
