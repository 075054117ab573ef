#include "app/studio/panels/curve_panel.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>

#include "app/studio/settings/scalar_precision_edit.h"
#include "keystream/clip/excerpt.h"
#include "keystream/codec/fit.h"
#include "keystream/codec/key_cost.h"

namespace ks::studio {

namespace {

// The fitted curve and the fit error share amber, the decoded curve is blue
// and the quantization error violet, so each error reads as the gap between
// the curves of its colours.
const ImU32 kSourceColor = plot_rgba(205, 205, 205);
const ImU32 kFittedColor = plot_rgba(255, 185, 60);
const ImU32 kDecodedColor = plot_rgba(80, 190, 255);
const ImU32 kKeyColor = plot_rgba(255, 240, 110);
const ImU32 kKeyLineColor = plot_rgba(255, 240, 110, 45);
const ImU32 kTotalErrorColor = plot_rgba(255, 90, 90);
const ImU32 kQuantizationColor = plot_rgba(180, 130, 255);
const ImU32 kThresholdColor = plot_rgba(255, 110, 110, 220);
const ImU32 kCursorColor = plot_rgba(120, 255, 140);
const ImU32 kSourceKeyColor = plot_rgba(255, 110, 200);  // ticks on the time axis: no curve has it
const ImVec4 kWarningColor(1.f, 0.45f, 0.4f, 1.f);

const char* const kComponentNames[4] = {"x", "y", "z", "w"};

const char* kind_name(TrackKind kind) {
  switch (kind) {
    case TrackKind::kTranslation: return "translation";
    case TrackKind::kRotation: return "rotation";
    case TrackKind::kScale: return "scale";
    case TrackKind::kScalar: return "curve";
  }
  return "";
}

// The unit of the errors as display_scale() shows them: translations in mm,
// rotation errors in degrees, scales unitless.
const char* error_unit(TrackKind kind) {
  return kind == TrackKind::kTranslation ? " mm" : kind == TrackKind::kRotation ? " deg" : "";
}

}  // namespace

CurvePanel::CurvePanel() {
  PlotOptions options;
  options.x_name = "frame";
  options.min_x_span = 2.0;  // frames: closer than that, nothing more is to be seen
  options.value_format = "%.5g";
  for (size_t c = 0; c < m_component_plots.size(); ++c) {
    options.show_legend = c == 0;  // one legend above the component plots is enough
    m_component_plots[c] = PlotWidget(options);
  }
  options.show_legend = true;
  options.y_include_zero = true;
  m_error_plot = PlotWidget(options);
}

void CurvePanel::draw(StudioState& state, const PanelTab* tab) {
  m_report.clear();
  m_shown_track.clear();
  m_curve_report.clear();
  m_plot_rects.clear();
  // Handled here or dropped: a request must not frame the plots later, when
  // the user has forgotten pressing F.
  const bool frame_requested = std::exchange(state.frame_selection_requested, false);
  ImGui::SetNextWindowSize(ImVec2(900.f, 760.f), ImGuiCond_FirstUseEver);
  const bool open = ImGui::Begin("Curves");
  m_tab_shown = false;
  if (open && tab == nullptr) draw_curves(state, frame_requested);
  if (open && tab != nullptr && ImGui::BeginTabBar("curves tabs")) {
    const ImGuiTabItemFlags curves_flags = tab->select_curves ? ImGuiTabItemFlags_SetSelected : 0;
    if (ImGui::BeginTabItem("Curves", nullptr, curves_flags)) {
      draw_curves(state, frame_requested);
      ImGui::EndTabItem();
    }
    if (ImGui::BeginTabItem(tab->label.c_str(), nullptr, tab->select ? ImGuiTabItemFlags_SetSelected : 0)) {
      m_tab_shown = true;
      tab->draw();
      ImGui::EndTabItem();
    }
    ImGui::EndTabBar();
  }
  ImGui::End();
}

void CurvePanel::draw_curves(StudioState& state, bool frame_requested) {
  const FitResult* result = state.current_result();
  if (!result) {
    if (!state.clip) {
      ImGui::TextDisabled("No clip open.");
    } else if (state.result && state.result->clip == state.clip && !state.result->error.empty()) {
      ImGui::TextColored(kWarningColor, "The fit failed:");
      // Shortened: a message may quote a name from the file whole, past what one draw list holds.
      ImGui::TextWrapped("%s", excerpt(state.result->error, 500).c_str());
    } else {
      ImGui::TextDisabled("fitting...");
    }
    return;
  }
  // A scalar track selected in the Bones panel's Curves group, else the bone's track.
  const bool scalar =
      state.selected_scalar >= 0 && static_cast<size_t>(state.selected_scalar) < result->fitted.scalars.size();
  const int bone = scalar ? state.selected_scalar : state.selected_bone;
  const TrackKind kind = scalar ? TrackKind::kScalar : state.selected_kind;
  const size_t bone_count = std::min(result->fitted.bone_track_count() / 3, state.clip->clip.bones.size());
  if (!scalar && (bone < 0 || static_cast<size_t>(bone) >= bone_count)) {
    ImGui::TextDisabled("No bone selected.");
    return;
  }
  const FittedTrack& track = fitted_track(result->fitted, bone, kind);
  if (state.clip->clip.frame_count == 0) {
    ImGui::TextDisabled("The clip has no frames.");
    return;
  }
  if (!is_cached(state.result, bone, kind)) sample_curves(state.result, bone, kind);
  // A new clip shows all its frames; a refit or another bone keeps the view.
  if (m_framed_clip.owner_before(state.clip) || state.clip.owner_before(m_framed_clip) || m_framed_clip.expired()) {
    m_framed_clip = state.clip;
    show_frames(0.0, static_cast<double>(state.clip->clip.frame_count - 1));
  }
  // Pan and zoom stay within the clip's frames.
  const AxisLimits clip_frames{0.0, static_cast<double>(state.clip->clip.frame_count - 1)};
  m_error_plot.set_x_limits(clip_frames);
  for (PlotWidget& plot : m_component_plots) plot.set_x_limits(clip_frames);
  draw_header(state, *result, track);
  m_shown_track = scalar ? "scalar track " + excerpt(result->fitted.scalars[static_cast<size_t>(bone)].name)
                         : excerpt(result->fitted.bone_names[static_cast<size_t>(bone)]) + " " + kind_name(kind);
  if (!m_curves.curve_label.empty()) {
    m_curve_report =
        m_curves.curve_label + ", " + std::to_string(m_curves.source_key_frames.size()) + " source key ticks";
  }
  if (frame_requested) frame_selection(track, state.frame_time);
  draw_plots(state, track);
}

void CurvePanel::draw_header(StudioState& state, const FitResult& result, const FittedTrack& track) {
  const bool scalar = track.kind == TrackKind::kScalar;
  const size_t index = static_cast<size_t>(m_curves.bone);  // the bone, or the scalar track
  if (scalar) {
    ImGui::TextUnformatted(excerpt(result.fitted.scalars[index].name, 120).c_str());
    ImGui::SameLine();
    ImGui::TextDisabled("%s %zu: %s", kind_name(track.kind), index,
                        excerpt(describe_scalar_track(result.clip->clip.scalars[index]), 120).c_str());
  } else {
    const std::vector<std::string>& names = result.fitted.bone_names;
    ImGui::TextUnformatted(index < names.size() ? excerpt(names[index], 120).c_str() : "?");
    ImGui::SameLine();
    // An additive clip's tracks are its layer, what the stream holds (the viewport composes it).
    const bool layer = result.clip->clip.additive_base.additive();
    ImGui::TextDisabled("bone %zu%s", index, layer ? ", additive layer" : "");
    if (layer && ImGui::IsItemHovered()) {
      ImGui::SetTooltip("The difference to the additive base (rotation base^-1 q, translation\n"
                        "difference, scale ratio): what is fitted and stored");
    }
    for (TrackKind kind : {TrackKind::kTranslation, TrackKind::kRotation, TrackKind::kScale}) {
      ImGui::SameLine();
      if (ImGui::RadioButton(kind_name(kind), state.selected_kind == kind)) {
        state.selected_kind = kind;  // the panel edits the selection as the bone tree does
      }
    }
  }
  if (track.kind == TrackKind::kRotation) {
    ImGui::SameLine();
    ImGui::TextDisabled("|");
    ImGui::SameLine();
    if (ImGui::RadioButton("quaternion", !m_euler_view)) m_euler_view = false;
    ImGui::SameLine();
    if (ImGui::RadioButton("Euler XYZ (deg)", m_euler_view)) m_euler_view = true;
    if (ImGui::IsItemHovered()) {
      ImGui::SetTooltip(
          "The rotation as angles about X, then Y, then Z (R = Rz Ry Rx, as Blender's XYZ),\n"
          "degrees, unwrapped across +-180. Near Y = +-90 X and Z trade off (gimbal lock).");
    }
  }
  if (state.fitting) {
    ImGui::SameLine();
    ImGui::TextDisabled("(refitting...)");
  }
  // The buttons sit at the right edge, or after the radio buttons when the window is narrow.
  const ImGuiStyle& style = ImGui::GetStyle();
  const float buttons = ImGui::CalcTextSize("Fit all").x + ImGui::CalcTextSize("Frame keys (F)").x +
                        4.f * style.FramePadding.x + style.ItemSpacing.x;
  ImGui::SameLine();
  ImGui::SetCursorPosX(std::max(ImGui::GetCursorPosX(), ImGui::GetWindowContentRegionMax().x - buttons));
  if (ImGui::SmallButton("Fit all")) show_frames(0.0, static_cast<double>(result.fitted.frame_count - 1));
  ImGui::SameLine();
  if (ImGui::SmallButton("Frame keys (F)")) frame_selection(track, state.frame_time);
  if (ImGui::IsItemHovered()) {
    ImGui::SetTooltip(
        "The keys around the current time. In the plots: Ctrl+wheel zooms time, Shift+wheel\n"
        "zooms values, drag pans, double-click shows everything; the wheel scrolls the panel.");
  }

  const float scale = display_scale(track.kind);
  const char* unit = error_unit(track.kind);
  if (m_curves.curve_label.empty()) {
    ImGui::Text("%zu %s", track.keys.size(), track.keys.size() == 1 ? "key" : "keys");
  } else {
    ImGui::TextUnformatted(m_curves.curve_label.c_str());
    if (ImGui::IsItemHovered()) {
      ImGui::SetTooltip(
          "The curve between keys: Hermite (cubic), linear or step. A glTF track keyed\n"
          "sparsely as LINEAR or STEP may keep a subset of its own keys with its own\n"
          "interpolation, when that needs no more keys; the ticks on the time axes mark\n"
          "the source's keys, and a key line through a tick shows it was kept.");
    }
  }
  ImGui::SameLine();
  if (track.coding == TrackCoding::kAnimated) {
    const uint64_t bits = key_bits(track, choose_key_coding(track));
    ImGui::Text("| %.1f bits a key, step %.3g%s", static_cast<double>(bits) / static_cast<double>(track.keys.size()),
                static_cast<double>(track.quantization.step * (track.kind == TrackKind::kRotation ? 1.f : scale)),
                track.kind == TrackKind::kTranslation ? " mm" : "");
    if (track.kind == TrackKind::kRotation) {
      ImGui::SameLine();
      ImGui::Text("| %s", track.quantization.rotation == RotationCoding::kRelative ? "relative to a reference"
                                                                                   : "full quaternion");
    }
  } else {
    if (track.coding == TrackCoding::kRest) {
      ImGui::Text("| rest: the skeleton's rest value, no bytes (the engine's skeleton holds it)");
    } else {
      ImGui::Text("| %s: exact, no key bits", to_string(track.coding));
    }
  }
  if (track.discontinuities > 0) {
    ImGui::SameLine();
    ImGui::Text("| %u discontinuities", track.discontinuities);
  }
  // A scalar track's threshold is its precision (FittedScalar::precision).
  ImGui::Text("%s %.4g%s | max error %.4g%s", scalar ? "precision" : "threshold",
              static_cast<double>(track.threshold * scale), unit, static_cast<double>(track.max_error * scale), unit);
  const std::vector<TrackError>& measured = scalar ? result.measurement.scalar_tracks : result.measurement.tracks;
  const size_t t = scalar ? index : 3 * index + static_cast<size_t>(track.kind);
  if (t < measured.size()) {
    ImGui::SameLine();
    ImGui::Text("at frame %u", measured[t].worst_frame);
  }
  ImGui::SameLine();
  ImGui::Text("| floor %.3g%s", static_cast<double>(track.floor * scale), unit);
  if (!track.threshold_met) {
    ImGui::SameLine();
    ImGui::TextColored(kWarningColor, "%s missed: below this coding's floor", scalar ? "precision" : "threshold");
  }
}

void CurvePanel::draw_plots(StudioState& state, const FittedTrack& track) {
  const Curves& c = m_curves;
  const bool euler = c.kind == TrackKind::kRotation && m_euler_view;
  const int components = euler ? 3 : c.components;
  const float spacing = ImGui::GetStyle().ItemSpacing.y;
  // The error plot takes one and a half shares of the height.
  const float share = (ImGui::GetContentRegionAvail().y - spacing * static_cast<float>(components)) /
                      (static_cast<float>(components) + 1.5f);
  const float last_frame = static_cast<float>(c.frames.size() - 1);
  bool reset_y = false;
  auto follow = [&](const PlotInteraction& in, const PlotWidget& plot) {
    if (in.clicked) state.frame_time = std::clamp(std::round(static_cast<float>(in.clicked_x)), 0.f, last_frame);
    if (in.x_changed) {  // the others follow from their next draw
      m_x_min = plot.x_min();
      m_x_max = plot.x_max();
    }
    reset_y = reset_y || in.reset;
  };

  // One y-label margin for all, from the last frame's labels, so the x axes line up.
  float margin = m_error_plot.label_margin();
  for (int k = 0; k < components; ++k)
    margin = std::max(margin, m_component_plots[static_cast<size_t>(k)].label_margin());
  m_error_plot.set_min_label_margin(margin);
  for (PlotWidget& plot : m_component_plots) plot.set_min_label_margin(margin);

  // The error first: it is what the fit is judged by, and it stays in view
  // above the component plots whatever the panel's height.
  char title[64];
  const float scale = display_scale(c.kind);
  const char* unit = error_unit(c.kind);
  char threshold_label[48], floor_label[48];
  std::snprintf(threshold_label, sizeof threshold_label, "%s %.3g%s",
                c.kind == TrackKind::kScalar ? "precision" : "threshold", static_cast<double>(track.threshold * scale),
                unit);
  std::snprintf(floor_label, sizeof floor_label, "floor %.3g%s", static_cast<double>(track.floor * scale), unit);
  m_error_plot.set_x_range(m_x_min, m_x_max);
  m_error_plot.add_vertical_markers(c.key_frames, kKeyLineColor);
  if (!c.source_key_frames.empty()) m_error_plot.add_axis_ticks(c.source_key_frames, kSourceKeyColor);
  m_error_plot.add_threshold(track.threshold * scale, kThresholdColor, threshold_label);
  // The floor matters once quantization alone takes a fifth of the budget.
  if (track.floor >= 0.2f * track.threshold || !track.threshold_met) {
    m_error_plot.add_threshold(track.floor * scale, kQuantizationColor, floor_label);
  }
  m_error_plot.add_series(
      {c.frames, c.fit_error, kFittedColor, "fit error", PlotLineStyle::kSolid, true, 1.5f, 1.f, true});
  m_error_plot.add_series({c.frames, c.quantization_error, kQuantizationColor, "quantization error",
                           PlotLineStyle::kSolid, true, 1.5f, 1.f, true});
  m_error_plot.add_series(
      {c.frames, c.total_error, kTotalErrorColor, "total error", PlotLineStyle::kSolid, true, 2.f, 2.f, true});
  m_error_plot.set_cursor(state.frame_time, kCursorColor);
  m_error_plot.set_content_version(m_samples_version);
  std::snprintf(title, sizeof title, "%s",
                c.kind == TrackKind::kTranslation ? "error (mm)"
                : c.kind == TrackKind::kRotation  ? "error: angle to the source (deg)"
                : c.kind == TrackKind::kScalar    ? "error: largest component difference"
                                                  : "error");
  follow(m_error_plot.draw("error", ImVec2(0.f, std::max(1.5f * share, 120.f)), title), m_error_plot);
  m_plot_rects.push_back(last_item_rect("plot-0"));
  m_report = title;

  for (int k = 0; k < components; ++k) {
    PlotWidget& plot = m_component_plots[static_cast<size_t>(k)];
    const size_t a = static_cast<size_t>(k);
    plot.set_x_range(m_x_min, m_x_max);
    plot.add_vertical_markers(c.key_frames, kKeyLineColor);
    if (!c.source_key_frames.empty()) plot.add_axis_ticks(c.source_key_frames, kSourceKeyColor, "source keys");
    plot.add_series({c.frames, euler ? c.euler_source[a] : c.source[a], kSourceColor, "source", PlotLineStyle::kSolid,
                     true, 2.5f, 1.f});
    plot.add_series({c.curve_x, euler ? c.euler_ideal[a] : c.ideal[a], kFittedColor, "fitted", PlotLineStyle::kDashed,
                     false, 2.f, 2.f});
    plot.add_series({c.curve_x, euler ? c.euler_decoded[a] : c.decoded[a], kDecodedColor, "decoded",
                     PlotLineStyle::kSolid, false, 2.f, 2.f});
    plot.add_series({c.key_frames, euler ? c.euler_keys[a] : c.key_values[a], kKeyColor, "keys",
                     PlotLineStyle::kMarkersOnly, false, 3.5f});
    plot.set_cursor(state.frame_time, kCursorColor);
    if (euler) {
      std::snprintf(title, sizeof title, "%s (deg)", kComponentNames[k]);
    } else if (c.kind == TrackKind::kRotation) {
      std::snprintf(title, sizeof title, "q%s", kComponentNames[k]);
    } else if (c.kind == TrackKind::kScalar) {
      // A morph weight is one number; a user curve's components are named as a vector's.
      std::snprintf(title, sizeof title, "%s%s%s", c.morph_weight ? "weight" : "value", c.components > 1 ? " " : "",
                    c.components > 1 ? kComponentNames[k] : "");
    } else {
      std::snprintf(title, sizeof title, "%s %s%s", c.kind == TrackKind::kScale ? "scale" : "translation",
                    kComponentNames[k], c.kind == TrackKind::kTranslation ? " (mm)" : "");
    }
    plot.set_content_version(m_samples_version);
    follow(plot.draw(kComponentNames[k], ImVec2(0.f, std::max(share, 90.f)), title), plot);
    m_plot_rects.push_back(last_item_rect("plot-" + std::to_string(k + 1)));
    m_report += std::string(", ") + title;
  }
  char range[64];
  std::snprintf(range, sizeof range, " over frames %g..%g", m_x_min, m_x_max);
  m_report += range;

  if (reset_y) fit_y();  // a double-click on one plot resets them all
}

void CurvePanel::frame_selection(const FittedTrack& track, float frame_time) {
  // The four keys the player holds for the segment at the cursor (DESIGN §4).
  // A constant track has none: the frames around the cursor.
  const std::vector<FittedKey>& keys = track.keys;
  double lo = frame_time, hi = frame_time;
  if (!keys.empty()) {
    const auto before_key = [](float t, const FittedKey& key) { return t < static_cast<float>(key.frame); };
    const auto after = std::upper_bound(keys.begin(), keys.end(), frame_time, before_key);
    const size_t k = after == keys.begin() ? 0 : static_cast<size_t>(after - keys.begin()) - 1;
    lo = keys[k > 0 ? k - 1 : 0].frame;
    hi = keys[std::min(k + 2, keys.size() - 1)].frame;
  }
  // Never closer than 8 frames around the cursor: two keys a frame apart say little.
  lo = std::min(lo, static_cast<double>(frame_time) - 4.0);
  hi = std::max(hi, static_cast<double>(frame_time) + 4.0);
  const double pad = 0.05 * (hi - lo);
  show_frames(lo - pad, hi + pad);
}

void CurvePanel::show_frames(double lo, double hi) {
  // Within the clip (the plots' limits), as a pan or zoom would be.
  const auto frame_count = static_cast<double>(m_curves.frames.size());
  set_axis_range(m_x_min, m_x_max, lo, std::max(hi, lo + 1.0), 1.0,
                 frame_count > 1.0 ? AxisLimits{0.0, frame_count - 1.0} : AxisLimits{});
  fit_y();
}

void CurvePanel::fit_y() {
  for (PlotWidget& plot : m_component_plots) plot.auto_fit_y();
  m_error_plot.auto_fit_y();
}

}  // namespace ks::studio
