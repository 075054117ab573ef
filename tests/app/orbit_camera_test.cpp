// The viewport camera (app/studio/viewport/orbit_camera.h): where the eye is, what
// the matrices do with the target, and how drags and the wheel move it.

#include "app/studio/viewport/orbit_camera.h"

#include <gtest/gtest.h>

#include <cmath>
#include <glm/gtc/matrix_transform.hpp>

namespace ks::studio {
namespace {

constexpr glm::vec2 kViewport{800.f, 600.f};

glm::mat4 view_projection(const OrbitCamera& camera, glm::vec2 size = kViewport) {
  return camera.projection(size.x / size.y) * camera.view();
}

glm::vec3 screen_of(const OrbitCamera& camera, glm::vec3 point, glm::vec2 size = kViewport) {
  glm::vec3 screen{-1.f};
  EXPECT_TRUE(project_to_screen(view_projection(camera, size), point, size, &screen));
  return screen;
}

/// The view direction, from the eye toward the target.
glm::vec3 forward(const OrbitCamera& camera) {
  return glm::normalize(camera.target - camera.eye());
}

void expect_near(glm::vec3 actual, glm::vec3 expected, float tolerance) {
  EXPECT_NEAR(actual.x, expected.x, tolerance);
  EXPECT_NEAR(actual.y, expected.y, tolerance);
  EXPECT_NEAR(actual.z, expected.z, tolerance);
}

TEST(OrbitCamera, TheEyeSitsAtTheDistanceAlongYawAndPitch) {
  OrbitCamera camera;
  camera.target = {1.f, 2.f, 3.f};
  camera.distance_m = 5.f;
  camera.yaw_deg = 0.f;
  camera.pitch_deg = 0.f;
  expect_near(camera.eye(), {1.f, 2.f, 8.f}, 1e-5f);
  camera.yaw_deg = 90.f;
  expect_near(camera.eye(), {6.f, 2.f, 3.f}, 1e-5f);
  camera.yaw_deg = 0.f;
  camera.pitch_deg = 30.f;
  expect_near(camera.eye(), {1.f, 2.f + 2.5f, 3.f + 5.f * std::sqrt(0.75f)}, 1e-5f);
}

TEST(OrbitCamera, TheViewLooksDownMinusZAtTheTargetWithYUp) {
  OrbitCamera camera;
  camera.target = {0.5f, 1.2f, -2.f};
  camera.yaw_deg = -120.f;
  camera.pitch_deg = 40.f;
  camera.distance_m = 3.f;
  const glm::mat4 view = camera.view();
  expect_near(glm::vec3(view * glm::vec4(camera.target, 1.f)), {0.f, 0.f, -3.f}, 1e-5f);
  expect_near(glm::vec3(view * glm::vec4(camera.eye(), 1.f)), {0.f, 0.f, 0.f}, 1e-5f);
  // The view's x axis is horizontal and its y axis leans toward world +Y.
  const glm::vec3 up_in_view = glm::mat3(view) * glm::vec3(0.f, 1.f, 0.f);
  EXPECT_NEAR(up_in_view.x, 0.f, 1e-6f);
  EXPECT_GT(up_in_view.y, 0.f);
  // Rigid: lengths are kept.
  EXPECT_NEAR(glm::length(glm::mat3(view) * glm::vec3(0.3f, -0.4f, 1.2f)), 1.3f, 1e-5f);
}

TEST(OrbitCamera, TheTargetProjectsToTheViewportCentre) {
  OrbitCamera camera;
  camera.target = {3.f, -1.f, 7.f};
  for (float yaw : {-170.f, 0.f, 30.f, 95.f}) {
    for (float pitch : {-89.f, -20.f, 0.f, 15.f, 89.f}) {
      camera.yaw_deg = yaw;
      camera.pitch_deg = pitch;
      const glm::vec3 screen = screen_of(camera, camera.target);
      EXPECT_NEAR(screen.x, 400.f, 1e-3f) << yaw << " " << pitch;
      EXPECT_NEAR(screen.y, 300.f, 1e-3f) << yaw << " " << pitch;
      EXPECT_GT(screen.z, 0.f);
      EXPECT_LT(screen.z, 1.f);
    }
  }
}

TEST(OrbitCamera, ScreenXGrowsRightAndYGrowsDown) {
  OrbitCamera camera;
  camera.yaw_deg = 0.f;
  camera.pitch_deg = 0.f;
  const glm::vec3 above = screen_of(camera, camera.target + glm::vec3(0.f, 0.5f, 0.f));
  const glm::vec3 right = screen_of(camera, camera.target + glm::vec3(0.5f, 0.f, 0.f));
  EXPECT_LT(above.y, 300.f - 10.f);
  EXPECT_NEAR(above.x, 400.f, 1e-3f);
  EXPECT_GT(right.x, 400.f + 10.f);
  EXPECT_NEAR(right.y, 300.f, 1e-3f);
  // Nearer points have smaller depth.
  const glm::vec3 nearer = screen_of(camera, camera.target + glm::vec3(0.f, 0.f, 1.f));
  EXPECT_LT(nearer.z, screen_of(camera, camera.target).z);
}

TEST(OrbitCamera, PointsBehindTheEyeDoNotProject) {
  OrbitCamera camera;
  const glm::vec3 behind = camera.eye() - forward(camera);
  glm::vec3 screen{-7.f};
  EXPECT_FALSE(project_to_screen(view_projection(camera), behind, kViewport, &screen));
  EXPECT_EQ(screen, glm::vec3(-7.f));
  // Beside the eye, off to the right but a little behind it.
  const glm::vec3 right = glm::normalize(glm::cross(forward(camera), glm::vec3(0.f, 1.f, 0.f)));
  EXPECT_FALSE(project_to_screen(view_projection(camera), camera.eye() + 3.f * right - 0.01f * forward(camera),
                                 kViewport, &screen));
}

TEST(OrbitCamera, DepthResolvesATinyBoneAndAHugeWalk) {
  OrbitCamera camera;
  // A 2 cm bone pointing at the eye, framed close up: its ends get depths
  // 24-bit depth can tell apart.
  camera.distance_m = 0.05f;
  const glm::vec3 toward_eye = -forward(camera);
  const glm::vec3 near_end = screen_of(camera, camera.target + 0.01f * toward_eye);
  const glm::vec3 far_end = screen_of(camera, camera.target - 0.01f * toward_eye);
  EXPECT_GT(near_end.z, 0.f);
  EXPECT_LT(far_end.z, 1.f);
  EXPECT_GT(far_end.z - near_end.z, 1e-4f);
  // A 100 m walk seen from 150 m: both ends lie between the planes.
  camera.distance_m = 150.f;
  for (float along : {-50.f, 50.f}) {
    const glm::vec3 end = screen_of(camera, camera.target + along * toward_eye);
    EXPECT_GT(end.z, 0.f) << along;
    EXPECT_LT(end.z, 1.f) << along;
  }
}

TEST(OrbitCamera, DraggingRightTurnsTheViewRight) {
  OrbitCamera camera;
  const glm::vec3 target = camera.target;
  const glm::vec3 before = forward(camera);
  const glm::vec3 right_before = glm::normalize(glm::cross(before, glm::vec3(0.f, 1.f, 0.f)));
  camera.orbit(10.f, 0.f);
  EXPECT_FLOAT_EQ(camera.yaw_deg, 30.f - 4.f);  // 0.4 degrees per pixel
  EXPECT_FLOAT_EQ(camera.pitch_deg, 15.f);
  const glm::vec3 after = forward(camera);
  // The new view direction has turned toward the old right, about +Y.
  EXPECT_GT(glm::dot(after, right_before), 0.f);
  EXPECT_LT(glm::cross(before, after).y, 0.f);
  EXPECT_EQ(camera.target, target);
  EXPECT_FLOAT_EQ(camera.distance_m, 4.f);
}

TEST(OrbitCamera, DraggingDownRaisesTheEyeAndPitchIsClamped) {
  OrbitCamera camera;
  const float eye_height = camera.eye().y;
  camera.orbit(0.f, 10.f);
  EXPECT_FLOAT_EQ(camera.pitch_deg, 19.f);
  EXPECT_GT(camera.eye().y, eye_height);
  camera.orbit(0.f, 1000.f);
  EXPECT_EQ(camera.pitch_deg, 89.f);
  camera.orbit(0.f, -5000.f);
  EXPECT_EQ(camera.pitch_deg, -89.f);
  // Still a usable view at the limit.
  const glm::vec3 screen = screen_of(camera, camera.target);
  EXPECT_NEAR(screen.x, 400.f, 1e-3f);
  EXPECT_NEAR(screen.y, 300.f, 1e-3f);
}

TEST(OrbitCamera, PanKeepsThePointUnderTheCursor) {
  OrbitCamera camera;
  camera.yaw_deg = 55.f;
  camera.pitch_deg = -25.f;
  camera.distance_m = 2.5f;
  const glm::vec4 viewport{0.f, 0.f, kViewport.x, kViewport.y};
  const float target_depth = screen_of(camera, camera.target).z;
  for (const glm::vec2 cursor : {glm::vec2{400.f, 300.f}, glm::vec2{610.f, 120.f}, glm::vec2{35.f, 570.f}}) {
    // The world point at the target's depth under the cursor (unProject's
    // window y grows upward).
    const glm::vec3 grabbed = glm::unProject(glm::vec3(cursor.x, kViewport.y - cursor.y, target_depth), camera.view(),
                                             camera.projection(kViewport.x / kViewport.y), viewport);
    const glm::vec2 drag{37.f, -21.f};
    OrbitCamera panned = camera;
    panned.pan(drag.x, drag.y, kViewport.y);
    const glm::vec3 screen = screen_of(panned, grabbed);
    EXPECT_NEAR(screen.x, cursor.x + drag.x, 0.02f);
    EXPECT_NEAR(screen.y, cursor.y + drag.y, 0.02f);
    EXPECT_EQ(panned.yaw_deg, camera.yaw_deg);
    EXPECT_EQ(panned.pitch_deg, camera.pitch_deg);
    EXPECT_EQ(panned.distance_m, camera.distance_m);
  }
}

TEST(OrbitCamera, ZoomStepsAreFifteenPercentAndTheDistanceIsClamped) {
  OrbitCamera camera;
  camera.zoom(1.f);
  EXPECT_FLOAT_EQ(camera.distance_m, 4.f * 0.85f);
  camera.zoom(-1.f);
  EXPECT_FLOAT_EQ(camera.distance_m, 4.f);
  camera.zoom(2.f);
  EXPECT_FLOAT_EQ(camera.distance_m, 4.f * 0.85f * 0.85f);
  camera.zoom(1000.f);
  EXPECT_FLOAT_EQ(camera.distance_m, 1e-3f);
  camera.zoom(-10000.f);
  EXPECT_FLOAT_EQ(camera.distance_m, 1e5f);
}

TEST(OrbitCamera, FrameShowsEveryCornerOfTheBox) {
  const glm::vec3 lo{-0.3f, 0.f, -0.2f};
  const glm::vec3 hi{0.4f, 1.8f, 2.5f};
  for (const glm::vec2 size : {glm::vec2{800.f, 600.f}, glm::vec2{300.f, 900.f}, glm::vec2{1600.f, 400.f}}) {
    for (float yaw : {0.f, 45.f, 160.f}) {
      for (float pitch : {-60.f, 10.f, 80.f}) {
        OrbitCamera camera;
        camera.target = {10.f, 10.f, 10.f};
        camera.distance_m = 0.01f;
        camera.yaw_deg = yaw;
        camera.pitch_deg = pitch;
        camera.frame(lo, hi, size.x / size.y);
        EXPECT_EQ(camera.yaw_deg, yaw);
        EXPECT_EQ(camera.pitch_deg, pitch);
        expect_near(camera.target, 0.5f * (lo + hi), 1e-6f);
        for (int corner = 0; corner < 8; ++corner) {
          const glm::vec3 p{corner & 1 ? hi.x : lo.x, corner & 2 ? hi.y : lo.y, corner & 4 ? hi.z : lo.z};
          const glm::vec3 screen = screen_of(camera, p, size);
          EXPECT_GE(screen.x, -0.01f) << corner;
          EXPECT_LE(screen.x, size.x + 0.01f) << corner;
          EXPECT_GE(screen.y, -0.01f) << corner;
          EXPECT_LE(screen.y, size.y + 0.01f) << corner;
          EXPECT_GT(screen.z, 0.f);
          EXPECT_LT(screen.z, 1.f);
        }
      }
    }
  }
}

TEST(OrbitCamera, FrameFillsTheNarrowerSideOfTheView) {
  // A 2 m rod across the view: framed, its ends reach most of the way to
  // the sides, and one zoom step further in pushes them out.
  for (float aspect : {0.5f, 1.f, 2.f}) {
    const glm::vec2 size{600.f * aspect, 600.f};
    OrbitCamera camera;
    camera.yaw_deg = 0.f;
    camera.pitch_deg = 0.f;
    const bool wide = aspect >= 1.f;
    const glm::vec3 half = wide ? glm::vec3(0.f, 1.f, 0.f) : glm::vec3(1.f, 0.f, 0.f);
    camera.frame(-half, half, aspect);
    const glm::vec3 end = screen_of(camera, half, size);
    const float reach = wide ? (300.f - end.y) / 300.f : (end.x - 0.5f * size.x) / (0.5f * size.x);
    EXPECT_GT(reach, 0.9f) << aspect;
    EXPECT_LE(reach, 1.f) << aspect;
    camera.zoom(1.f);
    const glm::vec3 closer = screen_of(camera, half, size);
    EXPECT_TRUE(closer.x > size.x || closer.y < 0.f) << aspect;
  }
}

TEST(OrbitCamera, FramingAnEmptyOrPointBoxShowsOneMetre) {
  OrbitCamera camera;
  camera.fov_y_deg = 40.f;
  const float one_metre_distance = 1.f / std::sin(glm::radians(20.f));
  camera.target = {1.f, 2.f, 3.f};
  camera.frame(glm::vec3(1e30f), glm::vec3(-1e30f), 1.f);
  expect_near(camera.target, {1.f, 2.f, 3.f}, 0.f);
  EXPECT_NEAR(camera.distance_m, one_metre_distance, 1e-4f);
  camera.frame(glm::vec3(4.f, 5.f, 6.f), glm::vec3(4.f, 5.f, 6.f), 1.f);
  expect_near(camera.target, {4.f, 5.f, 6.f}, 0.f);
  EXPECT_NEAR(camera.distance_m, one_metre_distance, 1e-4f);
}

}  // namespace
}  // namespace ks::studio
