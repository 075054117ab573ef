#include "keystream/clip/matrix_decompose.h"

#include <algorithm>
#include <cmath>

namespace ks {

Transform decompose_matrix(std::span<const double, 16> m) {
  Transform t;
  double sx = std::sqrt(m[0] * m[0] + m[1] * m[1] + m[2] * m[2]);
  const double sy = std::sqrt(m[4] * m[4] + m[5] * m[5] + m[6] * m[6]);
  const double sz = std::sqrt(m[8] * m[8] + m[9] * m[9] + m[10] * m[10]);
  const double det =
      m[0] * (m[5] * m[10] - m[9] * m[6]) - m[4] * (m[1] * m[10] - m[9] * m[2]) + m[8] * (m[1] * m[6] - m[5] * m[2]);
  if (det < 0) sx = -sx;  // a mirror is carried by the scale
  t.translation = {static_cast<float>(m[12]), static_cast<float>(m[13]), static_cast<float>(m[14])};
  t.scale = {static_cast<float>(sx), static_cast<float>(sy), static_cast<float>(sz)};
  if (sx == 0 || sy == 0 || sz == 0) return t;
  // Rotation matrix r[row][col] from the scaled-out columns.
  const double r00 = m[0] / sx, r10 = m[1] / sx, r20 = m[2] / sx;
  const double r01 = m[4] / sy, r11 = m[5] / sy, r21 = m[6] / sy;
  const double r02 = m[8] / sz, r12 = m[9] / sz, r22 = m[10] / sz;
  double qx, qy, qz, qw;
  const double trace = r00 + r11 + r22;
  if (trace > 0) {
    const double s = 2.0 * std::sqrt(trace + 1.0);
    qw = 0.25 * s, qx = (r21 - r12) / s, qy = (r02 - r20) / s, qz = (r10 - r01) / s;
  } else if (r00 > r11 && r00 > r22) {
    const double s = 2.0 * std::sqrt(std::max(0.0, 1.0 + r00 - r11 - r22));
    qw = (r21 - r12) / s, qx = 0.25 * s, qy = (r01 + r10) / s, qz = (r02 + r20) / s;
  } else if (r11 > r22) {
    const double s = 2.0 * std::sqrt(std::max(0.0, 1.0 + r11 - r00 - r22));
    qw = (r02 - r20) / s, qx = (r01 + r10) / s, qy = 0.25 * s, qz = (r12 + r21) / s;
  } else {
    const double s = 2.0 * std::sqrt(std::max(0.0, 1.0 + r22 - r00 - r11));
    qw = (r10 - r01) / s, qx = (r02 + r20) / s, qy = (r12 + r21) / s, qz = 0.25 * s;
  }
  t.rotation =
      normalize(Quat{static_cast<float>(qx), static_cast<float>(qy), static_cast<float>(qz), static_cast<float>(qw)});
  return t;
}

}  // namespace ks
