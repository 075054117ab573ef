#pragma once
// PlotWidget: a 2D line plot drawn with ImGui draw lists. Debian's Dear ImGui
// 1.86 has only PlotLines (no axes, zoom or several series) and ImPlot is
// not packaged, so the studio draws its own. The widget keeps its view (x and
// y range, auto-fit) across frames; the content (series, markers, axis
// ticks, thresholds, cursor) is given anew every frame, borrowed until draw()
// returns, so a caller that caches its samples pays no copy per frame.
//
// Interaction: the wheel scrolls the window (a panel of stacked plots reads
// like a page); Ctrl+wheel zooms x around the mouse, Shift+wheel zooms y. A
// left drag pans, a double-click fits all data, hovering shows the y of
// every series at the hovered x, a click without drag reports its x. x never
// leaves its limits (set_x_limits: the clip's frames).

#include <imgui.h>

#include <cstdint>
#include <span>
#include <vector>

#include "app/studio/plots/plot_layer.h"
#include "app/studio/plots/plot_range.h"

namespace ks::studio {

/// An RGBA colour as ImGui packs it (IM_COL32 without its C-style casts).
constexpr ImU32 plot_rgba(uint32_t r, uint32_t g, uint32_t b, uint32_t a = 255) {
  return r | g << 8 | b << 16 | a << 24;
}

enum class PlotLineStyle : uint8_t {
  kSolid,
  kDashed,
  kStep,         // holds each y until the next sample's x
  kMarkersOnly,  // no line, a marker at every sample (key markers); hidden while closer than 4 px
};

/// One line of a plot. Both spans are borrowed until draw() returns.
struct PlotSeries {
  std::span<const float> x;  // ascending (equal neighbours allowed)
  std::span<const float> y;  // as many as x; non-finite values are skipped by auto-fit
  ImU32 color = plot_rgba(255, 255, 255);
  const char* label = "";  // legend and tooltip; empty leaves it out of both
  PlotLineStyle style = PlotLineStyle::kSolid;
  bool markers = false;        // a dot per sample once samples are >= 6 px apart
  float marker_radius = 2.5f;  // px
  float thickness = 1.f;       // px; whole numbers draw cheaper (ImGui then uses textured lines)
  /// Where samples crowd a pixel column, draw only their largest y instead of
  /// the column's whole range: for errors, whose peaks are what matter.
  bool dense_peaks_only = false;
};

/// What the user did to a plot this frame.
struct PlotInteraction {
  bool hovered = false;
  bool clicked = false;    // pressed and released without dragging
  double clicked_x = 0.0;  // data x of the click
  bool x_changed = false;  // the user panned, zoomed or reset x (for linked plots)
  bool reset = false;      // double-click: the view was fitted to all data
};

/// Settings fixed for a plot's lifetime.
struct PlotOptions {
  bool y_include_zero = false;        // auto-fit keeps y = 0 in view (error plots); default off
  const char* value_format = "%.4g";  // printf format of y values in the tooltip
  const char* x_name = "x";           // names the hovered x in the tooltip ("frame")
  bool show_legend = true;            // series labels on the title line (tooltips name them either way)
  double min_x_span = 1e-6;           // zoom-in limit, data units of x
};

class PlotWidget {
 public:
  explicit PlotWidget(PlotOptions options = {}) : m_options(options) {}

  // Content of the next draw(); draw() clears it.
  /// Adds a line; see PlotSeries for what is borrowed.
  void add_series(const PlotSeries& series) { m_series.push_back(series); }
  /// Thin vertical lines at `xs` (key frames), behind the series; `xs` borrowed.
  /// Left out while they would be closer than 3 px.
  void add_vertical_markers(std::span<const float> xs, ImU32 color) { m_markers.push_back({xs, color}); }
  /// Short ticks up from the x axis at `xs` (a keyed source's key frames),
  /// over the series; a non-empty `label` names them in the legend. Both borrowed.
  void add_axis_ticks(std::span<const float> xs, ImU32 color, const char* label = "") {
    m_ticks.push_back({xs, color, label});
  }
  /// A dashed horizontal line at `y`, labelled at its right end; `label` borrowed.
  /// `include_in_fit` keeps it in view when y is auto-fitted.
  void add_threshold(float y, ImU32 color, const char* label, bool include_in_fit = true) {
    m_thresholds.push_back({y, color, label, include_in_fit});
  }
  /// A vertical cursor (the current time) at `x`.
  void set_cursor(double x, ImU32 color) {
    m_has_cursor = true;
    m_cursor_x = x;
    m_cursor_color = color;
  }

  /// Draws the plot at the cursor position of the current window, `size` in
  /// px (a size <= 0 takes the available width or height), with `title` and
  /// the legend on a line above the plot. `id` must be unique in the window.
  PlotInteraction draw(const char* id, ImVec2 size, const char* title);

  // View state, kept across frames.
  /// Shows x in lo..hi and re-fits y to what is visible ("frame the selection").
  void fit_x(double lo, double hi) {
    set_x_range(lo, hi);
    m_auto_fit_y = true;
  }
  /// Shows x in lo..hi (at least PlotOptions::min_x_span), leaving y alone
  /// (for plots linked to another's x).
  void set_x_range(double lo, double hi);
  /// Fits both axes to all data from the next draw() on (as a double-click).
  void reset_view() { m_auto_fit_x = m_auto_fit_y = true; }
  /// The x range pan and zoom stay inside (the clip's frames); applies to
  /// the current range at once.
  void set_x_limits(AxisLimits limits) {
    m_x_limits = limits;
    set_axis_range(m_x_min, m_x_max, m_x_min, m_x_max, m_options.min_x_span, m_x_limits);
  }
  /// Turns y auto-fit on: y follows the data visible in the x range.
  void auto_fit_y() { m_auto_fit_y = true; }
  double x_min() const { return m_x_min; }
  double x_max() const { return m_x_max; }
  /// Width, px, the y labels took at the last draw().
  float label_margin() const { return m_label_margin; }
  /// Makes the y-label margin at least `px` from the next draw() on, so
  /// stacked plots sharing x line their axes up.
  void set_min_label_margin(float px) { m_min_label_margin = px; }
  /// Says the data behind the series changed in place (same buffers): the
  /// next draw() draws anew rather than from the texture it keeps
  /// (plot_layer.h). A change of buffer, view or size is seen without it.
  void set_content_version(uint64_t version) { m_content_version = version; }
  /// Frees the kept texture; the GL context must still live.
  void release_gl() { m_layer.release(); }

 private:
  struct Markers {
    std::span<const float> xs;
    ImU32 color;
  };
  struct AxisTicks {
    std::span<const float> xs;
    ImU32 color;
    const char* label;
  };
  struct Threshold {
    float y;
    ImU32 color;
    const char* label;
    bool include_in_fit;
  };
  struct Rect {
    float x0, y0, x1, y1;
  };

  void handle_input(const Rect& plot, PlotInteraction& result);
  void fit_to_data();
  void draw_layer(ImDrawList* draw, const Rect& plot, double x_step, double y_step, ImVec2 origin, ImVec2 size,
                  const char* title);
  uint64_t layer_key(ImVec2 size, const char* title) const;
  void draw_grid_and_axes(ImDrawList* draw, const Rect& plot, double x_step, double y_step);
  void draw_series(ImDrawList* draw, const Rect& plot, const PlotSeries& series);
  void stroke(ImDrawList* draw, std::span<const ImVec2> points, const PlotSeries& series);
  void draw_legend(ImDrawList* draw, ImVec2 at, float right, const char* title);
  void draw_tooltip(ImDrawList* draw, const Rect& plot, double x);
  float to_screen_x(const Rect& plot, double x) const;
  float to_screen_y(const Rect& plot, double y) const;
  double to_data_x(const Rect& plot, float screen_x) const;

  PlotOptions m_options;
  // View: data ranges shown, and whether each follows the data.
  double m_x_min = 0.0, m_x_max = 1.0;
  double m_y_min = 0.0, m_y_max = 1.0;
  AxisLimits m_x_limits;  // none until set_x_limits
  bool m_auto_fit_x = true;
  bool m_auto_fit_y = true;
  bool m_dragged = false;      // the current press has moved past the drag threshold
  ImVec2 m_drag_from;          // where the mouse was when the view last panned
  float m_left_margin = 48.f;  // px left of the plot, from the previous frame's ticks
  float m_label_margin = 0.f;  // px the y labels need
  float m_min_label_margin = 0.f;

  // This frame's content.
  std::vector<PlotSeries> m_series;
  std::vector<Markers> m_markers;
  std::vector<AxisTicks> m_ticks;
  std::vector<Threshold> m_thresholds;
  bool m_has_cursor = false;
  double m_cursor_x = 0.0;
  ImU32 m_cursor_color = 0;

  // Scratch kept between frames so drawing does not allocate once warm.
  std::vector<ImVec2> m_points;
  PlotLayer m_layer;               // the plot but its cursor and tooltip, as last drawn
  uint64_t m_direct_key = 0;       // the layer key last drawn straight into the window (too few vertices)
  static constexpr int kLeastLayerVertices = 2000;  // fewer: no texture
  uint64_t m_content_version = 0;  // set_content_version
};

}  // namespace ks::studio
