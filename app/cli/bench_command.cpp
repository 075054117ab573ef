// keystream bench: the numbers a user chooses a codec by, reproducible with
// one command. Rate–distortion sweeps, sampling and seek timings against the
// binary-search baseline (Google Benchmark, in this process), fit times, and
// the x42 crowd table; Markdown on stdout, JSON on request. The measuring
// code lives in bench/ (ks_bench); this file picks the clips and the options.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "app/cli/arguments.h"
#include "app/cli/commands.h"
#include "bench/bench_report.h"
#include "core/offline/file_io.h"
#include "core/offline/import.h"

namespace ks::cli {

namespace {

namespace fs = std::filesystem;

constexpr const char* kBenchHelp =
    "usage: keystream bench [CLIP...] [options]\n"
    "\n"
    "Measures the codec on real clips and prints Markdown tables:\n"
    "  rate-distortion  per clip, for a sweep of object-space tolerances:\n"
    "                   bytes with and without metadata, bits per key, ratio,\n"
    "                   max and 99th-percentile object-space error at 3 cm and\n"
    "                   1 m, bones over their tolerance and the floor the fit\n"
    "                   reported for them; a last line at the clip's own\n"
    "                   tolerance (--tolerance). A bone over with no floor is a\n"
    "                   VIOLATION of the error bound: the bench exits 1;\n"
    "  timing           per pose and per bone: sequential playback at the clip\n"
    "                   rate and at 60 Hz, random seeks with several jump\n"
    "                   intervals, warm and cold, against the binary-search\n"
    "                   baseline timed in the same run; and the fit time;\n"
    "  x42              a crowd of characters looping idle clips: keys read\n"
    "                   and state updates of the baseline, a player per\n"
    "                   character, with jump frames, and shared caches.\n"
    "\n"
    "CLIP is a .gltf, .glb or .bvh file, FILE#ANIMATION, or a folder (searched\n"
    "recursively). Default: the demo clip and every clip in\n"
    "  " KS_CLIPS_DIR "\n"
    "Of a glTF file with several animations the longest is measured, unless\n"
    "--all-animations. Progress goes to stderr. A full run takes minutes.\n"
    "\n"
    "options:\n"
    "  --only LIST              some of rd,timing,x42 (default: all)\n"
    "  --json FILE              also write every result as JSON, atomically\n"
    "                           (- for stdout; the tables then go to stderr)\n"
    "  --all-animations         every animation of each glTF file\n"
    "  --tolerances LIST        object-space tolerances of the sweep, mm\n"
    "                           (default 0.01,0.03,0.1,0.3,1,3,10), or none\n"
    "  --shell-distance CM      shell distance of every line (default 3)\n"
    "  --tolerance MM           the tolerance of each clip's last line\n"
    "                           (default 0.1, ACL's default)\n"
    "  --tolerance CLIP=MM      the same for one clip, named as its table is\n"
    "                           (e.g. Fox.glb#Survey=0.117); repeatable\n"
    "  --repetitions N          timing repetitions (default 5)\n"
    "  --min-time S             seconds per repetition at least (default 0.1)\n"
    "  --cold-mib N             MiB the copies of a cold row span (default 64)\n"
    "  --game-rate HZ           game frame rate of the crowd and of the second\n"
    "                           sequential row (default 60)\n"
    "  --characters N           crowd size (default 56)\n"
    "  --crowd-frames N         game frames the crowd plays (default 556)\n"
    "  --crowd-clip FILE#ANIM   a clip of the crowd, repeatable (default: every\n"
    "                           animation named *idle* among the clips' files,\n"
    "                           else the first clip)\n"
    "  --seed N                 the crowd's phases (default 42)\n"
    "  --jobs N                 threads of each fit in the sweep (default: all\n"
    "                           cores)\n"
    "  --quick                  1 repetition of 0.01 s, tolerances 0.1,1,10,\n"
    "                           8 MiB cold rows: a smoke test, not a measurement\n"
    "  --log                    Google Benchmark's own lines on stderr\n"
    "  -h, --help               show this help\n";

/// A clip to measure: a file and, for glTF, which animation ("" = choose).
struct ClipChoice {
  fs::path path;
  std::string animation;
};

struct Options {
  std::vector<ClipChoice> clips;
  bool all_animations = false;
  bool rate_distortion = true;
  bool timing = true;
  bool crowd = true;
  std::string json_path;
  std::vector<float> tolerances_m = bench::default_tolerances_m();  // the sweep
  float shell_distance_m = 0.03f;
  float tolerance_m = 1e-4f;  // each clip's last line, unless named below
  std::vector<std::pair<std::string, float>> clip_tolerances_m;  // table name, metres
  bench::TimingSettings timing_settings;
  bench::CrowdSettings crowd_settings;
  std::vector<ClipChoice> crowd_clips;
  unsigned jobs = std::max(1u, std::thread::hardware_concurrency());
  bool log = false;
};

// "FILE#ANIMATION" when FILE exists and is not a folder; else the whole text is a path.
ClipChoice parse_clip(std::string_view text) {
  const size_t hash = text.rfind('#');
  if (hash != std::string_view::npos && hash > 0) {
    const fs::path file(std::string(text.substr(0, hash)));
    std::error_code ec;
    if (fs::is_regular_file(file, ec)) return {file, std::string(text.substr(hash + 1))};
  }
  return {fs::path(std::string(text)), ""};
}

bool parse_list(Arguments& args, std::string_view option, std::vector<std::string>& out) {
  std::string_view text;
  if (!args.value(option, text)) return false;
  out.clear();
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    out.emplace_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return true;
}

// A number of millimetres > 0 (and finite), as metres; false with a message naming `option`.
bool parse_millimetres(Arguments& args, std::string_view option, const std::string& text, float& metres) {
  char* end = nullptr;
  const float mm = std::strtof(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(mm) || !(mm > 0.f) ||
      !(mm * 1e-3f > 0.f)) {
    return args.fail(std::string(option) + ": '" + text + "' is not a positive number of millimetres");
  }
  metres = mm * 1e-3f;
  return true;
}

bool parse_tolerances(Arguments& args, std::string_view option, std::vector<float>& out) {
  std::vector<std::string> items;
  if (!parse_list(args, option, items)) return false;
  out.clear();
  if (items.size() == 1 && items[0] == "none") return true;
  for (const std::string& item : items) {
    float metres = 0.f;
    if (!parse_millimetres(args, option, item, metres)) return false;
    out.push_back(metres);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return true;
}

// --tolerance MM, or --tolerance CLIP=MM for one clip.
bool parse_tolerance(Arguments& args, std::string_view option, Options& o) {
  std::string_view text;
  if (!args.value(option, text)) return false;
  const size_t equals = text.rfind('=');
  if (equals == std::string_view::npos) return parse_millimetres(args, option, std::string(text), o.tolerance_m);
  const std::string clip(text.substr(0, equals));
  if (clip.empty()) return args.fail(std::string(option) + ": '" + std::string(text) + "' names no clip before '='");
  float metres = 0.f;
  if (!parse_millimetres(args, option, std::string(text.substr(equals + 1)), metres)) return false;
  for (auto& [name, tolerance] : o.clip_tolerances_m) {
    if (name == clip) return args.fail(std::string(option) + ": clip '" + clip + "' named twice");
  }
  o.clip_tolerances_m.emplace_back(clip, metres);
  return true;
}

// Returns 0 when parsed, else the exit code.
int parse_options(const std::vector<std::string_view>& raw, Options& o) {
  Arguments args("bench", raw);
  std::vector<std::string_view> inputs;
  bool quick = false;
  bool tolerances_given = false, repetitions_given = false, min_time_given = false, cold_given = false;
  while (!args.done()) {
    const std::string_view arg = args.next();
    long n = 0;
    float x = 0.f;
    std::string_view text;
    if (arg == "--only") {
      std::vector<std::string> items;
      if (!parse_list(args, arg, items)) return 2;
      o.rate_distortion = o.timing = o.crowd = false;
      for (const std::string& item : items) {
        if (item == "rd") {
          o.rate_distortion = true;
        } else if (item == "timing") {
          o.timing = true;
        } else if (item == "x42") {
          o.crowd = true;
        } else {
          args.fail("--only: unknown table '" + item + "' (rd, timing, x42)");
          return 2;
        }
      }
    } else if (arg == "--json") {
      if (!args.value(arg, text)) return 2;
      o.json_path = std::string(text);
    } else if (arg == "--all-animations") {
      o.all_animations = true;
    } else if (arg == "--tolerances") {
      if (!parse_tolerances(args, arg, o.tolerances_m)) return 2;
      tolerances_given = true;
    } else if (arg == "--tolerance") {
      if (!parse_tolerance(args, arg, o)) return 2;
    } else if (arg == "--shell-distance") {
      if (!args.number(arg, x)) return 2;
      if (!(x > 0.f) || !(x * 0.01f > 0.f)) {
        args.fail("--shell-distance: must be a positive number of centimetres");
        return 2;
      }
      o.shell_distance_m = x * 0.01f;
    } else if (arg == "--scales" || arg == "--target-error") {
      // Version 1's sweep scaled per-track thresholds and searched for an
      // object-space error; the codec now meets a tolerance directly.
      args.fail(std::string(arg) + " is gone: the fit meets an object-space tolerance directly; use --tolerances " +
                "LIST (the sweep, mm) or --tolerance MM (each clip's last line)");
      return 2;
    } else if (arg == "--repetitions") {
      if (!args.whole_number(arg, 1, 1000, n)) return 2;
      o.timing_settings.run.repetitions = static_cast<int>(n);
      repetitions_given = true;
    } else if (arg == "--min-time") {
      if (!args.number(arg, x)) return 2;
      if (!(x > 0.f) || x > 60.f) {
        args.fail("--min-time: must be a number of seconds in (0, 60]");
        return 2;
      }
      o.timing_settings.run.min_time_s = x;
      min_time_given = true;
    } else if (arg == "--cold-mib") {
      if (!args.whole_number(arg, 1, 16384, n)) return 2;
      o.timing_settings.cold_working_set_bytes = static_cast<size_t>(n) << 20;
      cold_given = true;
    } else if (arg == "--game-rate") {
      if (!args.number(arg, x)) return 2;
      if (!(x > 0.f) || x > 10000.f) {
        args.fail("--game-rate: must be a rate in (0, 10000] Hz");
        return 2;
      }
      o.timing_settings.game_rate_hz = x;
      o.crowd_settings.game_rate_hz = x;
    } else if (arg == "--characters") {
      if (!args.whole_number(arg, 1, 100000, n)) return 2;
      o.crowd_settings.characters = static_cast<uint32_t>(n);
    } else if (arg == "--crowd-frames") {
      if (!args.whole_number(arg, 1, 1000000, n)) return 2;
      o.crowd_settings.game_frames = static_cast<uint32_t>(n);
    } else if (arg == "--crowd-clip") {
      if (!args.value(arg, text)) return 2;
      o.crowd_clips.push_back(parse_clip(text));
    } else if (arg == "--seed") {
      if (!args.whole_number(arg, 0, 0xffffffffL, n)) return 2;
      o.crowd_settings.seed = static_cast<uint32_t>(n);
    } else if (arg == "--jobs") {
      if (!args.whole_number(arg, 1, 256, n)) return 2;
      o.jobs = static_cast<unsigned>(n);
    } else if (arg == "--quick") {
      quick = true;
    } else if (arg == "--log") {
      o.log = true;
    } else if (!arg.empty() && arg[0] == '-' && arg != "-") {
      args.fail("unknown option '" + std::string(arg) + "' (see keystream bench --help)");
      return 2;
    } else {
      inputs.push_back(arg);
    }
  }
  if (quick) {
    if (!tolerances_given) o.tolerances_m = {0.0001f, 0.001f, 0.01f};
    if (!repetitions_given) o.timing_settings.run.repetitions = 1;
    if (!min_time_given) o.timing_settings.run.min_time_s = 0.01;
    if (!cold_given) o.timing_settings.cold_working_set_bytes = size_t{8} << 20;
  }

  // The clips: named ones (files, FILE#ANIMATION, folders), else the defaults.
  std::vector<fs::path> folders_and_files;
  if (inputs.empty()) {
    o.clips.push_back({fs::path(KS_DEMO_CLIP), ""});
    std::error_code ec;
    if (fs::is_directory(KS_CLIPS_DIR, ec)) folders_and_files.emplace_back(KS_CLIPS_DIR);
  }
  for (const std::string_view input : inputs) {
    ClipChoice choice = parse_clip(input);
    if (!choice.animation.empty()) {
      o.clips.push_back(std::move(choice));
    } else {
      folders_and_files.push_back(choice.path);
    }
  }
  std::vector<fs::path> files;
  bool any_folder = false;
  if (!collect_sources(args, folders_and_files, files, any_folder)) return 1;
  for (const fs::path& file : files) o.clips.push_back({file, ""});
  for (const ClipChoice& c : o.crowd_clips) {
    std::error_code ec;
    if (!fs::is_regular_file(c.path, ec)) {
      args.fail("--crowd-clip: " + c.path.string() + ": no such file");
      return 1;
    }
  }
  return 0;
}

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
    std::fprintf(stderr, "keystream bench: %s\n", first.error().c_str());
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
      std::fprintf(stderr, "keystream bench: %s\n", next.error().c_str());
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
float tolerance_of(const Options& o, const std::string& clip) {
  for (const auto& [name, tolerance] : o.clip_tolerances_m) {
    if (name == clip) return tolerance;
  }
  return o.tolerance_m;
}

void run_rate_distortion(const Options& o, const std::vector<LoadedClip>& clips, bench::BenchReport& report) {
  report.shell_distance_m = o.shell_distance_m;
  for (size_t i = 0; i < clips.size(); ++i) {
    const LoadedClip& clip = clips[i];
    std::fprintf(stderr, "rate-distortion %zu/%zu: %s\n", i + 1, clips.size(), clip.name.c_str());
    bench::ClipRateDistortion rd;
    rd.clip = clip.name;
    rd.bones = static_cast<uint32_t>(clip.imported.skeleton.bone_count());
    rd.frames = clip.imported.clip.frame_count;
    rd.sample_rate_hz = clip.imported.clip.sample_rate_hz;
    Result<std::vector<bench::RateDistortionPoint>> points =
        bench::sweep_rate_distortion(clip.imported, o.tolerances_m, o.shell_distance_m, o.jobs);
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
          bench::measure_point(clip.imported, tolerance, o.shell_distance_m, o.jobs);
      if (point.ok()) {
        rd.at_tolerance = std::move(point.value());
      } else {
        rd.error = point.error();
      }
    }
    report.rate_distortion.push_back(std::move(rd));
  }
}

void run_timing(const Options& o, const std::vector<LoadedClip>& clips, bench::BenchReport& report) {
  std::vector<bench::TimedClip> timed;
  for (const LoadedClip& clip : clips) timed.push_back({clip.name, &clip.imported});
  std::fprintf(stderr, "timing %zu clips (%d repetitions of at least %g s per case)\n", clips.size(),
               o.timing_settings.run.repetitions, o.timing_settings.run.min_time_s);
  report.timing_settings = o.timing_settings;
  report.timings = bench::time_clips(timed, o.timing_settings, o.log ? &std::cerr : nullptr, &std::cerr);
}

// The crowd's clips: --crowd-clip ones, else the idle animations of the
// measured files, else the first measured clip.
Result<std::vector<bench::CrowdClip>> crowd_clips(const Options& o, const std::vector<LoadedClip>& clips) {
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

void run_crowd(const Options& o, const std::vector<LoadedClip>& clips, bench::BenchReport& report) {
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
  Options o;
  if (const int code = parse_options(raw_args, o); code != 0) return code;

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
      std::fprintf(stderr, "keystream bench: --tolerance: no clip is named '%s' (the clips: %s)\n", name.c_str(),
                   names.c_str());
      return 2;
    }
  }

  bench::BenchReport report;
  report.command_line = "keystream bench";
  for (const std::string_view a : raw_args) report.command_line += " " + std::string(a);
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
      std::fprintf(stderr, "keystream bench: %s\n", s.error().c_str());
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
