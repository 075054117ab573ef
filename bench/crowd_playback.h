#pragma once
// The x42 crowd playback measurement (issue 7): a crowd of characters playing
// looping clips at different phases, played four ways, counting the keys read
// and the interpolation state updates of each:
//   (a) the binary-search baseline, every animated track looked up every
//       frame (constant and identity tracks are a stored value, as for the player);
//   (b) one Player per character, stream without jump frames;
//   (c) the same with jump frames ("start points");
//   (d) shared caches: one PlayerPool per clip over the stream with jump frames.
// Every way decodes the same poses bit for bit; a checksum per row shows it.
// The players read the stream for every seek (no key cache): the counts are
// the stream's reading, which a key cache would replace for small clips.
// Counts, not times: the Google Benchmark timings call run() in a loop.
//
// (d) plays a clip's characters latest time first. In ascending order one
// player would be dragged forward across the whole crowd in the first frame,
// and every later frame the character furthest behind would find nothing at
// or before its time but a fresh player, which sweeps the clip again: on a
// long, dense clip (CMU 01_01, 120 Hz) that read 1.5x the keys of (c) over
// 556 frames. Latest first, a player moved forward for one character never
// passes a character still to come, so characters at the same time still
// share a player (the second reads nothing) and a character whose clip just
// looped still finds the player another left near the loop start.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "keystream/codec/fit.h"
#include "keystream/runtime/result.h"
#include "keystream/runtime/stream_view.h"

namespace ks::bench {

struct CrowdSettings {
  uint32_t characters = 56;     // characters in the crowd; character i plays clip i % clips; default 56
  uint32_t game_frames = 556;   // frames of game time played; default 556
  float game_rate_hz = 60.f;    // game frames per second (clips keep their own rates); default 60 Hz
  float jump_interval_s = 1.f;  // seconds between jump frames of variants (c) and (d); 0 = none; default 1
  uint32_t seed = 42;           // of the phases (std::mt19937); default 42
  /// Every character of a clip starts at the phase its first character drew,
  /// as a group spawned together; default false (a phase each).
  bool same_phase = false;

  /// Refuses no characters, no game frames, a rate that is not a positive
  /// finite number, a negative or non-finite jump interval; names the field.
  Status validate() const;
};

/// A clip the crowd plays, under the name the tables show.
struct CrowdClip {
  std::string name;
  FittedClip fitted;
};

/// The four ways of playing the crowd, in table order.
enum class CrowdVariant : uint8_t {
  kBinarySearch,             // (a) BinarySearchSampler per clip
  kPlayerPerCharacter,       // (b) Player per character, no jump frames
  kPlayerPerCharacterJumps,  // (c) Player per character, jump frames
  kSharedPlayers,            // (d) PlayerPool per clip, jump frames
};
inline constexpr CrowdVariant kCrowdVariants[] = {CrowdVariant::kBinarySearch, CrowdVariant::kPlayerPerCharacter,
                                                  CrowdVariant::kPlayerPerCharacterJumps, CrowdVariant::kSharedPlayers};

/// The row label, e.g. "(c) player per character, jump frames".
const char* to_string(CrowdVariant variant);

/// One clip of the crowd as the table describes it.
struct CrowdClipInfo {
  std::string name;
  uint32_t bones = 0;
  uint32_t tracks = 0;  // 3 per bone
  uint32_t animated_tracks = 0;  // tracks with keys, which the baseline looks up (not constant or identity)
  uint32_t keys = 0;    // keys of all tracks
  uint32_t frame_count = 0;
  float sample_rate_hz = 0.f;
  uint32_t characters = 0;                      // characters playing it
  size_t stream_bytes_without_jump_frames = 0;  // the stream of (b)
  size_t stream_bytes = 0;                      // the stream of (c) and (d), with jump frames
};

/// What one way of playing did over the whole crowd and every game frame.
/// Players count the keys their constructor reads (the initial keys), so a
/// fresh player and a restart cost the same.
struct CrowdRow {
  CrowdVariant variant = CrowdVariant::kBinarySearch;
  const char* label = "";
  uint64_t keys_read = 0;      // (a) 4 per track lookup (animated tracks); players: PlayerCounters::keys_read
  uint64_t state_updates = 0;  // (a) track lookups (animated tracks); players: PlayerCounters::window_updates
  uint64_t jump_frames_used = 0;
  uint64_t restarts = 0;
  uint32_t caches = 0;         // state kept between frames: (a) none, (b)(c) a player per character, (d) players used
  size_t cache_bytes = 0;      // those caches' objects and what they own ((d): every pool, whole capacity)
  uint64_t pose_checksum = 0;  // FNV-1a over every character's pose bytes, every game frame, in character order
};

/// Every row, and the clips they played.
struct CrowdResult {
  CrowdSettings settings;
  std::vector<CrowdClipInfo> clips;
  std::vector<CrowdRow> rows;    // one per variant, in kCrowdVariants order
  bool poses_identical = false;  // every row's pose_checksum is the same
};

/// The crowd's streams and each character's frame time at every game frame,
/// prepared once; run() plays the whole crowd one way.
class CrowdSimulation {
 public:
  /// Packs every clip with and without jump frames and draws the phases.
  /// Refuses invalid settings, no clips, or a clip pack refuses (naming it).
  static Result<CrowdSimulation> create(std::vector<CrowdClip> clips, const CrowdSettings& settings);

  /// Plays every character for settings().game_frames frames. Deterministic:
  /// the same row every call. Allocates only that run's players, samplers and
  /// poses, and prints nothing, so a timing benchmark can call it in a loop.
  CrowdRow run(CrowdVariant variant) const;
  /// Every variant in kCrowdVariants order; poses_identical when all four
  /// checksums agree.
  CrowdResult run_all() const;

  const std::vector<CrowdClipInfo>& clips() const { return m_infos; }
  const CrowdSettings& settings() const { return m_settings; }
  /// The clip character `character` plays: character % clip count.
  uint32_t clip_of(uint32_t character) const { return character % static_cast<uint32_t>(m_clips.size()); }
  /// The game frame its loop starts from at game frame 0.
  uint32_t phase_game_frames(uint32_t character) const { return m_phases[character]; }
  /// Its frame time (frames of its clip) at `game_frame`: the looping
  /// Player's frame_time_at((phase + game_frame) / game_rate_hz); every
  /// variant samples this.
  float frame_time(uint32_t character, uint32_t game_frame) const {
    return m_frame_times[size_t{game_frame} * m_settings.characters + character];
  }
  /// The streams of clip `clip`, with and without jump frames.
  const StreamView& stream(uint32_t clip) const { return m_clips[clip].with_jumps; }
  const StreamView& stream_without_jump_frames(uint32_t clip) const { return m_clips[clip].without_jumps; }

  CrowdSimulation(CrowdSimulation&&) noexcept = default;
  CrowdSimulation& operator=(CrowdSimulation&&) noexcept = default;
  // The views borrow the bytes: a copy's views would point into the original.
  CrowdSimulation(const CrowdSimulation&) = delete;
  CrowdSimulation& operator=(const CrowdSimulation&) = delete;

 private:
  /// A clip's streams; the views borrow the byte vectors, whose buffers stay
  /// put when the struct moves.
  struct PreparedClip {
    FittedClip fitted;  // for the baseline sampler
    std::vector<uint8_t> bytes_without_jumps;
    std::vector<uint8_t> bytes_with_jumps;
    StreamView without_jumps;
    StreamView with_jumps;
    uint32_t characters = 0;
  };

  CrowdSimulation() = default;
  CrowdRow run_baseline() const;
  CrowdRow run_player_per_character(bool jump_frames) const;
  CrowdRow run_shared_players() const;

  CrowdSettings m_settings;
  std::vector<PreparedClip> m_clips;
  std::vector<CrowdClipInfo> m_infos;
  std::vector<uint32_t> m_phases;    // per character, game frames
  std::vector<float> m_frame_times;  // per game frame, per character
  /// Per game frame, the characters grouped by clip (clip 0's first) and in
  /// descending frame time within a clip: the order variant (d) plays them.
  std::vector<uint32_t> m_shared_order;
  std::vector<size_t> m_pose_offsets;  // per character, its first bone in a run's pose buffer
  size_t m_pose_size = 0;              // bones of every character
};

/// Runs every variant; poses_identical when all four checksums agree.
Result<CrowdResult> simulate_crowd(std::vector<CrowdClip> clips, const CrowdSettings& settings);

/// The crowd's clips from `files`: every animation whose name contains "idle"
/// (any case), imported and fitted with default FitSettings, named
/// "file name:animation". Empty when no file has one; an error names a file
/// that does not import.
Result<std::vector<CrowdClip>> idle_clips(const std::vector<std::filesystem::path>& files);

}  // namespace ks::bench
