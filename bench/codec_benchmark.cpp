// ks_codec_benchmark: fit time, sequential sampling and random seek of the
// Player, against the baseline that samples the same keys by per-track binary
// search (BinarySearchSampler), on every clip of KS_CLIPS_DIR and the demo
// clip (DESIGN §10). After the Google Benchmark output it prints one Markdown
// table per clip with the player / baseline ratios of this run.
//
//   ks_codec_benchmark [--clip NAME]... [--all-animations] [Google Benchmark flags]
//
// --clip NAME       only this clip (a file name such as cmu_cgspeed_01_01.bvh,
//                   or NAME#ANIMATION); repeatable. KS_BENCH_CLIP=NAME[,NAME]
//                   does the same.
// --all-animations  every animation of a glTF file, not just the first.

#include <benchmark/benchmark.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "core/offline/binary_search_sampler.h"
#include "core/offline/fit.h"
#include "core/offline/import.h"
#include "core/offline/pack.h"
#include "core/runtime/player.h"
#include "core/runtime/stream_view.h"

namespace {

namespace fs = std::filesystem;
using ks::BinarySearchSampler;
using ks::Player;
using ks::Transform;

constexpr float kJumpIntervalsS[] = {0.25f, 1.f, 4.f};  // seconds between jump frames in the seek benchmarks
constexpr size_t kJumpIntervalCount = std::size(kJumpIntervalsS);
constexpr size_t kSequentialJump = 1;    // forward play uses the default pack (1 s); it restores no jump frame
constexpr size_t kSeekTimeCount = 4096;  // random frame times cycled through by the seek benchmarks
constexpr uint32_t kSeekSeed = 42;

/// A clip to benchmark: a file and which of its animations.
struct ClipSource {
  std::string name;  // file name, or file name#animation with --all-animations
  fs::path path;
  int animation_index = 0;
};

/// One pack of a fitted clip and the view a Player reads it through.
struct PackedStream {
  std::vector<uint8_t> bytes;
  std::unique_ptr<ks::StreamView> view;  // borrows `bytes`
};

/// Everything the benchmarks of one clip need.
struct ClipData {
  ks::ImportedClip imported;
  ks::FittedClip fitted;
  PackedStream packs[kJumpIntervalCount];  // one per kJumpIntervalsS
  PackedStream zstd_pack;                  // J = 1 s with zstd key stream blocks
  std::vector<float> sequential_times;     // frame times of one loop played at the clip's rate
  std::vector<float> seek_times;           // kSeekTimeCount random frame times, fixed seed
};

/// A clip whose data is prepared when its first benchmark runs, so that a
/// filtered run imports and fits only the clips it measures.
class ClipFixture {
 public:
  explicit ClipFixture(ClipSource source) : m_source(std::move(source)) {}

  const std::string& name() const { return m_source.name; }
  /// The prepared data, or nullptr when the clip cannot be prepared (see error()).
  const ClipData* data() {
    if (!m_tried) prepare();
    return m_data.get();
  }
  const std::string& error() const { return m_error; }

 private:
  void prepare() {
    m_tried = true;
    ks::ImportSettings import_settings;
    import_settings.animation_index = m_source.animation_index;
    ks::Result<ks::ImportedClip> imported = ks::import_clip(m_source.path, import_settings);
    if (!imported.ok()) {
      m_error = imported.error();
      return;
    }
    auto data = std::make_unique<ClipData>();
    data->imported = std::move(imported.value());
    ks::Result<ks::FittedClip> fitted =
        ks::fit_clip(data->imported.skeleton, data->imported.clip, ks::FitSettings{}, 2);
    if (!fitted.ok()) {
      m_error = fitted.error();
      return;
    }
    data->fitted = std::move(fitted.value());
    for (size_t j = 0; j <= kJumpIntervalCount; ++j) {
      const bool zstd = j == kJumpIntervalCount;  // the last pack: zstd at the sequential interval
      ks::PackSettings pack_settings;
      pack_settings.jump_interval_s = kJumpIntervalsS[zstd ? kSequentialJump : j];
      pack_settings.zstd = zstd;
      ks::Result<std::vector<uint8_t>> packed = ks::pack(data->fitted, pack_settings);
      if (!packed.ok()) {
        m_error = packed.error();
        return;
      }
      PackedStream& stream = zstd ? data->zstd_pack : data->packs[j];
      stream.bytes = std::move(packed.value());
      ks::Result<ks::StreamView> view = ks::StreamView::open(stream.bytes, m_source.name.c_str());
      if (!view.ok()) {
        m_error = view.error();
        return;
      }
      stream.view = std::make_unique<ks::StreamView>(std::move(view.value()));
    }
    // One loop at the clip's rate, through the Player's own time mapping
    // (looping wraps the last frame onto frame 0).
    Player looping(*data->packs[0].view);
    looping.set_looping(true);
    const uint32_t loop_frames = std::max<uint32_t>(1, data->fitted.frame_count - 1);
    for (uint32_t i = 0; i < loop_frames; ++i) {
      data->sequential_times.push_back(looping.frame_time_at(static_cast<float>(i) / data->fitted.sample_rate_hz));
    }
    // mt19937's output is fixed by the standard; the distributions are not.
    std::mt19937 random(kSeekSeed);
    const float last = static_cast<float>(data->fitted.frame_count - 1);
    for (size_t i = 0; i < kSeekTimeCount; ++i) {
      data->seek_times.push_back(static_cast<float>(random() >> 8) * 0x1p-24f * last);
    }
    m_data = std::move(data);
  }

  ClipSource m_source;
  std::unique_ptr<ClipData> m_data;
  std::string m_error;
  bool m_tried = false;
};

// Per-pose counters shared by the sampling benchmarks: time per bone
// (seconds, inverted rate) and poses per second.
void set_pose_counters(benchmark::State& state, uint32_t bone_count) {
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
  state.counters["bones"] = static_cast<double>(bone_count);
  state.counters["per_bone"] = benchmark::Counter(
      static_cast<double>(bone_count), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void bm_fit(benchmark::State& state, ClipFixture* clip) {
  const ClipData* data = clip->data();
  if (data == nullptr) return state.SkipWithError(clip->error().c_str());
  const ks::ImportedClip& source = data->imported;
  size_t keys = 0;
  for (auto _ : state) {
    ks::Result<ks::FittedClip> fitted = ks::fit_clip(source.skeleton, source.clip, ks::FitSettings{}, 1);
    if (!fitted.ok()) return state.SkipWithError(fitted.error().c_str());
    keys = fitted.value().key_count();
    benchmark::DoNotOptimize(keys);
  }
  const double frames = static_cast<double>(source.clip.frame_count);
  state.counters["frames"] = frames;
  state.counters["keys"] = static_cast<double>(keys);
  state.counters["per_1000_frames"] =
      benchmark::Counter(frames / 1000.0, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

// The Player of pack `jump` (or of the zstd pack), either playing forward at
// the clip's rate (looping) or sampling the random seek times; one pose per
// iteration.
void bm_player(benchmark::State& state, ClipFixture* clip, size_t jump, bool random_seek, bool zstd) {
  const ClipData* data = clip->data();
  if (data == nullptr) return state.SkipWithError(clip->error().c_str());
  const std::vector<float>& times = random_seek ? data->seek_times : data->sequential_times;
  Player player(zstd ? *data->zstd_pack.view : *data->packs[jump].view);
  std::vector<Transform> pose(player.stream().bone_count());
  player.reset_counters();
  size_t i = 0;
  for (auto _ : state) {
    player.sample_frame(times[i], pose);
    if (++i == times.size()) i = 0;
    benchmark::DoNotOptimize(pose.data());
    benchmark::ClobberMemory();
  }
  set_pose_counters(state, player.stream().bone_count());
  const ks::PlayerCounters& counters = player.counters();
  state.counters["keys_read"] =
      benchmark::Counter(static_cast<double>(counters.keys_read), benchmark::Counter::kAvgIterations);
  if (zstd) {
    state.counters["blocks"] =
        benchmark::Counter(static_cast<double>(counters.blocks_decompressed), benchmark::Counter::kAvgIterations);
  }
  if (random_seek) {
    state.counters["jump_frames"] =
        benchmark::Counter(static_cast<double>(counters.jump_frames_used), benchmark::Counter::kAvgIterations);
  }
}

// The baseline at the same times as bm_player; one pose per iteration.
void bm_baseline(benchmark::State& state, ClipFixture* clip, bool random_seek) {
  const ClipData* data = clip->data();
  if (data == nullptr) return state.SkipWithError(clip->error().c_str());
  const std::vector<float>& times = random_seek ? data->seek_times : data->sequential_times;
  BinarySearchSampler sampler(data->fitted);
  std::vector<Transform> pose(sampler.bone_count());
  sampler.reset_counters();
  size_t i = 0;
  for (auto _ : state) {
    sampler.sample_frame(times[i], pose);
    if (++i == times.size()) i = 0;
    benchmark::DoNotOptimize(pose.data());
    benchmark::ClobberMemory();
  }
  set_pose_counters(state, sampler.bone_count());
  state.counters["keys_read"] =
      benchmark::Counter(static_cast<double>(sampler.counters().keys_read), benchmark::Counter::kAvgIterations);
}

/// What a registered benchmark measures, for the ratio tables.
enum class Measure {
  kFit,
  kSequentialPlayer,
  kSequentialBaseline,
  kSeekPlayer,
  kRandomBaseline,
  kSequentialPlayerZstd,
  kSeekPlayerZstd
};
constexpr size_t kMeasureCount = 7;

struct Registered {
  size_t clip = 0;
  Measure measure = Measure::kFit;
  size_t jump = 0;  // index into kJumpIntervalsS (kSeekPlayer)
  std::string name;
};

/// The repetitions of one benchmark: seconds per iteration and counters.
struct Measured {
  std::vector<double> seconds;
  std::map<std::string, std::vector<double>> counters;
};

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/// Forwards everything to the reporter the user chose, and keeps the
/// per-iteration CPU time of every repetition for the ratio tables (CPU
/// time, like the rate counters: less disturbed by other processes than real
/// time on a busy machine; the benchmarks are single-threaded).
class CollectingReporter : public benchmark::BenchmarkReporter {
 public:
  explicit CollectingReporter(std::unique_ptr<benchmark::BenchmarkReporter> display) : m_display(std::move(display)) {}

  bool ReportContext(const Context& context) override { return m_display->ReportContext(context); }
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      if (run.run_type != Run::RT_Iteration || run.error_occurred) continue;
      Measured& m = m_measured[run.run_name.function_name];
      m.seconds.push_back(run.GetAdjustedCPUTime() / benchmark::GetTimeUnitMultiplier(run.time_unit));
      for (const auto& [name, counter] : run.counters) m.counters[name].push_back(counter.value);
    }
    m_display->ReportRuns(runs);
  }
  void Finalize() override { m_display->Finalize(); }

  const Measured* find(const std::string& name) const {
    const auto it = m_measured.find(name);
    return it == m_measured.end() ? nullptr : &it->second;
  }

 private:
  std::unique_ptr<benchmark::BenchmarkReporter> m_display;
  std::map<std::string, Measured> m_measured;
};

// "median (min..max)" of per-pose times in nanoseconds, or of a fit in ms.
std::string format_times(const Measured& m, double unit, const char* suffix) {
  const auto [low, high] = std::minmax_element(m.seconds.begin(), m.seconds.end());
  char text[96];
  const double mid = median(m.seconds) * unit;
  const char* format = mid < 100.0 ? "%.1f%s (%.1f..%.1f)" : "%.0f%s (%.0f..%.0f)";
  std::snprintf(text, sizeof(text), format, mid, suffix, *low * unit, *high * unit);
  return text;
}

std::string format_number(double v, const char* format) {
  char text[48];
  std::snprintf(text, sizeof(text), format, v);
  return text;
}

double counter_median(const Measured& m, const std::string& name) {
  const auto it = m.counters.find(name);
  return it == m.counters.end() ? 0.0 : median(it->second);
}

// One Markdown table per clip that ran: player and baseline per-pose times
// (median over repetitions, min..max) and their ratio.
void print_tables(FILE* out, const std::vector<std::unique_ptr<ClipFixture>>& clips,
                  const std::vector<Registered>& registered, const CollectingReporter& reporter) {
  size_t tables = 0;
  for (size_t c = 0; c < clips.size(); ++c) {
    const Measured* found[kMeasureCount][kJumpIntervalCount] = {};  // by Measure, then jump interval
    bool any = false;
    for (const Registered& r : registered) {
      if (r.clip != c) continue;
      const Measured* m = reporter.find(r.name);
      found[static_cast<int>(r.measure)][r.jump] = m;
      any = any || m != nullptr;
    }
    const ClipData* data = any ? clips[c]->data() : nullptr;
    if (data == nullptr) continue;
    ++tables;
    const ks::FittedClip& fitted = data->fitted;
    std::fprintf(out, "\n### %s: %zu bones, %u frames at %g Hz, %zu keys\n\n", clips[c]->name().c_str(),
                 fitted.parents.size(), fitted.frame_count, static_cast<double>(fitted.sample_rate_hz),
                 fitted.key_count());
    std::fprintf(out,
                 "| measure | player ns/pose, median (min..max) | player ns/bone | player keys read/pose | baseline | "
                 "baseline ns/pose, median (min..max) | baseline ns/bone | player / baseline |\n"
                 "|---|---|---|---|---|---|---|---|\n");
    const double bones = static_cast<double>(fitted.parents.size());
    auto row = [&](const std::string& label, const Measured* player, const char* baseline_label,
                   const Measured* baseline) {
      const std::string none = "-";
      const std::string ratio =
          player && baseline ? format_number(median(player->seconds) / median(baseline->seconds), "%.3f") : none;
      std::fprintf(out, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", label.c_str(),
                   player ? format_times(*player, 1e9, "").c_str() : none.c_str(),
                   player ? format_number(median(player->seconds) * 1e9 / bones, "%.2f").c_str() : none.c_str(),
                   player ? format_number(counter_median(*player, "keys_read"), "%.1f").c_str() : none.c_str(),
                   baseline_label, baseline ? format_times(*baseline, 1e9, "").c_str() : none.c_str(),
                   baseline ? format_number(median(baseline->seconds) * 1e9 / bones, "%.2f").c_str() : none.c_str(),
                   ratio.c_str());
    };
    row("sequential", found[static_cast<int>(Measure::kSequentialPlayer)][0], "sequential",
        found[static_cast<int>(Measure::kSequentialBaseline)][0]);
    for (size_t j = 0; j < kJumpIntervalCount; ++j) {
      const std::string label = "seek, J = " + format_number(static_cast<double>(kJumpIntervalsS[j]), "%g") + " s (" +
                                std::to_string(data->packs[j].bytes.size()) + " B)";
      row(label, found[static_cast<int>(Measure::kSeekPlayer)][j], "random",
          found[static_cast<int>(Measure::kRandomBaseline)][0]);
    }
    const std::string zstd_size = " (" + std::to_string(data->zstd_pack.bytes.size()) + " B)";
    row("sequential, zstd blocks, J = 1 s" + zstd_size, found[static_cast<int>(Measure::kSequentialPlayerZstd)][0],
        "sequential", found[static_cast<int>(Measure::kSequentialBaseline)][0]);
    row("seek, zstd blocks, J = 1 s" + zstd_size, found[static_cast<int>(Measure::kSeekPlayerZstd)][0], "random",
        found[static_cast<int>(Measure::kRandomBaseline)][0]);
    if (const Measured* fit = found[static_cast<int>(Measure::kFit)][0]) {
      std::fprintf(out, "\nfit (1 thread): %s per clip, %s ms per 1000 frames\n",
                   format_times(*fit, 1e3, " ms").c_str(),
                   format_number(median(fit->seconds) * 1e3 * 1000.0 / fitted.frame_count, "%.1f").c_str());
    }
  }
  if (tables == 0) return;
  std::fprintf(out,
               "\nTimes are CPU time per iteration, median over repetitions (min..max); "
               "player / baseline < 1 means the player is faster.\n");
}

// The demo clip, then every clip file of `clips_dir` by name.
std::vector<ClipSource> find_clips(const fs::path& clips_dir, bool all_animations) {
  std::vector<fs::path> files = {fs::path(KS_ASSETS_DIR) / "demo_walk.glb"};
  std::vector<fs::path> shared;
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(clips_dir, ec)) {
    if (entry.is_regular_file() && ks::is_importable(entry.path())) shared.push_back(entry.path());
  }
  if (ec) std::fprintf(stderr, "ks_codec_benchmark: cannot list %s: %s\n", clips_dir.c_str(), ec.message().c_str());
  std::sort(shared.begin(), shared.end());
  files.insert(files.end(), shared.begin(), shared.end());

  std::vector<ClipSource> sources;
  for (const fs::path& file : files) {
    const std::string file_name = file.filename().string();
    const bool gltf = file.extension() != ".bvh";
    if (all_animations && gltf) {
      ks::Result<ks::ImportedClip> imported = ks::import_clip(file);
      if (imported.ok() && imported.value().animation_names.size() > 1) {
        const std::vector<std::string>& names = imported.value().animation_names;
        for (size_t a = 0; a < names.size(); ++a) {
          const std::string animation = names[a].empty() ? std::to_string(a) : names[a];
          sources.push_back({file_name + "#" + animation, file, static_cast<int>(a)});
        }
        continue;
      }
    }
    sources.push_back({file_name, file, 0});
  }
  return sources;
}

bool wanted(const ClipSource& source, const std::vector<std::string>& only) {
  if (only.empty()) return true;
  const std::string file_name = source.path.filename().string();
  return std::any_of(only.begin(), only.end(),
                     [&](const std::string& name) { return name == source.name || name == file_name; });
}

void register_benchmarks(std::vector<std::unique_ptr<ClipFixture>>& clips, std::vector<Registered>& registered) {
  auto add = [&](size_t c, Measure measure, size_t jump, const std::string& name) {
    registered.push_back({c, measure, jump, name});
    return registered.back().name.c_str();  // RegisterBenchmark copies it
  };
  for (size_t c = 0; c < clips.size(); ++c) {
    ClipFixture* clip = clips[c].get();
    const std::string& n = clip->name();
    benchmark::RegisterBenchmark(add(c, Measure::kFit, 0, "fit/" + n), bm_fit, clip)->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(add(c, Measure::kSequentialPlayer, 0, "sequential/player/" + n), bm_player, clip,
                                 kSequentialJump, false, false);
    benchmark::RegisterBenchmark(add(c, Measure::kSequentialPlayerZstd, 0, "sequential/player_zstd/" + n), bm_player,
                                 clip, kSequentialJump, false, true);
    benchmark::RegisterBenchmark(add(c, Measure::kSequentialBaseline, 0, "sequential/baseline/" + n), bm_baseline, clip,
                                 false);
    for (size_t j = 0; j < kJumpIntervalCount; ++j) {
      const std::string name =
          "seek/player_J" + format_number(static_cast<double>(kJumpIntervalsS[j]), "%g") + "s/" + n;
      benchmark::RegisterBenchmark(add(c, Measure::kSeekPlayer, j, name), bm_player, clip, j, true, false);
    }
    benchmark::RegisterBenchmark(add(c, Measure::kSeekPlayerZstd, 0, "seek/player_zstd_J1s/" + n), bm_player, clip,
                                 kSequentialJump, true, true);
    benchmark::RegisterBenchmark(add(c, Measure::kRandomBaseline, 0, "random/baseline/" + n), bm_baseline, clip, true);
  }
}

}  // namespace

int main(int argc, char** argv) {
  // Our own flags first; the rest goes to Google Benchmark.
  std::vector<std::string> only_clips;
  bool all_animations = false;
  std::string format = "console";
  if (const char* env = std::getenv("KS_BENCH_CLIP"); env != nullptr && *env != '\0') {
    std::string list = env;
    for (size_t start = 0; start <= list.size();) {
      const size_t comma = std::min(list.find(',', start), list.size());
      if (comma > start) only_clips.push_back(list.substr(start, comma - start));
      start = comma + 1;
    }
  }
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--clip" && i + 1 < argc) {
      only_clips.emplace_back(argv[++i]);
    } else if (arg.starts_with("--clip=")) {
      only_clips.emplace_back(arg.substr(7));
    } else if (arg == "--all-animations") {
      all_animations = true;
    } else {
      if (arg.starts_with("--benchmark_format=")) format = std::string(arg.substr(19));
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;

  // Clips, each registered as its own set of benchmarks.
  std::vector<std::unique_ptr<ClipFixture>> clips;
  std::vector<ClipSource> sources = find_clips(KS_CLIPS_DIR, all_animations);
  for (const std::string& name : only_clips) {
    if (std::none_of(sources.begin(), sources.end(), [&](const ClipSource& s) { return wanted(s, {name}); })) {
      std::fprintf(stderr, "ks_codec_benchmark: no clip named %s; the clips are:\n", name.c_str());
      for (const ClipSource& s : sources) std::fprintf(stderr, "  %s\n", s.name.c_str());
      return 2;
    }
  }
  for (ClipSource& source : sources) {
    if (wanted(source, only_clips)) clips.push_back(std::make_unique<ClipFixture>(std::move(source)));
  }
  std::vector<Registered> registered;
  register_benchmarks(clips, registered);

  // Run, then the ratio tables (on stderr when stdout carries JSON).
  if (format != "console" && format != "json") {
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
  }
  std::unique_ptr<benchmark::BenchmarkReporter> display;
  if (format == "json") {
    display = std::make_unique<benchmark::JSONReporter>();
  } else {
    display = std::make_unique<benchmark::ConsoleReporter>(
        isatty(STDOUT_FILENO) ? benchmark::ConsoleReporter::OO_Defaults : benchmark::ConsoleReporter::OO_Tabular);
  }
  CollectingReporter reporter(std::move(display));
  benchmark::RunSpecifiedBenchmarks(&reporter);
  std::fflush(stdout);
  print_tables(format == "json" ? stderr : stdout, clips, registered, reporter);
  benchmark::Shutdown();
  return 0;
}
