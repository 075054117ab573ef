// keystream verify: decodes a stream file at every frame of its source and
// checks each track against the thresholds the stream was compressed with,
// reporting per-track, per-bone and object-space errors.

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <numeric>
#include <string>

#include "app/cli/arguments.h"
#include "app/cli/commands.h"
#include "core/offline/measure.h"
#include "core/offline/stream_file.h"

namespace ks::cli {

namespace {

constexpr const char* kVerifyHelp =
    "usage: keystream verify SOURCE FILE.ks [options]\n"
    "\n"
    "Decodes FILE.ks through the player at every frame of SOURCE (the clip it\n"
    "was compressed from, or a glTF export of it) and compares the two:\n"
    "per-track, per-bone and object-space errors. The thresholds are those the\n"
    "stream was compressed with, stored in it, unless given here. Exits 1 when\n"
    "a track exceeds its threshold or the stream does not match the source.\n"
    "The animation of a glTF SOURCE is, unless --animation picks one, the one\n"
    "named as the stream's clip.\n"
    "\n"
    "options:\n";

constexpr const char* kKindNames[3] = {"translation", "rotation", "scale"};
constexpr const char* kKindUnits[3] = {"mm", "deg", ""};
constexpr float kKindScale[3] = {1000.f, 1.f, 1.f};

// The stream's bones must be the source's, in order (when the stream names them).
Status check_bones(const Skeleton& skeleton, const StreamView& stream, const std::string& source) {
  if (skeleton.bone_count() != stream.bone_count()) {
    return Error{"the stream has " + std::to_string(stream.bone_count()) + " bones, " + source + " has " +
                 std::to_string(skeleton.bone_count())};
  }
  const std::vector<std::string>& names = stream.metadata().bone_names;
  for (size_t b = 0; b < skeleton.bone_count(); ++b) {
    if (!names.empty() && names[b] != skeleton.bone_names[b]) {
      return Error{"bone " + std::to_string(b) + " is \"" + names[b] + "\" in the stream but \"" +
                   skeleton.bone_names[b] + "\" in " + source};
    }
    if (stream.parents()[b] != skeleton.parents[b]) {
      return Error{"bone " + std::to_string(b) + " (" + skeleton.bone_names[b] + ") has another parent in the stream than in " + source};
    }
  }
  return {};
}

}  // namespace

int run_verify(const std::vector<std::string_view>& raw_args) {
  if (wants_help(raw_args)) {
    std::printf(
        "%s%s  --translation-error MM   translation threshold (default: the stream's)\n"
        "  --rotation-error DEG     rotation threshold (default: the stream's)\n"
        "  --scale-error X          scale threshold (default: the stream's)\n"
        "  --tracks                 list every track, not only those over threshold\n"
        "  --bones                  list every bone's object-space error, not the\n"
        "                           ten worst\n"
        "  --json                   print the report as JSON\n"
        "  -h, --help               show this help\n",
        kVerifyHelp, kImportOptionsHelp);
    return 0;
  }
  Arguments args("verify", raw_args);
  ImportSettings import;
  bool animation_given = false, list_tracks = false, list_bones = false, json = false;
  float given[3] = {-1.f, -1.f, -1.f};
  std::vector<std::filesystem::path> files;
  while (!args.done()) {
    const std::string_view arg = args.next();
    bool ok = true;
    if (parse_import_option(args, arg, import, ok)) {
      if (!ok) return 2;
      animation_given = animation_given || arg == "--animation";
    } else if (arg == "--translation-error" || arg == "--rotation-error" || arg == "--scale-error") {
      const int kind = arg == "--translation-error" ? 0 : (arg == "--rotation-error" ? 1 : 2);
      if (!args.number(arg, given[kind])) return 2;
      if (given[kind] < 0.f) return args.fail(std::string(arg) + " must not be negative"), 2;
      if (kind == 0) given[kind] /= 1000.f;
    } else if (arg == "--tracks") {
      list_tracks = true;
    } else if (arg == "--bones") {
      list_bones = true;
    } else if (arg == "--json") {
      json = true;
    } else if (!arg.empty() && arg[0] == '-') {
      return args.fail("unknown option '" + std::string(arg) + "' (see keystream verify --help)"), 2;
    } else {
      files.emplace_back(std::string(arg));
    }
  }
  if (files.size() != 2) return args.fail("needs SOURCE and FILE.ks (see keystream verify --help)"), 2;
  if (Status s = import.validate(); !s) return args.fail(s.error()), 2;
  const std::filesystem::path& source = files[0];

  Result<std::unique_ptr<StreamFile>> loaded = load_stream_file(files[1]);
  if (!loaded) return std::fprintf(stderr, "keystream: %s\n", loaded.error().c_str()), 1;
  const StreamView& stream = loaded.value()->view;
  const StreamMetadata& meta = stream.metadata();

  Result<ImportedClip> imported = import_clip(source, import);
  if (imported && !animation_given && !meta.clip_name.empty() && imported.value().clip.name != meta.clip_name) {
    const std::vector<std::string>& names = imported.value().animation_names;
    if (std::find(names.begin(), names.end(), meta.clip_name) != names.end()) {
      import.animation_name = meta.clip_name;
      imported = import_clip(source, import);
    }
  }
  if (!imported) return std::fprintf(stderr, "keystream: %s\n", imported.error().c_str()), 1;
  const ImportedClip& clip = imported.value();
  if (Status s = check_bones(clip.skeleton, stream, source.string()); !s) {
    return std::fprintf(stderr, "keystream verify: %s: %s\n", files[1].string().c_str(), s.error().c_str()), 1;
  }
  Result<ClipMeasurement> measured = measure(clip.skeleton, clip.clip, stream);
  if (!measured) {
    return std::fprintf(stderr, "keystream verify: %s: %s\n", files[1].string().c_str(), measured.error().c_str()), 1;
  }
  const ClipMeasurement& m = measured.value();

  // Thresholds: given, else stored, else (a version 1 stream) the defaults.
  const FitSettings defaults;
  const float stored[3] = {meta.translation_error_m, meta.rotation_error_deg, meta.scale_error};
  const bool none_stored = stored[0] == 0.f && stored[1] == 0.f && stored[2] == 0.f;
  const float fallback[3] = {defaults.translation_error_m, defaults.rotation_error_deg, defaults.scale_error};
  float threshold[3];
  for (int k = 0; k < 3; ++k) threshold[k] = given[k] >= 0.f ? given[k] : (none_stored ? fallback[k] : stored[k]);

  std::vector<size_t> over;
  for (size_t t = 0; t < m.tracks.size(); ++t) {
    if (m.tracks[t].max > threshold[t % 3]) over.push_back(t);
  }
  // Bones by their object-space error at the largest distance, worst first.
  const size_t far = m.distances_m.size() - 1;
  std::vector<size_t> bones(clip.skeleton.bone_count());
  std::iota(bones.begin(), bones.end(), size_t{0});
  std::stable_sort(bones.begin(), bones.end(),
                   [&](size_t a, size_t b) { return m.bone_object_error[far][a] > m.bone_object_error[far][b]; });
  if (!list_bones && bones.size() > 10) bones.resize(10);
  const std::vector<std::string>& names = clip.skeleton.bone_names;

  if (json) {
    nlohmann::json doc = {{"source", source.string()},   {"stream", files[1].string()},
                          {"animation", clip.clip.name}, {"ok", over.empty()},
                          {"frames", clip.clip.frame_count}};
    for (int k = 0; k < 3; ++k) {
      doc[kKindNames[k]] = {{"threshold", threshold[k]}, {"max", m.max_track_error[k]}, {"mean", m.mean_track_error[k]}};
    }
    for (size_t d = 0; d < m.distances_m.size(); ++d) {
      doc["object_space_error"].push_back(
          {{"distance_m", m.distances_m[d]}, {"max_m", m.max_object_error[d]}, {"p99_m", m.p99_object_error[d]}});
    }
    doc["max_joint_position_error_m"] = m.max_joint_position_error;
    for (size_t t = 0; t < m.tracks.size(); ++t) {
      if (!list_tracks && std::find(over.begin(), over.end(), t) == over.end()) continue;
      doc["tracks"].push_back({{"bone", names[t / 3]}, {"kind", kKindNames[t % 3]}, {"max", m.tracks[t].max},
                               {"mean", m.tracks[t].mean}, {"worst_frame", m.tracks[t].worst_frame},
                               {"over_threshold", m.tracks[t].max > threshold[t % 3]}});
    }
    for (const size_t b : bones) {
      nlohmann::json bone = {{"bone", names[b]}};
      for (size_t d = 0; d < m.distances_m.size(); ++d) bone["object_space_max_m"].push_back(m.bone_object_error[d][b]);
      doc["bones"].push_back(bone);
    }
    std::printf("%s\n", doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    return over.empty() ? 0 : 1;
  }

  std::printf("source           %s [%s], %u frames\n", source.string().c_str(), clip.clip.name.c_str(),
              clip.clip.frame_count);
  std::printf("stream           %s (version %u%s, %zu bytes)\n", files[1].string().c_str(), stream.version(),
              stream.key_stream_compressed() ? ", zstd blocks" : "", stream.bytes().size());
  std::printf("thresholds       translation %.4g mm, rotation %.4g deg, scale %.4g (%s)\n", threshold[0] * 1000.f,
              threshold[1], threshold[2],
              given[0] >= 0.f || given[1] >= 0.f || given[2] >= 0.f ? "given"
              : none_stored                                         ? "defaults: the stream stores none"
                                                                    : "stored in the stream");
  for (int k = 0; k < 3; ++k) {
    std::printf("%-16s max %.4g %s, mean %.3g %s\n", kKindNames[k], m.max_track_error[k] * kKindScale[k],
                kKindUnits[k], m.mean_track_error[k] * kKindScale[k], kKindUnits[k]);
  }
  for (size_t d = 0; d < m.distances_m.size(); ++d) {
    std::printf("object space     at %.3g m: max %.4g mm, 99th percentile %.4g mm\n", m.distances_m[d],
                m.max_object_error[d] * 1000.f, m.p99_object_error[d] * 1000.f);
  }
  std::printf("joint position   max %.4g mm (model space)\n", m.max_joint_position_error * 1000.f);
  std::printf("%s bones by object-space error at %.3g m (mm):\n", list_bones ? "all" : "worst", m.distances_m[far]);
  for (const size_t b : bones) {
    std::printf("  %-32s", names[b].c_str());
    for (size_t d = 0; d < m.distances_m.size(); ++d) std::printf("  %.3g m: %8.4f", m.distances_m[d], m.bone_object_error[d][b] * 1000.f);
    std::printf("\n");
  }
  for (size_t t = 0; t < m.tracks.size(); ++t) {
    const bool exceeds = m.tracks[t].max > threshold[t % 3];
    if (!list_tracks && !exceeds) continue;
    std::printf("%s %-28s %-11s max %.4g %s (threshold %.4g) at frame %u\n", exceeds ? "EXCEEDS" : "track  ",
                names[t / 3].c_str(), kKindNames[t % 3], m.tracks[t].max * kKindScale[t % 3], kKindUnits[t % 3],
                threshold[t % 3] * kKindScale[t % 3], m.tracks[t].worst_frame);
  }
  if (!over.empty()) {
    std::fprintf(stderr, "keystream verify: %s: %zu tracks exceed their thresholds\n", files[1].string().c_str(),
                 over.size());
    return 1;
  }
  std::printf("result           every track within its threshold\n");
  return 0;
}

}  // namespace ks::cli
