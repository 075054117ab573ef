#pragma once
// The timings of `keystream bench` (DESIGN §10): per pose and per bone, the
// Player against the baseline that binary-searches every track
// (BinarySearchSampler), both timed in the same run by Google Benchmark:
//
// - sequential playback, looping, at the clip's own rate and at a game rate
//   (60 Hz: a 120 Hz clip skips frames, a 24 Hz clip samples between them);
// - random seeks (a fixed sequence of random times) with several jump-frame
//   intervals, and with a zstd key stream;
// - each warm (one player sampling over and over: its data stays in L1/L2)
//   and cold (each sample plays the next of many copies of the clip, as a
//   crowd does, so the data comes from L3 or memory, not L1/L2);
// - on a clip with scalar tracks (morph weights, curves), every row samples
//   them too, and two rows per cache state sample the bones only;
// - and the fit of each clip, per clip and per thousand frames.

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "bench/benchmark_runner.h"
#include "keystream/io/import.h"
#include "keystream/runtime/result.h"

namespace ks::bench {

struct TimingSettings {
  // One seek row each, besides the default stream's (the jump interval
  // chosen per clip, as `keystream compress` packs), which the sequential
  // and zstd rows read too.
  std::vector<float> jump_intervals_s = {0.25f, 1.f, 4.f};
  float game_rate_hz = 60.f;         // the second sequential row
  /// Bytes the copies of a cold row span together: far beyond L2, so each
  /// sample starts from data that left the core's private caches.
  size_t cold_working_set_bytes = size_t{64} << 20;
  size_t max_cold_copies = 8192;
  RunSettings run;

  /// Refuses empty or non-positive intervals and rates, a working set under 1 MiB.
  Status validate() const;
};

/// Which cache state a row was timed in.
enum class CacheState : uint8_t { kWarm, kCold };
const char* to_string(CacheState state);

/// What ends the measure of a row that samples a clip's bones and not its
/// scalar tracks.
inline constexpr const char* kBonesOnly = "bones only";
/// What ends the measure of a row that samples a clip's scalar tracks alone
/// (Player::sample_scalars).
inline constexpr const char* kCurvesOnly = "curves only";

/// One row of a clip's sampling table: the player and the baseline at the
/// same times, seconds per pose.
struct SamplingRow {
  std::string measure;      // e.g. "sequential at 60 Hz", "seek, J = 1 s", "seek, zstd, J = 1 s"
  CacheState cache = CacheState::kWarm;
  bool scalars = false;     // the scalar tracks sampled with the bones (a clip with some, but its bones-only rows)
  bool curves_only = false; // the scalar tracks sampled without the bones
  size_t stream_bytes = 0;  // the stream the player read
  size_t copies = 1;        // players (and baselines) cycled through: 1 warm, many cold
  Spread player_s;          // seconds per pose
  Spread baseline_s;
  double player_keys_per_pose = 0.0;
  double baseline_keys_per_pose = 0.0;
  std::string error;        // a case that could not run

  /// Player median / baseline median: below 1 the player is faster.
  double ratio() const { return baseline_s.median > 0.0 ? player_s.median / baseline_s.median : 0.0; }
};

/// Everything timed for one clip.
struct ClipTimings {
  std::string name;
  uint32_t bones = 0;
  uint32_t frames = 0;
  float sample_rate_hz = 0.f;
  size_t keys = 0;
  uint32_t animated_tracks = 0;  // tracks with keys: the baseline looks up these (4 keys each per pose)
  uint32_t scalar_tracks = 0;    // morph weights and user curves (counted in animated_tracks when they have keys)
  uint32_t scalar_values = 0;    // floats of their values per pose (Player::scalar_value_count)
  uint32_t auto_jump_interval_frames = 0;  // what --jump-interval auto chose (0: no jump frames)
  size_t auto_jump_frame_bytes = 0;        // the default stream's jump index and states
  size_t default_stream_bytes = 0;         // the default stream (metadata included)
  size_t default_player_bytes = 0;         // what a Player of it owns (Player::memory_bytes)
  size_t default_key_cache_bytes = 0;      // of those, its key cache (0: it reads the stream)
  Spread open_s;       // StreamView::open of the default stream (the engine's fast check), seconds
  Spread open_full_s;  // the same with StreamCheck::kFull (every key, every jump frame replayed)
  std::vector<SamplingRow> rows;
  Spread fit_s;             // fit + pack on one thread, default settings (0.1 mm at 3 cm), seconds
  Spread local_fit_s;       // the same in local mode (version 1's per-kind thresholds), same run
  std::string error;        // why the clip could not be timed; empty when it was

  double fit_ms_per_1000_frames() const {
    return frames > 0 ? fit_s.median * 1e3 * 1000.0 / frames : 0.0;
  }
  /// Object space over local mode, medians of the same run.
  double fit_ratio_to_local() const { return local_fit_s.median > 0.0 ? fit_s.median / local_fit_s.median : 0.0; }
};

/// A clip to time.
struct TimedClip {
  std::string name;
  const ImportedClip* imported = nullptr;
};

/// Fits and packs every clip (default fit settings), then times them all in
/// one Google Benchmark run. A clip that cannot be prepared gets its error
/// and no rows; the others still run. `log` and `progress`: see run_cases().
std::vector<ClipTimings> time_clips(std::span<const TimedClip> clips, const TimingSettings& settings,
                                    std::ostream* log, std::ostream* progress);

}  // namespace ks::bench
