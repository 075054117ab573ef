#pragma once
// OrbitCamera: the viewport's camera. It circles a target point at a
// distance, Y up (glTF's and BVH's convention), and maps mouse motion to
// orbit, pan and zoom the way DCC tools do. Plain math with no GL, so the
// tests can check it and the picking uses the very same matrices.

#include <glm/glm.hpp>

namespace ks::studio {

struct OrbitCamera {
  glm::vec3 target{0.f, 1.f, 0.f};  // the point orbited, metres
  float yaw_deg = 30.f;             // about +Y; 0 puts the eye on +Z looking toward -Z
  float pitch_deg = 15.f;           // eye elevation above the target's horizontal plane, -89..89
  float distance_m = 4.f;           // eye to target, metres, > 0
  float fov_y_deg = 40.f;           // vertical field of view

  /// The eye position, metres.
  glm::vec3 eye() const;
  /// World to view space (right-handed, looking down -Z of view space).
  glm::mat4 view() const;
  /// Perspective projection for a viewport of `aspect` = width / height,
  /// with near and far planes scaled to the distance so that a 2 cm bone
  /// and a 100 m walk both have depth precision.
  glm::mat4 projection(float aspect) const;

  /// Orbits by a mouse drag of (dx, dy) pixels: 0.4 degrees per pixel,
  /// dragging right turns the view to the right, pitch clamped to +-89.
  void orbit(float dx_px, float dy_px);
  /// Pans by a drag of (dx, dy) pixels in a viewport `viewport_height_px`
  /// tall: the point at the target's depth under the cursor stays under it.
  void pan(float dx_px, float dy_px, float viewport_height_px);
  /// Zooms by mouse wheel steps: each step up brings the eye 15% closer;
  /// the distance stays within 1 mm..100 km.
  void zoom(float wheel_steps);
  /// Aims at the centre of the box lo..hi and backs off until its bounding
  /// sphere fills the view (both fields of view of a viewport of `aspect`),
  /// keeping yaw and pitch. An empty or degenerate box frames a 1 m sphere.
  void frame(glm::vec3 lo, glm::vec3 hi, float aspect);
};

/// Projects `point` with `view_projection` into a viewport of `size` pixels:
/// x right and y down from the top-left corner, z the depth in 0..1 (0 near).
/// False when the point is behind the eye (then `screen` is unset).
bool project_to_screen(const glm::mat4& view_projection, glm::vec3 point, glm::vec2 size, glm::vec3* screen);

}  // namespace ks::studio
