// keystream compress: source clips to stream files, one or many. Each clip is
// imported, fitted, packed (plain and with a zstd key stream, to report both),
// decoded at every frame and measured against its source, and only then
// written, atomically. Many clips run in parallel over a pool of workers.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "app/cli/arguments.h"
#include "app/cli/clip_report.h"
#include "app/cli/commands.h"
#include "app/cli/progress.h"
#include "keystream/codec/measure.h"
#include "keystream/io/file_io.h"
#include "keystream/io/import.h"
#include "keystream/io/stream_file.h"
#include "keystream/io/stream_names.h"

namespace ks::cli {

namespace {

namespace fs = std::filesystem;

constexpr const char* kCompressHelp =
    "usage: keystream compress IN... [-o OUT] [options]\n"
    "\n"
    "Fits, quantizes and packs each source clip (.gltf, .glb, .bvh, .fbx, .dae,\n"
    ".zae; a folder stands for every such file in it, recursively) into a\n"
    "stream file (.ks).\n"
    "Every stream is decoded at each frame and measured against its source\n"
    "before it is written; files are written atomically, so an interrupted run\n"
    "never leaves a partial file or loses an existing one.\n"
    "\n"
    "With one source file, OUT is the stream file (default: NAME.ks in the\n"
    "current folder). With several, or a folder, OUT is a folder (default: the\n"
    "current folder) that receives NAME.ks for each. Clips run in parallel; a\n"
    "terminal shows a progress bar, anything else one line per clip. A summary\n"
    "table follows.\n"
    "\n"
    "The bound is checked on the decoded stream at every frame: in object\n"
    "space, every bone against its own tolerance and shell distance; with\n"
    "--local, every track against its threshold; in both, every scalar track\n"
    "(morph-target weight, user curve) against its precision. When a fit\n"
    "cannot meet it (a quantization floor), the bones (or tracks) over it are\n"
    "listed with the frame and the floor, the stream is still written for\n"
    "inspection (but an existing file is kept unless --force), and the exit\n"
    "code is 1. Exits 1 when a clip fails or misses its bound, 2 for bad usage\n"
    "(a bad value, a --bone-tolerance naming a bone the clip lacks, a\n"
    "--scalar-precision naming a scalar track it lacks, two clips that would\n"
    "write one file, or an output that is one of the inputs).\n"
    "\n"
    "options:\n"
    "  -o, --output OUT         stream file, or folder for several clips\n"
    "  --zstd                   compress the key stream as one zstd frame (each\n"
    "                           player decompresses it once)\n"
    "  --zstd-level N           1..22 (default 19)\n"
    "  --force                  replace an existing stream even with a clip\n"
    "                           that misses its bound\n"
    "  --all-animations         every animation of a glTF, FBX or DAE file, as\n"
    "                           NAME.ANIMATION.ks\n"
    "  --jobs N                 clips compressed at once (default: all cores)\n"
    "  --json FILE              also write the report as JSON (- for stdout), with\n"
    "                           every bone's largest error, tolerance, shell\n"
    "                           distance and worst frame, and every scalar\n"
    "                           track's against its precision\n";

// Bones (or tracks) over their bound listed per clip after the table.
constexpr size_t kMissesListed = 10;

// One source file and where its stream(s) go.
struct Job {
  fs::path source;
  std::vector<fs::path> outputs;  // the .ks file; with --all-animations one per animation, in file order
};

struct Options {
  ImportSettings import;
  CodecOptions codec;
  std::optional<AdditiveBaseSpec> additive;  // --additive-base
  bool all_animations = false;
  bool force = false;  // replace an existing stream even when the clip misses its bound
  unsigned jobs = std::max(1u, std::thread::hardware_concurrency());
  std::string json_path;
};

// Compresses one animation of an imported clip into `output`.
ClipReport compress_clip(ImportedClip& imported, const Options& options, const fs::path& output,
                         unsigned fit_threads) {
  ClipReport report = start_report(imported);
  report.output = output;
  if (options.additive) {
    if (Status s = make_imported_additive(imported, *options.additive, options.import); !s) {
      return failed(std::move(report), s.error());
    }
  }
  const auto start = std::chrono::steady_clock::now();
  const FitSettings& fit = options.codec.fit;
  Result<FittedClip> fitted = fit_clip(imported.skeleton, imported.clip, fit, fit_threads);
  report.fit_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (!fitted) return failed(std::move(report), fitted.error());
  PackSettings plain_settings = options.codec.pack;
  plain_settings.source_name = imported.source.filename().string();
  plain_settings.zstd = false;
  PackSettings zstd_settings = plain_settings;
  zstd_settings.zstd = true;
  Result<std::vector<uint8_t>> plain = pack(fitted.value(), plain_settings);
  if (!plain) return failed(std::move(report), plain.error());
  Result<std::vector<uint8_t>> zstd = pack(fitted.value(), zstd_settings);
  if (!zstd) return failed(std::move(report), zstd.error());
  report.plain_bytes = plain.value().size();
  report.zstd_bytes = zstd.value().size();
  const std::vector<uint8_t>& chosen = options.codec.pack.zstd ? zstd.value() : plain.value();
  Result<StreamView> view = StreamView::open(chosen, output.string().c_str(), StreamCheck::kFull);
  if (!view) return failed(std::move(report), view.error());
  // Object space: measure every bone at its own shell distance, as promised
  // (the fit resolved each bone's E and d; local mode has none).
  BoneTolerances tolerances;
  for (const BoneFit& bone : fitted.value().bones) {
    tolerances.tolerance_m.push_back(bone.tolerance_m);
    tolerances.shell_distance_m.push_back(bone.shell_distance_m);
  }
  MeasureSettings measure_settings;
  measure_settings.bone_shell_distance_m = tolerances.shell_distance_m;
  Result<ClipMeasurement> measured = measure(imported.skeleton, imported.clip, view.value(), measure_settings);
  if (!measured) return failed(std::move(report), measured.error());
  add_measurement(report, measured.value(), fitted.value(), tolerances);
  // A stream that misses its bound is written for inspection, but never in
  // place of one the user already has.
  std::error_code ec;
  if (report.missed() && !options.force && fs::exists(output, ec)) {
    report.kept_existing = true;
    return report;
  }
  if (Status s = write_stream_file(output, chosen); !s) return failed(std::move(report), s.error());
  report.written = true;
  return report;
}

// How each source's first clip is imported: the animation asked for, or
// with --all-animations the file's first.
ImportSettings first_clip_settings(const Options& options) {
  ImportSettings settings = options.import;
  if (options.all_animations) {
    settings.animation_name.clear();
    settings.animation_index = 0;
  }
  return settings;
}

// Before any work, one import of each source's first clip where something
// needs it: refuses (false, with a message naming the option and the name) a
// bone tolerance naming a bone that a source's skeleton lacks, or a scalar
// precision naming a track its clip lacks, and with --all-animations sets
// `animation_names` (per source; empty for a source that does not import,
// which its job reports).
bool read_first_clips(Arguments& args, const Options& options, const std::vector<fs::path>& sources,
                      std::vector<std::vector<std::string>>& animation_names) {
  animation_names.assign(sources.size(), {});
  const bool check_bones =
      !options.codec.fit.bone_tolerances.empty() && options.codec.fit.error_mode != ErrorMode::kLocal;
  // Animations of one file may animate different scalar tracks: with
  // --all-animations each clip's fit refuses a name it lacks instead.
  const bool check_scalars = !options.codec.fit.scalar_precisions.empty() && !options.all_animations;
  if (!check_bones && !check_scalars && !options.all_animations) return true;
  const ImportSettings settings = first_clip_settings(options);
  for (size_t i = 0; i < sources.size(); ++i) {
    Result<ImportedClip> imported = import_clip(sources[i], settings);
    if (!imported) continue;
    if (check_bones && !check_bone_tolerances(args, options.codec, imported.value().skeleton, sources[i].string())) {
      return false;
    }
    if (check_scalars && !check_scalar_precisions(args, options.codec, imported.value().clip, sources[i].string())) {
      return false;
    }
    animation_names[i] = std::move(imported.value().animation_names);
  }
  return true;
}

// Runs one job: one clip, or every animation of a glTF file.
std::vector<ClipReport> run_job(const Job& job, const Options& options, unsigned fit_threads) {
  std::vector<ClipReport> reports;
  Result<ImportedClip> first = import_clip(job.source, first_clip_settings(options));
  if (!first) {
    ClipReport report;
    report.source = job.source;
    reports.push_back(failed(std::move(report), first.error()));
    return reports;
  }
  if (!options.all_animations) {
    reports.push_back(compress_clip(first.value(), options, job.outputs.front(), fit_threads));
    return reports;
  }
  for (size_t a = 0; a < job.outputs.size(); ++a) {
    ImportSettings settings = options.import;
    settings.animation_name.clear();
    settings.animation_index = static_cast<int>(a);
    Result<ImportedClip> imported = a == 0 ? std::move(first) : import_clip(job.source, settings);
    const fs::path& output = job.outputs[a];
    if (!imported) {
      ClipReport report;
      report.source = job.source;
      report.output = output;
      reports.push_back(failed(std::move(report), imported.error()));
      continue;
    }
    reports.push_back(compress_clip(imported.value(), options, output, fit_threads));
  }
  return reports;
}

}  // namespace

int run_compress(const std::vector<std::string_view>& raw_args) {
  if (wants_help(raw_args)) {
    std::printf("%s%s%s%s%s  -h, --help               show this help\n", kCompressHelp, kImportOptionsHelp,
                kToleranceOptionsHelp, kCodecOptionsHelp, kAdditiveOptionHelp);
    return 0;
  }
  Arguments args("compress", raw_args);
  Options options;
  std::vector<fs::path> inputs;
  fs::path output;
  bool output_given = false;
  while (!args.done()) {
    const std::string_view arg = args.next();
    bool ok = true;
    long n = 0;
    std::string_view text;
    if (parse_import_option(args, arg, options.import, ok) || parse_codec_option(args, arg, options.codec, ok) ||
        parse_additive_option(args, arg, options.additive, ok)) {
      if (!ok) return 2;
    } else if (arg == "-o" || arg == "--output") {
      if (!args.value(arg, text)) return 2;
      output = std::string(text);
      output_given = true;
    } else if (arg == "--zstd") {
      options.codec.pack.zstd = true;
    } else if (arg == "--zstd-level") {
      if (!args.whole_number(arg, 1, 22, n)) return 2;
      options.codec.pack.zstd_level = static_cast<int>(n);
    } else if (arg == "--all-animations") {
      options.all_animations = true;
    } else if (arg == "--force") {
      options.force = true;
    } else if (arg == "--jobs") {
      if (!args.whole_number(arg, 1, 256, n)) return 2;
      options.jobs = static_cast<unsigned>(n);
    } else if (arg == "--json") {
      if (!args.value(arg, text)) return 2;
      options.json_path = std::string(text);
    } else if (!arg.empty() && arg[0] == '-' && arg != "-") {
      args.fail("unknown option '" + shown_name(arg) + "' (see keystream compress --help)");
      return 2;
    } else {
      inputs.emplace_back(std::string(arg));
    }
  }
  if (inputs.empty()) {
    args.fail("no input given (see keystream compress --help)");
    return 2;
  }
  if (!finish_codec_options(args, options.codec)) return 2;
  for (const Status& s : {options.import.validate(), options.codec.fit.validate(), options.codec.pack.validate()}) {
    if (!s) {
      args.fail(s.error());
      return 2;
    }
  }
  std::vector<fs::path> sources;
  bool any_folder = false;
  if (!collect_sources(args, inputs, sources, any_folder)) return 1;
  std::vector<std::vector<std::string>> animation_names;
  if (!read_first_clips(args, options, sources, animation_names)) return 2;

  // One source file without --all-animations: OUT is the file. Otherwise a folder.
  const bool single = sources.size() == 1 && !any_folder && !options.all_animations;
  if (!single && output_given && output.extension() == ".ks") {
    args.fail("OUT '" + shown_path(output) + "' looks like a file, but " +
              (options.all_animations ? std::string("--all-animations writes one file per animation")
                                      : std::to_string(sources.size()) + " clips need a folder"));
    return 2;
  }
  // Every output is named before any work: none may be an input, and no two
  // clips may write one file (whatever the folders or the case).
  std::map<std::string, std::string> inputs_by_key;  // file key -> the input as shown
  for (const fs::path& source : sources) inputs_by_key.emplace(file_key(source), shown_path(source));
  std::map<std::string, std::string> claimed;  // file key -> the clip writing it
  const auto claim = [&](const fs::path& out, const std::string& clip) {
    const std::string key = file_key(out);
    if (const auto input = inputs_by_key.find(key); input != inputs_by_key.end()) {
      return args.fail("the output " + shown_path(out) + " of " + clip + " is the input " + input->second +
                       "; write the stream elsewhere");
    }
    const auto [it, inserted] = claimed.emplace(key, clip);
    if (!inserted) {
      return args.fail("both " + it->second + " and " + clip + " would write " + shown_path(out) +
                       "; compress them into different folders");
    }
    return true;
  };
  std::vector<Job> jobs;
  for (size_t i = 0; i < sources.size(); ++i) {
    const fs::path& source = sources[i];
    Job job{source, {}};
    if (single) {
      job.outputs.push_back(output_given ? output : fs::path(source.stem().string() + ".ks"));
    } else if (!options.all_animations) {
      job.outputs.push_back((output_given ? output : fs::path(".")) / (source.stem().string() + ".ks"));
    } else {
      // The file's animations name its outputs (a file that does not import
      // gets one name, for its failure to be reported under).
      const std::vector<std::string> names =
          animation_names[i].empty() ? std::vector<std::string>{"0"} : animation_file_names(animation_names[i]);
      for (const std::string& name : names) {
        job.outputs.push_back(animation_stream_path(output_given ? output : fs::path("."), source, name));
      }
    }
    for (size_t a = 0; a < job.outputs.size(); ++a) {
      const std::string clip = shown_path(source) + (options.all_animations ? " animation " + std::to_string(a) : "");
      if (!claim(job.outputs[a], clip)) return 2;
    }
    jobs.push_back(job);
  }
  if (!options.json_path.empty() && options.json_path != "-" && !claim(options.json_path, "--json")) return 2;
  if (!single) {
    std::error_code ec;
    const fs::path folder = output_given ? output : fs::path(".");
    fs::create_directories(folder, ec);
    if (ec) {
      std::fprintf(stderr, "keystream compress: %s: cannot create the folder: %s\n", shown_path(folder).c_str(),
                   ec.message().c_str());
      return 1;
    }
  }

  // Workers take jobs in order; with one worker the fit itself uses every core.
  const unsigned workers = std::min<unsigned>(options.jobs, static_cast<unsigned>(jobs.size()));
  const unsigned fit_threads = workers == 1 ? std::max(1u, std::thread::hardware_concurrency()) : 1u;
  std::vector<std::vector<ClipReport>> results(jobs.size());
  std::atomic<size_t> next{0};
  {
    Progress progress(jobs.size(), stderr);
    auto work = [&] {
      for (size_t i = next++; i < jobs.size(); i = next++) {
        results[i] = run_job(jobs[i], options, fit_threads);
        std::string line;
        for (const ClipReport& r : results[i]) line += (line.empty() ? "" : "; ") + one_line(r);
        progress.finished(jobs[i].source.filename().string(), line);
      }
    };
    std::vector<std::thread> pool;
    for (unsigned w = 1; w < workers; ++w) pool.emplace_back(work);
    work();
    for (std::thread& t : pool) t.join();
  }

  std::vector<ClipReport> reports;
  for (std::vector<ClipReport>& r : results) {
    for (ClipReport& report : r) reports.push_back(std::move(report));
  }
  // With the JSON on stdout, the table goes to stderr so stdout stays parseable.
  print_summary_table(reports, options.codec.pack.zstd, options.json_path == "-" ? stderr : stdout);
  print_warnings(reports, stderr);
  print_misses(reports, kMissesListed, stderr);
  if (!options.json_path.empty()) {
    const std::string json = reports_json(reports, options.codec.fit, options.codec.pack);
    if (options.json_path == "-") {
      std::fputs(json.c_str(), stdout);
    } else if (Status s = write_file_atomically(options.json_path, json); !s) {
      std::fprintf(stderr, "keystream compress: %s\n", shown_message(s.error()).c_str());
      return 1;
    }
  }
  const bool all_ok = std::all_of(reports.begin(), reports.end(), [](const ClipReport& r) { return r.ok(); });
  return all_ok ? 0 : 1;
}

}  // namespace ks::cli
