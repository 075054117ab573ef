#pragma once
// Running Google Benchmark from inside a tool. `keystream bench` times many
// cases built at run time (one per clip, measure and cache state), and wants
// the numbers back, not just printed: the tables divide the player's median
// by the baseline's median measured in the same run. run_cases() registers
// the cases, runs them with the given repetitions and minimum time, and
// returns each case's per-iteration times and counters.

#include <functional>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

namespace ks::bench {

/// Median, min and max of repeated measurements, and the measurements.
struct Spread {
  double median = 0.0;
  double min = 0.0;
  double max = 0.0;
  std::vector<double> samples;

  static Spread of(std::vector<double> samples);
  bool empty() const { return samples.empty(); }
};

/// One thing to time: a Google Benchmark body. It reports what it did per
/// iteration through state.counters (averaged over iterations by the body).
struct TimedCase {
  std::string name;  // unique; shown in the progress log
  std::function<void(benchmark::State&)> body;
};

/// What a case measured: seconds per iteration (CPU time of the benchmark
/// thread, less disturbed by other processes than wall time on a shared
/// machine; every body is single-threaded) over the repetitions, and the
/// median of each counter.
struct CaseResult {
  Spread seconds;
  std::map<std::string, double> counters;
  std::string error;  // the body's SkipWithError message, if any
};

struct RunSettings {
  int repetitions = 5;      // each repetition is one Google Benchmark run of the case
  double min_time_s = 0.1;  // per repetition
};

/// Runs every case; results in the order of `cases`. Google Benchmark's own
/// console lines go to `log` when it is not null; otherwise one progress
/// line per case goes to `progress` (when not null).
std::vector<CaseResult> run_cases(const std::vector<TimedCase>& cases, const RunSettings& settings,
                                  std::ostream* log, std::ostream* progress);

}  // namespace ks::bench
