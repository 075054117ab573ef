#include "app/cli/arguments.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace ks::cli {

const char* const kImportOptionsHelp =
    "  --animation NAME|INDEX   animation of a glTF file (default: 0)\n"
    "  --sample-rate HZ         resampling rate for glTF (default: the keys' own\n"
    "                           rate where uniform, else 30)\n"
    "  --bvh-unit-scale M       metres per BVH file unit (default: guessed from\n"
    "                           the skeleton's height; 0.01 for centimetres)\n";

const char* const kCodecOptionsHelp =
    "  --translation-error MM   translation threshold, millimetres (default 0.5)\n"
    "  --rotation-error DEG     rotation threshold, degrees (default 0.1)\n"
    "  --scale-error X          scale threshold, largest component difference\n"
    "                           (default 0.001)\n"
    "  --quat-bits N            bits per smallest-three component, 10..20\n"
    "                           (default 10)\n"
    "  --no-widen               never widen a rotation track past --quat-bits,\n"
    "                           even where the threshold needs it\n"
    "  --range track|fixed      vec3 range: per track (default) or -10..10 m\n"
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

bool parse_codec_option(Arguments& args, std::string_view arg, FitSettings& fit, PackSettings& pack, bool& ok) {
  ok = true;
  if (arg == "--translation-error") {
    float mm = 0.f;
    ok = args.number(arg, mm);
    fit.translation_error_m = mm / 1000.f;
  } else if (arg == "--rotation-error") {
    ok = args.number(arg, fit.rotation_error_deg);
  } else if (arg == "--scale-error") {
    ok = args.number(arg, fit.scale_error);
  } else if (arg == "--quat-bits") {
    long bits = 0;
    ok = args.whole_number(arg, kMinRotationBits, kMaxRotationBits, bits);
    fit.quantization.rotation_bits = static_cast<uint32_t>(bits);
  } else if (arg == "--no-widen") {
    fit.quantization.widen_rotation_bits = false;
  } else if (arg == "--range") {
    std::string_view v;
    ok = args.value(arg, v);
    if (ok && v == "track") {
      fit.quantization.range_mode = RangeMode::kPerTrack;
    } else if (ok && v == "fixed") {
      fit.quantization.range_mode = RangeMode::kFixed;
    } else if (ok) {
      ok = args.fail("--range: '" + std::string(v) + "' is neither 'track' nor 'fixed'");
    }
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
