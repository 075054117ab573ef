#include "app/studio/plots/plot_range.h"

#include <cmath>

namespace ks::studio {

void set_axis_range(double& lo, double& hi, double new_lo, double new_hi, double min_span, const AxisLimits& limits) {
  if (!std::isfinite(new_lo) || !std::isfinite(new_hi)) return;
  if (new_hi - new_lo < min_span) {
    const double mid = 0.5 * (new_lo + new_hi);
    new_lo = mid - 0.5 * min_span;
    new_hi = mid + 0.5 * min_span;
  }
  const double span = new_hi - new_lo;
  // Limits narrower than the minimum span (a one-frame clip) cannot hold any range: leave them out.
  if (limits.hi - limits.lo >= min_span) {
    if (span >= limits.hi - limits.lo) {
      new_lo = limits.lo;
      new_hi = limits.hi;
    } else if (new_lo < limits.lo) {
      new_lo = limits.lo;
      new_hi = limits.lo + span;
    } else if (new_hi > limits.hi) {
      new_hi = limits.hi;
      new_lo = limits.hi - span;
    }
  }
  lo = new_lo;
  hi = new_hi;
}

void zoom_axis(double& lo, double& hi, double anchor, double factor, double min_span, const AxisLimits& limits) {
  set_axis_range(lo, hi, anchor + (lo - anchor) * factor, anchor + (hi - anchor) * factor, min_span, limits);
}

}  // namespace ks::studio
