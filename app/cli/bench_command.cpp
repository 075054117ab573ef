// keystream bench: the numbers a user chooses a codec by, reproducible with
// one command. Rate–distortion sweeps, sampling and seek timings against the
// binary-search baseline (Google Benchmark, in this process), fit times, and
// the x42 crowd table; Markdown on stdout, JSON on request. The measuring
// code lives in bench/ (ks_bench); this file loads the clips and runs the
// tables, bench_options.h reads the command line.

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "app/cli/arguments.h"
#include "app/cli/bench_options.h"
#include "app/cli/commands.h"
#include "app/cli/shown_text.h"
#include "bench/bench_report.h"
#include "keystream/io/file_io.h"
#include "keystream/io/import.h"

namespace ks::cli {

namespace {

namespace fs = std::filesystem;

/// One imported clip under the name the tables show.
struct LoadedClip {
  std::string name;
  ImportedClip imported;
};

// The name a table shows: the file name, with "#animation" when the file has several.
std::string clip_name(const ImportedClip& clip) {
  std::string name = clip.source.filename().string();
  if (clip.animation_names.size() > 1) name += "#" + clip.clip.name;
  return name;
}

// Imports a choice: its named animation, every animation, or the longest.
bool load(const ClipChoice& choice, bool all_animations, std::vector<LoadedClip>& out) {
  ImportSettings settings;
  settings.animation_name = choice.animation;
  Result<ImportedClip> first = import_clip(choice.path, settings);
  if (!first.ok()) {
    std::fprintf(stderr, "keystream bench: %s\n", shown_message(first.error()).c_str());
    return false;
  }
  const size_t animations = first.value().animation_names.size();
  if (!choice.animation.empty() || animations <= 1) {
    out.push_back({clip_name(first.value()), std::move(first.value())});
    return true;
  }
  std::vector<ImportedClip> every;
  every.push_back(std::move(first.value()));
  for (size_t a = 1; a < animations; ++a) {
    settings.animation_name.clear();
    settings.animation_index = static_cast<int>(a);
    Result<ImportedClip> next = import_clip(choice.path, settings);
    if (!next.ok()) {
      std::fprintf(stderr, "keystream bench: %s\n", shown_message(next.error()).c_str());
      return false;
    }
    every.push_back(std::move(next.value()));
  }
  if (!all_animations) {
    // The longest animation says the most about a codec; ties keep the first.
    const auto longest = std::max_element(every.begin(), every.end(), [](const ImportedClip& a, const ImportedClip& b) {
      return a.clip.frame_count < b.clip.frame_count;
    });
    out.push_back({clip_name(*longest), std::move(*longest)});
    return true;
  }
  for (ImportedClip& clip : every) out.push_back({clip_name(clip), std::move(clip)});
  return true;
}

// The tolerance of a clip's last line: its own, else the one for every clip.
float tolerance_of(const BenchOptions& o, const std::string& clip) {
  for (const auto& [name, tolerance] : o.clip_tolerances_m) {
    if (name == clip) return tolerance;
  }
  return o.tolerance_m;
}

void run_rate_distortion(const BenchOptions& o, const std::vector<LoadedClip>& clips, bench::BenchReport& report) {
  report.shell_distance_m = o.shell_distance_m;
  report.rest_tracks_skipped = o.rest_tracks == RestTracks::kSkip;
  for (size_t i = 0; i < clips.size(); ++i) {
    const LoadedClip& clip = clips[i];
    std::fprintf(stderr, "rate-distortion %zu/%zu: %s\n", i + 1, clips.size(), shown_message(clip.name).c_str());
    bench::ClipRateDistortion rd;
    rd.clip = clip.name;
    rd.bones = static_cast<uint32_t>(clip.imported.skeleton.bone_count());
    rd.scalar_tracks = static_cast<uint32_t>(clip.imported.clip.scalars.size());
    rd.frames = clip.imported.clip.frame_count;
    rd.sample_rate_hz = clip.imported.clip.sample_rate_hz;
    Result<std::vector<bench::RateDistortionPoint>> points =
        bench::sweep_rate_distortion(clip.imported, o.tolerances_m, o.shell_distance_m, o.jobs, o.rest_tracks);
    if (!points.ok()) {
      rd.error = points.error();
      report.rate_distortion.push_back(std::move(rd));
      continue;
    }
    rd.points = std::move(points.value());
    // A tolerance of the sweep was just measured: the fit is deterministic,
    // so its point is the answer.
    const float tolerance = tolerance_of(o, clip.name);
    const auto swept = std::find_if(rd.points.begin(), rd.points.end(),
                                    [&](const bench::RateDistortionPoint& p) { return p.tolerance_m == tolerance; });
    if (swept != rd.points.end()) {
      rd.at_tolerance = *swept;
    } else {
      Result<bench::RateDistortionPoint> point =
          bench::measure_point(clip.imported, tolerance, o.shell_distance_m, o.jobs, o.rest_tracks);
      if (point.ok()) {
        rd.at_tolerance = std::move(point.value());
      } else {
        rd.error = point.error();
      }
    }
    report.rate_distortion.push_back(std::move(rd));
  }
}

void run_timing(const BenchOptions& o, const std::vector<LoadedClip>& clips, bench::BenchReport& report) {
  std::vector<bench::TimedClip> timed;
  for (const LoadedClip& clip : clips) timed.push_back({clip.name, &clip.imported});
  std::fprintf(stderr, "timing %zu clips (%d repetitions of at least %g s per case)\n", clips.size(),
               o.timing_settings.run.repetitions, o.timing_settings.run.min_time_s);
  report.timing_settings = o.timing_settings;
  report.timings = bench::time_clips(timed, o.timing_settings, o.log ? &std::cerr : nullptr, &std::cerr);
}

// The crowd's clips: --crowd-clip ones, else the idle animations of the
// measured files, else the first measured clip.
Result<std::vector<bench::CrowdClip>> crowd_clips(const BenchOptions& o, const std::vector<LoadedClip>& clips) {
  std::vector<bench::CrowdClip> crowd;
  auto fit = [&](const ImportedClip& imported, const std::string& name) -> Status {
    Result<FittedClip> fitted = fit_clip(imported.skeleton, imported.clip, FitSettings{}, o.jobs);
    if (!fitted.ok()) return Error{fitted.error()};
    crowd.push_back({name, std::move(fitted.value())});
    return {};
  };
  if (!o.crowd_clips.empty()) {
    for (const ClipChoice& choice : o.crowd_clips) {
      std::vector<LoadedClip> loaded;
      if (!load(choice, false, loaded)) return Error{choice.path.string() + ": cannot be imported"};
      if (Status s = fit(loaded.front().imported, loaded.front().name); !s) return Error{s.error()};
    }
    return crowd;
  }
  std::vector<fs::path> files;
  std::set<fs::path> seen;
  for (const LoadedClip& clip : clips) {
    if (seen.insert(clip.imported.source).second) files.push_back(clip.imported.source);
  }
  Result<std::vector<bench::CrowdClip>> idle = bench::idle_clips(files);
  if (!idle.ok() || !idle.value().empty()) return idle;
  if (clips.empty()) return Error{"no clip for the crowd"};
  if (Status s = fit(clips.front().imported, clips.front().name); !s) return Error{s.error()};
  return crowd;
}

void run_crowd(const BenchOptions& o, const std::vector<LoadedClip>& clips, bench::BenchReport& report) {
  std::fprintf(stderr, "x42 crowd: %u characters, %u game frames\n", o.crowd_settings.characters,
               o.crowd_settings.game_frames);
  bench::CrowdReport crowd;
  Result<std::vector<bench::CrowdClip>> chosen = crowd_clips(o, clips);
  if (!chosen.ok()) {
    crowd.error = chosen.error();
    report.crowd = std::move(crowd);
    return;
  }
  Result<bench::CrowdSimulation> simulation =
      bench::CrowdSimulation::create(std::move(chosen.value()), o.crowd_settings);
  if (!simulation.ok()) {
    crowd.error = simulation.error();
    report.crowd = std::move(crowd);
    return;
  }
  // The counts, then the time of one whole crowd run per variant (the
  // sampling timings' settings), from the same prepared streams.
  const bench::CrowdSimulation& sim = simulation.value();
  crowd.result = sim.run_all();
  std::vector<bench::TimedCase> cases;
  for (const bench::CrowdVariant variant : bench::kCrowdVariants) {
    cases.push_back({std::string("crowd/") + bench::to_string(variant), [&sim, variant](benchmark::State& state) {
                       for (auto _ : state) {
                         const bench::CrowdRow row = sim.run(variant);
                         benchmark::DoNotOptimize(row.pose_checksum);
                       }
                     }});
  }
  for (const bench::CaseResult& r : bench::run_cases(cases, o.timing_settings.run, o.log ? &std::cerr : nullptr,
                                                     &std::cerr)) {
    crowd.run_seconds.push_back(r.seconds);
  }
  report.crowd = std::move(crowd);
}

// Whether every measurement that was asked for ran.
bool all_ran(const bench::BenchReport& report) {
  bool ok = true;
  for (const bench::ClipRateDistortion& rd : report.rate_distortion) ok = ok && rd.error.empty();
  for (const bench::ClipTimings& t : report.timings) {
    ok = ok && t.error.empty();
    for (const bench::SamplingRow& r : t.rows) ok = ok && r.error.empty();
  }
  if (report.crowd) ok = ok && report.crowd->error.empty() && report.crowd->result.poses_identical;
  return ok;
}

}  // namespace

int run_bench(const std::vector<std::string_view>& raw_args) {
  if (wants_help(raw_args)) {
    std::fputs(kBenchHelp, stdout);
    return 0;
  }
  BenchOptions o;
  if (const int code = parse_bench_options(raw_args, o); code != 0) return code;

  std::vector<LoadedClip> clips;
  for (const ClipChoice& choice : o.clips) {
    if (!load(choice, o.all_animations, clips)) return 1;
  }
  // A per-clip tolerance must name a measured clip: a typo would silently
  // measure the clip at the wrong tolerance.
  for (const auto& entry : o.clip_tolerances_m) {
    const std::string& name = entry.first;  // a structured binding cannot be captured in C++20 (clang)
    if (std::none_of(clips.begin(), clips.end(), [&](const LoadedClip& c) { return c.name == name; })) {
      std::string names;
      for (const LoadedClip& c : clips) names += (names.empty() ? "" : ", ") + c.name;
      std::fprintf(stderr, "keystream bench: --tolerance: no clip is named '%s' (the clips: %s)\n",
                   shown_name(name).c_str(), shown_message(names).c_str());
      return 2;
    }
  }

  bench::BenchReport report;
  report.command_line = "keystream bench";
  // Appended, not " " + std::string(a): GCC 12 at -O3 sees a false overlap
  // in that concatenation (-Wrestrict).
  for (const std::string_view a : raw_args) report.command_line.append(" ").append(a);
  if (o.simd) set_simd_level(*o.simd);
  report.machine = bench::describe_machine();
  report.build = bench::describe_build();
  if (o.rate_distortion) run_rate_distortion(o, clips, report);
  if (o.timing) run_timing(o, clips, report);
  if (o.crowd) run_crowd(o, clips, report);

  const bool json_on_stdout = o.json_path == "-";
  std::fflush(stderr);
  bench::print_markdown(report, json_on_stdout ? stderr : stdout);
  if (!o.json_path.empty()) {
    const std::string json = bench::report_json(report);
    if (json_on_stdout) {
      std::fputs(json.c_str(), stdout);
    } else if (Status s = write_file_atomically(o.json_path, json); !s) {
      std::fprintf(stderr, "keystream bench: %s\n", shown_message(s.error()).c_str());
      return 1;
    }
  }
  bool ok = true;
  if (const size_t n = bench::violations(report); n > 0) {
    std::fprintf(stderr,
                 "keystream bench: VIOLATION: at %zu points a bone's decoded error is over its tolerance and the "
                 "fit reported no floor (see the rate-distortion tables)\n",
                 n);
    ok = false;
  }
  if (!all_ran(report)) {
    std::fprintf(stderr, "keystream bench: some measurements FAILED (see the tables)\n");
    ok = false;
  }
  if (!ok) return 1;
  return 0;
}

}  // namespace ks::cli
