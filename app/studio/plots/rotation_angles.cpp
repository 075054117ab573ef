#include "app/studio/plots/rotation_angles.h"

#include <algorithm>
#include <cmath>

namespace ks::studio {

namespace {
constexpr double kDegreesPerRadian = 57.29577951308232;
}  // namespace

std::array<float, 3> euler_xyz_degrees(const float q[4]) {
  // In double: near the poles the asin argument is 1 - tiny, where float's
  // rounding alone moves y by a tenth of a degree.
  const double x = q[0], y = q[1], z = q[2], w = q[3];
  const double sin_y = std::clamp(2.0 * (w * y - z * x), -1.0, 1.0);
  const double ax = std::atan2(2.0 * (w * x + y * z), 1.0 - 2.0 * (x * x + y * y));
  const double ay = std::asin(sin_y);
  const double az = std::atan2(2.0 * (w * z + x * y), 1.0 - 2.0 * (y * y + z * z));
  return {static_cast<float>(ax * kDegreesPerRadian), static_cast<float>(ay * kDegreesPerRadian),
          static_cast<float>(az * kDegreesPerRadian)};
}

float nearest_turn(float angle, float reference) {
  if (!std::isfinite(angle) || !std::isfinite(reference)) return angle;
  return angle + 360.f * std::round((reference - angle) / 360.f);
}

void unwrap_degrees(std::span<float> angles, float first_reference) {
  float reference = first_reference;
  for (float& angle : angles) {
    angle = nearest_turn(angle, reference);
    if (std::isfinite(angle)) reference = angle;
  }
}

}  // namespace ks::studio
