#include "demo_math.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace ks::demo {

Rot rot_x(double radians) {
  return glm::angleAxis(radians, kAxisX);
}
Rot rot_y(double radians) {
  return glm::angleAxis(radians, kAxisY);
}
Rot rot_z(double radians) {
  return glm::angleAxis(radians, kAxisZ);
}

double clamp01(double x) {
  return std::clamp(x, 0.0, 1.0);
}
double smoothstep(double edge0, double edge1, double x) {
  const double t = clamp01((x - edge0) / (edge1 - edge0));
  return t * t * (3.0 - 2.0 * t);
}
double lerp(double a, double b, double t) {
  return a + (b - a) * t;
}
double fraction(double x) {
  return x - std::floor(x);
}

Rigid operator*(const Rigid& parent, const Rigid& child) {
  return {parent.translation + parent.rotation * child.translation, parent.rotation * child.rotation};
}
Rigid inverse(const Rigid& t) {
  const Rot inv = glm::conjugate(t.rotation);
  return {-(inv * t.translation), inv};
}
Vec apply(const Rigid& t, Vec p) {
  return t.translation + t.rotation * p;
}

double smooth_curve(std::span<const Key> keys, double x) {
  assert(!keys.empty());
  if (x <= keys.front().x) return keys.front().y;
  if (x >= keys.back().x) return keys.back().y;
  size_t i = 0;
  while (x > keys[i + 1].x) ++i;
  const auto slope = [&](size_t k) {
    if (k == 0 || k + 1 == keys.size()) return 0.0;
    return (keys[k + 1].y - keys[k - 1].y) / (keys[k + 1].x - keys[k - 1].x);
  };
  const double h = keys[i + 1].x - keys[i].x;
  const double u = (x - keys[i].x) / h;
  const double u2 = u * u;
  const double u3 = u2 * u;
  return (2 * u3 - 3 * u2 + 1) * keys[i].y + (u3 - 2 * u2 + u) * h * slope(i) + (-2 * u3 + 3 * u2) * keys[i + 1].y +
         (u3 - u2) * h * slope(i + 1);
}

}  // namespace ks::demo
