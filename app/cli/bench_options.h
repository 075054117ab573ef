#pragma once
// The options of `keystream bench`: what to measure, on which clips, at
// which tolerances, and how long to time.

#include <algorithm>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "bench/bench_report.h"
#include "keystream/runtime/segment_lanes.h"

namespace ks::cli {

extern const char* const kBenchHelp;

/// A clip to measure: a file and, for glTF, which animation ("" = choose).
struct ClipChoice {
  std::filesystem::path path;
  std::string animation;
};

struct BenchOptions {
  std::vector<ClipChoice> clips;
  bool all_animations = false;
  bool rate_distortion = true;
  bool timing = true;
  bool crowd = true;
  std::string json_path;
  std::vector<float> tolerances_m = bench::default_tolerances_m();  // the sweep
  float shell_distance_m = 0.03f;
  RestTracks rest_tracks = RestTracks::kKeep;  // --rest-tracks: every rate-distortion line's
  float tolerance_m = 1e-4f;  // each clip's last line, unless named below
  std::vector<std::pair<std::string, float>> clip_tolerances_m;  // table name, metres
  bench::TimingSettings timing_settings;
  bench::CrowdSettings crowd_settings;
  std::vector<ClipChoice> crowd_clips;
  unsigned jobs = std::max(1u, std::thread::hardware_concurrency());
  bool log = false;
  std::optional<SimdLevel> simd;  // --simd: the player's kernels for the whole run
};

/// Parses the command line of `keystream bench` into `o`; 0 when it can
/// run, else the exit code (2 for a bad option, 1 for a missing file), with
/// a message naming the option already printed.
int parse_bench_options(const std::vector<std::string_view>& raw, BenchOptions& o);

}  // namespace ks::cli
