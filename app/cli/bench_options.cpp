#include "app/cli/bench_options.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "app/cli/arguments.h"
#include "app/cli/shown_text.h"

namespace ks::cli {

namespace fs = std::filesystem;

const char* const kBenchHelp =
    "usage: keystream bench [CLIP...] [options]\n"
    "\n"
    "Measures the codec on real clips and prints Markdown tables:\n"
    "  rate-distortion  per clip, for a sweep of object-space tolerances:\n"
    "                   bytes with and without metadata, bits per key, ratio,\n"
    "                   max and 99th-percentile object-space error at 3 cm and\n"
    "                   1 m, bones over their tolerance and the floor the fit\n"
    "                   reported for them; a last line at the clip's own\n"
    "                   tolerance (--tolerance). A clip with scalar tracks\n"
    "                   (morph weights, curves) adds their count, the bone and\n"
    "                   scalar shares of the bytes and the worst scalar error\n"
    "                   against its precision (the default, 0.0001). A bone or\n"
    "                   scalar track over with no floor is a VIOLATION of the\n"
    "                   error bound: the bench exits 1;\n"
    "  timing           per pose and per bone: sequential playback at the clip\n"
    "                   rate and at 60 Hz, random seeks with several jump\n"
    "                   intervals, warm and cold, against the binary-search\n"
    "                   baseline timed in the same run; and the fit time. A\n"
    "                   clip's scalar tracks are sampled with its bones, and\n"
    "                   again without them in rows marked \"bones only\";\n"
    "  x42              a crowd of characters looping idle clips: keys read\n"
    "                   and state updates of the baseline, a player per\n"
    "                   character, with jump frames, and shared caches.\n"
    "\n"
    "CLIP is a .gltf, .glb, .bvh, .fbx, .dae or .zae file, FILE#ANIMATION, or a\n"
    "folder (searched recursively). Default: the demo clip, every clip in\n"
    "  " KS_CLIPS_DIR "\n"
    "and, for morph-target weights, glTF's sample (when assimp-testmodels is\n"
    "installed; the shared clips have none)\n"
    "  " KS_MORPH_CLIP "\n"
    "Of a file with several animations the longest is measured, unless\n"
    "--all-animations. Progress goes to stderr. A full run takes minutes.\n"
    "\n"
    "options:\n"
    "  --only LIST              some of rd,timing,x42 (default: all)\n"
    "  --json FILE              also write every result as JSON, atomically\n"
    "                           (- for stdout; the tables then go to stderr)\n"
    "  --all-animations         every animation of each glTF, FBX or DAE file\n"
    "  --tolerances LIST        object-space tolerances of the sweep, mm\n"
    "                           (default 0.01,0.03,0.1,0.3,1,3,10), or none\n"
    "  --shell-distance CM      shell distance of every line (default 3)\n"
    "  --rest-tracks keep|skip  every line's rest tracks, as compress takes\n"
    "                           them (default keep)\n"
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
    "  --simd LEVEL             the player's evaluation kernels: scalar, sse2,\n"
    "                           avx2 or avx512 (default: the widest this CPU\n"
    "                           runs)\n"
    "  --log                    Google Benchmark's own lines on stderr\n"
    "  -h, --help               show this help\n";

namespace {

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
    return args.fail(std::string(option) + ": '" + shown_name(text) + "' is not a positive number of millimetres");
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
bool parse_tolerance(Arguments& args, std::string_view option, BenchOptions& o) {
  std::string_view text;
  if (!args.value(option, text)) return false;
  const size_t equals = text.rfind('=');
  if (equals == std::string_view::npos) return parse_millimetres(args, option, std::string(text), o.tolerance_m);
  const std::string clip(text.substr(0, equals));
  if (clip.empty()) return args.fail(std::string(option) + ": '" + shown_name(text) + "' names no clip before '='");
  float metres = 0.f;
  if (!parse_millimetres(args, option, std::string(text.substr(equals + 1)), metres)) return false;
  for (auto& [name, tolerance] : o.clip_tolerances_m) {
    if (name == clip) return args.fail(std::string(option) + ": clip '" + shown_name(clip) + "' named twice");
  }
  o.clip_tolerances_m.emplace_back(clip, metres);
  return true;
}

// Returns 0 when parsed, else the exit code.
}  // namespace

int parse_bench_options(const std::vector<std::string_view>& raw, BenchOptions& o) {
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
          args.fail("--only: unknown table '" + shown_name(item) + "' (rd, timing, x42)");
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
    } else if (arg == "--rest-tracks") {
      if (!args.value(arg, text)) return 2;
      if (!parse_rest_tracks(text, o.rest_tracks)) {
        args.fail("--rest-tracks: '" + shown_name(std::string(text)) + "' is neither 'keep' nor 'skip'");
        return 2;
      }
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
    } else if (arg == "--simd") {
      std::string_view level;
      if (!args.value(arg, level)) return 2;
      SimdLevel named;
      if (!simd_level_named(level, named)) {
        args.fail("--simd: '" + shown_name(level) + "' is not " + kSimdLevelNames);
        return 2;
      }
      o.simd = named;
      if (static_cast<uint8_t>(*o.simd) > static_cast<uint8_t>(best_simd_level())) {
        args.fail("--simd: this CPU does not run " + shown_name(level) + " (its widest is " +
                  to_string(best_simd_level()) + ")");
        return 2;
      }
    } else if (arg == "--log") {
      o.log = true;
    } else if (!arg.empty() && arg[0] == '-' && arg != "-") {
      args.fail("unknown option '" + shown_name(arg) + "' (see keystream bench --help)");
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
    if (fs::is_regular_file(KS_MORPH_CLIP, ec)) folders_and_files.emplace_back(KS_MORPH_CLIP);
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
      args.fail("--crowd-clip: " + shown_path(c.path) + ": no such file");
      return 1;
    }
  }
  return 0;
}

}  // namespace ks::cli
