// PlotWidget's series drawing (plot_widget.h): lines, steps, dashes and
// markers, thinned to a min/max envelope where samples crowd the pixels.

#include "app/studio/plots/plot_series.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "app/studio/plots/plot_widget.h"

namespace ks::studio {

namespace {

constexpr float kInfF = std::numeric_limits<float>::infinity();
constexpr int kMaxPolylinePoints = 2048;  // keeps one AddPolyline well under 16-bit indices
constexpr float kMarkerSpacing = 6.f;     // px between samples before markers are drawn

}  // namespace

std::pair<size_t, size_t> visible_range(std::span<const float> x, double lo, double hi, bool pad) {
  size_t first = static_cast<size_t>(std::lower_bound(x.begin(), x.end(), lo, [](float a, double b) { return a < b; }) -
                                     x.begin());
  size_t end = static_cast<size_t>(std::upper_bound(x.begin(), x.end(), hi, [](double b, float a) { return b < a; }) -
                                   x.begin());
  if (pad && first > 0) --first;
  if (pad && end < x.size()) ++end;
  return {first, end};
}

void PlotWidget::draw_series(ImDrawList* draw, const Rect& plot, const PlotSeries& s) {
  const std::span<const float> x = s.x.first(std::min(s.x.size(), s.y.size()));
  // Plain variables, not a structured binding: clang 14 cannot capture those in the lambda below.
  const auto range = visible_range(x, m_x_min, m_x_max, true);
  const size_t first = range.first, end = range.second;
  if (first >= end) return;
  const float width = plot.x1 - plot.x0;
  const size_t count = end - first;
  auto draw_markers = [&] {
    for (size_t i = first; i < end; ++i) {
      if (!std::isfinite(s.y[i])) continue;
      draw->AddCircleFilled(ImVec2(to_screen_x(plot, x[i]), to_screen_y(plot, s.y[i])), s.marker_radius, s.color, 10);
    }
  };
  if (s.style == PlotLineStyle::kMarkersOnly) {
    // Markers closer than 4 px hide the lines under them: zoom in to see them.
    if (static_cast<float>(count) * 4.f <= width) draw_markers();
    return;
  }
  m_points.clear();
  if (count > 2 * static_cast<size_t>(width)) {
    // Several samples per pixel column: each column is drawn as the vertical
    // span of its samples, entered from the end nearer the previous column.
    // Two points a column give the picture of every sample; the per-sample
    // work is a compare and a min/max (a long clip has ~100k samples in view).
    const float px_per_x = static_cast<float>(static_cast<double>(width) / (m_x_max - m_x_min));
    const float x_origin = static_cast<float>(m_x_min);
    auto push = [&](float px, float py) {
      if (m_points.empty() || m_points.back().x != px || m_points.back().y != py) m_points.push_back(ImVec2(px, py));
    };
    for (size_t i = first; i < end;) {
      const float column = std::floor((x[i] - x_origin) * px_per_x);
      const float column_end = x_origin + (column + 1.f) / px_per_x;
      // std::min and std::max keep their first argument against a NaN.
      float lo = kInfF, hi = -kInfF;
      do {
        lo = std::min(lo, s.y[i]);
        hi = std::max(hi, s.y[i]);
        ++i;
      } while (i < end && x[i] < column_end);
      if (!(lo <= hi)) continue;  // no finite sample in this column
      const float cx = plot.x0 + column + 0.5f;
      const float low = to_screen_y(plot, lo), high = to_screen_y(plot, hi);
      if (s.dense_peaks_only) {
        push(cx, high);
      } else if (!m_points.empty() && std::fabs(m_points.back().y - high) < std::fabs(m_points.back().y - low)) {
        push(cx, high);
        push(cx, low);
      } else {
        push(cx, low);
        push(cx, high);
      }
    }
    // A dash pattern along a column-by-column envelope reads as a solid line
    // anyway, at many times the draw calls.
    PlotSeries solid = s;
    if (solid.style == PlotLineStyle::kDashed) solid.style = PlotLineStyle::kSolid;
    stroke(draw, m_points, solid);
    return;
  }
  for (size_t i = first; i < end; ++i) {
    if (!std::isfinite(s.y[i])) {  // a gap in the data is a gap in the line
      stroke(draw, m_points, s);
      m_points.clear();
      continue;
    }
    const ImVec2 p(to_screen_x(plot, x[i]), to_screen_y(plot, s.y[i]));
    if (s.style == PlotLineStyle::kStep && !m_points.empty()) m_points.push_back(ImVec2(p.x, m_points.back().y));
    m_points.push_back(p);
  }
  stroke(draw, m_points, s);
  if (s.markers && width >= kMarkerSpacing * static_cast<float>(count)) draw_markers();
}

void PlotWidget::stroke(ImDrawList* draw, std::span<const ImVec2> points, const PlotSeries& s) {
  if (points.size() < 2) return;
  if (s.style != PlotLineStyle::kDashed) {
    // Chunks overlap by one point so the line stays continuous.
    for (size_t i = 0; i + 1 < points.size(); i += kMaxPolylinePoints - 1) {
      const size_t n = std::min<size_t>(kMaxPolylinePoints, points.size() - i);
      draw->AddPolyline(&points[i], static_cast<int>(n), s.color, 0, s.thickness);
    }
    return;
  }
  // The dash pattern runs on along the path, across sample boundaries.
  float phase = 0.f;
  for (size_t i = 0; i + 1 < points.size(); ++i) {
    const ImVec2 a = points[i], b = points[i + 1];
    const float length = std::hypot(b.x - a.x, b.y - a.y);
    for (float t = 0.f; t < length;) {
      const bool on = phase < kPlotDashPx;
      const float step = std::min(on ? kPlotDashPx - phase : kPlotDashPx + kPlotGapPx - phase, length - t);
      if (on) {
        const float u0 = t / length, u1 = (t + step) / length;
        draw->AddLine(ImVec2(a.x + (b.x - a.x) * u0, a.y + (b.y - a.y) * u0),
                      ImVec2(a.x + (b.x - a.x) * u1, a.y + (b.y - a.y) * u1), s.color, s.thickness);
      }
      t += step;
      phase += step;
      if (phase >= kPlotDashPx + kPlotGapPx) phase -= kPlotDashPx + kPlotGapPx;
    }
  }
}

}  // namespace ks::studio
