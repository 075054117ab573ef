#pragma once
// The runtime's math vocabulary: Vec3, Quat, Transform and a column-major
// Mat4, with the few operations the codec and the player need. Plain structs
// with no dependencies, because the runtime is what an engine would ship.

#include <cassert>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>

namespace ks {

/// A position, offset or scale; metres where it is a distance.
struct Vec3 {
  float x = 0.f;
  float y = 0.f;
  float z = 0.f;
};

/// A rotation as a quaternion (x, y, z vector part, w scalar part).
struct Quat {
  float x = 0.f;
  float y = 0.f;
  float z = 0.f;
  float w = 1.f;
};

/// A local bone transform: scale, then rotation, then translation.
struct Transform {
  Vec3 translation;
  Quat rotation;
  Vec3 scale{1.f, 1.f, 1.f};
};

/// A 4x4 matrix, column-major like OpenGL and glTF: m[column * 4 + row].
struct Mat4 {
  float m[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
};

inline Vec3 operator+(Vec3 a, Vec3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
inline Vec3 operator-(Vec3 a, Vec3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
inline Vec3 operator*(Vec3 a, float s) { return {a.x * s, a.y * s, a.z * s}; }
inline Vec3 operator*(float s, Vec3 a) { return a * s; }
/// Component-wise product, as scales combine.
inline Vec3 mul(Vec3 a, Vec3 b) { return {a.x * b.x, a.y * b.y, a.z * b.z}; }
inline float dot(Vec3 a, Vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
inline Vec3 cross(Vec3 a, Vec3 b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
inline float length(Vec3 a) { return std::sqrt(dot(a, a)); }
inline bool is_finite(Vec3 a) {
  return std::isfinite(a.x) && std::isfinite(a.y) && std::isfinite(a.z);
}

inline Quat operator-(Quat q) { return {-q.x, -q.y, -q.z, -q.w}; }
inline float dot(Quat a, Quat b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }
inline float length(Quat q) { return std::sqrt(dot(q, q)); }
inline bool is_finite(Quat q) {
  return std::isfinite(q.x) && std::isfinite(q.y) && std::isfinite(q.z) && std::isfinite(q.w);
}
/// q scaled to unit length; the identity when q has no length to scale.
inline Quat normalize(Quat q) {
  const float len = length(q);
  if (!(len > 0.f)) return Quat{};
  const float inv = 1.f / len;
  return {q.x * inv, q.y * inv, q.z * inv, q.w * inv};
}
/// Hamilton product: rotating by b, then by a.
inline Quat operator*(Quat a, Quat b) {
  return {a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
          a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
          a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
          a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
}
inline Quat conjugate(Quat q) { return {-q.x, -q.y, -q.z, q.w}; }
/// v rotated by the unit quaternion q.
inline Vec3 rotate(Quat q, Vec3 v) {
  const Vec3 u{q.x, q.y, q.z};
  const Vec3 t = 2.f * cross(u, v);
  return v + q.w * t + cross(u, t);
}
/// Angle in degrees of the rotation taking a to b (unit quaternions); q and -q
/// are the same rotation, so the result lies in 0..180. Computed with atan2
/// on the relative rotation, not acos of the dot product: near 1 a float acos
/// cannot resolve the tenth-of-a-degree errors the codec promises.
inline float angle_between_deg(Quat a, Quat b) {
  const Quat r = conjugate(a) * b;
  const float sin_half = std::sqrt(r.x * r.x + r.y * r.y + r.z * r.z);
  return 2.f * std::atan2(sin_half, std::fabs(r.w)) * 57.29577951308232f;
}
/// The unit quaternion rotating by angle_rad about the unit vector axis.
inline Quat quat_from_axis_angle(Vec3 axis, float angle_rad) {
  const float s = std::sin(0.5f * angle_rad);
  return {axis.x * s, axis.y * s, axis.z * s, std::cos(0.5f * angle_rad)};
}

/// The point p transformed by t (scale, rotate, translate).
inline Vec3 transform_point(const Transform& t, Vec3 p) {
  return rotate(t.rotation, mul(t.scale, p)) + t.translation;
}

/// parent * child as transforms. Exact for uniform scale; with non-uniform
/// parent scale and a rotated child, TRS cannot represent the shear, and the
/// result keeps the component-wise scale (the convention of ozz and ACL).
inline Transform combine(const Transform& parent, const Transform& child) {
  return {transform_point(parent, child.translation), parent.rotation * child.rotation,
          mul(parent.scale, child.scale)};
}

/// Model-space transforms from local ones; parents before children (-1 root).
inline void local_to_model(std::span<const int32_t> parents, std::span<const Transform> local,
                           std::span<Transform> model) {
  assert(parents.size() <= local.size() && parents.size() <= model.size());
  for (size_t b = 0; b < parents.size(); ++b) {
    model[b] = parents[b] < 0 ? local[b] : combine(model[static_cast<size_t>(parents[b])], local[b]);
  }
}

/// The matrix of a TRS transform.
inline Mat4 to_matrix(const Transform& t) {
  const Quat q = t.rotation;
  const float xx = q.x * q.x, yy = q.y * q.y, zz = q.z * q.z;
  const float xy = q.x * q.y, xz = q.x * q.z, yz = q.y * q.z;
  const float wx = q.w * q.x, wy = q.w * q.y, wz = q.w * q.z;
  Mat4 r;
  r.m[0] = (1.f - 2.f * (yy + zz)) * t.scale.x;
  r.m[1] = (2.f * (xy + wz)) * t.scale.x;
  r.m[2] = (2.f * (xz - wy)) * t.scale.x;
  r.m[3] = 0.f;
  r.m[4] = (2.f * (xy - wz)) * t.scale.y;
  r.m[5] = (1.f - 2.f * (xx + zz)) * t.scale.y;
  r.m[6] = (2.f * (yz + wx)) * t.scale.y;
  r.m[7] = 0.f;
  r.m[8] = (2.f * (xz + wy)) * t.scale.z;
  r.m[9] = (2.f * (yz - wx)) * t.scale.z;
  r.m[10] = (1.f - 2.f * (xx + yy)) * t.scale.z;
  r.m[11] = 0.f;
  r.m[12] = t.translation.x;
  r.m[13] = t.translation.y;
  r.m[14] = t.translation.z;
  r.m[15] = 1.f;
  return r;
}

inline Mat4 operator*(const Mat4& a, const Mat4& b) {
  Mat4 r;
  for (int c = 0; c < 4; ++c) {
    for (int row = 0; row < 4; ++row) {
      float s = 0.f;
      for (int k = 0; k < 4; ++k) s += a.m[k * 4 + row] * b.m[c * 4 + k];
      r.m[c * 4 + row] = s;
    }
  }
  return r;
}

}  // namespace ks
