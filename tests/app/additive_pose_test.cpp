// What the viewport draws of an additive clip (app/studio/viewport/additive_pose.h):
// at a whole frame the layer composed on its base is compose_on_base's
// pose, bit for bit, and the clip it was made from; between frames a
// per-frame base is interpolated; the layer alone sits on the rest pose; a
// clip that is not additive is drawn as it is.

#include "app/studio/viewport/additive_pose.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "app/studio/viewport/viewport_scene.h"
#include "keystream/clip/additive.h"
#include "keystream/runtime/additive.h"
#include "tests/app/demo_clip.h"

namespace ks::studio {
namespace {

void expect_eq(const Transform& a, const Transform& b) {
  EXPECT_EQ(a.translation.x, b.translation.x);
  EXPECT_EQ(a.translation.y, b.translation.y);
  EXPECT_EQ(a.translation.z, b.translation.z);
  EXPECT_EQ(a.rotation.x, b.rotation.x);
  EXPECT_EQ(a.rotation.y, b.rotation.y);
  EXPECT_EQ(a.rotation.z, b.rotation.z);
  EXPECT_EQ(a.rotation.w, b.rotation.w);
  EXPECT_EQ(a.scale.x, b.scale.x);
  EXPECT_EQ(a.scale.y, b.scale.y);
  EXPECT_EQ(a.scale.z, b.scale.z);
}

// The demo clip made additive to `source`.
RawClip additive(const AdditiveSource& source) {
  const ImportedClip& demo = *demo_clip();
  Result<RawClip> made = make_additive(demo.skeleton, demo.clip, source);
  EXPECT_TRUE(made.ok()) << made.error();
  return made.ok() ? std::move(made.value()) : RawClip{};
}

TEST(ShownPose, AClipThatIsNotAdditiveIsDrawnAsItIs) {
  const ImportedClip& demo = *demo_clip();
  std::vector<Transform> pose = demo.clip.pose_at(3);
  const std::vector<Transform> before = pose;
  shown_pose(demo.clip, demo.skeleton.rest_pose, 3.f, false, pose);
  shown_pose(demo.clip, demo.skeleton.rest_pose, 3.f, true, pose);
  for (size_t b = 0; b < pose.size(); ++b) expect_eq(pose[b], before[b]);
}

TEST(ShownPose, AtAWholeFrameIsComposeOnBaseAndTheClipItWasMadeFrom) {
  const ImportedClip& demo = *demo_clip();
  // A per-frame base (the clip of the demo's idle: here the demo itself) and a one-pose base.
  for (const AdditiveSource& source : {AdditiveSource{AdditiveBase::kClip, &demo.clip, "demo"},
                                       AdditiveSource{AdditiveBase::kFirstFrame, nullptr, {}}}) {
    const RawClip clip = additive(source);
    for (const uint32_t frame : {0u, 7u, clip.frame_count - 1}) {
      std::vector<Transform> shown = clip.pose_at(frame);
      std::vector<Transform> composed = shown;
      shown_pose(clip, demo.skeleton.rest_pose, static_cast<float>(frame), false, shown);
      compose_on_base(clip, frame, composed);
      const std::vector<Transform> original = demo.clip.pose_at(frame);
      for (size_t b = 0; b < shown.size(); ++b) {
        expect_eq(shown[b], composed[b]);
        EXPECT_NEAR(shown[b].translation.y, original[b].translation.y, 1e-5f);
        EXPECT_NEAR(std::abs(dot(shown[b].rotation, original[b].rotation)), 1.f, 1e-5f);
      }
    }
  }
}

TEST(BasePoseAt, InterpolatesAPerFrameBaseBetweenFrames) {
  const ImportedClip& demo = *demo_clip();
  const RawClip clip = additive({AdditiveBase::kClip, &demo.clip, "demo"});
  const size_t bones = demo.skeleton.bone_count();
  std::vector<Transform> at2(bones), at3(bones), between(bones);
  base_pose_at(clip.additive_base, clip.frame_count, 2.f, at2);
  base_pose_at(clip.additive_base, clip.frame_count, 3.f, at3);
  base_pose_at(clip.additive_base, clip.frame_count, 2.5f, between);
  for (size_t b = 0; b < bones; ++b) {
    expect_eq(at2[b], clip.additive_base.at(2, bones)[b]);
    EXPECT_NEAR(between[b].translation.x, 0.5f * (at2[b].translation.x + at3[b].translation.x), 1e-6f);
    EXPECT_NEAR(length(between[b].rotation), 1.f, 1e-6f);
  }
  // Past the last frame the last pose holds; a one-pose base is that pose at any time.
  base_pose_at(clip.additive_base, clip.frame_count, 1e9f, between);
  expect_eq(between[0], clip.additive_base.at(clip.frame_count - 1, bones)[0]);
  const RawClip first = additive({AdditiveBase::kFirstFrame, nullptr, {}});
  base_pose_at(first.additive_base, first.frame_count, 4.5f, between);
  for (size_t b = 0; b < bones; ++b) expect_eq(between[b], first.additive_base.poses[b]);
}

TEST(ShownPose, TheLayerAloneSitsOnTheRestPose) {
  const ImportedClip& demo = *demo_clip();
  const RawClip clip = additive({AdditiveBase::kFirstFrame, nullptr, {}});
  std::vector<Transform> layer(demo.skeleton.bone_count());
  source_pose_at(clip, 5.5f, layer);
  std::vector<Transform> shown = layer;
  shown_pose(clip, demo.skeleton.rest_pose, 5.5f, true, shown);
  for (size_t b = 0; b < shown.size(); ++b) expect_eq(shown[b], apply_additive(demo.skeleton.rest_pose[b], layer[b], 1.f));
  // At frame 0 the layer to the first frame is no motion: the rest pose itself.
  source_pose_at(clip, 0.f, layer);
  shown_pose(clip, demo.skeleton.rest_pose, 0.f, true, layer);
  for (size_t b = 0; b < layer.size(); ++b) {
    EXPECT_NEAR(layer[b].translation.x, demo.skeleton.rest_pose[b].translation.x, 1e-5f);
  }
}

}  // namespace
}  // namespace ks::studio
