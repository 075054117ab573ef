#include "bench/crowd_playback.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <numeric>
#include <random>
#include <span>
#include <thread>
#include <utility>

#include "keystream/codec/binary_search_sampler.h"
#include "keystream/codec/pack.h"
#include "keystream/io/import.h"
#include "keystream/runtime/player.h"
#include "keystream/runtime/player_pool.h"
#include "keystream/runtime/transform.h"

namespace ks::bench {

namespace {

constexpr uint64_t kFnvOffsetBasis = 14695981039346656037ull;
constexpr uint64_t kFnvPrime = 1099511628211ull;

// FNV-1a over the bytes of `poses`: Transform is plain floats, so equal bytes
// mean bit-identical poses.
uint64_t fnv1a(uint64_t hash, std::span<const Transform> poses) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(poses.data());
  for (size_t i = 0; i < poses.size_bytes(); ++i) {
    hash ^= bytes[i];
    hash *= kFnvPrime;
  }
  return hash;
}

bool contains_idle(const std::string& name) {
  std::string lower = name;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower.find("idle") != std::string::npos;
}

}  // namespace

Status CrowdSettings::validate() const {
  if (characters == 0) return Error{"crowd settings: characters must be at least 1"};
  if (game_frames == 0) return Error{"crowd settings: game_frames must be at least 1"};
  if (!std::isfinite(game_rate_hz) || !(game_rate_hz > 0.f)) {
    return Error{"crowd settings: game_rate_hz must be a positive number of frames per second, not " +
                 std::to_string(game_rate_hz)};
  }
  if (!std::isfinite(jump_interval_s) || jump_interval_s < 0.f) {
    return Error{"crowd settings: jump_interval_s must be 0 (none) or a positive number of seconds, not " +
                 std::to_string(jump_interval_s)};
  }
  return {};
}

const char* to_string(CrowdVariant variant) {
  switch (variant) {
    case CrowdVariant::kBinarySearch: return "(a) binary search per track";
    case CrowdVariant::kPlayerPerCharacter: return "(b) player per character";
    case CrowdVariant::kPlayerPerCharacterJumps: return "(c) player per character, jump frames";
    case CrowdVariant::kSharedPlayers: return "(d) shared players per clip";
  }
  return "?";
}

Result<CrowdSimulation> CrowdSimulation::create(std::vector<CrowdClip> clips, const CrowdSettings& settings) {
  if (Status valid = settings.validate(); !valid) return Error{valid.error()};
  if (clips.empty()) return Error{"crowd: no clips to play"};

  CrowdSimulation sim;
  sim.m_settings = settings;
  const uint32_t clip_count = static_cast<uint32_t>(clips.size());
  sim.m_clips.reserve(clip_count);
  for (uint32_t c = 0; c < clip_count; ++c) {
    CrowdClip& clip = clips[c];
    PreparedClip prepared;
    PackSettings pack_settings;
    pack_settings.source_name = clip.name;
    pack_settings.jump_interval_s = 0.f;
    Result<std::vector<uint8_t>> without = pack(clip.fitted, pack_settings);
    if (!without) return Error{"crowd clip '" + clip.name + "': " + without.error()};
    pack_settings.jump_interval_s = settings.jump_interval_s;
    Result<std::vector<uint8_t>> with = pack(clip.fitted, pack_settings);
    if (!with) return Error{"crowd clip '" + clip.name + "': " + with.error()};
    prepared.bytes_without_jumps = std::move(without.value());
    prepared.bytes_with_jumps = std::move(with.value());
    Result<StreamView> view_without = StreamView::open(prepared.bytes_without_jumps, clip.name.c_str());
    if (!view_without) return Error{"crowd clip '" + clip.name + "': " + view_without.error()};
    Result<StreamView> view_with = StreamView::open(prepared.bytes_with_jumps, clip.name.c_str());
    if (!view_with) return Error{"crowd clip '" + clip.name + "': " + view_with.error()};
    prepared.without_jumps = std::move(view_without.value());
    prepared.with_jumps = std::move(view_with.value());
    prepared.characters = settings.characters / clip_count + (c < settings.characters % clip_count ? 1 : 0);

    CrowdClipInfo info;
    info.name = clip.name;
    info.bones = prepared.with_jumps.bone_count();
    info.tracks = static_cast<uint32_t>(prepared.with_jumps.tracks().size());
    info.animated_tracks = prepared.with_jumps.animated_track_count();
    info.keys = prepared.with_jumps.total_key_count();
    info.frame_count = prepared.with_jumps.frame_count();
    info.sample_rate_hz = prepared.with_jumps.sample_rate_hz();
    info.characters = prepared.characters;
    info.stream_bytes_without_jump_frames = prepared.bytes_without_jumps.size();
    info.stream_bytes = prepared.bytes_with_jumps.size();
    sim.m_infos.push_back(std::move(info));

    prepared.fitted = std::move(clip.fitted);
    sim.m_clips.push_back(std::move(prepared));
  }

  // Phases: a whole game frame drawn uniformly over the clip's loop, from the
  // generator's raw output (std distributions differ between libraries).
  const uint32_t characters = settings.characters;
  std::mt19937 rng(settings.seed);
  sim.m_phases.resize(characters);
  for (uint32_t i = 0; i < characters; ++i) {
    const StreamView& stream = sim.m_clips[i % clip_count].with_jumps;
    const double loop_s = static_cast<double>(stream.last_frame()) / double{stream.sample_rate_hz()};
    const double loop_game_frames = std::round(loop_s * double{settings.game_rate_hz});
    // At most 2^32 choices, so that the product below fits 64 bits.
    const uint64_t choices = static_cast<uint64_t>(std::clamp(loop_game_frames, 1.0, 4294967296.0));
    const uint32_t drawn = static_cast<uint32_t>((uint64_t{rng()} * choices) >> 32);
    sim.m_phases[i] = settings.same_phase && i >= clip_count ? sim.m_phases[i % clip_count] : drawn;
  }

  // Frame times by the looping player's rule, shared by every variant so the
  // baseline samples exactly what the players sample.
  std::vector<Player> clocks;
  clocks.reserve(clip_count);
  for (const PreparedClip& prepared : sim.m_clips) {
    clocks.emplace_back(prepared.with_jumps, 0);
    clocks.back().set_looping(true);
  }
  sim.m_frame_times.resize(size_t{settings.game_frames} * characters);
  for (uint32_t k = 0; k < settings.game_frames; ++k) {
    for (uint32_t i = 0; i < characters; ++i) {
      const double game_frame = static_cast<double>(sim.m_phases[i]) + static_cast<double>(k);
      const double t_s = game_frame / double{settings.game_rate_hz};
      sim.m_frame_times[size_t{k} * characters + i] = clocks[i % clip_count].frame_time_at(static_cast<float>(t_s));
    }
  }

  // Variant (d)'s order: by clip, then latest frame time first (then
  // character). A player moved forward for one character then never passes
  // the time of a character still to come this frame (see the header).
  sim.m_shared_order.resize(sim.m_frame_times.size());
  for (uint32_t k = 0; k < settings.game_frames; ++k) {
    const std::span<uint32_t> order(sim.m_shared_order.data() + size_t{k} * characters, characters);
    std::iota(order.begin(), order.end(), 0u);
    const float* times = sim.m_frame_times.data() + size_t{k} * characters;
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      if (a % clip_count != b % clip_count) return a % clip_count < b % clip_count;
      if (times[a] != times[b]) return times[a] > times[b];
      return a < b;
    });
  }

  sim.m_pose_offsets.resize(characters);
  for (uint32_t i = 0; i < characters; ++i) {
    sim.m_pose_offsets[i] = sim.m_pose_size;
    sim.m_pose_size += sim.m_clips[i % clip_count].with_jumps.bone_count();
  }
  return sim;
}

CrowdRow CrowdSimulation::run(CrowdVariant variant) const {
  CrowdRow row;
  switch (variant) {
    case CrowdVariant::kBinarySearch: row = run_baseline(); break;
    case CrowdVariant::kPlayerPerCharacter: row = run_player_per_character(false); break;
    case CrowdVariant::kPlayerPerCharacterJumps: row = run_player_per_character(true); break;
    case CrowdVariant::kSharedPlayers: row = run_shared_players(); break;
  }
  row.variant = variant;
  row.label = to_string(variant);
  return row;
}

CrowdRow CrowdSimulation::run_baseline() const {
  std::vector<BinarySearchSampler> samplers;
  samplers.reserve(m_clips.size());
  for (const PreparedClip& clip : m_clips) samplers.emplace_back(clip.fitted);
  std::vector<Transform> poses(m_pose_size);
  const uint32_t characters = m_settings.characters;
  uint64_t checksum = kFnvOffsetBasis;
  for (uint32_t k = 0; k < m_settings.game_frames; ++k) {
    for (uint32_t i = 0; i < characters; ++i) {
      const std::span<Transform> pose(poses.data() + m_pose_offsets[i], samplers[clip_of(i)].bone_count());
      samplers[clip_of(i)].sample_frame(frame_time(i, k), pose);
    }
    checksum = fnv1a(checksum, poses);
  }
  CrowdRow row;
  for (const BinarySearchSampler& sampler : samplers) {
    row.keys_read += sampler.counters().keys_read;
    row.state_updates += sampler.counters().track_lookups;
  }
  // The sampler keeps nothing between frames: its key arrays are the clip.
  row.pose_checksum = checksum;
  return row;
}

CrowdRow CrowdSimulation::run_player_per_character(bool jump_frames) const {
  const uint32_t characters = m_settings.characters;
  // Constructed here so their initial keys count, as a pool player's do.
  std::vector<Player> players;
  players.reserve(characters);
  for (uint32_t i = 0; i < characters; ++i) {
    const PreparedClip& clip = m_clips[clip_of(i)];
    players.emplace_back(jump_frames ? clip.with_jumps : clip.without_jumps, 0);
  }
  std::vector<Transform> poses(m_pose_size);
  uint64_t checksum = kFnvOffsetBasis;
  for (uint32_t k = 0; k < m_settings.game_frames; ++k) {
    for (uint32_t i = 0; i < characters; ++i) {
      const std::span<Transform> pose(poses.data() + m_pose_offsets[i], players[i].stream().bone_count());
      players[i].sample_frame(frame_time(i, k), pose);
    }
    checksum = fnv1a(checksum, poses);
  }
  CrowdRow row;
  for (const Player& player : players) {
    row.keys_read += player.counters().keys_read;
    row.state_updates += player.counters().window_updates;
    row.jump_frames_used += player.counters().jump_frames_used;
    row.restarts += player.counters().restarts;
    row.cache_bytes += sizeof(Player) + player.memory_bytes();
  }
  row.caches = characters;
  row.pose_checksum = checksum;
  return row;
}

CrowdRow CrowdSimulation::run_shared_players() const {
  const uint32_t characters = m_settings.characters;
  std::vector<PlayerPool> pools;
  pools.reserve(m_clips.size());
  for (const PreparedClip& clip : m_clips) {
    // A clip nobody plays gets no pool (a pool holds at least one player).
    // Only the last clips can be unplayed (fewer characters than clips), so
    // pools[c] is still clip c's pool for every clip played.
    if (clip.characters > 0) pools.emplace_back(clip.with_jumps, clip.characters, 0);
  }
  std::vector<Transform> poses(m_pose_size);
  uint64_t checksum = kFnvOffsetBasis;
  for (uint32_t k = 0; k < m_settings.game_frames; ++k) {
    // m_shared_order groups the characters by clip, in clip order.
    const uint32_t* order = m_shared_order.data() + size_t{k} * characters;
    for (uint32_t j = 0; j < characters; ++j) {
      const uint32_t i = order[j];
      PlayerPool& pool = pools[clip_of(i)];
      const float t = frame_time(i, k);
      const std::span<Transform> pose(poses.data() + m_pose_offsets[i], pool.stream().bone_count());
      pool.acquire(t).sample_frame(t, pose);
    }
    checksum = fnv1a(checksum, poses);
  }
  CrowdRow row;
  for (const PlayerPool& pool : pools) {
    const PlayerCounters counters = pool.counters();
    row.keys_read += counters.keys_read;
    row.state_updates += counters.window_updates;
    row.jump_frames_used += counters.jump_frames_used;
    row.restarts += counters.restarts;
    row.caches += pool.players_used();
    row.cache_bytes += pool.memory_bytes();
  }
  row.pose_checksum = checksum;
  return row;
}

CrowdResult CrowdSimulation::run_all() const {
  CrowdResult result;
  result.settings = m_settings;
  result.clips = m_infos;
  for (CrowdVariant variant : kCrowdVariants) result.rows.push_back(run(variant));
  result.poses_identical = std::all_of(result.rows.begin(), result.rows.end(), [&](const CrowdRow& row) {
    return row.pose_checksum == result.rows.front().pose_checksum;
  });
  return result;
}

Result<CrowdResult> simulate_crowd(std::vector<CrowdClip> clips, const CrowdSettings& settings) {
  Result<CrowdSimulation> sim = CrowdSimulation::create(std::move(clips), settings);
  if (!sim) return Error{sim.error()};
  return sim.value().run_all();
}

Result<std::vector<CrowdClip>> idle_clips(const std::vector<std::filesystem::path>& files) {
  std::vector<CrowdClip> clips;
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());  // same fit, sooner
  for (const std::filesystem::path& file : files) {
    Result<ImportedClip> first = import_clip(file);
    if (!first) return Error{first.error()};
    // A BVH file has one take and no animation names: go by the clip's name.
    std::vector<std::string> names = first.value().animation_names;
    if (names.empty()) names.push_back(first.value().clip.name);
    for (size_t a = 0; a < names.size(); ++a) {
      if (!contains_idle(names[a])) continue;
      Result<ImportedClip> imported = first;
      if (static_cast<int>(a) != first.value().animation_index) {
        ImportSettings settings;
        settings.animation_index = static_cast<int>(a);
        imported = import_clip(file, settings);
        if (!imported) return Error{imported.error()};
      }
      Result<FittedClip> fitted = fit_clip(imported.value().skeleton, imported.value().clip, FitSettings{}, threads);
      if (!fitted) return Error{file.string() + " animation '" + names[a] + "': " + fitted.error()};
      clips.push_back(CrowdClip{file.filename().string() + ":" + names[a], std::move(fitted.value())});
    }
  }
  return clips;
}

}  // namespace ks::bench
