#pragma once
// Rotations as an animator reads them: Euler angles in degrees, for the
// Curves panel's degree view beside its quaternion view. No UI here, so the
// tests can check the conventions.
//
// The order is XYZ as Blender and most DCC tools name it: the rotation is
// R = Rz(z) * Ry(y) * Rx(x), x applied first. y stays within -90..90 degrees;
// near y = +-90 (gimbal lock) x and z trade off and read noisy, as they do
// in any Euler view.

#include <array>
#include <span>

namespace ks::studio {

/// The XYZ Euler angles, degrees, of the unit quaternion `q` (x, y, z, w):
/// x and z in -180..180, y in -90..90.
std::array<float, 3> euler_xyz_degrees(const float q[4]);

/// `angle` (degrees) moved by whole turns to lie within 180 degrees of
/// `reference`, so a curve crossing +-180 stays continuous.
float nearest_turn(float angle, float reference);

/// Makes `angles` (degrees, in time order) continuous: each is moved by whole
/// turns to within 180 degrees of the one before, the first to within 180 of
/// `first_reference`.
void unwrap_degrees(std::span<float> angles, float first_reference);

}  // namespace ks::studio
