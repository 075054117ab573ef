// Source keys (channel_resample.h): a LINEAR or STEP channel whose keys all
// land on frames keeps them as the track's source keys, with frame 0 and the
// last frame added; any other track is sampled, with none.

#include "keystream/io/channel_resample.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ks {
namespace {

using gltf::Channel;
using gltf::Path;

constexpr float kRateHz = 10.f;

Skeleton two_bones() {
  Skeleton s;
  s.bone_names = {"hips", "knee"};
  s.parents = {-1, 0};
  s.rest_pose = {Transform{}, Transform{{0.f, -0.4f, 0.f}, {}, {1.f, 1.f, 1.f}}};
  return s;
}

// A channel of `path` on bone 0 with keys at `frames` (of kRateHz), values
// made up: a rotation turning about Z, any other path a ramp in x.
Channel channel_at(Path path, gltf::Interpolation interpolation, const std::vector<float>& frames) {
  Channel channel;
  channel.bone = 0;
  channel.path = path;
  channel.interpolation = interpolation;
  channel.components = path == Path::kRotation ? 4 : path == Path::kWeight ? 1 : 3;
  const int copies = interpolation == gltf::Interpolation::kCubicSpline ? 3 : 1;  // in-tangent, value, out-tangent
  for (const float frame : frames) {
    channel.times.push_back(frame / kRateHz);
    for (int copy = 0; copy < copies; ++copy) {
      const Quat q = quat_from_axis_angle({0.f, 0.f, 1.f}, 0.1f * frame);
      const std::vector<float> value = path == Path::kRotation ? std::vector<float>{q.x, q.y, q.z, q.w}
                                       : path == Path::kWeight ? std::vector<float>{0.1f * frame}
                                                               : std::vector<float>{0.1f * frame, 1.f, 1.f};
      channel.values.insert(channel.values.end(), value.begin(), value.end());
    }
  }
  return channel;
}

RawClip resample(const std::vector<Channel>& channels, std::vector<ScalarTrack> scalars = {}) {
  ImportSettings settings;
  settings.sample_rate_hz = kRateHz;
  double start_s = 0.0;
  std::vector<std::string> warnings;
  const Skeleton skeleton = two_bones();
  Result<RawClip> clip =
      gltf::resample_channels("clip", skeleton, channels, std::move(scalars), settings, start_s, warnings);
  EXPECT_TRUE(clip.ok()) << clip.error();
  if (!clip) return {};
  const Status valid = clip.value().validate(skeleton);
  EXPECT_TRUE(valid.ok()) << valid.error();
  return std::move(clip.value());
}

const SourceKeys& keys_of(const RawClip& clip, size_t bone, TrackKind kind) {
  return clip.bones[bone].source_keys[static_cast<size_t>(kind)];
}

TEST(ResampleSourceKeys, ALinearChannelOnFramesKeepsItsKeys) {
  const RawClip clip = resample({channel_at(Path::kRotation, gltf::Interpolation::kLinear, {0, 3, 4, 9})});
  ASSERT_EQ(clip.frame_count, 10u);
  const SourceKeys& keys = keys_of(clip, 0, TrackKind::kRotation);
  EXPECT_TRUE(keys.keyed());
  EXPECT_EQ(keys.interpolation, Interpolation::kLinear);
  EXPECT_EQ(keys.frames, (std::vector<uint32_t>{0, 3, 4, 9}));
}

TEST(ResampleSourceKeys, AStepChannelOnFramesKeepsItsKeys) {
  const RawClip clip = resample({channel_at(Path::kTranslation, gltf::Interpolation::kStep, {0, 2, 7, 9})});
  const SourceKeys& keys = keys_of(clip, 0, TrackKind::kTranslation);
  EXPECT_TRUE(keys.keyed());
  EXPECT_EQ(keys.interpolation, Interpolation::kStep);
  EXPECT_EQ(keys.frames, (std::vector<uint32_t>{0, 2, 7, 9}));
}

TEST(ResampleSourceKeys, ACubicSplineChannelIsSampled) {
  const RawClip clip = resample({channel_at(Path::kScale, gltf::Interpolation::kCubicSpline, {0, 5, 9})});
  EXPECT_FALSE(keys_of(clip, 0, TrackKind::kScale).keyed());
}

TEST(ResampleSourceKeys, AKeyBetweenFramesLeavesTheTrackSampled) {
  for (const gltf::Interpolation interpolation : {gltf::Interpolation::kLinear, gltf::Interpolation::kStep}) {
    const RawClip clip = resample({channel_at(Path::kRotation, interpolation, {0, 3.5f, 9})});
    EXPECT_FALSE(keys_of(clip, 0, TrackKind::kRotation).keyed());
  }
}

// The value is held before the first key and after the last: keys at frame 0
// and at the last frame holding it give the same curve.
TEST(ResampleSourceKeys, AChannelShorterThanTheClipGetsTheFirstAndLastFrame) {
  const Channel late = channel_at(Path::kTranslation, gltf::Interpolation::kLinear, {2, 5});
  const RawClip clip = resample({late, channel_at(Path::kRotation, gltf::Interpolation::kLinear, {0, 9})});
  ASSERT_EQ(clip.frame_count, 10u);
  EXPECT_EQ(keys_of(clip, 0, TrackKind::kTranslation).frames, (std::vector<uint32_t>{0, 2, 5, 9}));
  // One key: held on both sides of it.
  const RawClip still = resample({channel_at(Path::kScale, gltf::Interpolation::kStep, {4}),
                                  channel_at(Path::kRotation, gltf::Interpolation::kLinear, {0, 9})});
  EXPECT_EQ(keys_of(still, 0, TrackKind::kScale).frames, (std::vector<uint32_t>{0, 4, 9}));
}

TEST(ResampleSourceKeys, ATrackWithoutAChannelIsSampled) {
  const RawClip clip = resample({channel_at(Path::kRotation, gltf::Interpolation::kLinear, {0, 9})});
  EXPECT_FALSE(keys_of(clip, 0, TrackKind::kTranslation).keyed());
  EXPECT_FALSE(keys_of(clip, 0, TrackKind::kScale).keyed());
  for (const SourceKeys& keys : clip.bones[1].source_keys) {
    EXPECT_FALSE(keys.keyed());
    EXPECT_EQ(keys.interpolation, Interpolation::kHermite);
  }
}

TEST(ResampleSourceKeys, TheLaterChannelOfAPropertyDecides) {
  const Channel linear = channel_at(Path::kRotation, gltf::Interpolation::kLinear, {0, 4, 9});
  const Channel cubic = channel_at(Path::kRotation, gltf::Interpolation::kCubicSpline, {0, 9});
  const Channel step = channel_at(Path::kRotation, gltf::Interpolation::kStep, {0, 6, 9});
  EXPECT_FALSE(keys_of(resample({linear, cubic}), 0, TrackKind::kRotation).keyed());
  const SourceKeys keys = keys_of(resample({cubic, linear, step}), 0, TrackKind::kRotation);
  EXPECT_EQ(keys.interpolation, Interpolation::kStep);
  EXPECT_EQ(keys.frames, (std::vector<uint32_t>{0, 6, 9}));
}

TEST(ResampleSourceKeys, ScalarTracksKeepTheirKeysAsBonesDo) {
  std::vector<ScalarTrack> scalars(2);
  scalars[0].name = "keyed";
  scalars[1].name = "between frames";
  Channel keyed = channel_at(Path::kWeight, gltf::Interpolation::kLinear, {1, 6});
  keyed.scalar = 0;
  Channel between = channel_at(Path::kWeight, gltf::Interpolation::kLinear, {0, 2.5f, 9});
  between.scalar = 1;
  const RawClip clip = resample({keyed, between}, scalars);
  ASSERT_EQ(clip.scalars.size(), 2u);
  EXPECT_EQ(clip.scalars[0].source_keys.interpolation, Interpolation::kLinear);
  EXPECT_EQ(clip.scalars[0].source_keys.frames, (std::vector<uint32_t>{0, 1, 6, 9}));
  EXPECT_FALSE(clip.scalars[1].source_keys.keyed());
}

}  // namespace
}  // namespace ks
