// The pool hands out the player closest at or before the wanted time (or the
// least recently used when all are ahead), never more players than it holds,
// and its players decode exactly what a fresh Player decodes. On the demo
// clip's idle animation, fitted and packed with a jump frame every second.

#include "keystream/runtime/player_pool.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <vector>

#include "keystream/io/import.h"
#include "tests/runtime/stream_test_support.h"

namespace ks {
namespace {

// The pools' players read the stream for every seek (no key cache): these
// tests count that reading.
// The demo clip's idle stream, packed once for every test of this file.
struct DemoStream {
  std::vector<uint8_t> bytes;
  StreamView view;
};

const StreamView& demo_stream() {
  static const DemoStream* stream = [] {
    auto* demo = new DemoStream;
    ImportSettings settings;
    settings.animation_name = "idle";  // 181 frames: long enough for several jump frames
    Result<ImportedClip> imported = import_clip(KS_ASSETS_DIR "/demo_walk.glb", settings);
    EXPECT_TRUE(imported.ok()) << imported.error();
    if (!imported.ok()) return demo;
    const FittedClip fitted = test::fit_or_fail(imported.value().skeleton, imported.value().clip);
    demo->bytes = test::pack_or_fail(fitted, 1.f);
    Result<StreamView> view = StreamView::open(demo->bytes, "demo_walk.glb");
    EXPECT_TRUE(view.ok()) << view.error();
    if (view.ok()) demo->view = std::move(view.value());
    return demo;
  }();
  return stream->view;
}

class PlayerPoolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    view = &demo_stream();
    ASSERT_GT(view->bone_count(), 0u) << "the demo clip did not pack";
    // The tests below need a clip long enough for jump frames and keys due
    // throughout.
    ASSERT_GE(view->last_frame(), 90u);
    ASSERT_GT(view->jump_interval_frames(), 0u);
    pose.resize(view->bone_count());
  }

  // Acquires for `frame_time` and samples, as a character does.
  Player& play(PlayerPool& pool, float frame_time) {
    Player& player = pool.acquire(frame_time);
    player.sample_frame(frame_time, pose);
    return player;
  }

  const StreamView* view = nullptr;
  std::vector<Transform> pose;
};

TEST_F(PlayerPoolTest, HandsOutTheFreshPlayerFirstAndKeepsItWhileTimeMovesForward) {
  PlayerPool pool(*view, 3, 0);
  EXPECT_EQ(pool.capacity(), 3u);
  EXPECT_EQ(pool.players_used(), 0u);
  Player& first = play(pool, 10.f);
  EXPECT_EQ(pool.players_used(), 1u);
  EXPECT_EQ(&play(pool, 40.f), &first);
  EXPECT_EQ(&play(pool, 40.5f), &first);
  EXPECT_EQ(pool.players_used(), 1u);
}

TEST_F(PlayerPoolTest, HandsOutThePlayerWithTheMostKeysReadAtOrBeforeTheTime) {
  PlayerPool pool(*view, 3, 0);
  Player& ahead = play(pool, 80.f);
  ASSERT_GT(ahead.valid_from_frame(), 50u);  // so frames 50 and before need another player
  Player& behind = play(pool, 20.f);
  ASSERT_NE(&behind, &ahead);
  Player& early = play(pool, 5.f);
  ASSERT_NE(&early, &behind);
  ASSERT_NE(&early, &ahead);
  ASSERT_LT(early.cursor_key_index(), behind.cursor_key_index());
  // Frame 50: `behind` (20) and `early` (5) are at or before it, `ahead` is
  // not; `behind` has read more.
  EXPECT_EQ(&pool.acquire(50.f), &behind);
  // Frame 10: only `early` is at or before it.
  ASSERT_GT(behind.valid_from_frame(), 10u);
  EXPECT_EQ(&pool.acquire(10.f), &early);
  // Past the end, clamped to the last frame: `ahead` is the closest.
  EXPECT_EQ(&pool.acquire(1e9f), &ahead);
}

// The same rule checked against the players' own state on random times.
TEST_F(PlayerPoolTest, EveryHandOutIsTheClosestAtOrBeforeOrTheLeastRecentlyUsed) {
  PlayerPool pool(*view, 4, 0);
  std::mt19937 rng(11);
  std::map<const Player*, uint64_t> handed_out_at;  // the players seen, and when last handed out
  for (uint64_t call = 1; call <= 400; ++call) {
    const float frame_time = static_cast<float>(rng() % (10 * view->frame_count())) / 10.f;
    const uint32_t frame = static_cast<uint32_t>(std::fmin(frame_time, static_cast<float>(view->last_frame())));
    Player& player = pool.acquire(frame_time);
    if (player.valid_from_frame() <= frame) {
      for (const auto& [seen, at] : handed_out_at) {
        if (seen->valid_from_frame() <= frame) {
          EXPECT_GE(player.cursor_key_index(), seen->cursor_key_index());
        }
      }
      // A fresh player (cursor 0) is handed out only when nothing seen qualifies better.
    } else {
      // Nothing at or before: every player is in use, and this is the least recent.
      EXPECT_EQ(handed_out_at.size(), 4u);
      const auto chosen = handed_out_at.find(&player);
      ASSERT_NE(chosen, handed_out_at.end());
      for (const auto& [seen, at] : handed_out_at) {
        EXPECT_GT(seen->valid_from_frame(), frame);
        if (seen != &player) {
          EXPECT_LT(chosen->second, at);
        }
      }
    }
    handed_out_at[&player] = call;
    player.sample_frame(frame_time, pose);
  }
  EXPECT_EQ(pool.players_used(), handed_out_at.size());
}

TEST_F(PlayerPoolTest, ASecondCharacterAtTheSameTimeReadsNoKeys) {
  PlayerPool pool(*view, 2, 0);
  play(pool, 33.25f);
  const PlayerCounters before = pool.counters();
  ASSERT_GT(before.keys_read, 0u);
  Player& second = play(pool, 33.25f);
  EXPECT_EQ(pool.counters().keys_read, before.keys_read);
  EXPECT_EQ(pool.counters().window_updates, before.window_updates);
  EXPECT_EQ(pool.players_used(), 1u);
  EXPECT_EQ(&pool.acquire(33.25f), &second);
}

TEST_F(PlayerPoolTest, ATimeBehindEveryPlayerTakesTheLeastRecentlyUsed) {
  PlayerPool pool(*view, 2, 0);
  Player& a = play(pool, 100.f);
  ASSERT_GT(a.valid_from_frame(), 50u);
  Player& b = play(pool, 50.f);
  ASSERT_NE(&a, &b);
  EXPECT_EQ(&play(pool, 150.f), &a);  // b was handed out before a's latest
  ASSERT_GT(b.valid_from_frame(), 20u);
  ASSERT_GT(a.valid_from_frame(), 20u);
  ASSERT_LT(20u, view->jump_interval_frames());
  const uint64_t restarts = b.counters().restarts;
  EXPECT_EQ(&play(pool, 20.f), &b);
  // Frame 20 is before the first jump frame: b's own seek restarted it.
  EXPECT_EQ(b.counters().restarts, restarts + 1);
  EXPECT_EQ(pool.players_used(), 2u);
  // Now a is the least recently used.
  ASSERT_GT(b.valid_from_frame(), 0u);
  EXPECT_EQ(&play(pool, 0.f), &a);
}

TEST_F(PlayerPoolTest, NeverHandsOutMorePlayersThanItHolds) {
  for (uint32_t capacity : {1u, 2u, 5u}) {
    PlayerPool pool(*view, capacity, 0);
    std::mt19937 rng(capacity);
    std::set<const Player*> players;
    for (int i = 0; i < 300; ++i) {
      players.insert(&play(pool, static_cast<float>(rng() % view->frame_count())));
    }
    EXPECT_EQ(players.size(), capacity);  // random times spread enough to need them all
    EXPECT_EQ(pool.players_used(), capacity);
    EXPECT_EQ(pool.capacity(), capacity);
  }
}

TEST_F(PlayerPoolTest, PosesAreBitIdenticalToAFreshPlayers) {
  PlayerPool pool(*view, 3, 0);
  std::mt19937 rng(7);
  std::vector<Transform> expected(view->bone_count());
  // Five characters looping at different phases and speeds, visited in a
  // random order each game frame.
  float times[5] = {0.f, 17.f, 60.5f, 61.f, 150.f};
  const float speeds[5] = {0.5f, 0.5f, 1.f, 0.25f, 2.f};
  const float loop = static_cast<float>(view->last_frame());
  for (int frame = 0; frame < 200; ++frame) {
    for (int i = 0; i < 5; ++i) {
      const int c = static_cast<int>(rng() % 5);
      Player& player = play(pool, times[c]);
      Player fresh(*view);
      fresh.sample_frame(times[c], expected);
      ASSERT_TRUE(test::same_bits(pose, expected))
          << "frame time " << times[c] << " from player at cursor " << player.cursor_key_index();
    }
    for (int c = 0; c < 5; ++c) times[c] = std::fmod(times[c] + speeds[c], loop);
  }
  EXPECT_GT(pool.players_used(), 1u);
}

TEST_F(PlayerPoolTest, ALoopingWrapPicksAPlayerLeftNearFrameZero) {
  PlayerPool pool(*view, 3, 0);
  Player& looping = play(pool, 100.f);
  ASSERT_GT(looping.valid_from_frame(), 12u);
  Player& near_start = play(pool, 12.f);
  ASSERT_NE(&near_start, &looping);
  // It must hold more than a fresh player, or the choice would be a tie.
  ASSERT_GT(near_start.cursor_key_index(), 0u);
  EXPECT_EQ(&play(pool, static_cast<float>(view->last_frame())), &looping);  // to the loop's end
  const PlayerCounters before = pool.counters();
  EXPECT_EQ(&play(pool, 13.f), &near_start);  // not the fresh third player, not a restart
  EXPECT_EQ(pool.players_used(), 2u);
  EXPECT_EQ(pool.counters().restarts, before.restarts);
  EXPECT_EQ(pool.counters().jump_frames_used, before.jump_frames_used);
}

TEST_F(PlayerPoolTest, SumsTheCountersOfThePlayersHandedOut) {
  PlayerPool pool(*view, 4, 0);
  const Player fresh(*view);
  const uint64_t construction_keys = fresh.counters().keys_read;
  ASSERT_GT(construction_keys, 0u);
  EXPECT_EQ(pool.counters().keys_read, 0u);  // nothing handed out: nothing played
  Player& a = play(pool, 100.f);
  ASSERT_GT(a.valid_from_frame(), 10u);
  Player& b = play(pool, 10.f);
  ASSERT_NE(&a, &b);
  const PlayerCounters sum = pool.counters();
  EXPECT_EQ(sum.keys_read, a.counters().keys_read + b.counters().keys_read);
  EXPECT_EQ(sum.window_updates, a.counters().window_updates + b.counters().window_updates);
  EXPECT_EQ(sum.jump_frames_used, a.counters().jump_frames_used + b.counters().jump_frames_used);
  // b's construction counts: it read its initial keys and then forward to 10.
  EXPECT_GT(b.counters().keys_read, construction_keys);
  pool.reset_counters();
  EXPECT_EQ(pool.counters().keys_read, 0u);
  EXPECT_EQ(pool.counters().window_updates, 0u);
  EXPECT_EQ(pool.players_used(), 2u);
}

TEST_F(PlayerPoolTest, ReportsTheMemoryOfEveryPlayer) {
  const Player fresh(*view, 0);
  PlayerPool pool(*view, 4, 0);
  EXPECT_GE(pool.memory_bytes(), 4 * (sizeof(Player) + fresh.memory_bytes()));
  EXPECT_LT(pool.memory_bytes(), 4 * (sizeof(Player) + fresh.memory_bytes()) + 256);
  EXPECT_EQ(&pool.stream(), view);
}

// With a key cache (the demo's idle fits the default limit) the players
// are copies of the first and share its cache: the pool counts it once,
// and each player still decodes what a player of its own decodes.
TEST_F(PlayerPoolTest, PlayersShareOneKeyCacheCountedOnce) {
  const Player own(*view);
  ASSERT_TRUE(own.caches_keys());
  PlayerPool pool(*view, 4);
  const size_t players = 4 * (sizeof(Player) + own.memory_bytes() - own.key_cache_bytes());
  EXPECT_EQ(pool.memory_bytes(), players + own.key_cache_bytes() + 4 * sizeof(uint64_t));
  Player reference(*view);
  std::vector<Transform> expected(view->bone_count());
  std::mt19937 rng(5);
  for (int i = 0; i < 200; ++i) {
    const float t = std::uniform_real_distribution<float>(0.f, static_cast<float>(view->last_frame()))(rng);
    pool.acquire(t).sample_frame(t, pose);
    reference.sample_frame(t, expected);
    ASSERT_TRUE(test::same_bits(pose, expected)) << "frame time " << t;
  }
  EXPECT_GT(pool.players_used(), 1u);
  const Player& first = pool.acquire(0.f);
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(pool.acquire(0.f).shares_key_cache_with(first));
  EXPECT_FALSE(own.shares_key_cache_with(first));
}

}  // namespace
}  // namespace ks
