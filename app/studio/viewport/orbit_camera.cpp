#include "app/studio/viewport/orbit_camera.h"

#include <algorithm>
#include <cmath>
#include <glm/gtc/matrix_transform.hpp>

namespace ks::studio {
namespace {

constexpr float kOrbitDegPerPx = 0.4f;
constexpr float kPitchLimitDeg = 89.f;
constexpr float kZoomStep = 0.85f;  // distance factor per wheel step up: 15% closer
constexpr float kMinDistanceM = 1e-3f;
constexpr float kMaxDistanceM = 1e5f;
// Near and far as fractions of the distance: the target's surroundings get
// a depth range of 1:1e5 wherever the camera is, whatever the clip's size.
constexpr float kNearPerDistance = 0.01f;
constexpr float kFarPerDistance = 1000.f;
// Below this radius, metres, a box is a point and frame() shows 1 m around it.
constexpr float kDegenerateRadiusM = 1e-5f;
constexpr float kFallbackRadiusM = 1.f;

/// The camera's rotation in the world: yaw about +Y, then the eye looking
/// down by the pitch (view space looks down -Z).
glm::mat4 camera_rotation(float yaw_deg, float pitch_deg) {
  const glm::mat4 yaw = glm::rotate(glm::mat4(1.f), glm::radians(yaw_deg), glm::vec3(0.f, 1.f, 0.f));
  return glm::rotate(yaw, glm::radians(-pitch_deg), glm::vec3(1.f, 0.f, 0.f));
}

}  // namespace

glm::vec3 OrbitCamera::eye() const {
  const float yaw = glm::radians(yaw_deg);
  const float pitch = glm::radians(pitch_deg);
  const glm::vec3 back{std::cos(pitch) * std::sin(yaw), std::sin(pitch), std::cos(pitch) * std::cos(yaw)};
  return target + distance_m * back;
}

glm::mat4 OrbitCamera::view() const {
  // Built from the angles rather than with lookAt, so that it stays defined
  // even looking straight down (a pitch of 90 set by hand).
  const glm::mat4 to_camera = glm::transpose(camera_rotation(yaw_deg, pitch_deg));
  const glm::mat4 back_off = glm::translate(glm::mat4(1.f), glm::vec3(0.f, 0.f, -distance_m));
  return back_off * glm::translate(to_camera, -target);
}

glm::mat4 OrbitCamera::projection(float aspect) const {
  const float safe_aspect = aspect > 0.f && std::isfinite(aspect) ? aspect : 1.f;
  return glm::perspective(glm::radians(fov_y_deg), safe_aspect, kNearPerDistance * distance_m,
                          kFarPerDistance * distance_m);
}

void OrbitCamera::orbit(float dx_px, float dy_px) {
  // Dragging right swings the eye to the left round the target, so the view
  // direction turns right (yaw decreases); dragging down raises the eye, as
  // if the scene were grabbed and tilted toward the viewer.
  yaw_deg = std::remainder(yaw_deg - kOrbitDegPerPx * dx_px, 360.f);
  pitch_deg = std::clamp(pitch_deg + kOrbitDegPerPx * dy_px, -kPitchLimitDeg, kPitchLimitDeg);
}

void OrbitCamera::pan(float dx_px, float dy_px, float viewport_height_px) {
  if (!(viewport_height_px > 0.f)) return;
  // Metres per pixel on the plane through the target facing the camera.
  const float metres_per_px = 2.f * distance_m * std::tan(0.5f * glm::radians(fov_y_deg)) / viewport_height_px;
  const glm::mat4 rotation = camera_rotation(yaw_deg, pitch_deg);
  const glm::vec3 right{rotation[0]};
  const glm::vec3 up{rotation[1]};
  // The scene follows the cursor, so the camera moves the other way; screen
  // y grows downward.
  target += metres_per_px * (-dx_px * right + dy_px * up);
}

void OrbitCamera::zoom(float wheel_steps) {
  distance_m = std::clamp(distance_m * std::pow(kZoomStep, wheel_steps), kMinDistanceM, kMaxDistanceM);
}

void OrbitCamera::frame(glm::vec3 lo, glm::vec3 hi, float aspect) {
  const bool usable = lo.x <= hi.x && lo.y <= hi.y && lo.z <= hi.z && std::isfinite(lo.x) && std::isfinite(lo.y) &&
                      std::isfinite(lo.z) && std::isfinite(hi.x) && std::isfinite(hi.y) && std::isfinite(hi.z);
  float radius = kFallbackRadiusM;
  // An empty box has no centre: the camera keeps aiming where it was.
  if (usable) {
    target = 0.5f * (lo + hi);
    radius = 0.5f * glm::length(hi - lo);
    if (!(radius >= kDegenerateRadiusM)) radius = kFallbackRadiusM;
  }
  const float safe_aspect = aspect > 0.f && std::isfinite(aspect) ? aspect : 1.f;
  const float half_fov_y = 0.5f * glm::radians(fov_y_deg);
  const float half_fov_x = std::atan(std::tan(half_fov_y) * safe_aspect);
  // The sphere touches the narrower pair of frustum planes.
  const float half_fov = std::min(half_fov_x, half_fov_y);
  distance_m = std::clamp(radius / std::sin(half_fov), kMinDistanceM, kMaxDistanceM);
}

bool project_to_screen(const glm::mat4& view_projection, glm::vec3 point, glm::vec2 size, glm::vec3* screen) {
  const glm::vec4 clip = view_projection * glm::vec4(point, 1.f);
  if (!(clip.w > 0.f)) return false;
  const glm::vec3 ndc = glm::vec3(clip) / clip.w;
  if (screen) {
    *screen = {(0.5f + 0.5f * ndc.x) * size.x, (0.5f - 0.5f * ndc.y) * size.y, 0.5f + 0.5f * ndc.z};
  }
  return true;
}

}  // namespace ks::studio
