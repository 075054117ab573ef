#include "app/cli/arguments.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <unordered_map>

#include "core/clip/excerpt.h"

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
    "                           override; repeatable\n"
    "  --bone-tolerances FILE   many of them: one NAME=MM[@CM] per line; blank\n"
    "                           lines and # comments are skipped (at most 16 MiB,\n"
    "                           1,000,000 lines of 4096 bytes)\n"
    "  --local                  version 1's local mode instead: every track within\n"
    "                           a per-kind threshold in its own space:\n"
    "    --translation-error MM   translation threshold, millimetres (default 0.5)\n"
    "    --rotation-error DEG     rotation threshold, degrees (default 0.1)\n"
    "    --scale-error X          scale threshold, largest component difference\n"
    "                             (default 0.001)\n";

const char* const kCodecOptionsHelp =
    "  --split largest-error|midpoint\n"
    "                           where a new key splits a segment (default\n"
    "                           largest-error)\n"
    "  --discontinuity-ratio R  jump/neighbour step ratio that makes a\n"
    "                           discontinuity; 0 = never (default 8)\n"
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
// message), times `scale`: metres from millimetres or centimetres. Refuses a
// value so small that it is 0 once scaled.
bool positive_number(Arguments& args, std::string_view option, const char* unit, float scale, float& out) {
  std::string_view text;
  if (!args.value(option, text)) return false;
  const std::string s(text);
  char* end = nullptr;
  const float value = std::strtof(s.c_str(), &end);
  out = value * scale;
  if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(value) || !(value > 0.f) || !(out > 0.f)) {
    return args.fail(std::string(option) + ": '" + excerpt(s) + "' is not a positive number of " + unit);
  }
  return true;
}

std::string_view trimmed(std::string_view text) {
  const size_t first = text.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
}

// Adds one override from `text`, given by option `option` (at `line` of its
// file; 0 for a flag). A bone named twice is refused by finish_codec_options,
// in one pass over them all.
bool add_bone_tolerance(Arguments& args, uint32_t option, uint32_t line, std::string_view text, CodecOptions& codec) {
  Result<BoneTolerance> parsed = parse_bone_tolerance(text);
  if (!parsed) return args.fail(codec.origin({option, line}) + ": " + parsed.error());
  codec.fit.bone_tolerances.push_back(std::move(parsed.value()));
  codec.bone_tolerance_origins.push_back({option, line});
  return true;
}

// `option` as messages name it, its index in codec.tolerance_options.
uint32_t add_tolerance_option(CodecOptions& codec, std::string name) {
  if (codec.tolerance_options.empty() || codec.tolerance_options.back() != name) {
    codec.tolerance_options.push_back(std::move(name));
  }
  return static_cast<uint32_t>(codec.tolerance_options.size() - 1);
}

// The overrides in `path`: one NAME=MM[@CM] per line; blank lines and
// comments (from a '#' at the start of a line or after a blank) are skipped.
// The whole file is read at once (it is at most kMaxToleranceFileBytes), so
// that every cap can be checked before any line is used.
bool read_bone_tolerances(Arguments& args, std::string_view option, const std::string& path, CodecOptions& codec) {
  const std::string shown_path = excerpt(path, kPathExcerptChars);
  const std::string where = std::string(option) + ": '" + shown_path + "'";
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    return args.fail(where + ": " + (std::filesystem::exists(path, ec) ? "not a file" : "no such file"));
  }
  const uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec) return args.fail(where + ": cannot be read: " + ec.message());
  if (size > kMaxToleranceFileBytes) {
    return args.fail(where + ": the file is " + std::to_string(size) + " bytes; a tolerance file may hold at most " +
                     std::to_string(kMaxToleranceFileBytes) + " bytes (16 MiB)");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return args.fail(where + ": cannot be read");
  // The size read above, whatever a writer appends meanwhile.
  std::string text(static_cast<size_t>(size), '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad()) return args.fail(where + ": read error");
  text.resize(static_cast<size_t>(in.gcount()));

  const uint32_t option_index = add_tolerance_option(codec, std::string(option) + " " + shown_path);
  size_t number = 0;
  for (size_t begin = 0; begin < text.size();) {
    const size_t newline = text.find('\n', begin);
    const size_t end = newline == std::string::npos ? text.size() : newline;
    std::string_view line(text.data() + begin, end - begin);
    begin = end + 1;
    if (++number > kMaxToleranceLines) {
      return args.fail(where + ": more than " + std::to_string(kMaxToleranceLines) +
                       " lines; a tolerance file may hold at most " + std::to_string(kMaxToleranceLines));
    }
    if (line.size() > kMaxToleranceLineBytes) {
      return args.fail(std::string(option) + " " + shown_path + ":" + std::to_string(number) + ": the line is " +
                       std::to_string(line.size()) + " bytes; a line may hold at most " +
                       std::to_string(kMaxToleranceLineBytes) + " ('" + excerpt(line) + "')");
    }
    for (size_t hash = line.find('#'); hash != std::string_view::npos; hash = line.find('#', hash + 1)) {
      if (hash == 0 || line[hash - 1] == ' ' || line[hash - 1] == '\t') {
        line = line.substr(0, hash);
        break;
      }
    }
    const std::string_view entry = trimmed(line);
    if (entry.empty()) continue;
    if (!add_bone_tolerance(args, option_index, static_cast<uint32_t>(number), entry, codec)) return false;
  }
  return true;
}

}  // namespace

Result<BoneTolerance> parse_bone_tolerance(std::string_view text) {
  const size_t equals = text.rfind('=');
  if (equals == std::string_view::npos) {
    // Appended rather than "'" + std::string(text): GCC 12 at -O3 sees a
    // false overlap in that concatenation (-Wrestrict).
    std::string message = "'";
    message.append(excerpt(text)).append("' is not NAME=MM or NAME=MM@CM (no '=')");
    return Error{message};
  }
  BoneTolerance o;
  o.bone = std::string(trimmed(text.substr(0, equals)));
  if (o.bone.empty()) return Error{"'" + excerpt(text) + "' names no bone before the '='"};
  const std::string_view value = text.substr(equals + 1);
  const size_t at = value.find('@');
  auto number = [](std::string_view digits, float& out) {
    const std::string s(trimmed(digits));
    char* end = nullptr;
    out = std::strtof(s.c_str(), &end);
    return !s.empty() && end == s.c_str() + s.size() && std::isfinite(out) && out > 0.f;
  };
  float mm = 0.f, cm = 0.f;
  const std::string_view mm_text = value.substr(0, at);
  if (!number(mm_text, mm) || !(mm / 1000.f > 0.f)) {
    return Error{"the tolerance of \"" + excerpt(o.bone) + "\" ('" + excerpt(mm_text) +
                 "') is not a positive number of millimetres"};
  }
  if (at != std::string_view::npos) {
    const std::string_view cm_text = value.substr(at + 1);
    if (!number(cm_text, cm) || !(cm / 100.f > 0.f)) {
      return Error{"the shell distance of \"" + excerpt(o.bone) + "\" ('" + excerpt(cm_text) +
                   "') is not a positive number of centimetres"};
    }
  }
  o.tolerance_m = mm / 1000.f;
  o.shell_distance_m = cm / 100.f;  // 0 without "@CM": inherited
  return o;
}

bool parse_tolerance_option(Arguments& args, std::string_view arg, CodecOptions& codec, bool& ok) {
  ok = true;
  FitSettings& fit = codec.fit;
  if (arg == "--tolerance") {
    ok = positive_number(args, arg, "millimetres", 1e-3f, fit.tolerance_m);
    codec.tolerance_option = arg;
  } else if (arg == "--shell-distance") {
    ok = positive_number(args, arg, "centimetres", 1e-2f, fit.shell_distance_m);
    codec.tolerance_option = arg;
  } else if (arg == "--bone-tolerance") {
    std::string_view v;
    ok = args.value(arg, v) && add_bone_tolerance(args, add_tolerance_option(codec, std::string(arg)), 0, v, codec);
    codec.tolerance_option = arg;
  } else if (arg == "--bone-tolerances") {
    std::string_view v;
    ok = args.value(arg, v) && read_bone_tolerances(args, arg, std::string(v), codec);
    codec.tolerance_option = arg;
  } else if (arg == "--local") {
    fit.error_mode = ErrorMode::kLocal;
  } else if (arg == "--translation-error") {
    ok = positive_number(args, arg, "millimetres", 1e-3f, fit.translation_error_m);
    codec.per_kind_option = arg;
  } else if (arg == "--rotation-error") {
    ok = positive_number(args, arg, "degrees", 1.f, fit.rotation_error_deg);
    if (ok && fit.rotation_error_deg >= 180.f) ok = args.fail("--rotation-error: must be below 180 degrees");
    codec.per_kind_option = arg;
  } else if (arg == "--scale-error") {
    ok = positive_number(args, arg, "scale units", 1.f, fit.scale_error);
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

std::string CodecOptions::origin(ToleranceOrigin o) const {
  const std::string& option = tolerance_options[o.option];
  return o.line == 0 ? option : option + ":" + std::to_string(o.line);
}

bool finish_codec_options(Arguments& args, const CodecOptions& codec) {
  // Every bone's first tolerance, by name: one pass, however many lines a file has.
  std::unordered_map<std::string_view, size_t> first_of_bone;
  first_of_bone.reserve(codec.fit.bone_tolerances.size());
  for (size_t i = 0; i < codec.fit.bone_tolerances.size(); ++i) {
    const std::string& bone = codec.fit.bone_tolerances[i].bone;
    const auto [first, inserted] = first_of_bone.emplace(bone, i);
    if (!inserted) {
      return args.fail(codec.origin(codec.bone_tolerance_origins[i]) + ": bone \"" + excerpt(bone) +
                       "\" already has a tolerance (from " + codec.origin(codec.bone_tolerance_origins[first->second]) +
                       ")");
    }
  }
  if (codec.fit.error_mode != ErrorMode::kLocal && !codec.per_kind_option.empty()) {
    return args.fail(codec.per_kind_option +
                     " sets a per-kind threshold of --local mode; the default object-space mode "
                     "takes --tolerance MM (add --local for per-kind thresholds)");
  }
  if (codec.fit.error_mode == ErrorMode::kLocal && !codec.tolerance_option.empty()) {
    return args.fail(codec.tolerance_option + " sets the object-space tolerance, which --local mode does not use");
  }
  return true;
}

bool check_bone_tolerances(Arguments& args, const CodecOptions& codec, const Skeleton& skeleton,
                           const std::string& source) {
  if (codec.fit.error_mode == ErrorMode::kLocal) return true;
  const std::unordered_map<std::string_view, int32_t> bones = bone_index_by_name(skeleton.bone_names);
  std::vector<size_t> unknown;  // the first kUnknownBonesNamed overrides naming no bone
  size_t unknown_count = 0;
  for (size_t i = 0; i < codec.fit.bone_tolerances.size(); ++i) {
    if (bones.count(codec.fit.bone_tolerances[i].bone) != 0) continue;
    if (unknown.size() < kUnknownBonesNamed) unknown.push_back(i);
    ++unknown_count;
  }
  if (unknown_count == 0) return true;
  const std::string shown_source = excerpt(source, kPathExcerptChars);
  const auto quoted = [&](size_t i) { return "\"" + excerpt(codec.fit.bone_tolerances[i].bone) + "\""; };
  if (unknown_count == 1) {
    return args.fail(codec.origin(codec.bone_tolerance_origins[unknown[0]]) + ": " + shown_source +
                     " has no bone named " + quoted(unknown[0]));
  }
  // Never one message per name: a file may name a million.
  std::string message =
      std::to_string(unknown_count) + " bone tolerances name bones " + shown_source + " does not have: ";
  for (size_t k = 0; k < unknown.size(); ++k) {
    message +=
        (k ? ", " : "") + quoted(unknown[k]) + " (" + codec.origin(codec.bone_tolerance_origins[unknown[k]]) + ")";
  }
  if (unknown_count > unknown.size()) message += " and " + std::to_string(unknown_count - unknown.size()) + " more";
  return args.fail(message);
}

bool collect_sources(Arguments& args, const std::vector<std::filesystem::path>& inputs,
                     std::vector<std::filesystem::path>& sources, bool& any_folder) {
  namespace fs = std::filesystem;
  for (const fs::path& input : inputs) {
    std::error_code ec;
    if (fs::is_directory(input, ec)) {
      any_folder = true;
      std::vector<fs::path> found;
      for (fs::recursive_directory_iterator it(input, ec), end; !ec && it != end; it.increment(ec)) {
        if (it->is_regular_file(ec) && is_importable(it->path())) found.push_back(it->path());
      }
      if (ec) {
        return args.fail(excerpt(input.string(), kPathExcerptChars) + ": cannot list the folder: " + ec.message());
      }
      std::sort(found.begin(), found.end());
      if (found.empty()) {
        return args.fail(excerpt(input.string(), kPathExcerptChars) +
                         ": the folder holds no .gltf, .glb, .bvh, .fbx, .dae or .zae file");
      }
      sources.insert(sources.end(), found.begin(), found.end());
    } else if (fs::exists(input, ec)) {
      sources.push_back(input);
    } else {
      return args.fail(excerpt(input.string(), kPathExcerptChars) + ": no such file or folder");
    }
  }
  return true;
}

}  // namespace ks::cli
