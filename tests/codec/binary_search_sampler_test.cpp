// The baseline sampler must produce the Player's pose bit for bit, or the
// benchmark ratios would compare different work.

#include "keystream/codec/binary_search_sampler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "keystream/codec/fit.h"
#include "keystream/codec/pack.h"
#include "keystream/io/import.h"
#include "keystream/runtime/player.h"
#include "keystream/runtime/stream_view.h"
#include "tests/io/morph_test_files.h"
#include "tests/temp_dir.h"

namespace ks {
namespace {

namespace fs = std::filesystem;

const fs::path kDemo = fs::path(KS_ASSETS_DIR) / "demo_walk.glb";
const fs::path kCgspeed = fs::path(KS_CLIPS_DIR) / "cmu_cgspeed_01_01.bvh";
const fs::path kMorphCube =
    fs::path(KS_ASSIMP_MODELS_DIR) / "glTF2/glTF-Sample-Models/AnimatedMorphCube-glTF/AnimatedMorphCube.gltf";

// A fitted clip from `path`, its first `max_frames` frames at most.
FittedClip fit_file(const fs::path& path, uint32_t max_frames) {
  Result<ImportedClip> imported = import_clip(path);
  EXPECT_TRUE(imported.ok()) << imported.error();
  if (!imported.ok()) return {};
  RawClip& clip = imported.value().clip;
  if (clip.frame_count > max_frames) {
    clip.frame_count = max_frames;
    for (BoneTracks& bone : clip.bones) {
      bone.translations.resize(max_frames);
      bone.rotations.resize(max_frames);
      bone.scales.resize(max_frames);
      for (SourceKeys& keys : bone.source_keys) keys = {};  // they may reach past the cut
    }
  }
  Result<FittedClip> fitted = fit_clip(imported.value().skeleton, clip, FitSettings{});
  EXPECT_TRUE(fitted.ok()) << fitted.error();
  return fitted.ok() ? std::move(fitted.value()) : FittedClip{};
}

// A packed stream, its view and a player of it, kept together because the
// view borrows the bytes and the player the view.
struct PlayedStream {
  std::vector<uint8_t> bytes;
  std::unique_ptr<StreamView> view;
  std::unique_ptr<Player> player;
};

std::unique_ptr<PlayedStream> play(const FittedClip& clip, float jump_interval_s) {
  PackSettings settings;
  settings.jump_interval_s = jump_interval_s;
  Result<std::vector<uint8_t>> packed = pack(clip, settings);
  EXPECT_TRUE(packed.ok()) << packed.error();
  if (!packed.ok()) return nullptr;
  auto played = std::make_unique<PlayedStream>();
  played->bytes = std::move(packed.value());
  Result<StreamView> view = StreamView::open(played->bytes);
  EXPECT_TRUE(view.ok()) << view.error();
  if (!view.ok()) return nullptr;
  played->view = std::make_unique<StreamView>(std::move(view.value()));
  played->player = std::make_unique<Player>(*played->view);
  return played;
}

// Passes when both poses hold the same bits, else names the first bone that differs.
::testing::AssertionResult same_bits(const std::vector<Transform>& player, const std::vector<Transform>& baseline) {
  if (player.size() != baseline.size()) return ::testing::AssertionFailure() << "pose sizes differ";
  for (size_t b = 0; b < player.size(); ++b) {
    if (std::memcmp(&player[b], &baseline[b], sizeof(Transform)) != 0) {
      const Transform& p = player[b];
      const Transform& s = baseline[b];
      return ::testing::AssertionFailure()
             << "bone " << b << ": player t(" << p.translation.x << ", " << p.translation.y << ", " << p.translation.z
             << ") r(" << p.rotation.x << ", " << p.rotation.y << ", " << p.rotation.z << ", " << p.rotation.w << ") s("
             << p.scale.x << ", " << p.scale.y << ", " << p.scale.z << "), baseline t(" << s.translation.x << ", "
             << s.translation.y << ", " << s.translation.z << ") r(" << s.rotation.x << ", " << s.rotation.y << ", "
             << s.rotation.z << ", " << s.rotation.w << ") s(" << s.scale.x << ", " << s.scale.y << ", " << s.scale.z
             << ")";
    }
  }
  return ::testing::AssertionSuccess();
}

// Frame times that exercise forward play at every frame, forward play between
// frames, and seeks in both directions (a fixed sequence, no RNG state).
std::vector<float> test_times(uint32_t frame_count) {
  const float last = static_cast<float>(frame_count - 1);
  std::vector<float> times;
  for (uint32_t f = 0; f < frame_count; ++f) times.push_back(static_cast<float>(f));
  for (uint32_t f = 0; f + 1 < frame_count; ++f) {
    for (float fraction : {0.125f, 0.5f, 0.731f, 0.99f}) times.push_back(static_cast<float>(f) + fraction);
  }
  uint32_t state = 12345u;
  for (int i = 0; i < 500; ++i) {
    state = state * 1664525u + 1013904223u;  // LCG: a fixed, portable sequence
    times.push_back(static_cast<float>(state >> 8) * 0x1p-24f * last);
  }
  times.push_back(last);
  times.push_back(0.f);
  return times;
}

void expect_same_as_player(const FittedClip& clip) {
  ASSERT_FALSE(clip.tracks.empty());
  const size_t bones = clip.parents.size();
  for (float jump_interval_s : {0.f, 0.25f, 1.f}) {
    SCOPED_TRACE("jump interval " + std::to_string(jump_interval_s) + " s");
    std::unique_ptr<PlayedStream> played = play(clip, jump_interval_s);
    ASSERT_NE(played, nullptr);
    BinarySearchSampler sampler(clip);
    std::vector<Transform> player_pose(bones), baseline_pose(bones);
    for (float t : test_times(clip.frame_count)) {
      played->player->sample_frame(t, player_pose);
      sampler.sample_frame(t, baseline_pose);
      ASSERT_TRUE(same_bits(player_pose, baseline_pose)) << "at frame time " << t;
    }
  }
}

TEST(BinarySearchSampler, MatchesThePlayerBitForBitOnTheDemoClip) {
  const FittedClip clip = fit_file(kDemo, kMaxFrameCount);
  expect_same_as_player(clip);
}

TEST(BinarySearchSampler, MatchesThePlayerBitForBitOnCmuCgspeed) {
  const FittedClip clip = fit_file(kCgspeed, 300);
  ASSERT_EQ(clip.frame_count, 300u);
  expect_same_as_player(clip);
}

TEST(BinarySearchSampler, ClampsTimesOutsideTheClipAsThePlayerDoes) {
  const FittedClip clip = fit_file(kDemo, kMaxFrameCount);
  ASSERT_FALSE(clip.tracks.empty());
  std::unique_ptr<PlayedStream> played = play(clip, 1.f);
  ASSERT_NE(played, nullptr);
  BinarySearchSampler sampler(clip);
  std::vector<Transform> player_pose(clip.parents.size()), baseline_pose(clip.parents.size());
  const float last = static_cast<float>(clip.frame_count - 1);
  for (float t : {-3.f, last + 5.f, std::numeric_limits<float>::quiet_NaN(), -std::numeric_limits<float>::infinity(),
                  std::numeric_limits<float>::infinity()}) {
    played->player->sample_frame(t, player_pose);
    sampler.sample_frame(t, baseline_pose);
    EXPECT_TRUE(same_bits(player_pose, baseline_pose)) << "at frame time " << t;
  }
}

TEST(BinarySearchSampler, ReadsFourKeysPerAnimatedTrackPerSample) {
  const FittedClip clip = fit_file(kDemo, kMaxFrameCount);
  ASSERT_FALSE(clip.tracks.empty());
  // Identity and constant tracks return their stored value without a search.
  const size_t animated = static_cast<size_t>(std::count_if(
      clip.tracks.begin(), clip.tracks.end(), [](const FittedTrack& t) { return t.coding == TrackCoding::kAnimated; }));
  ASSERT_GT(animated, 0u);
  ASSERT_LT(animated, clip.tracks.size());
  BinarySearchSampler sampler(clip);
  EXPECT_EQ(sampler.bone_count(), clip.parents.size());
  EXPECT_EQ(sampler.frame_count(), clip.frame_count);
  EXPECT_EQ(sampler.counters().keys_read, 0u);
  std::vector<Transform> pose(clip.parents.size());
  sampler.sample_frame(0.f, pose);
  sampler.sample_frame(7.5f, pose);
  EXPECT_EQ(sampler.counters().track_lookups, 2 * animated);
  EXPECT_EQ(sampler.counters().keys_read, 8 * animated);
  sampler.reset_counters();
  EXPECT_EQ(sampler.counters().keys_read, 0u);
  EXPECT_EQ(sampler.counters().track_lookups, 0u);
}

// ---- scalar tracks ---------------------------------------------------------

// With scalar tracks, the pose and the values both the Player's bit for bit,
// and the bones-only call the same pose: the bench times both against the
// player's two calls.
void expect_scalars_same_as_player(const FittedClip& clip) {
  ASSERT_FALSE(clip.scalars.empty());
  const size_t bones = clip.parents.size();
  for (float jump_interval_s : {0.f, 0.25f}) {
    SCOPED_TRACE("jump interval " + std::to_string(jump_interval_s) + " s");
    std::unique_ptr<PlayedStream> played = play(clip, jump_interval_s);
    ASSERT_NE(played, nullptr);
    BinarySearchSampler sampler(clip);
    ASSERT_EQ(sampler.scalar_value_count(), played->player->scalar_value_count());
    std::vector<Transform> player_pose(bones), baseline_pose(bones), bones_only_pose(bones);
    std::vector<float> player_values(sampler.scalar_value_count()), baseline_values(sampler.scalar_value_count());
    for (float t : test_times(clip.frame_count)) {
      played->player->sample_frame(t, player_pose, player_values);
      sampler.sample_frame(t, baseline_pose, baseline_values);
      ASSERT_TRUE(same_bits(player_pose, baseline_pose)) << "at frame time " << t;
      ASSERT_EQ(std::memcmp(player_values.data(), baseline_values.data(), player_values.size() * sizeof(float)), 0)
          << "scalar values at frame time " << t;
      sampler.sample_frame(t, bones_only_pose);
      ASSERT_TRUE(same_bits(baseline_pose, bones_only_pose)) << "bones only at frame time " << t;
    }
  }
}

TEST(BinarySearchSampler, MatchesThePlayersScalarValuesBitForBitOnASkinnedMorphClip) {
  const test::TempDir dir;
  for (const char* interpolation : {"LINEAR", "STEP", "CUBICSPLINE"}) {
    SCOPED_TRACE(interpolation);
    test::MorphFileOptions options;
    options.interpolation = interpolation;
    const fs::path path = dir / (std::string(interpolation) + ".gltf");
    test::write_skinned_morph_file(path, options);
    const FittedClip clip = fit_file(path, kMaxFrameCount);
    ASSERT_EQ(clip.scalars.size(), 3u);
    expect_scalars_same_as_player(clip);
  }
}

TEST(BinarySearchSampler, MatchesThePlayersScalarValuesBitForBitOnAnimatedMorphCube) {
  if (!fs::exists(kMorphCube)) GTEST_SKIP() << kMorphCube << " is not there";
  const FittedClip clip = fit_file(kMorphCube, kMaxFrameCount);
  ASSERT_EQ(clip.scalars.size(), 2u);
  expect_scalars_same_as_player(clip);
}

// The bones-only call reads the bones' keys alone, as it did before scalar
// tracks; with values, four more per animated scalar track.
TEST(BinarySearchSampler, ReadsTheScalarTracksKeysOnlyWhenAskedForTheirValues) {
  const test::TempDir dir;
  const fs::path path = dir / "morph.gltf";
  test::write_skinned_morph_file(path);
  const FittedClip clip = fit_file(path, kMaxFrameCount);
  ASSERT_FALSE(clip.scalars.empty());
  auto animated = [&](size_t first, size_t end) {
    return static_cast<size_t>(std::count_if(clip.tracks.begin() + static_cast<std::ptrdiff_t>(first),
                                             clip.tracks.begin() + static_cast<std::ptrdiff_t>(end),
                                             [](const FittedTrack& t) { return t.coding == TrackCoding::kAnimated; }));
  };
  const size_t bone_tracks = animated(0, clip.bone_track_count());
  const size_t scalar_tracks = animated(clip.bone_track_count(), clip.tracks.size());
  ASSERT_GT(scalar_tracks, 0u);
  BinarySearchSampler sampler(clip);
  EXPECT_EQ(sampler.bone_count(), clip.parents.size());
  EXPECT_EQ(sampler.scalar_value_count(), clip.scalars.size());  // one float each: morph weights
  std::vector<Transform> pose(clip.parents.size());
  std::vector<float> values(sampler.scalar_value_count());
  sampler.sample_frame(2.5f, pose);
  EXPECT_EQ(sampler.counters().keys_read, 4 * bone_tracks);
  sampler.reset_counters();
  sampler.sample_frame(2.5f, pose, values);
  EXPECT_EQ(sampler.counters().keys_read, 4 * (bone_tracks + scalar_tracks));
  EXPECT_EQ(sampler.counters().track_lookups, bone_tracks + scalar_tracks);
}

}  // namespace
}  // namespace ks
