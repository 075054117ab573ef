// keystream inspect: what import made of a source clip.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>

#include "app/cli/arguments.h"
#include "app/cli/clip_report.h"
#include "app/cli/commands.h"
#include "app/cli/scalar_report.h"
#include "keystream/io/stream_names.h"

namespace ks::cli {

const char* const kInspectHelp =
    "usage: keystream inspect [SOURCE] [options]\n"
    "\n"
    "Imports a source clip (.gltf, .glb, .bvh, .fbx, .dae or .zae) and prints its\n"
    "skeleton, clip, scalar tracks (morph-target weights, user curves) and\n"
    "mesh, and which tracks the source keys sparsely (LINEAR or STEP keys on\n"
    "frames, which the fit may keep as they are). Without SOURCE, inspects\n"
    "the built-in demo clip. With\n"
    "--additive-base, the clip as that layer: how far it moves the bones.\n"
    "\n"
    "options:\n";

bool wants_help(const std::vector<std::string_view>& args) {
  for (std::string_view arg : args) {
    if (arg == "-h" || arg == "--help") return true;
  }
  return false;
}

namespace {

// The tracks the source keys sparsely (SourceKeys: LINEAR or STEP with every
// key on a frame), which the fit may keep as linear or step curves
// (docs/curves.md): "20 linear (500 keys), 1 step (5 keys); the other tracks
// sampled".
std::string describe_source_keys(const RawClip& clip) {
  size_t tracks[3] = {0, 0, 0}, keys[3] = {0, 0, 0};
  const auto count = [&](const SourceKeys& k) {
    if (!k.keyed()) return;
    ++tracks[static_cast<int>(k.interpolation)];
    keys[static_cast<int>(k.interpolation)] += k.frames.size();
  };
  for (const BoneTracks& bone : clip.bones) {
    for (const SourceKeys& k : bone.source_keys) count(k);
  }
  for (const ScalarTrack& scalar : clip.scalars) count(scalar.source_keys);
  std::string text;
  for (const Interpolation i : {Interpolation::kLinear, Interpolation::kStep}) {
    const int n = static_cast<int>(i);
    if (tracks[n] == 0) continue;
    if (!text.empty()) text += ", ";
    text += std::to_string(tracks[n]) + " " + to_string(i) + " (" + std::to_string(keys[n]) + " keys)";
  }
  return text.empty() ? "none: every track sampled" : text + "; the other tracks sampled";
}

// "0 .. 1": the smallest and largest value of any component of `track`.
std::string value_range(const ScalarTrack& track) {
  if (track.values.empty()) return "no values";
  const auto [low, high] = std::minmax_element(track.values.begin(), track.values.end());
  char text[64];
  std::snprintf(text, sizeof text, "%.4g .. %.4g", double{*low}, double{*high});
  return text;
}

// "to first-frame: largest 12.3 deg (bone 'neck', frame 40), 5.1 mm, scale ratio 1 +- 0":
// how far the layer moves any bone from its base, the size its bytes follow.
std::string describe_layer(const ImportedClip& imported) {
  const RawClip& clip = imported.clip;
  float degrees = 0.f, metres = 0.f, scale = 0.f;
  size_t bone = 0;
  uint32_t frame = 0;
  for (size_t b = 0; b < clip.bones.size(); ++b) {
    const BoneTracks& t = clip.bones[b];
    for (uint32_t f = 0; f < clip.frame_count; ++f) {
      const float angle = 2.f * std::acos(std::min(1.f, std::fabs(t.rotations[f].w))) * 57.29578f;
      if (angle > degrees) {
        degrees = angle;
        bone = b;
        frame = f;
      }
      metres = std::max(metres, length(t.translations[f]));
      const Vec3 s = t.scales[f];
      scale = std::max({scale, std::fabs(s.x - 1.f), std::fabs(s.y - 1.f), std::fabs(s.z - 1.f)});
    }
  }
  const AdditiveBasePoses& base = clip.additive_base;
  char text[512];
  std::snprintf(text, sizeof text, "to %s%s: rotations up to %.4g deg (bone '%s', frame %u), translations up to %.4g mm, "
                "scale ratios within 1 +- %.3g",
                to_string(base.kind), base.name.empty() ? "" : (" " + shown_name(base.name)).c_str(), double{degrees},
                shown_name(imported.skeleton.bone_names[bone]).c_str(), frame, double{metres} * 1e3, double{scale});
  return text;
}

void print_clip(const ImportedClip& imported, bool list_bones, bool list_scalars) {
  const Skeleton& skeleton = imported.skeleton;
  const RawClip& clip = imported.clip;
  std::printf("source      %s\n", shown_path(imported.source).c_str());
  std::printf("animation   %d of %zu: '%s'\n", imported.animation_index, imported.animation_names.size(),
              shown_name(clip.name).c_str());
  for (size_t i = 0; i < imported.animation_names.size(); ++i) {
    std::printf("            [%zu] %s\n", i, shown_name(imported.animation_names[i]).c_str());
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
  const std::vector<ScalarTrackInfo> scalars = scalar_tracks_of(clip);
  std::printf("scalars     %s\n", describe_count(scalars).c_str());
  if (clip.additive_base.additive()) std::printf("additive    %s\n", describe_layer(imported).c_str());
  std::printf("source keys %s\n", describe_source_keys(clip).c_str());
  // Raw size: float32 translation, rotation and scale for every bone and frame, and every scalar value.
  size_t scalar_floats = 0;
  for (const ScalarTrackInfo& s : scalars) scalar_floats += s.components;
  const double raw_bytes =
      (static_cast<double>(skeleton.bone_count()) * (3 + 4 + 3) + static_cast<double>(scalar_floats)) *
      clip.frame_count * 4;
  std::printf("raw size    %.1f KiB (float32 T/R/S and scalar values)\n", raw_bytes / 1024.0);
  for (const std::string& warning : imported.warnings) std::printf("warning     %s\n", shown_message(warning).c_str());
  if (list_bones) {
    for (size_t b = 0; b < skeleton.bone_count(); ++b) {
      const int parent = skeleton.parents[b];
      std::printf("  %4zu %-32s parent %s\n", b, shown_name(skeleton.bone_names[b]).c_str(),
                  parent < 0 ? "-" : shown_name(skeleton.bone_names[static_cast<size_t>(parent)]).c_str());
    }
  }
  if (list_scalars) {
    // The names --scalar-precision NAME=X takes, with the range a precision is relative to.
    for (size_t s = 0; s < scalars.size(); ++s) {
      const ScalarTrackInfo& info = scalars[s];
      std::printf("  %4zu %-32s %u component%s, %s", s, shown_name(info.name).c_str(), info.components,
                  info.components == 1 ? "" : "s", to_string(info.target));
      if (info.target == ScalarTarget::kMorphWeight) {
        std::printf(" %u of '%s'", info.target_index, shown_name(info.node).c_str());
      }
      std::printf(", values %s\n", value_range(clip.scalars[s]).c_str());
    }
  }
}

}  // namespace

int run_inspect(const std::vector<std::string_view>& raw_args) {
  if (wants_help(raw_args)) {
    std::printf(
        "%s%s  --bones                  also list every bone\n"
        "  --scalars                also list every scalar track (name, target, values)\n"
        "  --animation-files        print only the PART of each NAME.PART.ks that\n"
        "                           compress --all-animations writes, one a line\n"
        "                           (for build scripts: cmake/keystreamCook.cmake)\n"
        "%s  -h, --help               show this help\n",
        kInspectHelp, kImportOptionsHelp, kAdditiveOptionHelp);
    return 0;
  }
  Arguments args("inspect", raw_args);
  std::filesystem::path source = KS_DEMO_CLIP;
  ImportSettings import;
  bool list_bones = false, list_scalars = false, animation_files = false;
  std::optional<AdditiveBaseSpec> additive;
  while (!args.done()) {
    const std::string_view arg = args.next();
    bool ok = true;
    if (parse_import_option(args, arg, import, ok) || parse_additive_option(args, arg, additive, ok)) {
      if (!ok) return 2;
    } else if (arg == "--bones") {
      list_bones = true;
    } else if (arg == "--scalars") {
      list_scalars = true;
    } else if (arg == "--animation-files") {
      animation_files = true;
    } else if (!args.source(arg, source)) {
      return 2;
    }
  }
  if (Status s = import.validate(); !s) {
    args.fail(s.error());
    return 2;
  }
  Result<ImportedClip> imported = import_clip(source, import);
  if (!imported) {
    std::fprintf(stderr, "keystream: %s\n", shown_message(imported.error()).c_str());
    return 1;
  }
  if (additive) {
    if (Status s = make_imported_additive(imported.value(), *additive, import); !s) {
      std::fprintf(stderr, "keystream: %s: %s\n", shown_path(source).c_str(), shown_message(s.error()).c_str());
      return 1;
    }
  }
  if (animation_files) {
    // As compress names them: a file without named animations writes NAME.0.ks.
    const std::vector<std::string>& names = imported.value().animation_names;
    for (const std::string& part : names.empty() ? std::vector<std::string>{"0"} : animation_file_names(names)) {
      std::printf("%s\n", part.c_str());
    }
    return 0;
  }
  print_clip(imported.value(), list_bones, list_scalars);
  return 0;
}

}  // namespace ks::cli
