// The Curves panel's degree view (app/studio/plots/rotation_angles.h): XYZ Euler
// angles that rebuild the quaternion they came from, the conventions named
// in the header, and curves kept continuous across +-180 degrees.

#include "app/studio/plots/rotation_angles.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace ks::studio {
namespace {

constexpr float kPi = 3.14159265358979f;

// The quaternion (x, y, z, w) of `degrees` about the unit axis (ax, ay, az).
std::array<float, 4> axis_angle(float ax, float ay, float az, float degrees) {
  const float half = 0.5f * degrees * kPi / 180.f;
  return {ax * std::sin(half), ay * std::sin(half), az * std::sin(half), std::cos(half)};
}

std::array<float, 4> multiply(const std::array<float, 4>& a, const std::array<float, 4>& b) {
  return {a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1], a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
          a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3], a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2]};
}

// R = Rz(z) * Ry(y) * Rx(x): the header's XYZ order.
std::array<float, 4> from_euler(float x, float y, float z) {
  return multiply(axis_angle(0, 0, 1, z), multiply(axis_angle(0, 1, 0, y), axis_angle(1, 0, 0, x)));
}

TEST(EulerXyzDegrees, SingleAxesReadAsThemselves) {
  const auto about_x = axis_angle(1, 0, 0, 30.f);
  const auto about_y = axis_angle(0, 1, 0, -45.f);
  const auto about_z = axis_angle(0, 0, 1, 170.f);
  const auto ex = euler_xyz_degrees(about_x.data());
  const auto ey = euler_xyz_degrees(about_y.data());
  const auto ez = euler_xyz_degrees(about_z.data());
  EXPECT_NEAR(ex[0], 30.f, 1e-3f);
  EXPECT_NEAR(ex[1], 0.f, 1e-3f);
  EXPECT_NEAR(ey[1], -45.f, 1e-3f);
  EXPECT_NEAR(ez[2], 170.f, 1e-3f);
  const std::array<float, 4> identity = {0, 0, 0, 1};
  const auto e0 = euler_xyz_degrees(identity.data());
  EXPECT_EQ(e0[0], 0.f);
  EXPECT_EQ(e0[1], 0.f);
  EXPECT_EQ(e0[2], 0.f);
}

TEST(EulerXyzDegrees, RebuildsTheRotationInTheHeadersOrder) {
  for (float x : {-170.f, -60.f, 0.f, 25.f, 135.f}) {
    for (float y : {-80.f, -10.f, 0.f, 45.f, 89.f}) {
      for (float z : {-120.f, 0.f, 15.f, 179.f}) {
        const auto q = from_euler(x, y, z);
        const auto e = euler_xyz_degrees(q.data());
        // The same rotation back: q or -q.
        const auto back = from_euler(e[0], e[1], e[2]);
        const float dot = q[0] * back[0] + q[1] * back[1] + q[2] * back[2] + q[3] * back[3];
        EXPECT_NEAR(std::fabs(dot), 1.f, 2e-5f) << x << " " << y << " " << z;
        if (std::fabs(y) < 85.f) {  // away from gimbal lock, the angles themselves come back
          EXPECT_NEAR(e[0], x, 2e-3f);
          EXPECT_NEAR(e[1], y, 2e-3f);
          EXPECT_NEAR(e[2], z, 2e-3f);
        }
      }
    }
  }
}

TEST(EulerXyzDegrees, NegatedQuaternionIsTheSameAngles) {
  const auto q = from_euler(40.f, -20.f, 100.f);
  const std::array<float, 4> minus = {-q[0], -q[1], -q[2], -q[3]};
  const auto a = euler_xyz_degrees(q.data());
  const auto b = euler_xyz_degrees(minus.data());
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(a[static_cast<size_t>(i)], b[static_cast<size_t>(i)], 1e-3f);
}

TEST(UnwrapDegrees, CrossingPlusMinus180StaysContinuous) {
  std::vector<float> angles = {170.f, 178.f, -176.f, -170.f, 179.f};
  unwrap_degrees(angles, 170.f);
  EXPECT_EQ(angles, (std::vector<float>{170.f, 178.f, 184.f, 190.f, 179.f}));
  std::vector<float> from_reference = {10.f, 20.f};
  unwrap_degrees(from_reference, 370.f);  // the first follows the reference's turn
  EXPECT_EQ(from_reference, (std::vector<float>{370.f, 380.f}));
  EXPECT_EQ(nearest_turn(-179.f, 179.f), 181.f);
  EXPECT_EQ(nearest_turn(5.f, -720.f), -715.f);
  EXPECT_TRUE(std::isnan(nearest_turn(NAN, 0.f)));
}

}  // namespace
}  // namespace ks::studio
