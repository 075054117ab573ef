#include "app/cli/arguments.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>

namespace ks::cli {

const char* const kImportOptionsHelp =
    "  --animation NAME|INDEX   animation of a glTF file (default: 0)\n"
    "  --sample-rate HZ         resampling rate for glTF (default: the keys' own\n"
    "                           rate where uniform, else 30)\n"
    "  --bvh-unit-scale M       metres per BVH file unit (default: guessed from\n"
    "                           the skeleton's height; 0.01 for centimetres)\n";

const char* const kCodecOptionsHelp =
    "  --tolerance MM           object-space tolerance E: every virtual vertex\n"
    "                           of every bone stays within MM millimetres of the\n"
    "                           source at every frame (default 0.1)\n"
    "  --shell-distance CM      distance of the virtual vertices from each bone,\n"
    "                           centimetres (default 3)\n"
    "  --bone-tolerance NAME=MM[@CM]\n"
    "                           another tolerance (and shell distance) for bone\n"
    "                           NAME and the bones below it; repeatable\n"
    "  --bone-tolerances FILE   many of them: one NAME=MM[@CM] per line, # comments\n"
    "  --local                  version 1's local mode instead: every track within\n"
    "                           a per-kind threshold in its own space:\n"
    "  --translation-error MM     translation threshold, millimetres (default 0.5)\n"
    "  --rotation-error DEG       rotation threshold, degrees (default 0.1)\n"
    "  --scale-error X            scale threshold, largest component difference\n"
    "                             (default 0.001)\n"
    "  --split largest-error|midpoint\n"
    "                           where a new key splits a segment (default\n"
    "                           largest-error)\n"
    "  --discontinuity-ratio R  jump/neighbour step ratio that makes a\n"
    "                           discontinuity; 0 = never (default 8)\n"
    "  --jump-interval S        seconds between jump frames; 0 = none (default 1)\n";

bool Arguments::fail(const std::string& message) const {
  std::fprintf(stderr, "keystream %s: %s\n", m_command.c_str(), message.c_str());
  return false;
}

bool Arguments::source(std::string_view arg, std::filesystem::path& out, std::string_view what) {
  if (!arg.empty() && arg[0] == '-') {
    return fail("unknown option '" + std::string(arg) + "' (see keystream " + m_command + " --help)");
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
    return fail(std::string(option) + ": '" + s + "' is not a number");
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
    return fail(std::string(option) + ": '" + s + "' is not a whole number in " + std::to_string(lo) + ".." +
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
  if (arg == "--sample-rate") {
    ok = args.number(arg, settings.sample_rate_hz);
    return true;
  }
  if (arg == "--bvh-unit-scale") {
    ok = args.number(arg, settings.bvh_unit_scale_m);
    return true;
  }
  return false;
}

namespace {

// Per-kind thresholds given, so finish_codec_options can ask for --local.
// One command line is parsed per process.
std::string g_per_kind_option;
std::string g_tolerance_option;

bool positive_number(Arguments& args, std::string_view option, float& out) {
  if (!args.number(option, out)) return false;
  if (!(out > 0.f)) return args.fail(std::string(option) + ": must be a positive number");
  return true;
}

bool add_bone_tolerance(Arguments& args, std::string_view option, std::string_view text, FitSettings& fit) {
  Result<BoneTolerance> parsed = parse_bone_tolerance(text);
  if (!parsed) return args.fail(std::string(option) + ": " + parsed.error());
  for (const BoneTolerance& o : fit.bone_tolerances) {
    if (o.bone == parsed.value().bone) {
      return args.fail(std::string(option) + ": bone \"" + o.bone + "\" is given two tolerances");
    }
  }
  fit.bone_tolerances.push_back(parsed.value());
  return true;
}

bool read_bone_tolerances(Arguments& args, std::string_view option, const std::string& path, FitSettings& fit) {
  std::ifstream in(path);
  if (!in) return args.fail(std::string(option) + ": cannot read '" + path + "'");
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (const size_t hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    const size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos) continue;
    line = line.substr(first, line.find_last_not_of(" \t\r") - first + 1);
    const std::string where = std::string(option) + " " + path + ":" + std::to_string(number);
    if (!add_bone_tolerance(args, where, line, fit)) return false;
  }
  return true;
}

}  // namespace

Result<BoneTolerance> parse_bone_tolerance(std::string_view text) {
  const size_t equals = text.rfind('=');
  if (equals == std::string_view::npos || equals == 0) {
    return Error{"'" + std::string(text) + "' is not NAME=MM or NAME=MM@CM"};
  }
  BoneTolerance o;
  o.bone = std::string(text.substr(0, equals));
  const std::string value(text.substr(equals + 1));
  const size_t at = value.find('@');
  auto number = [](const std::string& s, float& out) {
    char* end = nullptr;
    out = std::strtof(s.c_str(), &end);
    return !s.empty() && end == s.c_str() + s.size() && std::isfinite(out) && out > 0.f;
  };
  float mm = 0.f, cm = 0.f;
  if (!number(value.substr(0, at), mm)) {
    return Error{"the tolerance of \"" + o.bone + "\" ('" + value.substr(0, at) + "') is not a positive number of millimetres"};
  }
  if (at != std::string::npos && !number(value.substr(at + 1), cm)) {
    return Error{"the shell distance of \"" + o.bone + "\" ('" + value.substr(at + 1) +
                 "') is not a positive number of centimetres"};
  }
  o.tolerance_m = mm / 1000.f;
  o.shell_distance_m = cm / 100.f;
  return o;
}

bool parse_codec_option(Arguments& args, std::string_view arg, FitSettings& fit, PackSettings& pack, bool& ok) {
  ok = true;
  if (arg == "--tolerance") {
    float mm = 0.f;
    ok = positive_number(args, arg, mm);
    fit.tolerance_m = mm / 1000.f;
    g_tolerance_option = arg;
  } else if (arg == "--shell-distance") {
    float cm = 0.f;
    ok = positive_number(args, arg, cm);
    fit.shell_distance_m = cm / 100.f;
    g_tolerance_option = arg;
  } else if (arg == "--bone-tolerance") {
    std::string_view v;
    ok = args.value(arg, v) && add_bone_tolerance(args, arg, v, fit);
    g_tolerance_option = arg;
  } else if (arg == "--bone-tolerances") {
    std::string_view v;
    ok = args.value(arg, v) && read_bone_tolerances(args, arg, std::string(v), fit);
    g_tolerance_option = arg;
  } else if (arg == "--local") {
    fit.error_mode = ErrorMode::kLocal;
  } else if (arg == "--translation-error") {
    float mm = 0.f;
    ok = positive_number(args, arg, mm);
    fit.translation_error_m = mm / 1000.f;
    g_per_kind_option = arg;
  } else if (arg == "--rotation-error") {
    ok = positive_number(args, arg, fit.rotation_error_deg);
    if (ok && fit.rotation_error_deg >= 180.f) ok = args.fail("--rotation-error: must be below 180 degrees");
    g_per_kind_option = arg;
  } else if (arg == "--scale-error") {
    ok = positive_number(args, arg, fit.scale_error);
    g_per_kind_option = arg;
  } else if (arg == "--split") {
    std::string_view v;
    ok = args.value(arg, v);
    if (ok && v == "largest-error") {
      fit.split_rule = SplitRule::kLargestError;
    } else if (ok && v == "midpoint") {
      fit.split_rule = SplitRule::kMidpoint;
    } else if (ok) {
      ok = args.fail("--split: '" + std::string(v) + "' is neither 'largest-error' nor 'midpoint'");
    }
  } else if (arg == "--discontinuity-ratio") {
    ok = args.number(arg, fit.discontinuity_ratio);
  } else if (arg == "--jump-interval") {
    ok = args.number(arg, pack.jump_interval_s);
  } else {
    return false;
  }
  return true;
}

bool finish_codec_options(Arguments& args, const FitSettings& fit) {
  if (fit.error_mode != ErrorMode::kLocal && !g_per_kind_option.empty()) {
    return args.fail(g_per_kind_option + " sets a per-kind threshold of --local mode; the default object-space mode "
                     "takes --tolerance MM (add --local to fit per-kind thresholds)");
  }
  if (fit.error_mode == ErrorMode::kLocal && !g_tolerance_option.empty()) {
    return args.fail(g_tolerance_option + " sets the object-space tolerance, which --local mode does not use");
  }
  return true;
}

bool check_bone_tolerances(Arguments& args, const FitSettings& fit, const Skeleton& skeleton,
                           const std::string& source) {
  if (fit.error_mode == ErrorMode::kLocal) return true;
  for (const BoneTolerance& o : fit.bone_tolerances) {
    if (skeleton.find_bone(o.bone) < 0) {
      return args.fail("--bone-tolerance: " + source + " has no bone named \"" + o.bone + "\"");
    }
  }
  return true;
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
      if (ec) return args.fail(input.string() + ": cannot list the folder: " + ec.message());
      std::sort(found.begin(), found.end());
      if (found.empty()) return args.fail(input.string() + ": the folder holds no .gltf, .glb or .bvh file");
      sources.insert(sources.end(), found.begin(), found.end());
    } else if (fs::exists(input, ec)) {
      sources.push_back(input);
    } else {
      return args.fail(input.string() + ": no such file or folder");
    }
  }
  return true;
}

}  // namespace ks::cli
