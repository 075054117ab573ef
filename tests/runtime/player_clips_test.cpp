// The player on every clip of the shared developer set (every animation of
// every file) and on the demo clip, through the whole pipeline: fit with the
// default settings, pack with a jump frame every second, open, play. At every
// frame (and half frame) the pose is the fitted curves' value bit for bit,
// and seeking in random order gives the same bits as playing forward.

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "keystream/io/import.h"
#include "keystream/runtime/player.h"
#include "tests/runtime/stream_test_support.h"

namespace ks {
namespace {

namespace fs = std::filesystem;

// The clip files: every glTF and BVH file of KS_CLIPS_DIR, then the demo clip.
std::vector<std::string> clip_files() {
  std::vector<std::string> files;
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(KS_CLIPS_DIR, error)) {
    const std::string ext = entry.path().extension().string();
    if (ext == ".glb" || ext == ".gltf" || ext == ".bvh") files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  files.push_back(std::string(KS_ASSETS_DIR) + "/demo_walk.glb");
  return files;
}

void check_animation(const fs::path& path, const ImportedClip& source, int animation) {
  SCOPED_TRACE(source.clip.name + " (" + std::to_string(source.skeleton.bone_count()) + " bones, " +
               std::to_string(source.clip.frame_count) + " frames)");
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  const FittedClip fitted = test::fit_or_fail(source.skeleton, source.clip, threads);
  ASSERT_FALSE(fitted.tracks.empty());
  const std::vector<uint8_t> bytes = test::pack_or_fail(fitted, 1.f);
  const Result<StreamView> opened = StreamView::open(bytes, path.string().c_str());
  ASSERT_TRUE(opened.ok()) << opened.error();
  const StreamView& view = opened.value();

  // Forward: every frame and half frame against the fitted curves.
  std::vector<float> times;
  for (uint32_t f = 0; f <= view.last_frame(); ++f) {
    times.push_back(static_cast<float>(f));
    if (f < view.last_frame()) times.push_back(static_cast<float>(f) + 0.5f);
  }
  std::vector<Transform> poses(times.size() * view.bone_count());
  // Forward play reading the stream, and staging keys from the key cache:
  // a clip's whose keys fit the default limit, and every clip's with a
  // limit that fits it (the mocap takes hold more than 65,535 keys in all).
  // (Small clips fit the default limit: no third run for them.)
  std::vector<size_t> cache_sizes = {0, Player::kDefaultKeyCacheBytes};
  if (KeyCache::bytes_for(view) > Player::kDefaultKeyCacheBytes) cache_sizes.push_back(KeyCache::bytes_for(view));
  for (const size_t cache_bytes : cache_sizes) {
    Player forward(view, cache_bytes);
    for (size_t i = 0; i < times.size(); ++i) {
      const std::span<Transform> pose(poses.data() + i * view.bone_count(), view.bone_count());
      forward.sample_frame(times[i], pose);
      ASSERT_TRUE(test::matches_fitted(fitted, pose, times[i])) << (forward.caches_keys() ? "(key cache)" : "");
    }
    EXPECT_EQ(forward.counters().keys_read, view.total_key_count());
    EXPECT_EQ(forward.counters().jump_frames_used, 0u);
  }

  // Seeks at random times, both ways: reading the stream, and from the key
  // cache.
  for (const size_t cache_bytes : cache_sizes) {
    std::mt19937 rng(static_cast<uint32_t>(animation) + 17u);
    Player seeker(view, cache_bytes);
    // (A clip without animated tracks, a pose, has no key to cache.)
    EXPECT_EQ(seeker.caches_keys(), view.animated_track_count() > 0 && cache_bytes >= KeyCache::bytes_for(view));
    std::vector<Transform> pose(view.bone_count());
    for (int i = 0; i < 300; ++i) {
      const size_t at = rng() % times.size();
      seeker.sample_frame(times[at], pose);
      ASSERT_TRUE(std::equal(pose.begin(), pose.end(),
                             poses.begin() + static_cast<std::ptrdiff_t>(at * view.bone_count()),
                             [](const Transform& a, const Transform& b) { return std::memcmp(&a, &b, sizeof a) == 0; }))
          << "seek to frame time " << times[at] << (seeker.caches_keys() ? " (key cache)" : "");
    }
  }
}

class PlayerOnClip : public ::testing::TestWithParam<std::string> {};

TEST_P(PlayerOnClip, EveryAnimationPlaysTheFittedCurvesAndSeeksExactly) {
  const fs::path path = GetParam();
  if (!fs::exists(path)) GTEST_SKIP() << path << " is not there";
  const Result<ImportedClip> first = import_clip(path);
  ASSERT_TRUE(first.ok()) << first.error();
  const int animations = std::max<int>(1, static_cast<int>(first.value().animation_names.size()));
  for (int a = 0; a < animations; ++a) {
    SCOPED_TRACE("animation " + std::to_string(a));
    if (a == 0) {
      check_animation(path, first.value(), a);
    } else {
      ImportSettings settings;
      settings.animation_index = a;
      const Result<ImportedClip> imported = import_clip(path, settings);
      ASSERT_TRUE(imported.ok()) << imported.error();
      check_animation(path, imported.value(), a);
    }
    if (HasFatalFailure()) return;
  }
}

INSTANTIATE_TEST_SUITE_P(Clips, PlayerOnClip, ::testing::ValuesIn(clip_files()),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                           std::string name = fs::path(param.param).stem().string();
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace ks
