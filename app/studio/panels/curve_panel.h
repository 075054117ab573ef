#pragma once
// CurvePanel: the "Curves" window (DESIGN §9). For the selected bone and
// track, or the selected scalar track (morph weight, user curve), it plots
// the error over frames first (split into fit and quantization error,
// against the threshold or precision; for rotations the angle to the source
// in degrees), then, per component, the source samples, the curve the fit
// chose before quantization, the decoded curve and its keys. A header line
// names the track's curve (Hermite, linear, step) and how many of a keyed
// source's keys it kept; ticks on the time axes mark the source's keys.
// Rotations show as quaternion components or as XYZ Euler angles in degrees.
// Every plot shows the current time and shares one frame range, which never
// leaves the clip. While a set is open, the window has a tab for it too.

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "app/studio/app/screen_rect.h"
#include "app/studio/app/studio_state.h"
#include "app/studio/plots/plot_widget.h"

namespace ks::studio {

/// Another tab beside the curves' own in the Curves window (the Set
/// panel's, while a set is open).
struct PanelTab {
  std::string label;             // shown; "###id" keeps the tab when it changes
  bool select = false;           // make it the chosen tab this frame
  bool select_curves = false;    // make the curves the chosen tab this frame
  std::function<void()> draw;    // its contents, when chosen
};

class CurvePanel {
 public:
  CurvePanel();

  /// Draws the window for state.selected_scalar, else for
  /// state.selected_bone and state.selected_kind; call
  /// once a frame between ImGui::NewFrame and ImGui::Render. A click in a
  /// plot sets state.frame_time (to the nearest frame). It handles and clears
  /// state.frame_selection_requested: the plots then show the four keys of
  /// the segment at the current time.
  void draw(StudioState& state, const PanelTab* tab = nullptr);
  /// The extra tab was the chosen one at the last draw.
  bool tab_shown() const { return m_tab_shown; }

  /// Frees the plots' kept textures; the GL context must still live.
  void release_gl() {
    m_error_plot.release_gl();
    for (PlotWidget& plot : m_component_plots) plot.release_gl();
  }

  /// Rotations as XYZ Euler angles in degrees (true) or quaternion components.
  void set_euler_view(bool euler) { m_euler_view = euler; }
  /// What the last frame drawn showed, for the screenshot mode's report:
  /// "PLOT, PLOT, ... over frames LO..HI" (titles top to bottom), or empty.
  const std::string& report() const { return m_report; }
  /// The curve of the track the last frame showed (curve_label()) and its
  /// source key ticks: "LABEL, N source key ticks", or empty.
  const std::string& curve_report() const { return m_curve_report; }
  /// The track the last frame showed: "BONE KIND" or "scalar track NAME", or empty.
  const std::string& shown_track() const { return m_shown_track; }
  /// Where the last frame drew its plots, top to bottom: "plot-0" the error, then "plot-1"...
  const std::vector<ScreenRect>& plot_rects() const { return m_plot_rects; }

 private:
  /// One track sampled for plotting, in display units (mm for translations,
  /// degrees for rotation errors). Rebuilt only when the result, bone or kind
  /// changes: a long clip has tens of thousands of curve points.
  struct Curves {
    std::weak_ptr<const FitResult> result;  // identifies the result without keeping it alive
    uint64_t generation = 0;
    int bone = -1;  // the bone, or for kind kScalar the scalar track (FittedTrack::bone)
    TrackKind kind = TrackKind::kTranslation;
    int components = 3;         // plotted: a scalar track's own count, else the kind's
    bool morph_weight = false;  // a scalar track that is a morph-target weight

    std::vector<float> frames;                  // 0 .. frame_count-1
    std::array<std::vector<float>, 4> source;   // per frame, rotations in the decoded hemisphere
    std::vector<float> curve_x;                 // several points per frame, for the curves' shape
    std::array<std::vector<float>, 4> ideal;    // fitted, before quantization, at curve_x
    std::array<std::vector<float>, 4> decoded;  // what the player decodes, at curve_x
    std::vector<float> key_frames;
    std::vector<float> source_key_frames;          // a keyed source's keys (SourceKeys), else none
    std::string curve_label;                       // curve_label(): the curve and the source keys it kept
    std::array<std::vector<float>, 4> key_values;  // decoded key values
    // Rotations only: the same as XYZ Euler angles, degrees, each curve made
    // continuous across +-180 and started on the decoded curve's turn.
    std::array<std::vector<float>, 3> euler_source;
    std::array<std::vector<float>, 3> euler_ideal;
    std::array<std::vector<float>, 3> euler_decoded;
    std::array<std::vector<float>, 3> euler_keys;
    std::vector<float> total_error;         // per frame: source vs decoded
    std::vector<float> fit_error;           // per frame: source vs fitted
    std::vector<float> quantization_error;  // per frame: fitted vs decoded
  };

  // Sampling, in curve_panel_samples.cpp.
  /// The fitted track of bone `bone` and `kind`, or of scalar track `bone`
  /// when `kind` is kScalar (FittedClip::tracks orders them so).
  static const FittedTrack& fitted_track(const FittedClip& fitted, int bone, TrackKind kind);
  /// Translations and their errors are shown in mm (the thresholds are a
  /// fraction of one), everything else as it is.
  static float display_scale(TrackKind kind) { return kind == TrackKind::kTranslation ? 1000.f : 1.f; }
  bool is_cached(const std::shared_ptr<const FitResult>& result, int bone, TrackKind kind) const;
  void sample_curves(const std::shared_ptr<const FitResult>& result, int bone, TrackKind kind);
  void sample_euler_angles(const FittedTrack& track, int per_frame);

  // Drawing, in curve_panel.cpp.
  void draw_curves(StudioState& state, bool frame_requested);
  void draw_header(StudioState& state, const FitResult& result, const FittedTrack& track);
  void draw_plots(StudioState& state, const FittedTrack& track);
  void frame_selection(const FittedTrack& track, float frame_time);
  /// Every plot shows frames lo..hi, y fitted to what is visible.
  void show_frames(double lo, double hi);
  /// Every plot fits y to what it shows from its next draw on.
  void fit_y();

  Curves m_curves;
  bool m_euler_view = false;  // rotations as Euler angles (degrees) instead of quaternion components
  std::string m_report;
  bool m_tab_shown = false;
  std::string m_shown_track;
  std::string m_curve_report;
  std::vector<ScreenRect> m_plot_rects;
  std::array<PlotWidget, 4> m_component_plots;
  PlotWidget m_error_plot;
  uint64_t m_samples_version = 0;  // counts sample_curves: the plots' content version
  // The frame range every plot shows; a plot the user pans or zooms sets it.
  double m_x_min = 0.0, m_x_max = 1.0;
  std::weak_ptr<const ImportedClip> m_framed_clip;  // the clip the range was last fitted to
};

}  // namespace ks::studio
