#pragma once
// What the plot widget's two files share: plot_widget.cpp (view, input, axes,
// legend, tooltip) and plot_series.cpp (drawing the series). Internal to
// PlotWidget; panels include plot_widget.h.

#include <cstddef>
#include <span>
#include <utility>

namespace ks::studio {

constexpr float kPlotDashPx = 6.f;  // dashed lines: length of a dash, px
constexpr float kPlotGapPx = 4.f;   // dashed lines: gap between dashes, px

/// Samples of `x` (ascending) inside lo..hi, widened by one on either side
/// when `pad` so lines run on to the plot's edges: [first, end).
std::pair<size_t, size_t> visible_range(std::span<const float> x, double lo, double hi, bool pad);

}  // namespace ks::studio
