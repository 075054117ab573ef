#pragma once
// The vocabulary the demo character is built with: vectors and rotations in
// double precision (glm), rigid transforms, easing, and a smooth curve through
// hand-placed keys. Everything is double and rounded to float only when
// written, so the output does not depend on how a compiler orders float
// arithmetic.

#include <glm/glm.hpp>
#include <glm/gtc/quaternion.hpp>
#include <numbers>
#include <span>

namespace ks::demo {

using Vec = glm::dvec3;
using Rot = glm::dquat;

inline constexpr double kPi = std::numbers::pi;

/// Radians from degrees.
constexpr double deg(double degrees) {
  return degrees * kPi / 180.0;
}

inline const Vec kAxisX{1.0, 0.0, 0.0};
inline const Vec kAxisY{0.0, 1.0, 0.0};
inline const Vec kAxisZ{0.0, 0.0, 1.0};
inline const Rot kIdentity{1.0, 0.0, 0.0, 0.0};  // glm order: w, x, y, z

/// Rotation by `radians` about X (right-handed).
Rot rot_x(double radians);
/// Rotation by `radians` about Y (right-handed).
Rot rot_y(double radians);
/// Rotation by `radians` about Z (right-handed).
Rot rot_z(double radians);

/// x clamped to 0..1.
double clamp01(double x);
/// 0 below edge0, 1 above edge1, a smooth S in between (zero slope at both ends).
double smoothstep(double edge0, double edge1, double x);
/// a at t = 0, b at t = 1, on the straight line between.
double lerp(double a, double b, double t);
/// x wrapped into 0..1.
double fraction(double x);

/// A rotation and a translation: bone transforms never scale here.
struct Rigid {
  Vec translation{0.0};
  Rot rotation = kIdentity;
};

/// `child`, given in `parent`'s space, expressed in the space `parent` is given in.
Rigid operator*(const Rigid& parent, const Rigid& child);
/// The transform that undoes `t`.
Rigid inverse(const Rigid& t);
/// The point `p` transformed by `t`.
Vec apply(const Rigid& t, Vec p);

/// A hand-placed key of a curve, the way an animator would author one.
struct Key {
  double x;
  double y;
};

/// The curve through `keys` (x increasing, at least one) at x: cubic Hermite
/// segments with Catmull-Rom tangents between keys and flat tangents at both
/// ends, so curves laid end to end join without a kink. Constant outside the
/// keys.
double smooth_curve(std::span<const Key> keys, double x);

}  // namespace ks::demo
