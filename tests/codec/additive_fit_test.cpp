// Additive clips through the codec (DESIGN §3): the bound holds on the pose
// composed on the base, the stream records the base, and a layer costs what
// the layer's motion costs, not what the composed clip's does.

#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <string>
#include <vector>

#include "keystream/clip/additive.h"
#include "keystream/runtime/additive.h"
#include "keystream/runtime/player.h"
#include "tests/codec/fit_test_support.h"
#include "tests/codec/random_clip.h"
#include "tests/refused_mentioning.h"

namespace ks {
namespace {

namespace fs = std::filesystem;

std::vector<uint8_t> pack_or_fail(const FittedClip& fitted) {
  Result<std::vector<uint8_t>> bytes = pack(fitted, PackSettings{});
  EXPECT_TRUE(bytes.ok()) << bytes.error();
  return bytes.ok() ? std::move(bytes.value()) : std::vector<uint8_t>{};
}

// Random clips whose scales keep away from 0, so that every base has a ratio.
test::RandomClip random_clip(uint32_t seed) {
  test::RandomClipOptions options;
  options.max_bones = 8;
  test::RandomClip c = test::make_random_clip(seed, options);
  for (BoneTracks& bone : c.clip.bones) {
    for (Vec3& s : bone.scales) s = {1.f + 0.2f * std::tanh(s.x - 1.f), 1.f, 1.f};
  }
  return c;
}

TEST(AdditiveFit, TheComposedPoseHoldsTheToleranceAtEveryFrameOfRandomClips) {
  for (uint32_t seed = 1; seed <= 30; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const test::RandomClip c = random_clip(seed);
    for (const AdditiveBase kind : {AdditiveBase::kFirstFrame, AdditiveBase::kBindPose}) {
      SCOPED_TRACE(to_string(kind));
      const Result<RawClip> additive = make_additive(c.skeleton, c.clip, AdditiveSource{kind, nullptr, {}});
      ASSERT_TRUE(additive.ok()) << additive.error();
      FitSettings settings;
      settings.tolerance_m = seed % 2 ? 1e-4f : 1e-3f;
      const Result<FittedClip> fitted = fit_clip(c.skeleton, additive.value(), settings, 2);
      ASSERT_TRUE(fitted.ok()) << fitted.error();
      EXPECT_EQ(fitted.value().additive.base, kind);
      test::expect_object_space_promise(c.skeleton, additive.value(), fitted.value());
    }
  }
}

TEST(AdditiveFit, TheStreamRecordsTheBaseAndThePlayerGivesTheLayer) {
  const test::RandomClip c = random_clip(11);
  RawClip base = c.clip;
  for (BoneTracks& bone : base.bones) {
    for (Quat& q : bone.rotations) q = normalize(Quat{q.x * 0.5f, q.y, q.z, q.w});
  }
  const Result<RawClip> additive =
      make_additive(c.skeleton, c.clip, AdditiveSource{AdditiveBase::kClip, &base, "idle.glb#Idle"});
  ASSERT_TRUE(additive.ok()) << additive.error();
  const Result<FittedClip> fitted = fit_clip(c.skeleton, additive.value(), FitSettings{}, 2);
  ASSERT_TRUE(fitted.ok()) << fitted.error();
  const std::vector<uint8_t> bytes = pack_or_fail(fitted.value());
  const Result<StreamView> view = StreamView::open(bytes);
  ASSERT_TRUE(view.ok()) << view.error();
  EXPECT_TRUE(view.value().additive());
  EXPECT_EQ(view.value().metadata().additive_base, AdditiveBase::kClip);
  EXPECT_EQ(view.value().metadata().additive_base_name, "idle.glb#Idle");
  // The player gives the additive pose; apply_additive at weight 1 on the
  // base gives the clip back within the tolerance's order.
  Player player(view.value());
  std::vector<Transform> pose(c.skeleton.bone_count());
  const uint32_t frame = c.clip.frame_count / 2;
  player.sample_frame(static_cast<float>(frame), pose);
  const std::span<const Transform> at = additive.value().additive_base.at(frame, pose.size());
  std::vector<Transform> composed(pose.size());
  apply_additive(at, pose, 1.f, composed);
  const std::vector<Transform> source = c.clip.pose_at(frame);
  for (size_t b = 0; b < pose.size(); ++b) {
    EXPECT_NEAR(composed[b].translation.x, source[b].translation.x, 1e-3f);
    EXPECT_NEAR(std::fabs(dot(composed[b].rotation, source[b].rotation)), 1.f, 1e-4f);
  }
}

TEST(AdditiveFit, AStreamAndAClipThatDisagreeOnAdditivityAreNotMeasured) {
  const test::RandomClip c = random_clip(13);
  const Result<RawClip> additive =
      make_additive(c.skeleton, c.clip, AdditiveSource{AdditiveBase::kFirstFrame, nullptr, {}});
  ASSERT_TRUE(additive.ok());
  const Result<FittedClip> plain = fit_clip(c.skeleton, c.clip, FitSettings{}, 2);
  const Result<FittedClip> layered = fit_clip(c.skeleton, additive.value(), FitSettings{}, 2);
  ASSERT_TRUE(plain.ok() && layered.ok());
  const std::vector<uint8_t> plain_bytes = pack_or_fail(plain.value());
  const std::vector<uint8_t> layered_bytes = pack_or_fail(layered.value());
  const Result<StreamView> plain_view = StreamView::open(plain_bytes);
  const Result<StreamView> layered_view = StreamView::open(layered_bytes);
  ASSERT_TRUE(plain_view.ok() && layered_view.ok());
  EXPECT_TRUE(test::refused_mentioning(measure(c.skeleton, additive.value(), plain_view.value()), {"not additive"}));
  EXPECT_TRUE(test::refused_mentioning(measure(c.skeleton, c.clip, layered_view.value()), {"is additive"}));
}

// --- every shared clip -------------------------------------------------------------

class AdditiveSharedClip : public ::testing::TestWithParam<fs::path> {};

// Made additive to its first frame and to its bind pose, every animation of
// every shared clip keeps the tolerance on the composed pose at every frame,
// for at most 5 % more bytes than the clip compressed as it is.
TEST_P(AdditiveSharedClip, HoldsTheBoundOnTheComposedPoseForAtMostFivePercentMoreBytes) {
  ASSERT_TRUE(fs::exists(GetParam())) << GetParam();
  for (const ImportedClip& imported : test::import_every_animation(GetParam())) {
    SCOPED_TRACE("animation \"" + imported.clip.name + "\"");
    const Result<FittedClip> plain = fit_clip(imported.skeleton, imported.clip, FitSettings{}, 2);
    ASSERT_TRUE(plain.ok()) << plain.error();
    const size_t plain_bytes = pack_or_fail(plain.value()).size();
    for (const AdditiveBase kind : {AdditiveBase::kFirstFrame, AdditiveBase::kBindPose}) {
      SCOPED_TRACE(to_string(kind));
      const Result<RawClip> additive =
          make_additive(imported.skeleton, imported.clip, AdditiveSource{kind, nullptr, {}});
      ASSERT_TRUE(additive.ok()) << additive.error();
      const Result<FittedClip> fitted = fit_clip(imported.skeleton, additive.value(), FitSettings{}, 2);
      ASSERT_TRUE(fitted.ok()) << fitted.error();
      EXPECT_TRUE(fitted.value().bound_met());
      const std::vector<float> errors =
          test::expect_object_space_promise(imported.skeleton, additive.value(), fitted.value());
      for (size_t b = 0; b < errors.size(); ++b) EXPECT_LE(errors[b], fitted.value().bones[b].tolerance_m) << b;
      const size_t bytes = pack_or_fail(fitted.value()).size();
      EXPECT_LE(static_cast<double>(bytes), 1.05 * static_cast<double>(plain_bytes))
          << bytes << " bytes additive, " << plain_bytes << " as it is";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(DeveloperClips, AdditiveSharedClip, ::testing::ValuesIn(test::shipped_clip_files()),
                         test::clip_test_name);

// Whether `name` is a bone breathing moves: the spine, neck, head,
// clavicles and upper arms.
bool breathes(std::string name) {
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* part : {"waist", "spine", "neck", "head", "clavicle", "upperarm"}) {
    if (name.find(part) != std::string::npos) return true;
  }
  return false;
}

// A breathing layer (the upper body swaying under 5 degrees per bone, once
// every 4 s) added to a mocap take: stored as additive to the take it costs
// at most a quarter of the composed clip compressed whole.
TEST(AdditiveFit, ABreathingLayerOnAMocapTakeCostsAQuarterOfTheComposedClip) {
  Result<ImportedClip> imported = import_clip(fs::path(KS_CLIPS_DIR) / "cmu_cc4_001_14.bvh");
  ASSERT_TRUE(imported.ok()) << imported.error();
  const Skeleton& skeleton = imported.value().skeleton;
  const RawClip& take = imported.value().clip;
  RawClip composed = take;
  float largest_deg = 0.f;
  size_t layered = 0;
  for (size_t b = 0; b < composed.bones.size(); ++b) {
    if (!breathes(skeleton.bone_names[b])) continue;
    ++layered;
    const float phase = 0.2f * static_cast<float>(layered);
    const Vec3 axis = test::unit_axis(Vec3{1.f, 0.2f * std::sin(phase), 0.3f});
    for (uint32_t f = 0; f < composed.frame_count; ++f) {
      const float t = static_cast<float>(f) / composed.sample_rate_hz;
      const float angle = 0.05f * std::sin(2.f * 3.14159265f * t / 4.f + phase);  // 2.9 degrees at most
      largest_deg = std::max(largest_deg, std::fabs(angle) * 57.2957795f);
      const Transform layer{{0.f, 0.f, 0.f}, quat_from_axis_angle(axis, angle), {1.f, 1.f, 1.f}};
      BoneTracks& bone = composed.bones[b];
      const Transform on =
          apply_additive(Transform{bone.translations[f], bone.rotations[f], bone.scales[f]}, layer, 1.f);
      bone.rotations[f] = on.rotation;
    }
    make_rotations_continuous(composed.bones[b].rotations);
  }
  ASSERT_GE(layered, 10u);
  ASSERT_LT(largest_deg, 5.f);
  const Result<FittedClip> whole = fit_clip(skeleton, composed, FitSettings{}, 2);
  ASSERT_TRUE(whole.ok()) << whole.error();
  const Result<RawClip> layer =
      make_additive(skeleton, composed, AdditiveSource{AdditiveBase::kClip, &take, "cmu_cc4_001_14.bvh"});
  ASSERT_TRUE(layer.ok()) << layer.error();
  const Result<FittedClip> fitted = fit_clip(skeleton, layer.value(), FitSettings{}, 2);
  ASSERT_TRUE(fitted.ok()) << fitted.error();
  EXPECT_TRUE(fitted.value().bound_met());
  test::expect_object_space_promise(skeleton, layer.value(), fitted.value());
  const size_t whole_bytes = pack_or_fail(whole.value()).size();
  const size_t layer_bytes = pack_or_fail(fitted.value()).size();
  EXPECT_LE(4 * layer_bytes, whole_bytes) << layer_bytes << " bytes as a layer, " << whole_bytes << " composed";
  std::printf("layer %zu bytes, composed clip %zu bytes (%.3f)\n", layer_bytes, whole_bytes,
              static_cast<double>(layer_bytes) / static_cast<double>(whole_bytes));
}

}  // namespace
}  // namespace ks
