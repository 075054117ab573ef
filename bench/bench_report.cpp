#include "bench/bench_report.h"

#include <algorithm>
#include <cmath>
#include <unistd.h>

#include <utility>

#include <benchmark/benchmark.h>

#include "keystream/clip/excerpt.h"
#include "keystream/runtime/segment_lanes.h"

namespace ks::bench {

namespace {

// A clip's name as the tables show it: "FILE#ANIMATION", made printable.
std::string clip_text(const std::string& name) {
  return excerpt(name, kPathExcerptChars);
}

std::string format(const char* pattern, double v) {
  char text[64];
  std::snprintf(text, sizeof(text), pattern, v);
  return text;
}

// Three significant digits, without exponent notation for the ranges we print.
std::string sig3(double v) {
  if (v == 0.0) return "0";
  const double a = std::fabs(v);
  if (a >= 100.0) return format("%.0f", v);
  if (a >= 10.0) return format("%.1f", v);
  if (a >= 1.0) return format("%.2f", v);
  if (a >= 0.1) return format("%.3f", v);
  if (a >= 0.01) return format("%.4f", v);
  return format("%.2g", v);
}

// "median (min–max)" of a spread, scaled (e.g. 1e9 for ns).
std::string spread_text(const Spread& s, double unit) {
  if (s.empty()) return "-";
  return sig3(s.median * unit) + " (" + sig3(s.min * unit) + "–" + sig3(s.max * unit) + ")";
}

std::string thousands(uint64_t v) {
  std::string digits = std::to_string(v);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string mm(float metres) { return sig3(static_cast<double>(metres) * 1e3); }

// ---- the size / error chart ------------------------------------------------

// Bytes (without metadata) against max object error at 3 cm, log–log, one letter per clip: the
// rate–distortion curves side by side, readable in a terminal or a note.
void print_curve_chart(const BenchReport& report, std::FILE* out) {
  constexpr int kWidth = 64;
  constexpr int kHeight = 16;
  double lo_x = INFINITY, hi_x = -INFINITY, lo_y = INFINITY, hi_y = -INFINITY;
  for (const ClipRateDistortion& clip : report.rate_distortion) {
    for (const RateDistortionPoint& p : clip.points) {
      if (p.max_object_error_m[0] <= 0.f || p.stream_bytes_without_metadata() == 0) continue;
      lo_x = std::min(lo_x, std::log10(static_cast<double>(p.max_object_error_m[0])));
      hi_x = std::max(hi_x, std::log10(static_cast<double>(p.max_object_error_m[0])));
      lo_y = std::min(lo_y, std::log10(static_cast<double>(p.stream_bytes_without_metadata())));
      hi_y = std::max(hi_y, std::log10(static_cast<double>(p.stream_bytes_without_metadata())));
    }
  }
  if (!(hi_x > lo_x) || !(hi_y > lo_y)) return;
  std::vector<std::string> grid(kHeight, std::string(kWidth, ' '));
  std::string legend;
  for (size_t c = 0; c < report.rate_distortion.size(); ++c) {
    const char letter = static_cast<char>('a' + c % 26);
    legend += std::string(legend.empty() ? "" : ", ") + letter + " = " + clip_text(report.rate_distortion[c].clip);
    for (const RateDistortionPoint& p : report.rate_distortion[c].points) {
      if (p.max_object_error_m[0] <= 0.f || p.stream_bytes_without_metadata() == 0) continue;
      const double x = (std::log10(static_cast<double>(p.max_object_error_m[0])) - lo_x) / (hi_x - lo_x);
      const double y = (std::log10(static_cast<double>(p.stream_bytes_without_metadata())) - lo_y) / (hi_y - lo_y);
      const int col = std::clamp(static_cast<int>(std::lround(x * (kWidth - 1))), 0, kWidth - 1);
      const int row = std::clamp(static_cast<int>(std::lround((1.0 - y) * (kHeight - 1))), 0, kHeight - 1);
      char& cell = grid[static_cast<size_t>(row)][static_cast<size_t>(col)];
      cell = cell == ' ' || cell == letter ? letter : '*';
    }
  }
  std::fprintf(out, "\nStream bytes without metadata (up, log) against max object-space error at 3 cm (right, log); "
                    "* = several clips:\n\n```\n");
  for (int r = 0; r < kHeight; ++r) {
    std::string label = r == 0 ? format("%.3g B", std::pow(10.0, hi_y))
                               : r == kHeight - 1 ? format("%.3g B", std::pow(10.0, lo_y)) : "";
    std::fprintf(out, "%10s |%s\n", label.c_str(), grid[static_cast<size_t>(r)].c_str());
  }
  std::fprintf(out, "%10s +%s\n", "", std::string(kWidth, '-').c_str());
  const std::string left = mm(static_cast<float>(std::pow(10.0, lo_x))) + " mm";
  const std::string right = mm(static_cast<float>(std::pow(10.0, hi_x))) + " mm";
  std::fprintf(out, "%10s  %s%*s\n```\n%s\n", "", left.c_str(), kWidth - static_cast<int>(left.size()),
               right.c_str(), legend.c_str());
}

// The note under a table for a point with bones over their tolerance;
// empty when none is.
std::string bone_note(const RateDistortionPoint& p) {
  if (p.bones_over == 0) return "";
  std::string note = p.bones_over_without_floor > 0
                         ? "VIOLATION at " + p.label + ": " + std::to_string(p.bones_over_without_floor) + " of " +
                               std::to_string(p.bones_over) + " bones over with no floor reported"
                         : p.label + ": " + std::to_string(p.bones_over) + " bones over, at a floor";
  if (p.bones_over_floor_below_tolerance > 0) {
    note += " (" + std::to_string(p.bones_over_floor_below_tolerance) +
            " of them with a floor below the tolerance: the fit stopped short)";
  }
  note += "; worst " + excerpt(p.worst_bone) + " " + format("%.4g", static_cast<double>(p.worst_bone_error_m) * 1e3) +
          " mm > " + format("%.4g", static_cast<double>(p.worst_bone_tolerance_m) * 1e3) + " mm at frame " +
          std::to_string(p.worst_bone_frame) + ", floor " +
          (p.worst_bone_floor_m > 0.f ? format("%.4g mm", static_cast<double>(p.worst_bone_floor_m) * 1e3)
                                      : std::string("none"));
  return note;
}

// ---- scalar tracks in the rate–distortion tables ----------------------------

// Only a clip with scalar tracks gets their columns: a bone-only clip's
// table reads as it did before there were any.
bool has_scalar_columns(const ClipRateDistortion& clip) {
  if (clip.scalar_tracks > 0 || (clip.at_tolerance && clip.at_tolerance->scalar_tracks > 0)) return true;
  return std::any_of(clip.points.begin(), clip.points.end(),
                     [](const RateDistortionPoint& p) { return p.scalar_tracks > 0; });
}

// "230 (39.2%)": bytes and their share of the whole stream.
std::string bytes_and_share(size_t bytes, double share) {
  return std::to_string(bytes) + " (" + format("%.1f", share * 100.0) + "%)";
}

// The scalar-track cells that end a row of a clip with scalar tracks.
std::string scalar_cells(const RateDistortionPoint& p) {
  std::string worst = "-";
  if (p.scalar_tracks > 0) {
    worst = format("%.3g", static_cast<double>(p.worst_scalar_error)) + " / " +
            format("%g", static_cast<double>(p.worst_scalar_precision));
  }
  if (p.scalars_over > 0) worst += ", " + std::to_string(p.scalars_over) + " over";
  if (p.scalars_over_without_floor > 0) worst += " **VIOLATION**";
  return " " + std::to_string(p.scalar_tracks) + " | " + bytes_and_share(p.bone_bytes(), p.bone_share()) + " | " +
         bytes_and_share(p.scalar_bytes, p.scalar_share()) + " | " + worst + " |";
}

// The note under a table for a point whose scalar tracks missed their
// precision; empty when none did.
std::string scalar_note(const RateDistortionPoint& p) {
  if (p.scalars_over == 0) return "";
  const std::string over = std::to_string(p.scalars_over) + " of " + std::to_string(p.scalar_tracks);
  std::string note = p.scalars_over_without_floor > 0
                         ? "VIOLATION at " + p.label + ": " + over + " scalar tracks over their precision, " +
                               std::to_string(p.scalars_over_without_floor) + " with no floor reported"
                         : p.label + ": " + over + " scalar tracks over their precision, at a floor";
  return note + "; worst " + excerpt(p.worst_scalar) + " " + format("%.4g", static_cast<double>(p.worst_scalar_error)) +
         " > " + format("%.4g", static_cast<double>(p.worst_scalar_precision)) + " at frame " +
         std::to_string(p.worst_scalar_frame);
}

}  // namespace

bool ClipRateDistortion::violation() const {
  if (at_tolerance && at_tolerance->violation()) return true;
  return std::any_of(points.begin(), points.end(), [](const RateDistortionPoint& p) { return p.violation(); });
}

size_t violations(const BenchReport& report) {
  size_t n = 0;
  for (const ClipRateDistortion& clip : report.rate_distortion) {
    for (const RateDistortionPoint& p : clip.points) n += p.violation() ? 1 : 0;
    if (clip.at_tolerance && clip.at_tolerance->violation()) ++n;
  }
  return n;
}

std::string describe_machine() {
  const benchmark::CPUInfo& cpu = benchmark::CPUInfo::Get();
  std::string text = std::to_string(cpu.num_cpus) + " CPUs at " + format("%.0f", cpu.cycles_per_second / 1e6) + " MHz";
  for (const benchmark::CPUInfo::CacheInfo& cache : cpu.caches) {
    text += ", L" + std::to_string(cache.level) + " " + (cache.type == "Instruction" ? "instruction " : "") +
            std::to_string(cache.size / 1024) + " KiB";
    if (cache.num_sharing > 1) text += " (shared by " + std::to_string(cache.num_sharing) + ")";
  }
  if (cpu.caches.empty()) {
    // Some virtual machines hide /sys/devices/system/cpu/*/cache, where
    // Google Benchmark looks; the C library still knows the sizes.
    const std::pair<const char*, int> levels[] = {{"L1 data", _SC_LEVEL1_DCACHE_SIZE},
                                                  {"L2", _SC_LEVEL2_CACHE_SIZE},
                                                  {"L3", _SC_LEVEL3_CACHE_SIZE}};
    for (const auto& [name, id] : levels) {
      const long bytes = sysconf(id);
      if (bytes > 0) text += std::string(", ") + name + " " + std::to_string(bytes / 1024) + " KiB";
    }
  }
  return text;
}

std::string describe_build() {
  std::string text = "compiler " __VERSION__;
#if defined(__OPTIMIZE__)
  text += ", optimised";
#else
  text += ", NOT optimised (times mean little)";
#endif
#if defined(__SANITIZE_ADDRESS__)
  text += ", AddressSanitizer (times mean little)";
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  text += ", AddressSanitizer (times mean little)";
#endif
#endif
#if !defined(NDEBUG)
  text += ", asserts on";
#endif
  text += std::string(", player kernels ") + to_string(simd_level());
  return text;
}

void print_rate_distortion(const BenchReport& report, std::FILE* out) {
  if (report.rate_distortion.empty()) return;
  std::fprintf(out,
               "\n## Rate–distortion\n\n"
               "Each line fits the clip at an object-space tolerance E (every virtual vertex %g cm from every bone "
               "within E of the source's, at every frame), packs it (jump frames every second) and decodes every "
               "source frame through the player. bytes: the whole stream; w/o metadata: without the metadata "
               "(names, tolerances), which an engine may strip. Object-space error: the largest and 99th-percentile "
               "distance between source and decoded positions of virtual vertices 3 cm and 1 m from each bone. "
               "\"over\": bones whose decoded error is above E; \"floor\": the largest quantization floor the fit "
               "reported for them. over must be 0 wherever no floor is reported: a bone over without one is a "
               "VIOLATION of the error bound. The bold last line of each table is the clip's own tolerance "
               "(--tolerance; ACL's default is 0.1 mm at 3 cm). \"fixed-width keys / Rice\": the animated tracks' key bits as "
               "written (stream keys in segments of 16 at the widths their largest differences need, which a reader "
               "decodes without a serial chain of Rice codes) over what they took as Rice-coded differences (format "
               "version 4).\n",
               static_cast<double>(report.shell_distance_m) * 100.0);
  if (report.rest_tracks_skipped) {
    std::fprintf(out,
                 "\nEvery line was fitted with --rest-tracks skip: bone tracks at the skeleton's rest pose store "
                 "nothing (the engine binds its own), and the metadata keeps their values for tools.\n");
  }
  if (std::any_of(report.rate_distortion.begin(), report.rate_distortion.end(), has_scalar_columns)) {
    std::fprintf(out,
                 "\nA clip with scalar tracks (morph-target weights, user curves) has four more columns. Its scalar "
                 "tracks are fitted at their default precision (%g, in each track's unit) on every line. bone bytes: "
                 "the stream without metadata less the scalar bytes (so header and jump frames count with the bones); "
                 "scalar bytes: the scalar tracks' records and keys, as `keystream measure` counts them; each with "
                 "its share of the whole stream (bytes). worst scalar error / precision: the decoded scalar track "
                 "furthest from the source relative to its precision, over every source frame. A scalar track over "
                 "its precision that the fit believed within it is a VIOLATION too.\n",
                 static_cast<double>(kDefaultScalarPrecision));
  }
  for (const ClipRateDistortion& clip : report.rate_distortion) {
    const bool scalars = has_scalar_columns(clip);
    const std::string scalar_count =
        scalars ? std::to_string(clip.scalar_tracks) + " scalar track" + (clip.scalar_tracks == 1 ? ", " : "s, ") : "";
    std::fprintf(out, "\n### %s: %u bones, %s%u frames at %g Hz\n\n", clip_text(clip.clip).c_str(), clip.bones,
                 scalar_count.c_str(), clip.frames, static_cast<double>(clip.sample_rate_hz));
    if (!clip.error.empty()) {
      std::fprintf(out, "FAILED: %s\n", excerpt(clip.error, kMessageExcerptChars).c_str());
      continue;
    }
    std::fprintf(
        out,
        "| tolerance | bytes | bytes w/o metadata | zstd bytes | keys | bits/key | ratio | max 3 cm mm | p99 3 cm mm "
        "| max 1 m mm | p99 1 m mm | over | floor mm | fixed-width keys / Rice |%s\n"
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|%s\n",
        scalars ? " scalar tracks | bone bytes | scalar bytes | worst scalar error / precision |" : "",
        scalars ? "---|---|---|---|" : "");
    std::vector<std::string> notes;
    auto row = [&](const RateDistortionPoint& p, bool bold) {
      const std::string label = bold ? "**" + p.label + "**" : p.label;
      std::string over = std::to_string(p.bones_over);
      if (p.bones_over_without_floor > 0) over += " **VIOLATION**";
      std::fprintf(out, "| %s | %zu | %zu | %zu | %zu | %.1f | %.1f:1 | %s | %s | %s | %s | %s | %s | %.3f |%s\n",
                   label.c_str(), p.stream_bytes, p.stream_bytes_without_metadata(), p.zstd_bytes, p.key_count,
                   p.bits_per_key, p.ratio, mm(p.max_object_error_m[0]).c_str(), mm(p.p99_object_error_m[0]).c_str(),
                   mm(p.max_object_error_m[1]).c_str(), mm(p.p99_object_error_m[1]).c_str(), over.c_str(),
                   p.floor_m > 0.f ? mm(p.floor_m).c_str() : "-", p.fixed_width_key_ratio(),
                   scalars ? scalar_cells(p).c_str() : "");
      for (std::string note : {bone_note(p), scalar_note(p)}) {
        if (!note.empty()) notes.push_back(std::move(note));
      }
    };
    for (const RateDistortionPoint& p : clip.points) row(p, false);
    if (clip.at_tolerance) row(*clip.at_tolerance, true);
    for (const std::string& note : notes) std::fprintf(out, "\n- %s", note.c_str());
    if (!notes.empty()) std::fprintf(out, "\n");
  }
  print_curve_chart(report, out);
  if (const size_t n = violations(report); n > 0) {
    std::fprintf(out,
                 "\n**VIOLATION: %zu points have bones over their tolerance with no floor reported, or scalar tracks "
                 "over their precision that the fit believed within it.**\n",
                 n);
  }
}

void print_sampling(const BenchReport& report, std::FILE* out) {
  if (report.timings.empty()) return;
  const RunSettings& run = report.timing_settings.run;
  std::fprintf(out,
               "\n## Sampling and seeking\n\n"
               "Per pose, CPU time in ns, median over %d repetitions of at least %g s (min–max); per bone = per "
               "pose / bones. The baseline binary-searches every track at the same times (the same curve, the same "
               "poses bit for bit). Warm: one player sampling over and over. Cold: each sample plays the next of "
               "\"copies\" copies of the clip (about %zu MiB together), as in a crowd, so its data is not in L1/L2. "
               "Sequential rows loop the clip; seek rows sample %s random times. Default fit settings (0.1 mm at 3 cm); the "
               "sequential and zstd rows read the default stream, whose jump interval --jump-interval auto chose.\n",
               run.repetitions, run.min_time_s, report.timing_settings.cold_working_set_bytes >> 20, "4096");
  for (const ClipTimings& clip : report.timings) {
    const std::string scalar_count = clip.scalar_tracks > 0 ? std::to_string(clip.scalar_tracks) + " scalar track" +
                                                                  (clip.scalar_tracks == 1 ? ", " : "s, ")
                                                            : "";
    std::fprintf(out, "\n### %s: %u bones, %s%u frames at %g Hz, %zu keys\n\n", clip_text(clip.name).c_str(),
                 clip.bones, scalar_count.c_str(), clip.frames, static_cast<double>(clip.sample_rate_hz), clip.keys);
    if (!clip.error.empty() && clip.rows.empty()) {
      std::fprintf(out, "FAILED: %s\n", excerpt(clip.error, kMessageExcerptChars).c_str());
      continue;
    }
    const double auto_s = clip.auto_jump_interval_frames / std::max(1e-9, static_cast<double>(clip.sample_rate_hz));
    const std::string key_cache = clip.default_key_cache_bytes == 0
                                      ? "and reads the stream (no key cache)"
                                      : std::to_string(clip.default_key_cache_bytes) + " of them its key cache";
    std::fprintf(
        out,
        "Default stream: %zu bytes; --jump-interval auto chose %s (%u frames): jump frames %zu bytes, %.1f%% "
        "of the stream. StreamView::open: %s us (full check %s us). A Player of it owns %zu bytes, %s.\n\n",
        clip.default_stream_bytes,
        clip.auto_jump_interval_frames == 0 ? "no jump frames" : (std::to_string(auto_s).substr(0, 5) + " s").c_str(),
        clip.auto_jump_interval_frames, clip.auto_jump_frame_bytes,
        100.0 * static_cast<double>(clip.auto_jump_frame_bytes) /
            std::max<double>(1.0, static_cast<double>(clip.default_stream_bytes)),
        spread_text(clip.open_s, 1e6).c_str(), spread_text(clip.open_full_s, 1e6).c_str(), clip.default_player_bytes,
        key_cache.c_str());
    if (clip.scalar_tracks > 0) {
      std::fprintf(out,
                   "Every row samples the %u scalar tracks too (%u floats a pose, player and baseline alike), but the "
                   "\"%s\" rows: the same stream read for its bones alone, what an engine that ignores the curves "
                   "pays; and the \"%s\" rows: the curves alone (Player::sample_scalars), what an engine that "
                   "reads only them pays.\n\n",
                   clip.scalar_tracks, clip.scalar_values, kBonesOnly, kCurvesOnly);
    }
    std::fprintf(out,
                 "| measure | cache | stream bytes | copies | player ns/pose | player ns/bone | keys read/pose | "
                 "baseline ns/pose | baseline ns/bone | player / baseline |\n"
                 "|---|---|---|---|---|---|---|---|---|---|\n");
    const double bones = std::max(1.0, static_cast<double>(clip.bones));
    for (const SamplingRow& r : clip.rows) {
      if (!r.error.empty()) {
        std::fprintf(out, "| %s | %s | %zu | - | FAILED: %s | | | | | |\n", r.measure.c_str(), to_string(r.cache),
                     r.stream_bytes, excerpt(r.error, kMessageExcerptChars).c_str());
        continue;
      }
      std::fprintf(out, "| %s | %s | %zu | %zu | %s | %s | %.1f | %s | %s | %.2f |\n", r.measure.c_str(),
                   to_string(r.cache), r.stream_bytes, r.copies, spread_text(r.player_s, 1e9).c_str(),
                   sig3(r.player_s.median * 1e9 / bones).c_str(), r.player_keys_per_pose,
                   spread_text(r.baseline_s, 1e9).c_str(), sig3(r.baseline_s.median * 1e9 / bones).c_str(),
                   r.ratio());
    }
  }
}

void print_fit_times(const BenchReport& report, std::FILE* out) {
  if (report.timings.empty()) return;
  std::fprintf(out,
               "\n## Fit time\n\n"
               "One fit and pack on one thread, CPU time in ms, median over %d repetitions (min–max): with the "
               "default settings (0.1 mm at 3 cm), and in local mode (version 1's per-kind thresholds) in the same "
               "run.\n\n"
               "| clip | bones | frames | keys | fit + pack ms | ms per 1000 frames | local mode ms | / local |\n"
               "|---|---|---|---|---|---|---|---|\n",
               report.timing_settings.run.repetitions);
  for (const ClipTimings& clip : report.timings) {
    if (clip.fit_s.empty() || clip.local_fit_s.empty()) {
      std::fprintf(out, "| %s | | | | FAILED: %s | | | |\n", clip_text(clip.name).c_str(),
                   excerpt(clip.error, kMessageExcerptChars).c_str());
      continue;
    }
    std::fprintf(out, "| %s | %u | %u | %zu | %s | %s | %s | %.2f |\n", clip_text(clip.name).c_str(), clip.bones,
                 clip.frames, clip.keys, spread_text(clip.fit_s, 1e3).c_str(),
                 sig3(clip.fit_ms_per_1000_frames()).c_str(), spread_text(clip.local_fit_s, 1e3).c_str(),
                 clip.fit_ratio_to_local());
  }
}

void print_crowd(const BenchReport& report, std::FILE* out) {
  if (!report.crowd) return;
  const CrowdReport& crowd = *report.crowd;
  std::fprintf(out, "\n## x42 crowd playback\n\n");
  if (!crowd.error.empty()) {
    std::fprintf(out, "FAILED: %s\n", excerpt(crowd.error, kMessageExcerptChars).c_str());
    return;
  }
  const CrowdSettings& s = crowd.result.settings;
  const double character_frames = static_cast<double>(s.characters) * s.game_frames;
  std::fprintf(out,
               "%u characters play looping clips from random phases (whole game frames, seed %u) for %u game "
               "frames at %g Hz; jump frames every %g s in (c) and (d). Keys read: keys decoded (the baseline reads "
               "4 per track lookup, and looks up only the animated tracks: constant ones are a stored value). "
               "State updates: track states written (a key shifted into a window, a window restored; the baseline "
               "rewrites every animated track's state every frame).\n\n"
               "| clip | bones | animated tracks | frames | Hz | keys | characters | stream bytes (no jump frames / jump "
               "frames) |\n"
               "|---|---|---|---|---|---|---|---|\n",
               s.characters, s.seed, s.game_frames, static_cast<double>(s.game_rate_hz),
               static_cast<double>(s.jump_interval_s));
  for (const CrowdClipInfo& c : crowd.result.clips) {
    std::fprintf(out, "| %s | %u | %u | %u | %g | %u | %u | %zu / %zu |\n", clip_text(c.name).c_str(), c.bones,
                 c.animated_tracks, c.frame_count, static_cast<double>(c.sample_rate_hz), c.keys, c.characters,
                 c.stream_bytes_without_jump_frames, c.stream_bytes);
  }
  const bool timed = crowd.run_seconds.size() == crowd.result.rows.size();
  std::fprintf(out,
               "\n| variant | keys read | state updates | keys read / character-frame | state updates / "
               "character-frame | jump frames used | restarts | caches | cache bytes |%s\n"
               "|---|---|---|---|---|---|---|---|---|%s\n",
               timed ? " µs per game frame | time / (a) |" : "", timed ? "---|---|" : "");
  for (size_t i = 0; i < crowd.result.rows.size(); ++i) {
    const CrowdRow& r = crowd.result.rows[i];
    std::string time;
    if (timed) {
      const double frames = static_cast<double>(s.game_frames);
      const Spread& run = crowd.run_seconds[i];
      const double base = crowd.run_seconds[0].median;
      // Appended piece by piece: GCC 12 at -O3 warns (-Wrestrict, a false
      // positive) on the same expression written with operator+.
      time += ' ';
      time += spread_text(run, 1e6 / frames);
      time += " | ";
      time += base > 0.0 ? format("%.2f", run.median / base) : std::string("-");
      time += " |";
    }
    std::fprintf(out, "| %s | %s | %s | %.2f | %.2f | %s | %s | %u | %s |%s\n", r.label,
                 thousands(r.keys_read).c_str(), thousands(r.state_updates).c_str(),
                 static_cast<double>(r.keys_read) / character_frames,
                 static_cast<double>(r.state_updates) / character_frames, thousands(r.jump_frames_used).c_str(),
                 thousands(r.restarts).c_str(), r.caches, thousands(r.cache_bytes).c_str(), time.c_str());
  }
  std::fprintf(out, "\nEvery variant decoded the same poses bit for bit: %s.\n",
               crowd.result.poses_identical ? "yes" : "NO (a bug: the checksums differ)");
}

void print_markdown(const BenchReport& report, std::FILE* out) {
  std::fprintf(out, "# keystream bench\n\n- command: `%s`\n- machine: %s\n- build: %s\n",
               excerpt(report.command_line, kMessageExcerptChars).c_str(), report.machine.c_str(),
               report.build.c_str());
  print_rate_distortion(report, out);
  print_sampling(report, out);
  print_fit_times(report, out);
  print_crowd(report, out);
}

}  // namespace ks::bench
