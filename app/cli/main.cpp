// keystream: the command-line tool. This first version inspects source clips
// (what import produced); compress, verify, export and bench follow the codec.

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "core/offline/import.h"

namespace {

constexpr const char* kUsage =
    "usage: keystream inspect [SOURCE] [options]\n"
    "\n"
    "Imports a source clip (.gltf, .glb or .bvh) and prints its skeleton, clip\n"
    "and mesh. Without SOURCE, inspects the built-in demo clip.\n"
    "\n"
    "options:\n"
    "  --animation NAME|INDEX   animation of a glTF file (default: 0)\n"
    "  --sample-rate HZ         resampling rate for glTF (default: the keys' own\n"
    "                           rate where uniform, else 30)\n"
    "  --bvh-unit-scale M       metres per BVH file unit (default: guessed from\n"
    "                           the skeleton's height; 0.01 for centimetres)\n"
    "  --bones                  also list every bone\n"
    "  -h, --help               show this help\n";

struct InspectOptions {
  std::filesystem::path source = KS_DEMO_CLIP;
  ks::ImportSettings import;
  bool list_bones = false;
};

bool parse_float(std::string_view text, float& out) {
  std::string s(text);
  char* end = nullptr;
  out = std::strtof(s.c_str(), &end);
  return !s.empty() && end == s.c_str() + s.size();
}

// Parses the inspect arguments; on failure prints what is wrong and returns false.
bool parse_inspect(const std::vector<std::string_view>& args, InspectOptions& options) {
  bool have_source = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string_view arg = args[i];
    auto value = [&](std::string_view& out) {
      if (i + 1 >= args.size()) {
        std::fprintf(stderr, "keystream inspect: %.*s needs a value\n", static_cast<int>(arg.size()), arg.data());
        return false;
      }
      out = args[++i];
      return true;
    };
    std::string_view v;
    if (arg == "--bones") {
      options.list_bones = true;
    } else if (arg == "--animation") {
      if (!value(v)) return false;
      float index = 0.f;
      if (parse_float(v, index) && index >= 0.f && index == static_cast<float>(static_cast<int>(index))) {
        options.import.animation_index = static_cast<int>(index);
      } else {
        options.import.animation_name = std::string(v);
      }
    } else if (arg == "--sample-rate" || arg == "--bvh-unit-scale") {
      if (!value(v)) return false;
      float number = 0.f;
      if (!parse_float(v, number)) {
        std::fprintf(stderr, "keystream inspect: %.*s: '%.*s' is not a number\n", static_cast<int>(arg.size()),
                     arg.data(), static_cast<int>(v.size()), v.data());
        return false;
      }
      (arg == "--sample-rate" ? options.import.sample_rate_hz : options.import.bvh_unit_scale_m) = number;
    } else if (!arg.empty() && arg[0] == '-') {
      std::fprintf(stderr, "keystream inspect: unknown option '%.*s'\n%s", static_cast<int>(arg.size()), arg.data(),
                   kUsage);
      return false;
    } else if (have_source) {
      std::fprintf(stderr, "keystream inspect: more than one SOURCE given\n");
      return false;
    } else {
      options.source = std::string(arg);
      have_source = true;
    }
  }
  if (ks::Status s = options.import.validate(); !s) {
    std::fprintf(stderr, "keystream inspect: %s\n", s.error().c_str());
    return false;
  }
  return true;
}

void print_clip(const ks::ImportedClip& imported, bool list_bones) {
  const ks::Skeleton& skeleton = imported.skeleton;
  const ks::RawClip& clip = imported.clip;
  std::printf("source      %s\n", imported.source.string().c_str());
  std::printf("animation   %d of %zu: '%s'\n", imported.animation_index, imported.animation_names.size(),
              clip.name.c_str());
  for (size_t i = 0; i < imported.animation_names.size(); ++i) {
    std::printf("            [%zu] %s\n", i, imported.animation_names[i].c_str());
  }
  std::printf("bones       %zu%s\n", skeleton.bone_count(), skeleton.inverse_bind.empty() ? "" : " (skinned)");
  std::printf("frames      %u at %.4g Hz = %.3f s\n", clip.frame_count, clip.sample_rate_hz, clip.duration_s());
  std::printf("unit scale  %.6g m per file unit\n", imported.unit_scale_m);
  if (imported.mesh) {
    std::printf("mesh        %zu vertices, %zu triangles\n", imported.mesh->vertex_count(),
                imported.mesh->indices.size() / 3);
  } else {
    std::printf("mesh        none\n");
  }
  // Raw size: float32 translation, rotation and scale for every bone and frame.
  const double raw_bytes = static_cast<double>(skeleton.bone_count()) * clip.frame_count * (3 + 4 + 3) * 4;
  std::printf("raw size    %.1f KiB (float32 T/R/S)\n", raw_bytes / 1024.0);
  for (const std::string& warning : imported.warnings) std::printf("warning     %s\n", warning.c_str());
  if (list_bones) {
    for (size_t b = 0; b < skeleton.bone_count(); ++b) {
      const int parent = skeleton.parents[b];
      std::printf("  %4zu %-32s parent %s\n", b, skeleton.bone_names[b].c_str(),
                  parent < 0 ? "-" : skeleton.bone_names[static_cast<size_t>(parent)].c_str());
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string_view> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
    std::fputs(kUsage, args.empty() ? stderr : stdout);
    return args.empty() ? 2 : 0;
  }
  if (args[0] != "inspect") {
    std::fprintf(stderr, "keystream: unknown command '%.*s'\n%s", static_cast<int>(args[0].size()), args[0].data(),
                 kUsage);
    return 2;
  }
  args.erase(args.begin());
  for (std::string_view arg : args) {
    if (arg == "-h" || arg == "--help") {
      std::fputs(kUsage, stdout);
      return 0;
    }
  }
  InspectOptions options;
  if (!parse_inspect(args, options)) return 2;
  ks::Result<ks::ImportedClip> imported = ks::import_clip(options.source, options.import);
  if (!imported) {
    std::fprintf(stderr, "keystream: %s\n", imported.error().c_str());
    return 1;
  }
  print_clip(imported.value(), options.list_bones);
  return 0;
}
