#pragma once
// What `keystream bench` prints and writes: the rate–distortion tables, the
// sampling and seek tables, the fit times and the x42 crowd table, as
// Markdown (so they paste into notes and docs) and as one JSON document for
// scripts that plot or compare runs.

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "bench/crowd_playback.h"
#include "bench/rate_distortion.h"
#include "bench/sampling_benchmarks.h"

namespace ks::bench {

/// The rate–distortion sweep of one clip.
struct ClipRateDistortion {
  std::string clip;
  uint32_t bones = 0;
  uint32_t scalar_tracks = 0;  // morph weights and user curves: the table's scalar columns when not 0
  uint32_t frames = 0;
  float sample_rate_hz = 0.f;
  std::vector<RateDistortionPoint> points;          // one per tolerance of the sweep, tightest first
  std::optional<RateDistortionPoint> at_tolerance;  // the fit at this clip's own tolerance (--tolerance)
  std::string error;                                // why the sweep failed

  /// Any point (the sweep's or at_tolerance) with a bone over and no floor.
  bool violation() const;
};
/// The x42 crowd: counts and, per variant, the time of one whole crowd run.
struct CrowdReport {
  CrowdResult result;
  std::vector<Spread> run_seconds;  // per row of result.rows; empty when not timed
  std::string error;                // why there is no crowd table
};

/// Everything one run measured.
struct BenchReport {
  std::string command_line;
  std::string machine;  // CPUs, clock, caches (Google Benchmark's view of the machine)
  std::string build;    // compiler and optimisation
  float shell_distance_m = 0.03f;  // d of every point of the rate–distortion tables, metres
  bool rest_tracks_skipped = false;  // --rest-tracks skip: every point's rest tracks store nothing
  std::vector<ClipRateDistortion> rate_distortion;  // empty when not run
  TimingSettings timing_settings;
  std::vector<ClipTimings> timings;                 // empty when not run
  std::optional<CrowdReport> crowd;                 // absent when not run
};

/// Points of the rate–distortion tables with a bone over its tolerance and
/// no floor reported, or a scalar track over its precision that the fit
/// believed within it (the error bound broken), over every clip.
size_t violations(const BenchReport& report);

/// The machine and build lines of a report, as Google Benchmark sees the CPU.
std::string describe_machine();
std::string describe_build();

/// Every table, in Markdown.
void print_markdown(const BenchReport& report, std::FILE* out);
/// The rate–distortion tables; the sampling tables; the fit table; the crowd table.
void print_rate_distortion(const BenchReport& report, std::FILE* out);
void print_sampling(const BenchReport& report, std::FILE* out);
void print_fit_times(const BenchReport& report, std::FILE* out);
void print_crowd(const BenchReport& report, std::FILE* out);

/// The whole report as JSON (units in the key names: _bytes, _s, _m, _deg).
std::string report_json(const BenchReport& report);

}  // namespace ks::bench
