// The x42 crowd measurement: its settings refuse what makes no crowd; the
// baseline reads exactly four keys per track per character per frame; the
// per-character rows equal players simulated one by one here; jump frames
// and shared players never read more; and all four ways decode the same
// poses. On both demo animations, and on the shared idle clips when present.

#include "bench/crowd_playback.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <random>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "keystream/io/import.h"
#include "keystream/runtime/player.h"
#include "keystream/runtime/player_pool.h"

namespace ks::bench {
namespace {

namespace fs = std::filesystem;

const fs::path kDemo = fs::path(KS_ASSETS_DIR) / "demo_walk.glb";

// Both demo animations (walk, then idle), fitted once for the whole file.
const std::vector<CrowdClip>& demo_clips() {
  static const std::vector<CrowdClip> clips = [] {
    std::vector<CrowdClip> result;
    Result<ImportedClip> walk = import_clip(kDemo);
    EXPECT_TRUE(walk.ok()) << walk.error();
    if (!walk.ok()) return result;
    Result<FittedClip> fitted = fit_clip(walk.value().skeleton, walk.value().clip, FitSettings{});
    EXPECT_TRUE(fitted.ok()) << fitted.error();
    if (!fitted.ok()) return result;
    result.push_back(CrowdClip{"walk", std::move(fitted.value())});
    Result<std::vector<CrowdClip>> idle = idle_clips({kDemo});
    EXPECT_TRUE(idle.ok()) << idle.error();
    if (idle.ok()) {
      for (CrowdClip& clip : idle.value()) result.push_back(std::move(clip));
    }
    return result;
  }();
  return clips;
}

// The shared clips with an idle animation that are present.
std::vector<fs::path> shared_idle_files() {
  std::vector<fs::path> files;
  for (const char* name : {"robot.glb", "greenman.glb"}) {
    const fs::path path = fs::path(KS_CLIPS_DIR) / name;
    if (fs::exists(path)) files.push_back(path);
  }
  return files;
}

// Their idle animations, fitted once; empty when the shared clips are absent.
const std::vector<CrowdClip>& shared_idle_clips() {
  static const std::vector<CrowdClip> clips = [] {
    Result<std::vector<CrowdClip>> idle = idle_clips(shared_idle_files());
    EXPECT_TRUE(idle.ok()) << idle.error();
    return idle.ok() ? std::move(idle.value()) : std::vector<CrowdClip>{};
  }();
  return clips;
}

CrowdSimulation create_or_die(const std::vector<CrowdClip>& clips, const CrowdSettings& settings) {
  Result<CrowdSimulation> sim = CrowdSimulation::create(clips, settings);
  EXPECT_TRUE(sim.ok()) << sim.error();
  if (!sim.ok()) std::abort();  // the callers check clips and settings first
  return std::move(sim.value());
}

// FNV-1a (64 bits), as the rows' checksums are documented.
uint64_t fnv1a(uint64_t hash, std::span<const Transform> pose) {
  for (const std::byte b : std::as_bytes(pose)) {
    hash ^= static_cast<uint64_t>(b);
    hash *= 1099511628211ull;
  }
  return hash;
}

// What the crowd costs played the plainest way: each character alone, its
// own looping Player driven by Player::sample in seconds.
struct AlonePlayers {
  uint64_t keys_read = 0;
  uint64_t window_updates = 0;
  uint64_t restarts = 0;
  uint64_t jump_frames_used = 0;
  uint64_t pose_checksum = 0;
  std::vector<uint64_t> keys_read_per_character;
};

AlonePlayers play_each_character_alone(const CrowdSimulation& sim, bool jump_frames) {
  const CrowdSettings& settings = sim.settings();
  std::vector<Player> players;
  std::vector<std::vector<Transform>> poses;
  for (uint32_t i = 0; i < settings.characters; ++i) {
    const uint32_t clip = sim.clip_of(i);
    // Reading the stream, as the simulation's players do (no key cache).
    players.emplace_back(jump_frames ? sim.stream(clip) : sim.stream_without_jump_frames(clip), 0);
    players.back().set_looping(true);
    poses.emplace_back(sim.stream(clip).bone_count());
  }
  AlonePlayers alone;
  alone.pose_checksum = 14695981039346656037ull;
  for (uint32_t k = 0; k < settings.game_frames; ++k) {
    for (uint32_t i = 0; i < settings.characters; ++i) {
      const float t_s = static_cast<float>((sim.phase_game_frames(i) + double{1.0} * k) / settings.game_rate_hz);
      EXPECT_EQ(players[i].frame_time_at(t_s), sim.frame_time(i, k)) << "character " << i << " game frame " << k;
      players[i].sample(t_s, poses[i]);
      alone.pose_checksum = fnv1a(alone.pose_checksum, poses[i]);
    }
  }
  for (const Player& player : players) {
    alone.keys_read += player.counters().keys_read;
    alone.window_updates += player.counters().window_updates;
    alone.restarts += player.counters().restarts;
    alone.jump_frames_used += player.counters().jump_frames_used;
    alone.keys_read_per_character.push_back(player.counters().keys_read);
  }
  return alone;
}

// Times the loop of character `character` wraps during the crowd's run.
uint32_t loop_wraps(const CrowdSimulation& sim, uint32_t character) {
  uint32_t wraps = 0;
  for (uint32_t k = 1; k < sim.settings().game_frames; ++k) {
    wraps += sim.frame_time(character, k) < sim.frame_time(character, k - 1) ? 1 : 0;
  }
  return wraps;
}

// Every claim of the measurement, on one crowd.
void check_crowd(const std::vector<CrowdClip>& clips, const CrowdSettings& settings) {
  const CrowdSimulation sim = create_or_die(clips, settings);
  ASSERT_EQ(sim.clips().size(), clips.size());
  const CrowdRow a = sim.run(CrowdVariant::kBinarySearch);
  const CrowdRow b = sim.run(CrowdVariant::kPlayerPerCharacter);
  const CrowdRow c = sim.run(CrowdVariant::kPlayerPerCharacterJumps);
  const CrowdRow d = sim.run(CrowdVariant::kSharedPlayers);

  // (a): four keys of every animated track of every character, every frame
  // (a constant or identity track is its stored value, looked up never).
  uint64_t track_lookups = 0;
  for (uint32_t i = 0; i < settings.characters; ++i) {
    track_lookups += uint64_t{settings.game_frames} * sim.clips()[sim.clip_of(i)].animated_tracks;
  }
  ASSERT_GT(track_lookups, 0u);
  EXPECT_EQ(a.keys_read, 4 * track_lookups);
  EXPECT_EQ(a.state_updates, track_lookups);
  EXPECT_EQ(a.caches, 0u);

  // The same poses, and the ones each character decodes alone.
  const AlonePlayers alone = play_each_character_alone(sim, false);
  EXPECT_EQ(a.pose_checksum, alone.pose_checksum);
  EXPECT_EQ(b.pose_checksum, alone.pose_checksum);
  EXPECT_EQ(c.pose_checksum, alone.pose_checksum);
  EXPECT_EQ(d.pose_checksum, alone.pose_checksum);

  // (b) and (c): exactly the characters played alone.
  EXPECT_EQ(b.keys_read, alone.keys_read);
  EXPECT_EQ(b.state_updates, alone.window_updates);
  EXPECT_EQ(b.restarts, alone.restarts);
  EXPECT_EQ(b.jump_frames_used, 0u);
  const AlonePlayers alone_with_jumps = play_each_character_alone(sim, true);
  EXPECT_EQ(c.keys_read, alone_with_jumps.keys_read);
  EXPECT_EQ(c.state_updates, alone_with_jumps.window_updates);
  EXPECT_EQ(c.restarts, alone_with_jumps.restarts);
  EXPECT_EQ(c.jump_frames_used, alone_with_jumps.jump_frames_used);
  EXPECT_EQ(b.caches, settings.characters);
  EXPECT_EQ(c.caches, settings.characters);
  EXPECT_GT(b.cache_bytes, 0u);

  // Jump frames never cost keys; shared players never cost keys or updates.
  EXPECT_LE(c.keys_read, b.keys_read);
  EXPECT_LE(d.keys_read, c.keys_read);
  EXPECT_LE(d.state_updates, c.state_updates);
  EXPECT_LE(d.caches, settings.characters);
  EXPECT_GE(d.caches, std::min<uint32_t>(settings.characters, static_cast<uint32_t>(clips.size())));
  // Players read far fewer keys than the baseline: without jump frames a
  // player reads each key of its clip once per pass through the loop (the
  // first pass from frame 0 to the phase and on to the end; a new pass at
  // each wrap), where the baseline reads 4 keys per animated track per frame.
  uint64_t passes_bound = 0;
  for (uint32_t i = 0; i < settings.characters; ++i) {
    passes_bound += uint64_t{loop_wraps(sim, i) + 1} * sim.clips()[sim.clip_of(i)].keys;
  }
  EXPECT_LE(b.keys_read, passes_bound);
  EXPECT_LT(b.keys_read, a.keys_read / 5);

  // Deterministic: a second run gives the same row.
  const CrowdRow again = sim.run(CrowdVariant::kSharedPlayers);
  EXPECT_EQ(again.keys_read, d.keys_read);
  EXPECT_EQ(again.state_updates, d.state_updates);
  EXPECT_EQ(again.caches, d.caches);
  EXPECT_EQ(again.pose_checksum, d.pose_checksum);
}

TEST(CrowdPlaybackSettings, DefaultsAreTheX42Crowd) {
  const CrowdSettings settings;
  EXPECT_TRUE(settings.validate().ok());
  EXPECT_EQ(settings.characters, 56u);
  EXPECT_EQ(settings.game_frames, 556u);
  EXPECT_EQ(settings.game_rate_hz, 60.f);
  EXPECT_EQ(settings.jump_interval_s, 1.f);
  EXPECT_FALSE(settings.same_phase);
}

TEST(CrowdPlaybackSettings, RefusesWhatMakesNoCrowdNamingTheField) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  struct Case {
    CrowdSettings settings;
    const char* field;
  };
  std::vector<Case> cases;
  auto add = [&cases](const char* field, auto change) {
    CrowdSettings settings;
    change(settings);
    cases.push_back({settings, field});
  };
  add("characters", [](CrowdSettings& s) { s.characters = 0; });
  add("game_frames", [](CrowdSettings& s) { s.game_frames = 0; });
  add("game_rate_hz", [](CrowdSettings& s) { s.game_rate_hz = 0.f; });
  add("game_rate_hz", [](CrowdSettings& s) { s.game_rate_hz = -60.f; });
  add("game_rate_hz", [nan](CrowdSettings& s) { s.game_rate_hz = nan; });
  add("game_rate_hz", [inf](CrowdSettings& s) { s.game_rate_hz = inf; });
  add("jump_interval_s", [](CrowdSettings& s) { s.jump_interval_s = -1.f; });
  add("jump_interval_s", [nan](CrowdSettings& s) { s.jump_interval_s = nan; });
  add("jump_interval_s", [inf](CrowdSettings& s) { s.jump_interval_s = inf; });
  for (const Case& bad : cases) {
    const Status status = bad.settings.validate();
    ASSERT_FALSE(status.ok()) << bad.field;
    EXPECT_NE(status.error().find(bad.field), std::string::npos) << status.error();
    // create() refuses them too, before any packing.
    const Result<CrowdSimulation> sim = CrowdSimulation::create({}, bad.settings);
    ASSERT_FALSE(sim.ok());
    EXPECT_NE(sim.error().find(bad.field), std::string::npos) << sim.error();
  }
  // No jump frames is a valid choice.
  CrowdSettings none;
  none.jump_interval_s = 0.f;
  EXPECT_TRUE(none.validate().ok());
}

TEST(CrowdPlayback, RefusesACrowdWithoutClips) {
  const Result<CrowdSimulation> sim = CrowdSimulation::create({}, CrowdSettings{});
  ASSERT_FALSE(sim.ok());
  EXPECT_NE(sim.error().find("no clips"), std::string::npos) << sim.error();
  EXPECT_FALSE(simulate_crowd({}, CrowdSettings{}).ok());
}

TEST(CrowdPlayback, IdleClipsAreTheAnimationsNamedIdle) {
  Result<std::vector<CrowdClip>> demo = idle_clips({kDemo});
  ASSERT_TRUE(demo.ok()) << demo.error();
  ASSERT_EQ(demo.value().size(), 1u);  // "idle", not "walk"
  EXPECT_EQ(demo.value()[0].name, "demo_walk.glb:idle");
  EXPECT_GT(demo.value()[0].fitted.frame_count, 1u);

  const Result<std::vector<CrowdClip>> missing = idle_clips({fs::path(KS_ASSETS_DIR) / "no_such_clip.glb"});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().find("no_such_clip.glb"), std::string::npos) << missing.error();
  const Result<std::vector<CrowdClip>> nothing = idle_clips({});
  ASSERT_TRUE(nothing.ok());
  EXPECT_TRUE(nothing.value().empty());

  if (shared_idle_files().size() < 2) GTEST_SKIP() << "shared clips not in " << KS_CLIPS_DIR;
  std::vector<std::string> names;
  for (const CrowdClip& clip : shared_idle_clips()) names.push_back(clip.name);
  EXPECT_EQ(names, (std::vector<std::string>{"robot.glb:Robot_Idle", "greenman.glb:1_idle"}));
  // A file without an idle animation gives none.
  const fs::path fox = fs::path(KS_CLIPS_DIR) / "Fox.glb";
  if (fs::exists(fox)) {
    const Result<std::vector<CrowdClip>> none = idle_clips({fox});
    ASSERT_TRUE(none.ok()) << none.error();
    EXPECT_TRUE(none.value().empty());
  }
}

TEST(CrowdPlayback, DescribesEveryClipAndSplitsTheCharactersAmongThem) {
  ASSERT_EQ(demo_clips().size(), 2u);
  CrowdSettings settings;
  settings.characters = 5;
  settings.game_frames = 10;
  const CrowdSimulation sim = create_or_die(demo_clips(), settings);
  ASSERT_EQ(sim.clips().size(), 2u);
  EXPECT_EQ(sim.clips()[0].name, "walk");
  EXPECT_EQ(sim.clips()[0].characters, 3u);  // characters 0, 2, 4
  EXPECT_EQ(sim.clips()[1].characters, 2u);
  for (uint32_t c = 0; c < 2; ++c) {
    const CrowdClipInfo& info = sim.clips()[c];
    const FittedClip& fitted = demo_clips()[c].fitted;
    EXPECT_EQ(info.bones, fitted.parents.size());
    EXPECT_EQ(info.tracks, fitted.tracks.size());
    const auto animated = std::count_if(fitted.tracks.begin(), fitted.tracks.end(),
                                        [](const FittedTrack& t) { return t.coding == TrackCoding::kAnimated; });
    EXPECT_EQ(info.animated_tracks, static_cast<uint32_t>(animated));
    EXPECT_GT(info.animated_tracks, 0u);
    EXPECT_LT(info.animated_tracks, info.tracks);  // the demo's scales are constant
    EXPECT_EQ(info.keys, fitted.key_count());
    EXPECT_EQ(info.frame_count, fitted.frame_count);
    EXPECT_EQ(info.sample_rate_hz, fitted.sample_rate_hz);
    // Jump frames cost bytes; the streams are the ones described.
    EXPECT_GT(info.stream_bytes, info.stream_bytes_without_jump_frames);
    EXPECT_EQ(info.stream_bytes, sim.stream(c).bytes().size());
    EXPECT_EQ(info.stream_bytes_without_jump_frames, sim.stream_without_jump_frames(c).bytes().size());
    EXPECT_GT(sim.stream(c).jump_frames().size(), 0u);
    EXPECT_EQ(sim.stream_without_jump_frames(c).jump_frames().size(), 0u);
  }
  for (uint32_t i = 0; i < 5; ++i) EXPECT_EQ(sim.clip_of(i), i % 2);
}

TEST(CrowdPlayback, PhasesAreWholeGameFramesDrawnOverTheLoop) {
  const CrowdSettings settings;
  const CrowdSimulation sim = create_or_die(demo_clips(), settings);
  // The documented rule: raw mt19937 output scaled to the loop's game frames.
  std::mt19937 rng(settings.seed);
  std::set<uint32_t> distinct;
  for (uint32_t i = 0; i < settings.characters; ++i) {
    const CrowdClipInfo& clip = sim.clips()[sim.clip_of(i)];
    const uint64_t loop_game_frames = static_cast<uint64_t>(
        std::lround(static_cast<double>(clip.frame_count - 1) / clip.sample_rate_hz * settings.game_rate_hz));
    EXPECT_LT(sim.phase_game_frames(i), loop_game_frames);
    EXPECT_EQ(sim.phase_game_frames(i), (uint64_t{rng()} * loop_game_frames) >> 32);
    distinct.insert(sim.phase_game_frames(i));
  }
  EXPECT_GT(distinct.size(), settings.characters / 2);
  // Another seed, other phases.
  CrowdSettings other = settings;
  other.seed = 43;
  const CrowdSimulation reseeded = create_or_die(demo_clips(), other);
  uint32_t differ = 0;
  for (uint32_t i = 0; i < settings.characters; ++i) {
    differ += reseeded.phase_game_frames(i) != sim.phase_game_frames(i) ? 1 : 0;
  }
  EXPECT_GT(differ, settings.characters / 2);
}

TEST(CrowdPlayback, OnTheDemoClipEveryWayDecodesTheSamePosesAndSharingReadsLeast) {
  ASSERT_EQ(demo_clips().size(), 2u);
  check_crowd(demo_clips(), CrowdSettings{});
  // One clip only, and fewer characters than clips (the second clip idle).
  check_crowd({demo_clips()[1]}, CrowdSettings{});
  CrowdSettings one;
  one.characters = 1;
  one.game_frames = 300;
  check_crowd(demo_clips(), one);
}

TEST(CrowdPlayback, OnTheSharedIdleClipsEveryWayDecodesTheSamePosesAndSharingReadsLeast) {
  if (shared_idle_clips().size() < 2) GTEST_SKIP() << "shared idle clips not in " << KS_CLIPS_DIR;
  check_crowd(shared_idle_clips(), CrowdSettings{});
  CrowdSettings other;
  other.seed = 7;
  other.jump_interval_s = 0.25f;
  check_crowd(shared_idle_clips(), other);
}

TEST(CrowdPlayback, SimulateCrowdRunsEveryVariantInTableOrder) {
  CrowdSettings settings;
  settings.game_frames = 120;
  const Result<CrowdResult> result = simulate_crowd(demo_clips(), settings);
  ASSERT_TRUE(result.ok()) << result.error();
  ASSERT_EQ(result.value().rows.size(), 4u);
  for (size_t r = 0; r < 4; ++r) {
    EXPECT_EQ(result.value().rows[r].variant, kCrowdVariants[r]);
    EXPECT_STREQ(result.value().rows[r].label, to_string(kCrowdVariants[r]));
  }
  EXPECT_TRUE(result.value().poses_identical);
  EXPECT_EQ(result.value().clips.size(), 2u);
  EXPECT_EQ(result.value().settings.game_frames, 120u);
}

// Keys one character of each clip reads when it plays alone from its own
// PlayerPool of `capacity` players: the group's pool, minus the group.
uint64_t one_character_per_clip_through_pools(const CrowdSimulation& sim, uint32_t capacity) {
  uint64_t keys_read = 0;
  for (uint32_t c = 0; c < sim.clips().size(); ++c) {
    PlayerPool pool(sim.stream(c), capacity, 0);  // reading the stream, as the simulation does
    std::vector<Transform> pose(sim.stream(c).bone_count());
    for (uint32_t k = 0; k < sim.settings().game_frames; ++k) {
      const float frame_time = sim.frame_time(c, k);  // character c is the first of clip c
      pool.acquire(frame_time).sample_frame(frame_time, pose);
    }
    keys_read += pool.counters().keys_read;
  }
  return keys_read;
}

// A group spawned together: the characters after the first of each clip
// read nothing.
void check_same_phase(const std::vector<CrowdClip>& clips) {
  CrowdSettings settings;
  settings.same_phase = true;
  settings.characters = 10 * static_cast<uint32_t>(clips.size());
  const CrowdSimulation sim = create_or_die(clips, settings);
  const uint32_t clip_count = static_cast<uint32_t>(clips.size());
  for (uint32_t i = clip_count; i < settings.characters; ++i) {
    EXPECT_EQ(sim.phase_game_frames(i), sim.phase_game_frames(i % clip_count));
  }
  const CrowdRow shared = sim.run(CrowdVariant::kSharedPlayers);
  EXPECT_EQ(shared.keys_read, one_character_per_clip_through_pools(sim, 10));

  // Against one Player per clip: equal up to the first loop wrap. After it
  // the pool reads less: when the group comes back to the loop's end it
  // finds the player it left there a loop earlier, where a lone player
  // reads those keys again.
  const AlonePlayers alone = play_each_character_alone(sim, true);
  EXPECT_EQ(shared.pose_checksum, alone.pose_checksum);
  uint64_t one_character_per_clip = 0;
  uint32_t players_needed = 0;  // a fresh player at each wrap (instead of a restart), and the first
  for (uint32_t c = 0; c < clip_count; ++c) {
    one_character_per_clip += alone.keys_read_per_character[c];
    players_needed += loop_wraps(sim, c) + 1;
  }
  EXPECT_LE(shared.keys_read, one_character_per_clip);
  EXPECT_LE(shared.caches, players_needed);

  uint32_t first_wrap = settings.game_frames;
  for (uint32_t c = 0; c < clip_count; ++c) {
    for (uint32_t k = 1; k < settings.game_frames && k < first_wrap; ++k) {
      if (sim.frame_time(c, k) < sim.frame_time(c, k - 1)) first_wrap = k;
    }
  }
  CrowdSettings before_wrap = settings;
  before_wrap.game_frames = first_wrap;  // every clip plays within one loop
  const CrowdSimulation unwrapped = create_or_die(clips, before_wrap);
  const AlonePlayers alone_unwrapped = play_each_character_alone(unwrapped, true);
  uint64_t one_unwrapped = 0;
  for (uint32_t c = 0; c < clip_count; ++c) one_unwrapped += alone_unwrapped.keys_read_per_character[c];
  const CrowdRow shared_unwrapped = unwrapped.run(CrowdVariant::kSharedPlayers);
  EXPECT_EQ(shared_unwrapped.keys_read, one_unwrapped);
  EXPECT_EQ(shared_unwrapped.caches, clip_count);
}

TEST(CrowdPlayback, CharactersAtOnePhaseReadTheKeysOfOne) {
  check_same_phase(demo_clips());
  if (shared_idle_clips().size() < 2) GTEST_SKIP() << "shared idle clips not in " << KS_CLIPS_DIR;
  check_same_phase(shared_idle_clips());
}

}  // namespace
}  // namespace ks::bench
