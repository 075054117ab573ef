#include "app/studio/plots/plot_widget.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include "app/studio/plots/plot_range.h"
#include "app/studio/plots/plot_series.h"

// SetItemUsingMouseWheel lives in imgui_internal.h, whose inline code does not
// build under the project's warnings. Redeclaring this one function (same
// signature, Dear ImGui 1.86) stops the wheel from also scrolling the window
// under a plot.
namespace ImGui {
IMGUI_API void SetItemUsingMouseWheel();
}

namespace ks::studio {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr float kInfF = std::numeric_limits<float>::infinity();
constexpr double kZoomPerNotch = 1.2;  // view span factor per wheel notch
constexpr float kAxisTickPx = 8.f;     // height of an axis tick (add_axis_ticks)

const ImU32 kBackground = plot_rgba(22, 24, 29);
const ImU32 kGrid = plot_rgba(255, 255, 255, 24);
const ImU32 kBorder = plot_rgba(255, 255, 255, 70);
const ImU32 kHover = plot_rgba(255, 255, 255, 60);

// The 1-2-5 step that gives about `target_count` intervals over `span`.
double nice_step(double span, double target_count) {
  const double raw = span / std::max(target_count, 1.0);
  if (!(raw > 0.0) || !std::isfinite(raw)) return 1.0;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  const double n = raw / magnitude;
  return (n < 1.5 ? 1.0 : n < 3.5 ? 2.0 : n < 7.5 ? 5.0 : 10.0) * magnitude;
}

// Calls `f` with every multiple of `step` in lo..hi.
template <typename F>
void for_each_tick(double lo, double hi, double step, F f) {
  for (double i = std::ceil(lo / step); i * step <= hi + step * 1e-9; i += 1.0) f(i * step);
}

// As many decimals as the step needs, and no "-0".
void format_tick(char* out, size_t size, double value, double step) {
  if (std::fabs(value) < step * 1e-6) value = 0.0;
  const int decimals = std::clamp(static_cast<int>(-std::floor(std::log10(step) + 1e-9)), 0, 9);
  std::snprintf(out, size, "%.*f", decimals, value);
}

size_t nearest_sample(std::span<const float> x, double at) {
  const size_t i = visible_range(x, at, at, false).first;
  if (i >= x.size()) return x.size() - 1;
  return i > 0 && at - x[i - 1] <= x[i] - at ? i - 1 : i;
}

// Keeps far-off points from reaching the rasteriser with huge coordinates.
float clamp_px(double v, float lo, float hi) {
  return static_cast<float>(std::clamp(v, static_cast<double>(lo) - 4000.0, static_cast<double>(hi) + 4000.0));
}

}  // namespace

void PlotWidget::set_x_range(double lo, double hi) {
  set_axis_range(m_x_min, m_x_max, lo, hi, m_options.min_x_span, m_x_limits);
  m_auto_fit_x = false;
}

float PlotWidget::to_screen_x(const Rect& plot, double x) const {
  return clamp_px(plot.x0 + (x - m_x_min) / (m_x_max - m_x_min) * (plot.x1 - plot.x0), plot.x0, plot.x1);
}

double PlotWidget::to_data_x(const Rect& plot, float screen_x) const {
  return m_x_min + (screen_x - plot.x0) / (plot.x1 - plot.x0) * (m_x_max - m_x_min);
}

float PlotWidget::to_screen_y(const Rect& plot, double y) const {
  return clamp_px(plot.y1 - (y - m_y_min) / (m_y_max - m_y_min) * (plot.y1 - plot.y0), plot.y0, plot.y1);
}

PlotInteraction PlotWidget::draw(const char* id, ImVec2 size, const char* title) {
  PlotInteraction result;
  ImGui::PushID(id);
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  size.x = std::max(size.x > 0.f ? size.x : avail.x, 120.f);
  size.y = std::max(size.y > 0.f ? size.y : avail.y, 80.f);
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton("plot", size);
  const float line = ImGui::GetTextLineHeight();
  Rect plot{origin.x + m_left_margin, origin.y + line + 4.f, origin.x + size.x - 8.f, origin.y + size.y - line - 4.f};

  handle_input(plot, result);
  fit_to_data();

  // y labels first: their width sets the left margin, which sets the width for x.
  const double y_step = nice_step(m_y_max - m_y_min, (plot.y1 - plot.y0) / 30.f);
  float label_width = 0.f;
  for_each_tick(m_y_min, m_y_max, y_step, [&](double y) {
    char text[48];
    format_tick(text, sizeof text, y, y_step);
    label_width = std::max(label_width, ImGui::CalcTextSize(text).x);
  });
  m_label_margin = std::ceil(label_width) + 10.f;
  m_left_margin = std::max(m_label_margin, m_min_label_margin);
  plot.x0 = origin.x + m_left_margin;
  const double x_step = nice_step(m_x_max - m_x_min, (plot.x1 - plot.x0) / 90.f);

  ImDrawList* window = ImGui::GetWindowDrawList();
  // Everything but the cursor and the tooltip comes from the layer's
  // texture while nothing it shows has changed (plot_layer.h).
  // A plot of few vertices is drawn straight into the window, as cheap as
  // showing a texture and without one's memory (a rig of 50,000 bones under
  // ASan has little to spare); it is tried in the layer again when its key
  // changes.
  const uint64_t key = layer_key(size, title);
  if (m_layer.usable() && m_layer.holds(key, size)) {
    m_layer.show(window, origin);
  } else if (!m_layer.usable() || key == m_direct_key) {
    draw_layer(window, plot, x_step, y_step, origin, size, title);
  } else {
    ImDrawList* layer = m_layer.begin(origin, size);
    draw_layer(layer, plot, x_step, y_step, origin, size, title);
    if (layer->VtxBuffer.Size >= kLeastLayerVertices && m_layer.render(key)) {
      m_layer.show(window, origin);
    } else {
      m_layer.release();
      m_direct_key = key;
      draw_layer(window, plot, x_step, y_step, origin, size, title);
    }
  }
  window->PushClipRect(ImVec2(plot.x0, plot.y0), ImVec2(plot.x1, plot.y1), true);
  if (m_has_cursor && m_cursor_x >= m_x_min && m_cursor_x <= m_x_max) {
    const float sx = to_screen_x(plot, m_cursor_x);
    window->AddLine(ImVec2(sx, plot.y0), ImVec2(sx, plot.y1), m_cursor_color, 1.5f);
    window->AddTriangleFilled(ImVec2(sx - 5.f, plot.y0), ImVec2(sx + 5.f, plot.y0), ImVec2(sx, plot.y0 + 6.f),
                              m_cursor_color);
  }
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  const bool inside = mouse.x >= plot.x0 && mouse.x <= plot.x1 && mouse.y >= plot.y0 && mouse.y <= plot.y1;
  if (result.hovered && inside && !m_dragged) {
    draw_tooltip(window, plot, to_data_x(plot, mouse.x));
  }
  window->PopClipRect();

  m_series.clear();
  m_markers.clear();
  m_ticks.clear();
  m_thresholds.clear();
  m_has_cursor = false;
  ImGui::PopID();
  return result;
}

// Everything the plot shows but the cursor and the tooltip.
void PlotWidget::draw_layer(ImDrawList* draw, const Rect& plot, double x_step, double y_step, ImVec2 origin,
                            ImVec2 size, const char* title) {
  draw_grid_and_axes(draw, plot, x_step, y_step);
  draw->PushClipRect(ImVec2(plot.x0, plot.y0), ImVec2(plot.x1, plot.y1), true);
  for (const Markers& markers : m_markers) {
    const auto [first, end] = visible_range(markers.xs, m_x_min, m_x_max, false);
    if (static_cast<float>(end - first) * 3.f > plot.x1 - plot.x0) continue;  // a wash of lines says nothing
    for (size_t i = first; i < end; ++i) {
      const float sx = to_screen_x(plot, markers.xs[i]);
      draw->AddLine(ImVec2(sx, plot.y0), ImVec2(sx, plot.y1), markers.color, 1.f);
    }
  }
  for (const Threshold& t : m_thresholds) {
    const float sy = to_screen_y(plot, t.y);
    for (float x = plot.x0; x < plot.x1; x += kPlotDashPx + kPlotGapPx) {
      draw->AddLine(ImVec2(x, sy), ImVec2(std::min(x + kPlotDashPx, plot.x1), sy), t.color, 1.f);
    }
    if (t.label && *t.label) {
      const ImVec2 extent = ImGui::CalcTextSize(t.label);
      const float ty = sy - extent.y - 1.f >= plot.y0 ? sy - extent.y - 1.f : sy + 1.f;
      draw->AddText(ImVec2(plot.x1 - extent.x - 4.f, ty), t.color, t.label);
    }
  }
  for (const PlotSeries& series : m_series) draw_series(draw, plot, series);
  // Over the series, so a curve along the axis does not hide them.
  for (const AxisTicks& ticks : m_ticks) {
    const auto [first, end] = visible_range(ticks.xs, m_x_min, m_x_max, false);
    for (size_t i = first; i < end; ++i) {
      const float sx = to_screen_x(plot, ticks.xs[i]);
      draw->AddLine(ImVec2(sx, plot.y1), ImVec2(sx, plot.y1 - kAxisTickPx), ticks.color, 2.f);
    }
  }
  draw->PopClipRect();
  draw->AddRect(ImVec2(plot.x0, plot.y0), ImVec2(plot.x1, plot.y1), kBorder);
  draw_legend(draw, origin, origin.x + size.x, title);
}

// FNV-1a over everything draw_layer shows: the view, the size and margins,
// the title, and each series, marker set and threshold (their data by
// address and length, and the caller's content version for data changed in
// place).
uint64_t PlotWidget::layer_key(ImVec2 size, const char* title) const {
  uint64_t h = 1469598103934665603ull;
  const auto mix = [&](const void* bytes, size_t n) {
    const unsigned char* p = static_cast<const unsigned char*>(bytes);
    for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ull;
  };
  const auto mix_value = [&](const auto& v) { mix(&v, sizeof v); };
  const auto mix_text = [&](const char* text) {
    if (text != nullptr) mix(text, std::strlen(text));
    mix_value('\0');
  };
  mix_value(m_content_version);
  mix_value(size.x), mix_value(size.y), mix_value(m_left_margin);
  mix_value(m_x_min), mix_value(m_x_max), mix_value(m_y_min), mix_value(m_y_max);
  mix_text(title);
  for (const PlotSeries& s : m_series) {
    mix_value(s.x.data()), mix_value(s.x.size()), mix_value(s.y.data()), mix_value(s.y.size());
    mix_value(s.color), mix_value(s.style), mix_value(s.markers), mix_value(s.marker_radius);
    mix_value(s.thickness), mix_value(s.dense_peaks_only);
    mix_text(s.label);
  }
  for (const Markers& m : m_markers) mix_value(m.xs.data()), mix_value(m.xs.size()), mix_value(m.color);
  for (const AxisTicks& t : m_ticks) {
    mix_value(t.xs.data()), mix_value(t.xs.size()), mix_value(t.color);
    mix_text(t.label);
  }
  for (const Threshold& t : m_thresholds) {
    mix_value(t.y), mix_value(t.color), mix_value(t.include_in_fit);
    mix_text(t.label);
  }
  return h;
}

void PlotWidget::handle_input(const Rect& plot, PlotInteraction& result) {
  const ImGuiIO& io = ImGui::GetIO();
  const float width = plot.x1 - plot.x0, height = plot.y1 - plot.y0;
  result.hovered = ImGui::IsItemHovered();
  // The wheel scrolls the window the plots sit in; with Ctrl it zooms time
  // and with Shift the values, about the mouse.
  const bool zooming = result.hovered && (io.KeyCtrl || io.KeyShift);
  if (zooming) ImGui::SetItemUsingMouseWheel();
  if (zooming && io.MouseWheel != 0.f) {
    const double factor = std::pow(kZoomPerNotch, -static_cast<double>(io.MouseWheel));
    if (io.KeyShift) {
      zoom_axis(m_y_min, m_y_max, m_y_max - (io.MousePos.y - plot.y0) / height * (m_y_max - m_y_min), factor, 1e-12,
                AxisLimits{});
      m_auto_fit_y = false;
    } else {
      zoom_axis(m_x_min, m_x_max, to_data_x(plot, io.MousePos.x), factor, m_options.min_x_span, m_x_limits);
      m_auto_fit_x = false;
      result.x_changed = true;
    }
  }
  if (ImGui::IsItemActivated()) {
    m_dragged = false;
    m_drag_from = io.MousePos;
  }
  if (ImGui::IsItemActive() && ImGui::IsMouseDragging(ImGuiMouseButton_Left)) {
    // From the last frame's position, or on the first dragging frame from the
    // press, so the data stays under the mouse.
    const float dx = io.MousePos.x - m_drag_from.x, dy = io.MousePos.y - m_drag_from.y;
    const ImVec2 total(io.MousePos.x - io.MouseClickedPos[0].x, io.MousePos.y - io.MouseClickedPos[0].y);
    m_drag_from = io.MousePos;
    m_dragged = true;
    const double shift_x = -dx / width * (m_x_max - m_x_min), shift_y = dy / height * (m_y_max - m_y_min);
    if (dx != 0.f) {
      set_axis_range(m_x_min, m_x_max, m_x_min + shift_x, m_x_max + shift_x, 0.0, m_x_limits);
      m_auto_fit_x = false;
      result.x_changed = true;
    }
    // A mostly horizontal drag (scrubbing through time) leaves an auto-fitted y alone.
    if (dy != 0.f && (!m_auto_fit_y || std::fabs(total.y) > std::fabs(total.x))) {
      set_axis_range(m_y_min, m_y_max, m_y_min + shift_y, m_y_max + shift_y, 0.0, AxisLimits{});
      m_auto_fit_y = false;
    }
  }
  if (ImGui::IsItemDeactivated()) {
    result.clicked = !m_dragged;
    result.clicked_x = to_data_x(plot, std::clamp(io.MousePos.x, plot.x0, plot.x1));
    m_dragged = false;
  }
  if (result.hovered && ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) {
    reset_view();
    result.reset = true;
    result.x_changed = true;
  }
}

void PlotWidget::fit_to_data() {
  if (m_auto_fit_x) {
    double lo = kInf, hi = -kInf;
    for (const PlotSeries& s : m_series) {
      if (s.x.empty()) continue;
      lo = std::min(lo, static_cast<double>(s.x.front()));
      hi = std::max(hi, static_cast<double>(s.x.back()));
    }
    if (lo <= hi) set_axis_range(m_x_min, m_x_max, lo, hi, std::max(m_options.min_x_span, 1e-9), m_x_limits);
  }
  if (!m_auto_fit_y) return;
  double lo = kInf, hi = -kInf;
  for (const PlotSeries& s : m_series) {
    const auto [first, end] = visible_range(s.x, m_x_min, m_x_max, false);
    // Comparisons with NaN are false, so NaNs drop out; infinities are caught below.
    float series_lo = kInfF, series_hi = -kInfF;
    for (size_t i = first; i < std::min(end, s.y.size()); ++i) {
      series_lo = std::min(series_lo, s.y[i]);
      series_hi = std::max(series_hi, s.y[i]);
    }
    if (std::isfinite(series_lo)) lo = std::min(lo, static_cast<double>(series_lo));
    if (std::isfinite(series_hi)) hi = std::max(hi, static_cast<double>(series_hi));
  }
  for (const Threshold& t : m_thresholds) {
    if (!t.include_in_fit) continue;
    lo = std::min(lo, static_cast<double>(t.y));
    hi = std::max(hi, static_cast<double>(t.y));
  }
  if (m_options.y_include_zero && lo <= hi) {
    lo = std::min(lo, 0.0);
    hi = std::max(hi, 0.0);
  }
  if (!(lo <= hi)) return;  // nothing visible: keep the last view
  // A flat line sits mid-plot; otherwise 6% headroom keeps lines off the border.
  const double pad = hi > lo ? 0.06 * (hi - lo) : std::max(1e-6, 0.05 * std::fabs(hi));
  m_y_min = m_options.y_include_zero && lo >= 0.0 ? lo : lo - pad;
  m_y_max = hi + pad;
}

void PlotWidget::draw_grid_and_axes(ImDrawList* draw, const Rect& plot, double x_step, double y_step) {
  const ImU32 label_color = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  const float line = ImGui::GetTextLineHeight();
  draw->AddRectFilled(ImVec2(plot.x0, plot.y0), ImVec2(plot.x1, plot.y1), kBackground);
  char text[48];
  float last_label_right = -1e30f;  // labels that would overlap are left out
  for_each_tick(m_x_min, m_x_max, x_step, [&](double x) {
    const float sx = to_screen_x(plot, x);
    draw->AddLine(ImVec2(sx, plot.y0), ImVec2(sx, plot.y1), kGrid);
    format_tick(text, sizeof text, x, x_step);
    const float w = ImGui::CalcTextSize(text).x;
    const float left = std::clamp(sx - 0.5f * w, plot.x0 - 4.f, plot.x1 - w + 4.f);
    if (left < last_label_right + 6.f) return;
    draw->AddText(ImVec2(left, plot.y1 + 2.f), label_color, text);
    last_label_right = left + w;
  });
  for_each_tick(m_y_min, m_y_max, y_step, [&](double y) {
    const float sy = to_screen_y(plot, y);
    draw->AddLine(ImVec2(plot.x0, sy), ImVec2(plot.x1, sy), kGrid);
    format_tick(text, sizeof text, y, y_step);
    const float w = ImGui::CalcTextSize(text).x;
    draw->AddText(ImVec2(plot.x0 - w - 5.f, std::clamp(sy - 0.5f * line, plot.y0 - 2.f, plot.y1 - line + 2.f)),
                  label_color, text);
  });
}

void PlotWidget::draw_legend(ImDrawList* draw, ImVec2 at, float right, const char* title) {
  const float line = ImGui::GetTextLineHeight();
  draw->PushClipRect(at, ImVec2(right, at.y + line + 2.f), true);
  float x = at.x;
  if (title && *title) {
    draw->AddText(ImVec2(x, at.y), ImGui::GetColorU32(ImGuiCol_Text), title);
    x += ImGui::CalcTextSize(title).x + 16.f;
  }
  const float mid = at.y + 0.5f * line;
  for (const PlotSeries& s : m_series) {
    if (!m_options.show_legend || !s.label || !*s.label) continue;
    if (s.style == PlotLineStyle::kMarkersOnly) {
      draw->AddCircleFilled(ImVec2(x + 8.f, mid), s.marker_radius, s.color, 10);
    } else if (s.style == PlotLineStyle::kDashed) {
      draw->AddLine(ImVec2(x, mid), ImVec2(x + 6.f, mid), s.color, s.thickness);
      draw->AddLine(ImVec2(x + 10.f, mid), ImVec2(x + 16.f, mid), s.color, s.thickness);
    } else {
      draw->AddLine(ImVec2(x, mid), ImVec2(x + 16.f, mid), s.color, s.thickness + 0.5f);
    }
    x += 20.f;
    draw->AddText(ImVec2(x, at.y), ImGui::GetColorU32(ImGuiCol_Text), s.label);
    x += ImGui::CalcTextSize(s.label).x + 14.f;
  }
  for (const AxisTicks& t : m_ticks) {
    if (!m_options.show_legend || !t.label || !*t.label) continue;
    draw->AddLine(ImVec2(x + 8.f, at.y + line - 1.f), ImVec2(x + 8.f, at.y + line - 1.f - kAxisTickPx), t.color, 2.f);
    x += 20.f;
    draw->AddText(ImVec2(x, at.y), ImGui::GetColorU32(ImGuiCol_Text), t.label);
    x += ImGui::CalcTextSize(t.label).x + 14.f;
  }
  draw->PopClipRect();
}

void PlotWidget::draw_tooltip(ImDrawList* draw, const Rect& plot, double x) {
  const float sx = to_screen_x(plot, x);
  draw->AddLine(ImVec2(sx, plot.y0), ImVec2(sx, plot.y1), kHover);
  char value[64];
  ImGui::BeginTooltip();
  ImGui::Text("%s %.2f", m_options.x_name, x);
  float value_column = 0.f;  // values line up right of the longest label
  for (const PlotSeries& s : m_series) {
    if (s.label && *s.label) value_column = std::max(value_column, ImGui::CalcTextSize(s.label).x);
  }
  value_column += 2.f * ImGui::GetStyle().ItemSpacing.x;
  for (const PlotSeries& s : m_series) {
    const size_t n = std::min(s.x.size(), s.y.size());
    if (!s.label || !*s.label || n == 0) continue;
    const size_t i = nearest_sample(s.x.first(n), x);
    std::snprintf(value, sizeof value, m_options.value_format, static_cast<double>(s.y[i]));
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(s.color), "%s", s.label);
    ImGui::SameLine(value_column);
    // Sparse series (keys) name the x of their nearest sample.
    if (s.style == PlotLineStyle::kMarkersOnly) {
      ImGui::Text("%s  (%s %g)", value, m_options.x_name, static_cast<double>(s.x[i]));
    } else {
      ImGui::TextUnformatted(value);
    }
    if (std::isfinite(s.y[i])) {
      draw->AddCircle(ImVec2(to_screen_x(plot, s.x[i]), to_screen_y(plot, s.y[i])), 4.f, s.color, 12, 1.5f);
    }
  }
  ImGui::EndTooltip();
}

}  // namespace ks::studio
