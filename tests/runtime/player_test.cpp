#include "keystream/runtime/player.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <random>
#include <string>
#include <vector>

#include "keystream/clip/skeleton.h"
#include "keystream/runtime/stream_format.h"
#include "tests/codec/random_clip.h"
#include "tests/runtime/stream_test_support.h"

// Allocation counter for the "no allocation after construction" property:
// the global operator new of the whole test executable counts while
// g_count_allocations is set (only around the calls under test). Every
// non-aligned form of new and delete is replaced, so that each allocation
// meets the matching deallocation (the sanitizers check that); the aligned
// forms stay the library's, a pair of their own.
namespace {
std::atomic<bool> g_count_allocations{false};
std::atomic<size_t> g_allocations{0};

void* counted_malloc(std::size_t size) noexcept {
  if (g_count_allocations.load(std::memory_order_relaxed)) g_allocations.fetch_add(1, std::memory_order_relaxed);
  return std::malloc(size == 0 ? 1 : size);
}
}  // namespace

// GCC inlines these into delete-expressions and then sees free() meet
// operator new; they are a matching pair, as replacements.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
void* operator new(std::size_t size) {
  if (void* p = counted_malloc(size)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) {
  if (void* p = counted_malloc(size)) return p;
  throw std::bad_alloc();
}
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  return counted_malloc(size);
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
  return counted_malloc(size);
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete[](void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::size_t) noexcept {
  std::free(p);
}
void operator delete(void* p, const std::nothrow_t&) noexcept {
  std::free(p);
}
void operator delete[](void* p, const std::nothrow_t&) noexcept {
  std::free(p);
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

namespace ks {
namespace {

using Bytes = std::vector<uint8_t>;
using Pose = std::vector<Transform>;

// A fitted clip, its stream at one jump interval, and the opened view.
struct PackedClip {
  const FittedClip* clip = nullptr;
  float jump_interval_s = 0.f;
  bool zstd = false;
  Bytes bytes;
  StreamView view;
  std::vector<uint32_t> needs;  // need frame of each key of the key stream, sorted

  std::string describe() const {
    return clip->name + " (" + std::to_string(clip->parents.size()) + " bones, " + std::to_string(clip->frame_count) +
           " frames at " + std::to_string(clip->sample_rate_hz) + " Hz), jump interval " +
           std::to_string(jump_interval_s) + " s" + (zstd ? ", zstd key stream" : "");
  }
  // Stream keys needed at or before `frame`.
  uint32_t keys_needed_by(uint32_t frame) const {
    return static_cast<uint32_t>(std::upper_bound(needs.begin(), needs.end(), frame) - needs.begin());
  }
  // Keys a restore of jump frame j decodes: per streamed track, the window's
  // oldest key and the three after it in the run, or (while the window holds
  // an initial key, which the player keeps) the run keys it holds.
  uint64_t saved_keys(uint32_t j) const {
    const uint32_t frame = view.jump_frames()[j].frame;
    uint64_t saved = 0;
    for (uint32_t t = 0; t < clip->tracks.size(); ++t) {
      const std::vector<FittedKey>& keys = clip->tracks[t].keys;
      if (keys.size() <= kInitialKeysPerTrack) continue;
      uint32_t read = kInitialKeysPerTrack;
      while (read < keys.size() && keys[read - 2].frame <= frame) ++read;
      saved += read >= kRestoreFromRunKeys ? kWindowSize : read - kInitialKeysPerTrack;
    }
    return saved;
  }
  uint64_t initial_keys() const {
    uint64_t n = 0;
    for (const FittedTrack& t : clip->tracks) {
      // Constant tracks hold their one key in the track table, not as a key.
      if (t.coding == TrackCoding::kAnimated) n += std::min<size_t>(t.keys.size(), kInitialKeysPerTrack);
    }
    return n;
  }
};

// Packs and opens `clip`; the result's view borrows its own bytes, so it is
// returned through a unique_ptr and never moved.
std::unique_ptr<PackedClip> pack_clip(const FittedClip& clip, float jump_interval_s, bool zstd = false) {
  auto packed = std::make_unique<PackedClip>();
  packed->clip = &clip;
  packed->jump_interval_s = jump_interval_s;
  packed->zstd = zstd;
  packed->bytes = test::pack_or_fail(clip, jump_interval_s, zstd);
  Result<StreamView> view = StreamView::open(packed->bytes);
  EXPECT_TRUE(view.ok()) << view.error();
  if (!view.ok()) return nullptr;
  packed->view = std::move(view.value());
  for (uint32_t t = 0; t < clip.tracks.size(); ++t) {
    const std::vector<FittedKey>& keys = clip.tracks[t].keys;
    for (size_t k = kInitialKeysPerTrack; k < keys.size(); ++k) packed->needs.push_back(keys[k - 2].frame);
  }
  std::sort(packed->needs.begin(), packed->needs.end());
  return packed;
}

// Jump intervals, seconds: none, every frame, 0.25 s, 1 s, 4 s, longer than the clip.
std::vector<float> jump_intervals(const FittedClip& clip) {
  const float duration = static_cast<float>(clip.frame_count - 1) / clip.sample_rate_hz;
  return {0.f, 1.f / clip.sample_rate_hz, 0.25f, 1.f, 4.f, duration + 1.f};
}

// The clips the properties are checked on: random clips fitted with the
// default settings, and random fitted clips made directly (discontinuities
// at frame 0 and at the end, random codes, every bit width).
const std::vector<FittedClip>& property_clips() {
  static const std::vector<FittedClip> clips = [] {
    std::vector<FittedClip> out;
    for (uint32_t seed = 1; seed <= 16; ++seed) {
      const test::RandomClip source = test::make_random_clip(seed);
      out.push_back(test::fit_or_fail(source.skeleton, source.clip));
    }
    for (uint32_t seed = 1; seed <= 24; ++seed) out.push_back(test::make_random_fitted_clip(seed));
    const test::RandomClip wave = test::make_wave_clip(90);
    out.push_back(test::fit_or_fail(wave.skeleton, wave.clip));
    return out;
  }();
  return clips;
}

// Calls `check` for every property clip at every jump interval, with a
// plain key stream and with a zstd one.
template <class Check>
void for_each_packed_clip(Check check) {
  for (const FittedClip& clip : property_clips()) {
    for (const float j : jump_intervals(clip)) {
      for (const bool zstd : {false, true}) {
        const std::unique_ptr<PackedClip> packed = pack_clip(clip, j, zstd);
        ASSERT_TRUE(packed);
        SCOPED_TRACE(packed->describe());
        check(*packed);
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
  }
}

// Frame times played forward: every frame and a random time inside each segment between frames.
std::vector<float> forward_times(const StreamView& view, std::mt19937& rng) {
  std::vector<float> times;
  for (uint32_t f = 0; f <= view.last_frame(); ++f) {
    times.push_back(static_cast<float>(f));
    if (f < view.last_frame()) {
      const float fraction = std::uniform_real_distribution<float>(0.001f, 0.999f)(rng);
      times.push_back(static_cast<float>(f) + fraction);
    }
  }
  return times;
}

// (a) and (b): at every frame and fractional time, the pose is the reference
// evaluation of the fitted tracks, bit for bit; seeking in random order
// (backward and forward) gives the same bits as playing forward.
TEST(PlayerProperty, SeekEqualsForwardPlayAndTheFittedCurves) {
  int cached_clips = 0;
  std::mt19937 rng(1);
  for_each_packed_clip([&](const PackedClip& packed) {
    const StreamView& view = packed.view;
    const std::vector<float> times = forward_times(view, rng);
    std::vector<Pose> poses(times.size(), Pose(view.bone_count()));
    // Forward play reading the stream, and (a small clip) staging keys from the key cache.
    for (const size_t cache_bytes : {size_t{0}, Player::kDefaultKeyCacheBytes}) {
      Player forward(view, cache_bytes);
      for (size_t i = 0; i < times.size(); ++i) {
        forward.sample_frame(times[i], poses[i]);
        ASSERT_TRUE(test::matches_fitted(*packed.clip, poses[i], times[i])) << (forward.caches_keys() ? "(cache)" : "");
      }
    }
    // Seconds that map to a frame give exactly that frame.
    Player by_seconds(view);
    Pose pose(view.bone_count());
    for (size_t i = 0; i < times.size(); i += 2) {
      by_seconds.sample(times[i] / view.sample_rate_hz(), pose);
      ASSERT_TRUE(test::same_bits(pose, poses[i])) << "frame " << times[i] << " sampled in seconds";
    }
    // Seeks reading the stream, and seeks setting the lanes from the key
    // cache (a small clip's; this one's if its keys fit the default limit).
    const bool small = KeyCache::bytes_for(view) <= Player::kDefaultKeyCacheBytes;
    for (const size_t cache_bytes : {size_t{0}, Player::kDefaultKeyCacheBytes}) {
      SCOPED_TRACE(cache_bytes == 0 ? "stream seeks" : "key cache seeks");
      // Random order, twice through, with a seek_frame first half of the
      // time, and now and then play on from there (the cursors it placed).
      std::vector<size_t> order(times.size());
      for (size_t i = 0; i < order.size(); ++i) order[i] = i;
      Player seeker(view, cache_bytes);
      ASSERT_EQ(seeker.caches_keys(), cache_bytes > 0 && small);
      for (int pass = 0; pass < 2; ++pass) {
        std::shuffle(order.begin(), order.end(), rng);
        for (const size_t i : order) {
          if (rng() % 2 == 0) seeker.seek_frame(times[i]);
          seeker.sample_frame(times[i], pose);
          ASSERT_TRUE(test::same_bits(pose, poses[i])) << "seek to frame time " << times[i];
          if (rng() % 4 != 0) continue;
          for (size_t next = i + 1; next < times.size() && next <= i + 6; ++next) {
            seeker.sample_frame(times[next], pose);
            ASSERT_TRUE(test::same_bits(pose, poses[next])) << "play on to frame time " << times[next];
          }
        }
      }
      EXPECT_EQ(seeker.counters().cached_seeks > 0, seeker.caches_keys());
      // Backward, frame by frame.
      Player backward(view, cache_bytes);
      backward.sample_frame(static_cast<float>(view.last_frame()), pose);
      for (size_t i = times.size(); i-- > 0;) {
        backward.sample_frame(times[i], pose);
        ASSERT_TRUE(test::same_bits(pose, poses[i])) << "backward to frame time " << times[i];
      }
    }
    if (small) ++cached_clips;
  });
  // The key cache's seeks were played (the shared clips' tests play clips
  // too large for it).
  EXPECT_GT(cached_clips, 0);
}

// Play in steps of up to Player::kPlayFrameStep frames (lanes due more
// than one key), and play steps (seek_frame) that no evaluation follows
// (keys staged and not yet built when the next step stages more): the
// fitted curves, bit for bit, reading the stream and from the key cache,
// and the same frame the state is valid from and the same stream keys read.
TEST(PlayerProperty, PlaysInStepsOfSeveralFramesAndWithoutSamplingEachStep) {
  int cached_clips = 0;
  for_each_packed_clip([&](const PackedClip& packed) {
    const StreamView& view = packed.view;
    Player reading(view, 0);
    uint64_t reading_window_updates = 0;
    for (const size_t cache_bytes : {size_t{0}, Player::kDefaultKeyCacheBytes}) {
      SCOPED_TRACE(cache_bytes == 0 ? "reading the stream" : "key cache");
      Player stepping(view, cache_bytes);
      Player unsampled(view, cache_bytes);
      if (stepping.caches_keys()) ++cached_clips;
      Pose pose(view.bone_count());
      // A time inside frame f's segment (the last frame itself at the end).
      const auto inside = [&](uint32_t f, float fraction) {
        return std::min(static_cast<float>(f) + fraction, static_cast<float>(view.last_frame()));
      };
      for (uint32_t f = 0; f <= view.last_frame(); f += Player::kPlayFrameStep) {
        stepping.sample_frame(inside(f, 0.25f), pose);
        ASSERT_TRUE(test::matches_fitted(*packed.clip, pose, inside(f, 0.25f))) << "frame " << f;
        if (cache_bytes == 0) continue;
        reading.seek_frame(inside(f, 0.25f));
        EXPECT_EQ(stepping.valid_from_frame(), reading.valid_from_frame()) << "frame " << f;
        EXPECT_EQ(stepping.cursor_key_index(), reading.cursor_key_index()) << "frame " << f;
      }
      for (uint32_t f = 0; f <= view.last_frame(); ++f) {
        if (f % 3 != 2) {
          unsampled.seek_frame(static_cast<float>(f));
          continue;
        }
        unsampled.sample_frame(inside(f, 0.5f), pose);
        ASSERT_TRUE(test::matches_fitted(*packed.clip, pose, inside(f, 0.5f))) << "frame " << f;
      }
      EXPECT_EQ(unsampled.counters().cached_seeks, 0u);
      // A frame a step: a lane takes a key or two, each shifted in.
      if (cache_bytes == 0) reading_window_updates = unsampled.counters().window_updates;
      if (unsampled.caches_keys()) {
        EXPECT_EQ(unsampled.counters().window_updates, reading_window_updates);
      }
    }
  });
  EXPECT_GT(cached_clips, 0);
}

TEST(PlayerProperty, ClampsTimesOutsideTheClip) {
  for_each_packed_clip([&](const PackedClip& packed) {
    const StreamView& view = packed.view;
    Player player(view);
    Pose first(view.bone_count()), last(view.bone_count()), pose(view.bone_count());
    player.sample_frame(0.f, first);
    player.sample_frame(static_cast<float>(view.last_frame()), last);
    for (const float t :
         {-1.f, -1e30f, -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN()}) {
      player.sample(t, pose);
      EXPECT_TRUE(test::same_bits(pose, first)) << t;
      player.sample_frame(t, pose);
      EXPECT_TRUE(test::same_bits(pose, first)) << t;
    }
    for (const float t : {view.duration_s() + 0.01f, 1e30f}) {
      player.sample(t, pose);
      EXPECT_TRUE(test::same_bits(pose, last)) << t;
    }
  });
}

// (c): looping, t and t + duration give the same pose. Exactly for frame
// times; see LoopingIsPeriodicAtFractionalTimes for times between frames.
TEST(PlayerProperty, LoopingRepeatsEveryDuration) {
  for_each_packed_clip([&](const PackedClip& packed) {
    const StreamView& view = packed.view;
    const float duration = view.duration_s();
    Player looping(view);
    looping.set_looping(true);
    EXPECT_TRUE(looping.looping());
    Player plain(view);
    Pose a(view.bone_count()), b(view.bone_count()), expected(view.bone_count());
    for (uint32_t f = 0; f <= view.last_frame(); ++f) {
      const float t = static_cast<float>(f) / view.sample_rate_hz();
      // The clip wraps at its last frame, which shows frame 0.
      plain.sample_frame(static_cast<float>(f == view.last_frame() ? 0 : f), expected);
      for (const float shifted : {t, t + duration, t + 3.f * duration, t - duration}) {
        looping.sample(shifted, b);
        ASSERT_TRUE(test::same_bits(b, expected)) << "frame " << f << " at " << shifted << " s";
      }
      looping.sample(t, a);
      ASSERT_TRUE(test::same_bits(a, expected)) << "frame " << f;
    }
  });
}

// The lane reader reads eight keys per AVX2 instruction, or lane by lane
// (the reference, what a CPU without AVX2 runs and what reads keys near the
// end of the stream or wider than one load): the same bits either way,
// forward and seeking.
TEST(PlayerProperty, EverySimdLevelDecodesTheSameBits) {
  struct LevelGuard {
    ~LevelGuard() { set_simd_level(best_simd_level()); }
  } guard;
  std::mt19937 rng(11);
  for_each_packed_clip([&](const PackedClip& packed) {
    const StreamView& view = packed.view;
    std::vector<float> times;
    for (uint32_t f = 0; f <= view.last_frame(); ++f) times.push_back(static_cast<float>(f) + 0.25f);
    for (int i = 0; i < 40; ++i) {
      times.push_back(std::uniform_real_distribution<float>(0.f, static_cast<float>(view.last_frame()))(rng));
    }
    std::vector<Pose> reference;
    for (const SimdLevel level : {SimdLevel::kScalar, SimdLevel::kSse2, SimdLevel::kAvx2, SimdLevel::kAvx512}) {
      set_simd_level(level);
      if (simd_level() != level) continue;  // a level this CPU does not run
      Player player(view);
      Pose pose(view.bone_count());
      for (size_t i = 0; i < times.size(); ++i) {
        player.sample_frame(times[i], pose);
        if (level == SimdLevel::kScalar) {
          reference.push_back(pose);
        } else {
          ASSERT_TRUE(test::same_bits(pose, reference[i])) << to_string(level) << " at frame time " << times[i];
        }
      }
    }
  });
}

TEST(PlayerProperty, LoopingIsPeriodicAtFractionalTimes) {
  // At 32 Hz with 64 frame steps the duration is 2 s and every time below is
  // exact in binary, so t and t + duration land on the same frame time.
  for (uint32_t seed = 1; seed <= 8; ++seed) {
    FittedClip clip = test::make_random_fitted_clip(seed * 7919u, 3, 80, 65);
    clip.sample_rate_hz = 32.f;
    const std::unique_ptr<PackedClip> packed = pack_clip(clip, 0.5f);
    ASSERT_TRUE(packed);
    ASSERT_EQ(packed->view.duration_s(), 2.f);
    Player looping(packed->view);
    looping.set_looping(true);
    Pose a(packed->view.bone_count()), b(packed->view.bone_count());
    for (uint32_t k = 0; k < 256; ++k) {
      const float t = static_cast<float>(k) / 128.f;  // 0 .. 2 s in 1/4 frame steps
      looping.sample(t, a);
      for (const float shifted : {t + 2.f, t + 6.f, t - 2.f}) {
        looping.sample(shifted, b);
        ASSERT_TRUE(test::same_bits(a, b)) << "seed " << seed << ": " << t << " s and " << shifted << " s";
      }
    }
  }
}

// (d): the counters of forward play, backward seeks and seeks far ahead.
TEST(PlayerProperty, ForwardPlayReadsEveryKeyOnceWithoutJumpFrames) {
  for_each_packed_clip([&](const PackedClip& packed) {
    const StreamView& view = packed.view;
    Player player(view);
    EXPECT_EQ(player.counters().keys_read, packed.initial_keys());  // the constructor reads the initial keys
    Pose pose(view.bone_count());
    for (uint32_t f = 0; f <= view.last_frame(); ++f) {
      player.sample_frame(static_cast<float>(f), pose);
      player.sample_frame(static_cast<float>(f) + 0.5f, pose);
      EXPECT_EQ(player.cursor_key_index(), packed.keys_needed_by(f)) << "frame " << f;
    }
    const PlayerCounters& c = player.counters();
    EXPECT_EQ(c.keys_read, view.total_key_count());
    EXPECT_EQ(c.jump_frames_used, 0u);
    EXPECT_EQ(c.restarts, 0u);
    EXPECT_EQ(c.keys_skipped, 0u);
    EXPECT_EQ(player.cursor_key_index(), view.stream_key_count());
  });
}

TEST(PlayerProperty, BackwardSeekRestoresTheNearestJumpFrame) {
  std::mt19937 rng(3);
  for_each_packed_clip([&](const PackedClip& packed) {
    const StreamView& view = packed.view;
    Player at_end(view, 0);  // the stream's seeks (no key cache)
    Pose pose(view.bone_count());
    for (uint32_t f = 0; f <= view.last_frame(); ++f) at_end.sample_frame(static_cast<float>(f), pose);
    for (int trial = 0; trial < 8; ++trial) {
      const uint32_t frame = static_cast<uint32_t>(rng() % view.frame_count());
      SCOPED_TRACE("seek back to frame " + std::to_string(frame));
      Player player = at_end;
      player.reset_counters();
      player.sample_frame(static_cast<float>(frame), pose);
      const PlayerCounters& c = player.counters();
      const uint32_t needed = packed.keys_needed_by(frame);
      EXPECT_EQ(player.cursor_key_index(), needed);
      EXPECT_EQ(c.keys_skipped, 0u);
      if (frame >= at_end.valid_from_frame()) {
        // Every key this frame needs is read and every final segment it
        // evaluates is taken: the state at the end serves it too.
        EXPECT_EQ(needed, view.stream_key_count());
        EXPECT_EQ(c.keys_read, 0u);
        EXPECT_EQ(c.jump_frames_used + c.restarts, 0u);
        continue;
      }
      const uint32_t interval = view.jump_interval_frames();
      const uint32_t jump =
          interval == 0 ? 0 : std::min<uint32_t>(frame / interval, static_cast<uint32_t>(view.jump_frames().size()));
      if (jump == 0) {
        EXPECT_EQ(c.restarts, 1u);
        EXPECT_EQ(c.jump_frames_used, 0u);
        EXPECT_EQ(c.keys_read, packed.initial_keys() + needed);
      } else {
        const JumpFrame& used = view.jump_frames()[jump - 1];
        EXPECT_LE(used.frame, frame);
        EXPECT_EQ(c.jump_frames_used, 1u);
        EXPECT_EQ(c.restarts, 0u);
        EXPECT_EQ(c.keys_read, packed.saved_keys(jump - 1) + (needed - used.stream_keys_read));
      }
    }
  });
}

TEST(PlayerProperty, SeekFarAheadUsesAJumpFrameAndSkipsKeys) {
  std::mt19937 rng(4);
  int restores = 0, restores_from_inside = 0;
  for_each_packed_clip([&](const PackedClip& packed) {
    const StreamView& view = packed.view;
    Pose pose(view.bone_count());
    for (int trial = 0; trial < 10; ++trial) {
      // From frame 0 (a new player) or from a frame inside the clip, to a later frame.
      const uint32_t from = trial < 4 ? 0 : static_cast<uint32_t>(rng() % view.frame_count());
      const uint32_t to =
          trial == 0 ? view.last_frame() : from + static_cast<uint32_t>(rng() % (view.frame_count() - from));
      SCOPED_TRACE("seek ahead from frame " + std::to_string(from) + " to frame " + std::to_string(to));
      Player player(view, 0);  // the stream's seeks (no key cache)
      player.sample_frame(static_cast<float>(from), pose);
      const uint32_t cursor = packed.keys_needed_by(from);
      ASSERT_EQ(player.cursor_key_index(), cursor);
      player.reset_counters();
      player.sample_frame(static_cast<float>(to), pose);
      const PlayerCounters& c = player.counters();
      const uint32_t needed = packed.keys_needed_by(to);
      EXPECT_EQ(player.cursor_key_index(), needed);
      EXPECT_EQ(c.restarts, 0u);
      const uint32_t interval = view.jump_interval_frames();
      const uint32_t jump =
          interval == 0 ? 0 : std::min<uint32_t>(to / interval, static_cast<uint32_t>(view.jump_frames().size()));
      // A restore pays when it skips more keys than it decodes.
      const uint32_t restore_cost = view.streamed_track_count() * kWindowSize;
      const uint32_t resume = jump > 0 ? view.jump_frames()[jump - 1].stream_keys_read : 0;
      if (needed > cursor && resume > cursor && resume - cursor > restore_cost) {
        EXPECT_EQ(c.jump_frames_used, 1u);
        EXPECT_EQ(c.keys_skipped, resume - cursor);
        EXPECT_EQ(c.keys_read, packed.saved_keys(jump - 1) + (needed - resume));
        EXPECT_LT(c.keys_read, needed - cursor);
        ++(cursor > 0 ? restores_from_inside : restores);
      } else {
        EXPECT_EQ(c.jump_frames_used, 0u);
        EXPECT_EQ(c.keys_skipped, 0u);
        EXPECT_EQ(c.keys_read, needed - cursor);
      }
    }
  });
  // The clips are long and dense enough for seeks to pay.
  EXPECT_GT(restores, 20);
  EXPECT_GT(restores_from_inside, 10);
}

// (e): sampling allocates nothing after construction.
TEST(PlayerProperty, AllocatesNothingAfterConstruction) {
  std::mt19937 rng(5);
  for_each_packed_clip([&](const PackedClip& packed) {
    const StreamView& view = packed.view;
    Pose pose(view.bone_count());
    std::vector<float> times(100);
    for (float& t : times) t = std::uniform_real_distribution<float>(-0.5f, view.duration_s() + 0.5f)(rng);
    Player player(view);
    g_allocations = 0;
    g_count_allocations = true;
    for (uint32_t f = 0; f <= view.last_frame(); ++f) player.sample_frame(static_cast<float>(f), pose);
    for (const float t : times) player.sample(t, pose);
    player.set_looping(true);
    for (const float t : times) player.sample(3.f * t, pose);
    for (uint32_t f = view.last_frame() + 1; f-- > 0;) player.seek_frame(static_cast<float>(f));
    player.reset_counters();
    g_count_allocations = false;
    EXPECT_EQ(g_allocations.load(), 0u);
    // A copy, made before sampling, samples without allocating too (both
    // ways of seeking).
    for (const size_t cache_bytes : {size_t{0}, Player::kDefaultKeyCacheBytes}) {
      const Player original(view, cache_bytes);
      Player copy = original;
      g_allocations = 0;
      g_count_allocations = true;
      for (uint32_t f = 0; f <= view.last_frame(); ++f) copy.sample_frame(static_cast<float>(f), pose);
      for (const float t : times) copy.sample(t, pose);
      g_count_allocations = false;
      EXPECT_EQ(g_allocations.load(), 0u) << "a copy, key cache of " << cache_bytes << " bytes";
    }
  });
  // The counter does count.
  g_allocations = 0;
  g_count_allocations = true;
  void* counted = ::operator new(16);
  g_count_allocations = false;
  ::operator delete(counted);
  EXPECT_EQ(g_allocations.load(), 1u);
}

// (f): the runtime's local_to_model is the offline one.
TEST(PlayerProperty, LocalToModelMatchesTheOfflineSkeleton) {
  std::mt19937 rng(6);
  for (const FittedClip& clip : property_clips()) {
    const std::unique_ptr<PackedClip> packed = pack_clip(clip, 1.f);
    ASSERT_TRUE(packed);
    const StreamView& view = packed->view;
    Skeleton skeleton;
    skeleton.parents = clip.parents;
    Player player(view);
    Pose local(view.bone_count()), model(view.bone_count());
    for (int i = 0; i < 10; ++i) {
      player.sample_frame(std::uniform_real_distribution<float>(0.f, static_cast<float>(view.last_frame()))(rng),
                          local);
      local_to_model(view.parents(), local, model);
      const std::vector<Transform> offline = ks::local_to_model(skeleton, local);
      ASSERT_TRUE(test::same_bits(model, offline)) << clip.name;
    }
  }
}

TEST(Player, ReportsItsMemoryAndStream) {
  for (const FittedClip& clip : property_clips()) {
    SCOPED_TRACE(clip.name);
    const std::unique_ptr<PackedClip> packed = pack_clip(clip, 1.f);
    ASSERT_TRUE(packed);
    const StreamView& view = packed->view;
    const Player player(view);
    EXPECT_EQ(&player.stream(), &view);
    // Only animated tracks have a lane.
    ASSERT_EQ(player.lane_count(), view.animated_track_count());
    // The lanes (rotations and vec3 tracks side by side, in blocks of
    // eight) and a block of cursors each, twice (in play, and as they start
    // before frame 0); per lane its track, initial keys, place among the
    // streamed tracks and room in the lists of lanes waiting for their final
    // segment (in play and at the start); the constant pose; with jump
    // frames, per block where its lanes' saved windows are in a state; per
    // block room for what a play step leaves to the player.
    // With a key cache, the cache, 20 bytes per animated key, where each
    // lane's keys start (one more entry than lanes) and 2 bytes per lane
    // and frame.
    const uint32_t blocks = (view.animated_track_count() + kLanesPerBlock - 1) / kLanesPerBlock;
    const size_t without_cache = 2 * blocks * (sizeof(SegmentLanes) + sizeof(LaneCursors)) +
                                 view.animated_track_count() *
                                     (sizeof(uint32_t) + sizeof(InitialKeys) + sizeof(int32_t) + 2 * sizeof(uint32_t)) +
                                 view.bone_count() * sizeof(Transform) + blocks * sizeof(PlayStepBlock) +
                                 (view.jump_frames().empty() ? 0 : blocks * sizeof(SavedWindowLanes));
    const size_t cache = sizeof(KeyCache) + size_t{view.total_key_count()} * KeyCache::kBytesPerKey +
                         (view.animated_track_count() + 1) * sizeof(uint32_t) +
                         size_t{view.animated_track_count()} * view.frame_count() * KeyCache::kBytesPerLaneFrame;
    EXPECT_EQ(cache - sizeof(KeyCache) - (view.animated_track_count() + 1) * sizeof(uint32_t),
              KeyCache::bytes_for(view));
    const bool fits = KeyCache::bytes_for(view) <= Player::kDefaultKeyCacheBytes;
    EXPECT_EQ(player.caches_keys(), fits);
    EXPECT_EQ(player.memory_bytes(), without_cache + (fits ? cache : 0));
    EXPECT_EQ(Player(view, 0).memory_bytes(), without_cache);
    // The limit is the cache's bytes: one byte short of them, no cache.
    EXPECT_TRUE(Player(view, KeyCache::bytes_for(view)).caches_keys());
    EXPECT_FALSE(Player(view, KeyCache::bytes_for(view) - 1).caches_keys());
  }
}

TEST(PlayerProperty, APoseShorterThanTheSkeletonGetsTheBonesItHasAndNothingPast) {
#ifndef NDEBUG
  GTEST_SKIP() << "a pose shorter than the skeleton is an assert in debug builds (docs/runtime.md)";
#endif
  std::mt19937 rng(12);
  for_each_packed_clip([&](const PackedClip& packed) {
    const StreamView& view = packed.view;
    const size_t bones = view.bone_count();
    Player full_player(view), short_player(view);
    Pose full(bones);
    for (int i = 0; i < 20; ++i) {
      const float t = std::uniform_real_distribution<float>(0.f, static_cast<float>(view.last_frame()))(rng);
      const size_t kept = static_cast<size_t>(rng() % bones);  // 0 .. bones - 1
      // The short pose sits in a longer buffer whose tail must stay as it was.
      Pose buffer(bones + 1);
      for (Transform& x : buffer) x.translation = {-7.f, -7.f, -7.f};
      const Pose before = buffer;
      full_player.sample_frame(t, full);
      short_player.sample_frame(t, std::span<Transform>(buffer.data(), kept));
      for (size_t b = 0; b < buffer.size(); ++b) {
        const Transform& expected = b < kept ? full[b] : before[b];
        ASSERT_EQ(std::memcmp(&buffer[b], &expected, sizeof(Transform)), 0)
            << "bone " << b << " of a pose of " << kept << " at frame time " << t;
      }
    }
  });
}

TEST(Player, ConstantTracksDecodeToTheirValueBitForBit) {
  // Every track constant: nothing animated, the pose is the stored values.
  FittedClip clip = test::make_random_fitted_clip(5);
  for (FittedTrack& track : clip.tracks) {
    track.coding = TrackCoding::kConstant;
    track.quantization = {};
    track.keys.clear();
    const float b = static_cast<float>(track.bone);
    const float values[3][4] = {{0.1f + b, -2.5f, 1e-7f, 0.f}, {0.f, 0.6f, 0.f, 0.8f}, {1.f, 3.f, 0.3f + b, 0.f}};
    std::copy(values[static_cast<int>(track.kind)], values[static_cast<int>(track.kind)] + 4,
              track.quantization.constant);
  }
  clip.tracks[0].coding = TrackCoding::kIdentity;
  std::fill(clip.tracks[0].quantization.constant, clip.tracks[0].quantization.constant + 4, 0.f);
  const std::unique_ptr<PackedClip> packed = pack_clip(clip, 0.25f);
  ASSERT_TRUE(packed);
  Player player(packed->view);
  EXPECT_EQ(player.lane_count(), 0u);
  EXPECT_EQ(packed->view.total_key_count(), 0u);
  Pose pose(packed->view.bone_count());
  for (const float t : {0.f, 0.5f, static_cast<float>(packed->view.last_frame())}) {
    player.sample_frame(t, pose);
    EXPECT_TRUE(test::matches_fitted(clip, pose, t));
    EXPECT_EQ(pose[0].translation.x, 0.f);
    EXPECT_EQ(pose[0].rotation.y, 0.6f);
    EXPECT_EQ(pose[0].translation.z, constant_value(clip.tracks[0])[2]);
  }
  EXPECT_EQ(player.counters().keys_read, 0u);
}

TEST(Player, FrameTimeSnapsToFramesAndWrapsWhenLooping) {
  const std::unique_ptr<PackedClip> packed = pack_clip(property_clips().front(), 1.f);
  ASSERT_TRUE(packed);
  Player player(packed->view);
  const float rate = packed->view.sample_rate_hz();
  const float last = static_cast<float>(packed->view.last_frame());
  for (uint32_t f = 0; f <= packed->view.last_frame(); ++f) {
    EXPECT_EQ(player.frame_time_at(static_cast<float>(f) / rate), static_cast<float>(f));
  }
  EXPECT_EQ(player.frame_time_at(-5.f), 0.f);
  EXPECT_EQ(player.frame_time_at(1e9f), last);
  EXPECT_EQ(player.frame_time_at(std::numeric_limits<float>::quiet_NaN()), 0.f);
  player.set_looping(true);
  EXPECT_EQ(player.frame_time_at(packed->view.duration_s()), 0.f);
  EXPECT_EQ(player.frame_time_at(-1.f / rate), last - 1.f);
}

}  // namespace
}  // namespace ks
