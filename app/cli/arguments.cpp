#include "app/cli/arguments.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <unordered_map>

#include "keystream/clip/excerpt.h"
#include "keystream/io/clip_files.h"
#include "keystream/io/exact_number.h"
#include "keystream/io/override_file.h"
#include "keystream/io/tolerance_file.h"

namespace ks::cli {

const char* const kImportOptionsHelp =
    "  --animation NAME|INDEX   animation of a glTF, FBX or Collada file (default: 0)\n"
    "  --sample-rate HZ         resampling rate for glTF (default: the keys' own\n"
    "                           rate where uniform, else the lowest up to 240\n"
    "                           that puts a frame on every key, else 30; keys\n"
    "                           between frames are measured too)\n"
    "  --bvh-unit-scale M       metres per BVH file unit (default: guessed from\n"
    "                           the skeleton's height; 0.01 for centimetres)\n"
    "  --allow-outside-uris     let a glTF read buffers outside its own folder\n"
    "                           (refused by default: an absolute path or '..')\n"
    "  --max-bone-frames N      largest clip, bones x frames (default 1048576,\n"
    "                           about 200 MB to fit)\n";

const char* const kToleranceOptionsHelp =
    "  --tolerance MM           object-space tolerance E: at every frame, every\n"
    "                           virtual vertex at the shell distance from a bone\n"
    "                           stays within MM millimetres of the source's\n"
    "                           (default 0.1)\n"
    "  --shell-distance CM      distance of the virtual vertices from each bone,\n"
    "                           centimetres (default 3)\n"
    "  --bone-tolerance NAME=MM[@CM]\n"
    "                           another tolerance (and shell distance) for bone\n"
    "                           NAME and the bones below it, down to the next\n"
    "                           override; repeatable. *=MM[@CM] sets the clip's\n"
    "                           --tolerance (and --shell-distance) instead, once;\n"
    "                           options apply in order, the last wins\n"
    "  --bone-tolerances FILE   many of them: one NAME=MM[@CM] (or *=MM[@CM]) per\n"
    "                           line; blank lines and # comments are skipped (at\n"
    "                           most 16 MiB, 1,000,000 lines of 4096 bytes)\n"
    "  --local                  version 1's local mode instead: every track within\n"
    "                           a per-kind threshold in its own space:\n"
    "    --translation-error MM   translation threshold, millimetres (default 0.5)\n"
    "    --rotation-error DEG     rotation threshold, degrees (default 0.1)\n"
    "    --scale-error X          scale threshold, largest component difference\n"
    "                             (default 0.001)\n"
    "  --scalar-precision X     precision of every scalar track (morph-target\n"
    "                           weight, user curve): its largest error at every\n"
    "                           frame, in the track's own unit, in either mode\n"
    "                           (default 0.0001)\n"
    "  --scalar-precision NAME=X\n"
    "                           another precision for scalar track NAME (as\n"
    "                           inspect --scalars lists them); repeatable\n"
    "  --scalar-precisions FILE many of them: one NAME=X per line, as in a\n"
    "                           --bone-tolerances file\n";

const char* const kAdditiveOptionHelp =
    "  --additive-base first-frame|bind-pose|FILE[#ANIMATION]\n"
    "                           store the clip as an additive layer: per frame\n"
    "                           its difference to the base (rotation base^-1 q,\n"
    "                           translation difference, scale ratio). The bound\n"
    "                           holds on the pose composed on the base. A base\n"
    "                           FILE (an animation of it by name or index) must\n"
    "                           have the clip's bones; it is sampled at the\n"
    "                           clip's frame times, its last frame held\n";

const char* const kCodecOptionsHelp =
    "  --split largest-error|midpoint\n"
    "                           where a new key splits a segment (default\n"
    "                           largest-error)\n"
    "  --discontinuity-ratio R  jump/neighbour step ratio that makes a\n"
    "                           discontinuity; 0 = never (default 8)\n"
    "  --rest-tracks keep|skip  skip: a bone track that holds the skeleton's\n"
    "                           rest value stores nothing; the engine gives\n"
    "                           the rest pose (Player::set_rest_pose), tools\n"
    "                           read a copy in the metadata (default keep)\n"
    "  --names full|hash|none   names in the metadata: the clip's, source's and\n"
    "                           bones' (full, default); a 32-bit FNV-1a hash\n"
    "                           per bone name for an engine that binds by hash\n"
    "                           (hash); none, for one that binds by index\n"
    "  --jump-interval S|auto   seconds between jump frames, 0 = none; auto\n"
    "                           (default) chooses per clip: the shortest\n"
    "                           interval whose jump frames take at most 10%\n"
    "                           of the stream, no shorter than seeks need\n";

bool Arguments::fail(const std::string& message) const {
  // The parts quoted from inputs are excerpts already; this bounds any that was not.
  std::fprintf(stderr, "keystream %s: %s\n", m_command.c_str(), excerpt(message, kMessageExcerptChars).c_str());
  return false;
}

bool Arguments::source(std::string_view arg, std::filesystem::path& out, std::string_view what) {
  if (!arg.empty() && arg[0] == '-') {
    return fail("unknown option '" + excerpt(arg) + "' (see keystream " + m_command + " --help)");
  }
  if (m_have_source) return fail("more than one " + std::string(what) + " given");
  out = std::string(arg);
  m_have_source = true;
  return true;
}

bool Arguments::value(std::string_view option, std::string_view& out) {
  if (done()) return fail(std::string(option) + " needs a value");
  out = next();
  return true;
}

bool Arguments::number(std::string_view option, float& out) {
  std::string_view text;
  if (!value(option, text)) return false;
  const std::string s(text);
  char* end = nullptr;
  out = std::strtof(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(out)) {
    return fail(std::string(option) + ": '" + excerpt(s) + "' is not a number");
  }
  return true;
}

bool Arguments::whole_number(std::string_view option, long lo, long hi, long& out) {
  std::string_view text;
  if (!value(option, text)) return false;
  const std::string s(text);
  char* end = nullptr;
  out = std::strtol(s.c_str(), &end, 10);
  if (s.empty() || end != s.c_str() + s.size() || out < lo || out > hi) {
    return fail(std::string(option) + ": '" + excerpt(s) + "' is not a whole number in " + std::to_string(lo) + ".." +
                std::to_string(hi));
  }
  return true;
}

bool parse_additive_option(Arguments& args, std::string_view arg, std::optional<AdditiveBaseSpec>& spec, bool& ok) {
  if (arg != "--additive-base") return false;
  std::string_view text;
  ok = args.value(arg, text);
  if (!ok) return true;
  Result<AdditiveBaseSpec> parsed = parse_additive_base(text);
  ok = parsed ? true : args.fail(std::string(arg) + ": " + parsed.error());
  if (ok) spec = std::move(parsed.value());
  return true;
}

bool parse_import_option(Arguments& args, std::string_view arg, ImportSettings& settings, bool& ok) {
  if (arg == "--animation") {
    std::string_view v;
    ok = args.value(arg, v);
    if (!ok) return true;
    const std::string s(v);
    char* end = nullptr;
    const long index = std::strtol(s.c_str(), &end, 10);
    if (!s.empty() && end == s.c_str() + s.size() && index >= 0) {
      settings.animation_index = static_cast<int>(index);
    } else {
      settings.animation_name = s;
    }
    return true;
  }
  // The ranges are ImportSettings::validate()'s, checked here too so that the message names the option.
  if (arg == "--sample-rate") {
    ok = args.number(arg, settings.sample_rate_hz);
    const float hz = settings.sample_rate_hz;
    if (ok && !(hz == 0.f || (hz >= kMinSampleRateHz && hz <= kMaxSampleRateHz))) {
      ok = args.fail("--sample-rate: must be 0 (automatic) or within 1 to 10000 Hz");
    }
    return true;
  }
  if (arg == "--bvh-unit-scale") {
    ok = args.number(arg, settings.bvh_unit_scale_m);
    if (ok && settings.bvh_unit_scale_m < 0.f) {
      ok = args.fail("--bvh-unit-scale: must be a positive number of metres per file unit (0 = automatic)");
    }
    return true;
  }
  if (arg == "--allow-outside-uris") {
    settings.allow_outside_uris = true;
    return true;
  }
  if (arg == "--max-bone-frames") {
    long n = 0;
    ok = args.whole_number(arg, 2, long{1} << 40, n);
    if (ok) settings.max_bone_frames = static_cast<uint64_t>(n);
    return true;
  }
  return false;
}

namespace {

// The value of `option` as a finite number > 0 in `unit` (named in the
// message), through `to_setting`: metres from millimetres or centimetres.
// Refuses a value so small that it is 0 once converted.
bool positive_number(Arguments& args, std::string_view option, const char* unit, float (*to_setting)(float),
                     float& out) {
  std::string_view text;
  if (!args.value(option, text)) return false;
  const std::string s(text);
  char* end = nullptr;
  const float value = std::strtof(s.c_str(), &end);
  out = to_setting(value);
  if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(value) || !(value > 0.f) || !(out > 0.f)) {
    return args.fail(std::string(option) + ": '" + excerpt(s) + "' is not a positive number of " + unit);
  }
  return true;
}

// `name` as messages name the option, its index in codec.override_options.
uint32_t add_override_option(CodecOptions& codec, std::string name) {
  if (codec.override_options.empty() || codec.override_options.back() != name) {
    codec.override_options.push_back(std::move(name));
  }
  return static_cast<uint32_t>(codec.override_options.size() - 1);
}

// Adds one override from `text`, given by option `option` (at `line` of its
// file; 0 for a flag). A name given twice is refused by finish_codec_options,
// in one pass over them all; a second '*' here.
Status add_bone_tolerance(uint32_t option, uint32_t line, std::string_view text, CodecOptions& codec) {
  Result<BoneTolerance> parsed = parse_bone_tolerance(text);
  if (!parsed) return Error{codec.origin({option, line}) + ": " + parsed.error()};
  if (is_clip_wide(parsed.value())) {
    // In its place among the options, as --tolerance and --shell-distance would be.
    const OverrideOrigin here{option, line};
    if (codec.clip_wide_origin) return clip_wide_set_twice(codec.origin(here), codec.origin(*codec.clip_wide_origin));
    codec.clip_wide_origin = here;
    codec.fit.tolerance_m = parsed.value().tolerance_m;
    if (parsed.value().shell_distance_m > 0.f) codec.fit.shell_distance_m = parsed.value().shell_distance_m;
    return {};
  }
  codec.fit.bone_tolerances.push_back(std::move(parsed.value()));
  codec.bone_tolerance_origins.push_back({option, line});
  return {};
}
Status add_scalar_precision(uint32_t option, uint32_t line, std::string_view text, CodecOptions& codec) {
  Result<ScalarPrecision> parsed = parse_scalar_precision(text);
  if (!parsed) return Error{codec.origin({option, line}) + ": " + parsed.error()};
  codec.fit.scalar_precisions.push_back(std::move(parsed.value()));
  codec.scalar_precision_origins.push_back({option, line});
  return {};
}

using AddOverride = Status (*)(uint32_t option, uint32_t line, std::string_view text, CodecOptions& codec);

// The overrides in the file named by the value of `option`, a `kind` file.
bool read_overrides(Arguments& args, std::string_view option, std::string_view kind, AddOverride add,
                    CodecOptions& codec) {
  std::string_view path;
  if (!args.value(option, path)) return false;
  const uint32_t index = add_override_option(codec, std::string(option) + " " + excerpt(path, kPathExcerptChars));
  const Status s = read_override_file(option, std::string(path), kind, [&](std::string_view entry, uint32_t line) {
    return add(index, line, entry, codec);
  });
  return s ? true : args.fail(s.error());
}

// The overrides of one flag: --bone-tolerance NAME=MM[@CM] or --scalar-precision NAME=X.
bool add_flag_override(Arguments& args, std::string_view option, std::string_view text, AddOverride add,
                       CodecOptions& codec) {
  const Status s = add(add_override_option(codec, std::string(option)), 0, text, codec);
  return s ? true : args.fail(s.error());
}

// --scalar-precision X (the default) or NAME=X (one track's).
bool scalar_precision_option(Arguments& args, std::string_view option, CodecOptions& codec) {
  std::string_view text;
  if (!args.value(option, text)) return false;
  if (text.find('=') != std::string_view::npos) {
    return add_flag_override(args, option, text, add_scalar_precision, codec);
  }
  const std::string s(text);
  char* end = nullptr;
  const float value = std::strtof(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(value) || !(value > 0.f)) {
    return args.fail(std::string(option) + ": '" + excerpt(s) +
                     "' is neither a positive number (every scalar track's precision) nor NAME=X (one track's)");
  }
  codec.fit.scalar_precision = value;
  return true;
}

// The bone tolerances and scalar precisions as the override checks see them.
OverrideNames bone_overrides(const CodecOptions& codec) {
  return {codec.fit.bone_tolerances.size(),
          [&codec](size_t i) -> const std::string& { return codec.fit.bone_tolerances[i].bone; },
          [&codec](size_t i) { return codec.origin(codec.bone_tolerance_origins[i]); }};
}
OverrideNames scalar_overrides(const CodecOptions& codec) {
  return {codec.fit.scalar_precisions.size(),
          [&codec](size_t i) -> const std::string& { return codec.fit.scalar_precisions[i].track; },
          [&codec](size_t i) { return codec.origin(codec.scalar_precision_origins[i]); }};
}

}  // namespace

bool parse_tolerance_option(Arguments& args, std::string_view arg, CodecOptions& codec, bool& ok) {
  ok = true;
  FitSettings& fit = codec.fit;
  std::string_view v;
  if (arg == "--tolerance") {
    ok = positive_number(args, arg, "millimetres", times_milli, fit.tolerance_m);
    codec.tolerance_option = arg;
  } else if (arg == "--shell-distance") {
    ok = positive_number(args, arg, "centimetres", times_centi, fit.shell_distance_m);
    codec.tolerance_option = arg;
  } else if (arg == "--bone-tolerance") {
    ok = args.value(arg, v) && add_flag_override(args, arg, v, add_bone_tolerance, codec);
    codec.tolerance_option = arg;
  } else if (arg == "--bone-tolerances") {
    ok = read_overrides(args, arg, "tolerance", add_bone_tolerance, codec);
    codec.tolerance_option = arg;
  } else if (arg == "--scalar-precision") {
    // Scalar tracks have their precision in either error mode.
    ok = scalar_precision_option(args, arg, codec);
  } else if (arg == "--scalar-precisions") {
    ok = read_overrides(args, arg, "precision", add_scalar_precision, codec);
  } else if (arg == "--local") {
    fit.error_mode = ErrorMode::kLocal;
  } else if (arg == "--translation-error") {
    ok = positive_number(args, arg, "millimetres", times_milli, fit.translation_error_m);
    codec.per_kind_option = arg;
  } else if (arg == "--rotation-error") {
    ok = positive_number(args, arg, "degrees", as_is, fit.rotation_error_deg);
    if (ok && fit.rotation_error_deg >= 180.f) ok = args.fail("--rotation-error: must be below 180 degrees");
    codec.per_kind_option = arg;
  } else if (arg == "--scale-error") {
    ok = positive_number(args, arg, "scale units", as_is, fit.scale_error);
    codec.per_kind_option = arg;
  } else {
    return false;
  }
  return true;
}

bool parse_codec_option(Arguments& args, std::string_view arg, CodecOptions& codec, bool& ok) {
  if (parse_tolerance_option(args, arg, codec, ok)) return true;
  ok = true;
  if (arg == "--split") {
    std::string_view v;
    ok = args.value(arg, v);
    if (ok && v == "largest-error") {
      codec.fit.split_rule = SplitRule::kLargestError;
    } else if (ok && v == "midpoint") {
      codec.fit.split_rule = SplitRule::kMidpoint;
    } else if (ok) {
      ok = args.fail("--split: '" + excerpt(v) + "' is neither 'largest-error' nor 'midpoint'");
    }
  } else if (arg == "--rest-tracks") {
    std::string_view v;
    ok = args.value(arg, v);
    if (ok && !parse_rest_tracks(v, codec.fit.rest_tracks)) {
      ok = args.fail("--rest-tracks: '" + excerpt(v) + "' is neither 'keep' nor 'skip'");
    }
  } else if (arg == "--names") {
    std::string_view v;
    ok = args.value(arg, v);
    if (ok && v == "full") {
      codec.pack.names = NameStorage::kFull;
    } else if (ok && v == "hash") {
      codec.pack.names = NameStorage::kHash;
    } else if (ok && v == "none") {
      codec.pack.names = NameStorage::kNone;
    } else if (ok) {
      ok = args.fail("--names: '" + excerpt(v) + "' is neither 'full', 'hash' nor 'none'");
    }
  } else if (arg == "--discontinuity-ratio") {
    ok = args.number(arg, codec.fit.discontinuity_ratio);
    if (ok && codec.fit.discontinuity_ratio < 0.f) {
      ok = args.fail("--discontinuity-ratio: must be 0 (off) or a positive number");
    }
  } else if (arg == "--jump-interval") {
    codec.pack.auto_jump_interval = !args.done() && args.peek() == "auto";
    if (codec.pack.auto_jump_interval) {
      args.next();
    } else {
      ok = args.number(arg, codec.pack.jump_interval_s);
      if (ok && codec.pack.jump_interval_s < 0.f) {
        ok = args.fail("--jump-interval: must be 'auto', 0 (none) or a positive number of seconds");
      }
    }
  } else {
    return false;
  }
  return true;
}

std::string CodecOptions::origin(OverrideOrigin o) const {
  const std::string& option = override_options[o.option];
  return o.line == 0 ? option : option + ":" + std::to_string(o.line);
}

bool finish_codec_options(Arguments& args, const CodecOptions& codec) {
  const FitSettings& fit = codec.fit;
  for (const Status& s : {check_names_unique(bone_overrides(codec), "bone", "a tolerance"),
                          check_names_unique(scalar_overrides(codec), "scalar track", "a precision")}) {
    if (!s) return args.fail(s.error());
  }
  if (fit.error_mode != ErrorMode::kLocal && !codec.per_kind_option.empty()) {
    return args.fail(codec.per_kind_option +
                     " sets a per-kind threshold of --local mode; the default object-space mode "
                     "takes --tolerance MM (add --local for per-kind thresholds)");
  }
  if (fit.error_mode == ErrorMode::kLocal && !codec.tolerance_option.empty()) {
    return args.fail(codec.tolerance_option + " sets the object-space tolerance, which --local mode does not use");
  }
  return true;
}

bool check_bone_tolerances(Arguments& args, const CodecOptions& codec, const Skeleton& skeleton,
                           const std::string& source) {
  if (codec.fit.error_mode == ErrorMode::kLocal) return true;
  const Status s = check_names_known(bone_overrides(codec), bone_index_by_name(skeleton.bone_names),
                                     excerpt(source, kPathExcerptChars), "bone", "bone tolerances", "");
  return s ? true : args.fail(s.error());
}

bool check_scalar_precisions(Arguments& args, const CodecOptions& codec, const RawClip& clip,
                             const std::string& source) {
  std::unordered_map<std::string_view, int32_t> known;
  for (size_t s = 0; s < clip.scalars.size(); ++s) known.emplace(clip.scalars[s].name, static_cast<int32_t>(s));
  std::string owner = excerpt(source, kPathExcerptChars);
  if (!clip.name.empty()) owner += " animation \"" + excerpt(clip.name) + "\"";
  // The names it has, to correct a misspelt one (inspect --scalars lists them all).
  std::string hint = clip.scalars.empty() ? " (it has no scalar tracks)" : " (its scalar tracks: ";
  for (size_t s = 0; s < clip.scalars.size() && s < kUnknownNamesQuoted; ++s) {
    hint += (s ? ", \"" : "\"") + excerpt(clip.scalars[s].name) + "\"";
  }
  if (clip.scalars.size() > kUnknownNamesQuoted) {
    hint += " and " + std::to_string(clip.scalars.size() - kUnknownNamesQuoted) + " more";
  }
  if (!clip.scalars.empty()) hint += ")";
  const Status s = check_names_known(scalar_overrides(codec), known, owner, "scalar track", "scalar precisions", hint);
  return s ? true : args.fail(s.error());
}

bool collect_sources(Arguments& args, const std::vector<std::filesystem::path>& inputs,
                     std::vector<std::filesystem::path>& sources, bool& any_folder) {
  namespace fs = std::filesystem;
  for (const fs::path& input : inputs) {
    std::error_code ec;
    if (fs::is_directory(input, ec)) {
      any_folder = true;
      Result<std::vector<fs::path>> found = clip_files_in_folder(input);
      if (!found) return args.fail(found.error());
      sources.insert(sources.end(), found.value().begin(), found.value().end());
    } else if (fs::exists(input, ec)) {
      sources.push_back(input);
    } else {
      return args.fail(excerpt(input.string(), kPathExcerptChars) + ": no such file or folder");
    }
  }
  return true;
}

}  // namespace ks::cli
