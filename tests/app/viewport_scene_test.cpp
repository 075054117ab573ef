// The viewport's CPU side (app/studio/viewport/viewport_scene.h): source poses between
// frames, bone shapes, object-space errors and their fractions of each
// bone's tolerance (the default fit of the demo clip is green), the skinning
// palette, clip bounds, picking and the error colours.

#include "app/studio/viewport/viewport_scene.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "app/studio/jobs/fit_job.h"
#include "app/studio/viewport/orbit_camera.h"
#include "keystream/codec/object_space_error.h"
#include "keystream/io/import.h"
#include "keystream/runtime/player.h"
#include "tests/app/demo_clip.h"

namespace ks::studio {
namespace {

constexpr float kDegToRad = 0.017453292519943295f;

void expect_eq(Vec3 actual, Vec3 expected) {
  EXPECT_EQ(actual.x, expected.x);
  EXPECT_EQ(actual.y, expected.y);
  EXPECT_EQ(actual.z, expected.z);
}

void expect_near(Vec3 actual, Vec3 expected, float tolerance = 1e-6f) {
  EXPECT_NEAR(actual.x, expected.x, tolerance);
  EXPECT_NEAR(actual.y, expected.y, tolerance);
  EXPECT_NEAR(actual.z, expected.z, tolerance);
}

void expect_eq(const Transform& actual, const Transform& expected) {
  expect_eq(actual.translation, expected.translation);
  EXPECT_EQ(actual.rotation.x, expected.rotation.x);
  EXPECT_EQ(actual.rotation.y, expected.rotation.y);
  EXPECT_EQ(actual.rotation.z, expected.rotation.z);
  EXPECT_EQ(actual.rotation.w, expected.rotation.w);
  expect_eq(actual.scale, expected.scale);
}

/// Two bones, three frames, every track moving.
RawClip three_frame_clip() {
  RawClip clip;
  clip.name = "three";
  clip.frame_count = 3;
  const Vec3 z_axis{0.f, 0.f, 1.f};
  const Vec3 x_axis{1.f, 0.f, 0.f};
  clip.bones.resize(2);
  for (uint32_t f = 0; f < 3; ++f) {
    const float ff = static_cast<float>(f);
    clip.bones[0].translations.push_back({0.1f * ff, 1.f, -0.3f * ff});
    clip.bones[0].rotations.push_back(quat_from_axis_angle(z_axis, 0.7f * ff));
    clip.bones[0].scales.push_back({1.f + 0.5f * ff, 1.f, 1.f});
    clip.bones[1].translations.push_back({0.f, 0.25f + 0.125f * ff, 0.f});
    clip.bones[1].rotations.push_back(quat_from_axis_angle(x_axis, -0.3f + 0.9f * ff));
    clip.bones[1].scales.push_back({1.f, 1.f, 1.f - 0.25f * ff});
  }
  return clip;
}

TEST(ViewportScene, SourcePoseAtWholeFramesIsTheSamplesExactly) {
  const RawClip clip = three_frame_clip();
  std::vector<Transform> local(2);
  for (uint32_t f = 0; f < 3; ++f) {
    source_pose_at(clip, static_cast<float>(f), local);
    const std::vector<Transform> expected = clip.pose_at(f);
    for (size_t b = 0; b < 2; ++b) expect_eq(local[b], expected[b]);
  }
  // Clamped to the clip (and NaN to its start).
  source_pose_at(clip, -4.5f, local);
  expect_eq(local[1], clip.pose_at(0)[1]);
  source_pose_at(clip, 99.f, local);
  expect_eq(local[1], clip.pose_at(2)[1]);
  source_pose_at(clip, std::nanf(""), local);
  expect_eq(local[0], clip.pose_at(0)[0]);
}

TEST(ViewportScene, SourcePoseHalfwayIsTheNormalisedMidpoint) {
  const RawClip clip = three_frame_clip();
  std::vector<Transform> local(2);
  source_pose_at(clip, 1.5f, local);
  for (size_t b = 0; b < 2; ++b) {
    const BoneTracks& bone = clip.bones[b];
    expect_near(local[b].translation, 0.5f * (bone.translations[1] + bone.translations[2]));
    expect_near(local[b].scale, 0.5f * (bone.scales[1] + bone.scales[2]));
    const Quat q1 = bone.rotations[1];
    const Quat q2 = bone.rotations[2];
    const Quat mid = normalize({q1.x + q2.x, q1.y + q2.y, q1.z + q2.z, q1.w + q2.w});
    EXPECT_NEAR(local[b].rotation.x, mid.x, 1e-6f);
    EXPECT_NEAR(local[b].rotation.y, mid.y, 1e-6f);
    EXPECT_NEAR(local[b].rotation.z, mid.z, 1e-6f);
    EXPECT_NEAR(local[b].rotation.w, mid.w, 1e-6f);
    EXPECT_NEAR(length(local[b].rotation), 1.f, 1e-6f);
    // Halfway in angle too: nlerp is symmetric about the midpoint.
    EXPECT_NEAR(angle_between_deg(q1, local[b].rotation), angle_between_deg(local[b].rotation, q2), 1e-3f);
  }
  // A quarter of the way: a quarter of the translation step.
  source_pose_at(clip, 0.25f, local);
  expect_near(local[0].translation, {0.025f, 1.f, -0.075f});
}

/// 0 root; 1 child of 0, turned 90 degrees about Z, with an end site;
/// 2 child of 0, a leaf without end site; 3 a lone root; 4 child of 1, a leaf.
Skeleton small_skeleton() {
  Skeleton skeleton;
  skeleton.bone_names = {"hips", "spine", "leg", "prop", "arm"};
  skeleton.parents = {-1, 0, 0, -1, 1};
  skeleton.rest_pose.resize(5);
  skeleton.rest_pose[0].translation = {0.f, 1.f, 0.f};
  skeleton.rest_pose[1].translation = {0.f, 1.f, 0.f};
  skeleton.rest_pose[1].rotation = quat_from_axis_angle({0.f, 0.f, 1.f}, 90.f * kDegToRad);
  skeleton.rest_pose[2].translation = {1.f, 0.f, 0.f};
  skeleton.rest_pose[3].translation = {5.f, 0.f, 0.f};
  skeleton.rest_pose[4].translation = {0.f, 0.f, 1.f};
  skeleton.end_sites = {{1, {0.f, 0.5f, 0.f}}};
  return skeleton;
}

TEST(ViewportScene, BoneShapesCoverChildrenEndSitesLeavesAndLoneRoots) {
  const Skeleton skeleton = small_skeleton();
  ASSERT_TRUE(skeleton.validate().ok());
  const std::vector<Transform> model = local_to_model(skeleton, skeleton.rest_pose);
  std::vector<BoneShape> shapes(9, BoneShape{42, {9.f, 9.f, 9.f}, {9.f, 9.f, 9.f}});  // replaced, not added to
  bone_shapes(skeleton, model, shapes);
  ASSERT_EQ(shapes.size(), 7u);
  const int32_t bones[7] = {0, 0, 1, 1, 2, 3, 4};
  const Vec3 heads[7] = {{0, 1, 0}, {0, 1, 0}, {0, 2, 0}, {0, 2, 0}, {1, 1, 0}, {5, 0, 0}, {0, 2, 1}};
  const Vec3 tails[7] = {{0, 2, 0},      // hips to spine
                         {1, 1, 0},      // hips to leg
                         {0, 2, 1},      // spine to arm
                         {-0.5f, 2, 0},  // spine's end site, turned with the spine
                         {1.5f, 1, 0},   // leg: half the hips-to-leg length further on
                         {5, 0, 0},      // prop: a point
                         {0, 2, 1.5f}};  // arm: half the spine-to-arm length further on
  for (size_t i = 0; i < 7; ++i) {
    EXPECT_EQ(shapes[i].bone, bones[i]) << i;
    expect_near(shapes[i].head, heads[i]);
    expect_near(shapes[i].tail, tails[i]);
  }
}

// Siblings and end sites at one point would draw the same shape again and
// again (a rig of thousands of siblings at one offset is thousands of
// copies for the rasterizer): each bone keeps one shape per distinct tail,
// the first, in order.
TEST(ViewportScene, BoneShapesAtOnePointShareOne) {
  constexpr size_t kSiblings = 1000;
  Skeleton skeleton;
  skeleton.bone_names.push_back("root");
  skeleton.parents.push_back(-1);
  skeleton.rest_pose.emplace_back();
  for (size_t i = 0; i < kSiblings; ++i) {
    skeleton.bone_names.push_back("j" + std::to_string(i));
    skeleton.parents.push_back(0);
    Transform local;
    // Every other sibling at (0, 1, 0); the rest at (1, 0, 0) except one at (0, 0, 1).
    local.translation = i == 7 ? Vec3{0.f, 0.f, 1.f} : i % 2 == 0 ? Vec3{0.f, 1.f, 0.f} : Vec3{1.f, 0.f, 0.f};
    skeleton.rest_pose.push_back(local);
    skeleton.end_sites.push_back({static_cast<int32_t>(i + 1), {0.f, 1.f, 0.f}});
  }
  skeleton.end_sites.push_back({0, {0.f, 1.f, 0.f}});  // the root's end site, at its first children
  ASSERT_TRUE(skeleton.validate().ok());
  const std::vector<Transform> model = local_to_model(skeleton, skeleton.rest_pose);
  std::vector<BoneShape> shapes;
  bone_shapes(skeleton, model, shapes);
  ASSERT_EQ(shapes.size(), 3 + kSiblings);
  EXPECT_EQ(shapes[0].bone, 0);
  expect_near(shapes[0].tail, {0.f, 1.f, 0.f});
  EXPECT_EQ(shapes[1].bone, 0);
  expect_near(shapes[1].tail, {1.f, 0.f, 0.f});
  EXPECT_EQ(shapes[2].bone, 0);
  expect_near(shapes[2].tail, {0.f, 0.f, 1.f});
  for (size_t i = 0; i < kSiblings; ++i) EXPECT_EQ(shapes[3 + i].bone, static_cast<int32_t>(i + 1)) << i;
}

TEST(ViewportScene, ObjectSpaceErrorsOverTheClipAreWhatMeasureReports) {
  CodecSettings settings;
  settings.fit.tolerance_m = 0.002f;  // coarse, so that the errors are not all tiny
  const std::shared_ptr<const FitResult> result = run_fit(demo_clip(), settings, 1, 1);
  ASSERT_TRUE(result->error.empty()) << result->error;
  const Skeleton& skeleton = demo_clip()->skeleton;
  const RawClip& clip = demo_clip()->clip;
  const size_t bone_count = skeleton.bone_count();
  Player player(result->view);
  std::vector<Transform> source(bone_count), decoded(bone_count), source_model(bone_count), decoded_model(bone_count);
  std::vector<float> errors(bone_count);
  for (size_t d = 0; d < result->measurement.distances_m.size(); ++d) {
    std::vector<float> worst(bone_count, 0.f);
    for (uint32_t f = 0; f < clip.frame_count; ++f) {
      source_pose_at(clip, static_cast<float>(f), source);
      player.sample_frame(static_cast<float>(f), decoded);
      local_to_model(skeleton.parents, source, source_model);
      local_to_model(skeleton.parents, decoded, decoded_model);
      object_space_errors(source_model, decoded_model, result->measurement.distances_m[d], errors);
      for (size_t b = 0; b < bone_count; ++b) worst[b] = std::max(worst[b], errors[b]);
    }
    for (size_t b = 0; b < bone_count; ++b) {
      EXPECT_FLOAT_EQ(worst[b], result->measurement.bone_object_error[d][b]) << "bone " << b;
    }
  }
}

TEST(ViewportScene, BoneErrorFractionsReadEachBoneAgainstItsOwnToleranceAndDistance) {
  // Two bones in a chain; the decoded root is turned 0.01 rad about z, so
  // every vertex d from a bone moves by a chord proportional to d (and the
  // child, 1 m out along x, is carried along besides).
  const std::vector<int32_t> parents{-1, 0};
  std::vector<Transform> local(2), decoded_local(2);
  local[1].translation = {1.f, 0.f, 0.f};
  decoded_local[1] = local[1];
  decoded_local[0].rotation = quat_from_axis_angle({0.f, 0.f, 1.f}, 0.01f);
  std::vector<Transform> source(2), decoded(2);
  local_to_model(parents, local, source);
  local_to_model(parents, decoded_local, decoded);
  const std::vector<float> distance{0.03f, 0.1f}, tolerance{0.001f, 0.05f};
  std::vector<float> errors(2), fractions(2), expected(2);
  bone_error_fractions(source, decoded, distance, tolerance, errors, fractions);
  object_space_errors(source, decoded, std::span<const float>(distance), expected);
  for (size_t b = 0; b < 2; ++b) {
    EXPECT_EQ(errors[b], expected[b]) << b;
    EXPECT_FLOAT_EQ(fractions[b], errors[b] / tolerance[b]) << b;
  }
  EXPECT_GT(fractions[0], 0.f);
  EXPECT_LT(fractions[0], 1.f);  // 2 * 0.03 * sin(0.005) = 0.3 mm of 1 mm
  EXPECT_GT(fractions[1], 0.1f);  // the child moved about 1 cm of its 5 cm
  // A pose equal to the source is 0 against any tolerance.
  bone_error_fractions(source, source, distance, tolerance, errors, fractions);
  EXPECT_EQ(fractions, (std::vector<float>{0.f, 0.f}));
}

TEST(ViewportScene, VertexErrorFractionsBlendTheirBonesBySkinWeight) {
  SkinnedMesh mesh;
  mesh.positions = {{0.f, 0.f, 0.f}, {1.f, 0.f, 0.f}, {2.f, 0.f, 0.f}};
  mesh.joints = {{0, 0, 0, 0}, {0, 1, 0, 0}, {1, 2, 0, 0}};
  mesh.weights = {{1.f, 0.f, 0.f, 0.f}, {0.25f, 0.75f, 0.f, 0.f}, {0.5f, 0.5f, 0.f, 0.f}};
  const std::vector<float> bones{0.2f, 1.f, 3.f};
  std::vector<float> vertices(3);
  vertex_error_fractions(mesh, bones, vertices);
  EXPECT_FLOAT_EQ(vertices[0], 0.2f);
  EXPECT_FLOAT_EQ(vertices[1], 0.25f * 0.2f + 0.75f * 1.f);
  EXPECT_FLOAT_EQ(vertices[2], 0.5f * 1.f + 0.5f * 3.f);
}

// The promise, as the viewport shows it: at the default settings, every
// bone of the demo clip decoded at every source frame is within its own
// tolerance, so the compressed character (bones and mesh) is green.
TEST(ViewportScene, TheDefaultFitOfTheDemoClipIsGreenAtEveryFrame) {
  const std::shared_ptr<const FitResult> result = run_fit(demo_clip(), CodecSettings{}, 1, 1);
  ASSERT_TRUE(result->error.empty()) << result->error;
  ASSERT_TRUE(result->fitted.bound_met());
  const ImportedClip& clip = *demo_clip();
  ASSERT_TRUE(clip.mesh.has_value());
  const size_t bone_count = clip.skeleton.bone_count();
  Player player(result->view);
  std::vector<Transform> source(bone_count), decoded(bone_count), source_model(bone_count), decoded_model(bone_count);
  std::vector<float> errors(bone_count), fractions(bone_count), vertex_fractions(clip.mesh->vertex_count());
  const auto is_green = [](glm::vec3 c) { return c.g > c.r + 0.2f && c.g > c.b + 0.2f; };
  for (uint32_t f = 0; f < clip.clip.frame_count; ++f) {
    source_pose_at(clip.clip, static_cast<float>(f), source);
    player.sample_frame(static_cast<float>(f), decoded);
    local_to_model(clip.skeleton.parents, source, source_model);
    local_to_model(clip.skeleton.parents, decoded, decoded_model);
    bone_error_fractions(source_model, decoded_model, result->bone_shell_distance_m, result->bone_tolerance_m, errors,
                         fractions);
    for (size_t b = 0; b < bone_count; ++b) {
      EXPECT_LE(fractions[b], 1.f) << "bone " << clip.skeleton.bone_names[b] << " frame " << f;
      EXPECT_TRUE(is_green(error_color(fractions[b]))) << "bone " << b << " frame " << f;
    }
    vertex_error_fractions(*clip.mesh, fractions, vertex_fractions);
    EXPECT_LE(*std::max_element(vertex_fractions.begin(), vertex_fractions.end()), 1.f + 1e-5f) << "frame " << f;
  }
}

/// The small skeleton with scale in its rest pose and inverse bind
/// matrices that invert its rest model matrices.
Skeleton bound_skeleton() {
  Skeleton skeleton = small_skeleton();
  skeleton.rest_pose[0].scale = {1.5f, 1.5f, 1.5f};
  skeleton.rest_pose[2].rotation = quat_from_axis_angle({0.6f, 0.f, 0.8f}, 0.4f);
  const std::vector<Transform> model = local_to_model(skeleton, skeleton.rest_pose);
  for (const Transform& t : model) {
    const Mat4 m = to_matrix(t);
    const glm::mat4 inverse =
        glm::inverse(glm::mat4(m.m[0], m.m[1], m.m[2], m.m[3], m.m[4], m.m[5], m.m[6], m.m[7], m.m[8], m.m[9], m.m[10],
                               m.m[11], m.m[12], m.m[13], m.m[14], m.m[15]));
    Mat4 inverse_bind;
    for (int c = 0; c < 4; ++c) {
      for (int r = 0; r < 4; ++r) inverse_bind.m[c * 4 + r] = inverse[c][r];
    }
    skeleton.inverse_bind.push_back(inverse_bind);
  }
  return skeleton;
}

Vec3 apply(const Mat4& m, Vec3 p) {
  return {m.m[0] * p.x + m.m[4] * p.y + m.m[8] * p.z + m.m[12], m.m[1] * p.x + m.m[5] * p.y + m.m[9] * p.z + m.m[13],
          m.m[2] * p.x + m.m[6] * p.y + m.m[10] * p.z + m.m[14]};
}

TEST(ViewportScene, SkinningPaletteOfTheBindPoseLeavesVerticesInPlace) {
  const Skeleton skeleton = bound_skeleton();
  const std::vector<Transform> model = local_to_model(skeleton, skeleton.rest_pose);
  std::vector<Mat4> palette(skeleton.bone_count());
  skinning_palette(skeleton, model, palette);
  for (size_t b = 0; b < palette.size(); ++b) {
    for (const Vec3 vertex : {Vec3{0.f, 0.f, 0.f}, Vec3{0.3f, 1.7f, -0.4f}, Vec3{-2.f, 0.5f, 1.f}}) {
      expect_near(apply(palette[b], vertex), vertex, 1e-5f);
    }
  }
  // Turning the leg carries a vertex bound to it along: back to the leg's
  // bind space, then out through its new model transform.
  std::vector<Transform> posed = skeleton.rest_pose;
  posed[2].rotation = quat_from_axis_angle({0.f, 1.f, 0.f}, 1.1f);
  const std::vector<Transform> posed_model = local_to_model(skeleton, posed);
  skinning_palette(skeleton, posed_model, palette);
  const Vec3 vertex{1.2f, 0.9f, 0.3f};
  const Vec3 in_bind_space = apply(skeleton.inverse_bind[2], vertex);
  expect_near(apply(palette[2], vertex), transform_point(posed_model[2], in_bind_space), 1e-5f);
}

TEST(ViewportScene, SkinningPaletteWithoutInverseBindIsTheModelMatrices) {
  const Skeleton skeleton = small_skeleton();
  const std::vector<Transform> model = local_to_model(skeleton, skeleton.rest_pose);
  std::vector<Mat4> palette(skeleton.bone_count());
  skinning_palette(skeleton, model, palette);
  for (size_t b = 0; b < palette.size(); ++b) {
    const Mat4 expected = to_matrix(model[b]);
    for (int i = 0; i < 16; ++i) EXPECT_EQ(palette[b].m[i], expected.m[i]) << b << " " << i;
  }
}

bool inside(const Box& box, Vec3 p) {
  constexpr float kSlack = 1e-5f;
  return p.x >= box.lo.x - kSlack && p.y >= box.lo.y - kSlack && p.z >= box.lo.z - kSlack && p.x <= box.hi.x + kSlack &&
         p.y <= box.hi.y + kSlack && p.z <= box.hi.z + kSlack;
}

TEST(ViewportScene, ClipBoundsContainEveryJointOfTheDemoClip) {
  const Skeleton& skeleton = demo_clip()->skeleton;
  const RawClip& clip = demo_clip()->clip;
  const Box box = clip_bounds(skeleton, clip);
  ASSERT_FALSE(box.empty());
  // A walk covers more than a metre and a character is more than a metre tall.
  EXPECT_GT(glm::length(box.hi - box.lo), 1.f);
  const uint32_t last = clip.frame_count - 1;
  for (uint32_t f : {0u, 1u, last / 3, last / 2, last - 1, last}) {
    for (const Transform& t : local_to_model(skeleton, clip.pose_at(f))) {
      EXPECT_TRUE(inside(box, t.translation)) << "frame " << f;
    }
  }
}

TEST(ViewportScene, ClipBoundsSpanFirstToLastFrameAndIncludeEndSites) {
  Skeleton skeleton;
  skeleton.bone_names = {"root"};
  skeleton.parents = {-1};
  skeleton.rest_pose.resize(1);
  skeleton.end_sites = {{0, {0.f, 2.f, 0.f}}};
  RawClip clip;
  clip.frame_count = 1000;  // more than the 512 frames sampled
  clip.bones.resize(1);
  for (uint32_t f = 0; f < clip.frame_count; ++f) {
    clip.bones[0].translations.push_back({static_cast<float>(f), 0.f, -0.5f});
    clip.bones[0].rotations.push_back({});
    clip.bones[0].scales.push_back({1.f, 1.f, 1.f});
  }
  const Box box = clip_bounds(skeleton, clip);
  EXPECT_EQ(box.lo, glm::vec3(0.f, 0.f, -0.5f));
  EXPECT_EQ(box.hi, glm::vec3(999.f, 2.f, -0.5f));
  EXPECT_TRUE(Box{}.empty());
  EXPECT_TRUE(clip_bounds(skeleton, RawClip{}).empty());
}

/// A camera at +Z looking at the origin, 4 m away, and its matrix for an
/// 800 x 600 viewport.
struct PickView {
  OrbitCamera camera;
  glm::mat4 view_projection;
  glm::vec2 size{800.f, 600.f};
  PickView() {
    camera.target = {0.f, 0.f, 0.f};
    camera.yaw_deg = 0.f;
    camera.pitch_deg = 0.f;
    view_projection = camera.projection(size.x / size.y) * camera.view();
  }
  glm::vec2 screen_of(Vec3 p) const {
    glm::vec3 screen{};
    EXPECT_TRUE(project_to_screen(view_projection, {p.x, p.y, p.z}, size, &screen));
    return glm::vec2(screen);
  }
};

TEST(ViewportScene, PickBonePrefersTheNearerOfOverlappingShapes) {
  const PickView v;
  const BoneShape far_shape{3, {-1.f, 0.f, 0.f}, {1.f, 0.f, 0.f}};
  // Nearer the eye and drawn over the far one, though 1 to 2 px further
  // from the cursor, which lies on the far one.
  const BoneShape near_shape{7, {-1.f, 0.006f, 0.5f}, {1.f, 0.006f, 0.5f}};
  const glm::vec2 cursor = v.screen_of({0.2f, 0.f, 0.f});
  const float gap_px = cursor.y - v.screen_of({0.2f, 0.006f, 0.5f}).y;
  ASSERT_GT(gap_px, 1.f);
  ASSERT_LT(gap_px, 2.f);
  for (int order = 0; order < 2; ++order) {
    const std::vector<BoneShape> shapes =
        order == 0 ? std::vector<BoneShape>{far_shape, near_shape} : std::vector<BoneShape>{near_shape, far_shape};
    EXPECT_EQ(pick_bone(shapes, v.view_projection, v.size, cursor, 8.f), 7) << order;
  }
  // Clearly further from the cursor than the far one, the near one loses.
  const BoneShape raised_near{7, {-1.f, 0.05f, 0.5f}, {1.f, 0.05f, 0.5f}};
  ASSERT_GT(cursor.y - v.screen_of({0.2f, 0.05f, 0.5f}).y, 4.f);
  for (int order = 0; order < 2; ++order) {
    const std::vector<BoneShape> shapes =
        order == 0 ? std::vector<BoneShape>{raised_near, far_shape} : std::vector<BoneShape>{far_shape, raised_near};
    EXPECT_EQ(pick_bone(shapes, v.view_projection, v.size, cursor, 40.f), 3) << order;
  }
  // Only the near one within reach: it is picked.
  EXPECT_EQ(pick_bone(std::vector<BoneShape>{raised_near}, v.view_projection, v.size, cursor, 40.f), 7);
}

TEST(ViewportScene, PickBoneFindsTheInsideOfASegmentAndNothingBeyondMaxPx) {
  const PickView v;
  // A long bone whose ends are both far from the cursor.
  const std::vector<BoneShape> shapes{{5, {-1.5f, -1.f, 0.f}, {1.5f, 1.f, 0.f}}};
  const glm::vec2 middle = v.screen_of({0.f, 0.f, 0.f});
  EXPECT_EQ(pick_bone(shapes, v.view_projection, v.size, middle, 4.f), 5);
  // Off the line: the slope is -2/3 on screen, so a 10 px step in x is
  // 10 * 2 / sqrt(13) = 5.5 px from it.
  EXPECT_EQ(pick_bone(shapes, v.view_projection, v.size, middle + glm::vec2(10.f, 0.f), 6.f), 5);
  EXPECT_EQ(pick_bone(shapes, v.view_projection, v.size, middle + glm::vec2(10.f, 0.f), 5.f), -1);
  // Past the tail along the line: measured to the end point, not the line.
  const glm::vec2 tail = v.screen_of({1.5f, 1.f, 0.f});
  const glm::vec2 beyond = tail + 10.f * glm::normalize(tail - middle);
  EXPECT_EQ(pick_bone(shapes, v.view_projection, v.size, beyond, 9.f), -1);
  EXPECT_EQ(pick_bone(shapes, v.view_projection, v.size, beyond, 11.f), 5);
  EXPECT_EQ(pick_bone({}, v.view_projection, v.size, middle, 100.f), -1);
}

TEST(ViewportScene, PickBoneIgnoresWhatIsBehindTheEye) {
  const PickView v;
  // Straight behind the eye (which is at z = 4).
  const std::vector<BoneShape> behind{{2, {0.f, 0.f, 5.f}, {0.f, 0.1f, 6.f}}};
  EXPECT_EQ(pick_bone(behind, v.view_projection, v.size, {400.f, 300.f}, 1000.f), -1);
  // A bone from behind the eye to the origin is picked on its visible part.
  const std::vector<BoneShape> through{{4, {0.f, 0.f, 6.f}, {0.f, 0.f, 0.f}}};
  EXPECT_EQ(pick_bone(through, v.view_projection, v.size, {400.f, 300.f}, 2.f), 4);
}

TEST(ViewportScene, ErrorColorIsGreenWithinTheToleranceAndRedPastIt) {
  const auto stop = [](int i) { return glm::vec3{kErrorRampStops[i][0], kErrorRampStops[i][1], kErrorRampStops[i][2]}; };
  const glm::vec3 green = stop(0), near_tolerance = stop(1), red = stop(2), magenta = stop(3);
  EXPECT_EQ(error_color(0.f), green);
  EXPECT_EQ(error_color(1.f), near_tolerance);  // at the tolerance is within it
  EXPECT_EQ(error_color(2.f), magenta);
  EXPECT_EQ(error_color(-3.f), green);
  EXPECT_EQ(error_color(2.5f), magenta);
  EXPECT_EQ(error_color(1e9f), magenta);
  EXPECT_EQ(error_color(INFINITY), magenta);
  EXPECT_EQ(error_color(std::nanf("")), magenta);
  // Every colour up to the tolerance reads green; just past it, red.
  for (float f = 0.f; f <= 1.f; f += 1.f / 64.f) {
    const glm::vec3 c = error_color(f);
    EXPECT_GT(c.g, c.r + 0.2f) << f;
    EXPECT_GT(c.g, c.b + 0.2f) << f;
  }
  const glm::vec3 past = error_color(std::nextafter(1.f, 2.f));
  for (int c = 0; c < 3; ++c) EXPECT_NEAR(past[c], red[c], 1e-5f);
  const glm::vec3 half = error_color(0.5f);
  const glm::vec3 one_and_half = error_color(1.5f);
  for (int c = 0; c < 3; ++c) {
    EXPECT_NEAR(half[c], 0.5f * (green[c] + near_tolerance[c]), 1e-6f);
    EXPECT_NEAR(one_and_half[c], 0.5f * (red[c] + magenta[c]), 1e-6f);
  }
}

}  // namespace
}  // namespace ks::studio
