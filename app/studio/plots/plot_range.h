#pragma once
// A plot axis's visible range as the user pans and zooms it, kept free of
// ImGui so the tests can check it: never narrower than a minimum span, and,
// when the axis has limits (the clip's frames for time), never past them:
// zooming out stops at the whole clip instead of showing frames -160..220.

namespace ks::studio {

/// Data limits of an axis; an axis without limits (y) uses the default.
struct AxisLimits {
  double lo = -1e300;
  double hi = 1e300;
};

/// Sets lo..hi to new_lo..new_hi, widened about its middle to `min_span`,
/// then kept inside `limits`: a range wider than the limits becomes them, one
/// that sticks out is shifted back in, keeping its span. Non-finite ranges
/// leave lo..hi as they were.
void set_axis_range(double& lo, double& hi, double new_lo, double new_hi, double min_span, const AxisLimits& limits);

/// Scales lo..hi by `factor` (> 1 zooms out) about `anchor`, which stays put
/// unless the limits push the range back; then as set_axis_range.
void zoom_axis(double& lo, double& hi, double anchor, double factor, double min_span, const AxisLimits& limits);

}  // namespace ks::studio
