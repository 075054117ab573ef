// keystream verify: decodes a stream file at every frame of its source
// through the player and checks the bound the stream was fitted to, as its
// metadata records it: in object space every bone against its own tolerance
// and shell distance (overrides included), in local mode every track against
// its per-kind threshold; in both, every scalar track against its precision.
// Names the worst bones (or tracks) and their frames.

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <numeric>
#include <optional>
#include <string>

#include "app/cli/arguments.h"
#include "app/cli/clip_report.h"
#include "app/cli/commands.h"
#include "app/cli/scalar_report.h"
#include "keystream/codec/measure.h"
#include "keystream/io/stream_file.h"

namespace ks::cli {

namespace {

constexpr const char* kVerifyHelp =
    "usage: keystream verify SOURCE FILE.ks [options]\n"
    "\n"
    "Decodes FILE.ks through the player at every frame of SOURCE (the clip it\n"
    "was compressed from, or a glTF export of it) and checks the bound stored\n"
    "in the stream: in object space, that every virtual vertex of every bone,\n"
    "at the bone's shell distance, lies within the bone's tolerance of the\n"
    "source's (the clip's E and d, or the bone's override); for a stream\n"
    "compressed with --local, that every track is within its per-kind\n"
    "threshold; in both, that every scalar track (morph-target weight, user\n"
    "curve) is within its precision. Prints the worst bones relative to their\n"
    "tolerance, each with the frame of its largest error, and the scalar\n"
    "tracks over their precision.\n"
    "\n"
    "Exits 0 when the bound holds at every frame, 1 when a bone (or track, or\n"
    "scalar track) is over it or the stream does not match the source, 2 for\n"
    "bad usage.\n"
    "\n"
    "The error-bound options check another bound instead: those not given keep\n"
    "the stream's values; --bone-tolerance(s) replace the stream's overrides;\n"
    "--local checks per-kind thresholds; --scalar-precision X replaces the\n"
    "stream's default precision (keeping its per-track ones), and NAME=X or\n"
    "--scalar-precisions FILE replace its per-track ones. The animation of a\n"
    "glTF SOURCE is, unless --animation picks one, the one named as the\n"
    "stream's clip. An additive stream is checked on the pose composed on\n"
    "its base, which the stream records.\n"
    "\n"
    "options:\n";

constexpr const char* kKindNames[3] = {"translation", "rotation", "scale"};
constexpr const char* kKindUnits[3] = {"mm", "deg", ""};
constexpr float kKindScale[3] = {1000.f, 1.f, 1.f};
// Bones (or tracks) listed, worst first, without --bones (--tracks).
constexpr size_t kWorstListed = 5;
// Marks a setting the command line did not give.
constexpr float kNotGiven = -1.f;

// The stream's bones must be the source's, in order (when the stream names or hashes them).
Status check_bones(const Skeleton& skeleton, const StreamView& stream, const std::string& source) {
  if (skeleton.bone_count() != stream.bone_count()) {
    return Error{"the stream has " + std::to_string(stream.bone_count()) + " bones, " + source + " has " +
                 std::to_string(skeleton.bone_count())};
  }
  const std::vector<std::string>& names = stream.metadata().bone_names;
  const std::vector<uint32_t>& hashes = stream.metadata().bone_name_hashes;
  for (size_t b = 0; b < skeleton.bone_count(); ++b) {
    if (!names.empty() && names[b] != skeleton.bone_names[b]) {
      return Error{"bone " + std::to_string(b) + " is \"" + shown_name(names[b]) + "\" in the stream but \"" +
                   shown_name(skeleton.bone_names[b]) + "\" in " + source};
    }
    if (!hashes.empty() && hashes[b] != name_hash(skeleton.bone_names[b])) {
      return Error{"bone " + std::to_string(b) + "'s name hash in the stream is not that of \"" +
                   shown_name(skeleton.bone_names[b]) + "\" in " + source};
    }
    if (stream.parents()[b] != skeleton.parents[b]) {
      return Error{"bone " + std::to_string(b) + " (" + shown_name(skeleton.bone_names[b]) +
                   ") has another parent in the stream than in " + source};
    }
  }
  return {};
}

// The stream's scalar tracks must be the source clip's, in order (when the
// stream names them; measure() checks their count and components).
Status check_scalar_names(const RawClip& clip, const StreamView& stream, const std::string& source) {
  const std::vector<StreamScalarInfo>& stored = stream.metadata().scalars;
  for (size_t s = 0; s < stored.size() && s < clip.scalars.size(); ++s) {
    if (stored[s].name != clip.scalars[s].name) {
      return Error{"scalar track " + std::to_string(s) + " is \"" + shown_name(stored[s].name) +
                   "\" in the stream but \"" + shown_name(clip.scalars[s].name) + "\" in " + source};
    }
  }
  return {};
}

// The scalar tracks' precisions to check: the stream's, with what the
// command line gives in their place.
struct ScalarBound {
  float default_precision = 0.f;
  std::vector<float> precisions;  // one per scalar track of the clip
  std::string origin;             // where they came from, for the report
};

ScalarBound scalar_bound_to_check(const CodecOptions& given, const StreamMetadata& meta, const RawClip& clip) {
  ScalarBound bound;
  const bool stored = meta.scalar_precision > 0.f;  // 0 where the stream stores none
  const bool default_given = given.fit.scalar_precision != kNotGiven;
  const bool overrides_given = !given.scalar_precision_origins.empty();
  bound.default_precision = default_given ? given.fit.scalar_precision
                            : stored      ? meta.scalar_precision
                                          : kDefaultScalarPrecision;
  const bool any_given = default_given || overrides_given;
  bound.origin = stored ? (any_given ? "given here, the rest stored in the stream" : "stored in the stream")
                        : (any_given ? "given here, the rest defaults" : "defaults: the stream stores none");
  bound.precisions.assign(clip.scalars.size(), bound.default_precision);
  if (overrides_given) {
    // check_scalar_precisions has matched every name to a track of the clip.
    Result<std::vector<float>> resolved =
        resolve_scalar_precisions(clip, bound.default_precision, given.fit.scalar_precisions);
    if (resolved) bound.precisions = std::move(resolved.value());
  } else if (stored) {
    // A stored precision other than the stored default was an override: it stays.
    for (size_t s = 0; s < meta.scalars.size() && s < bound.precisions.size(); ++s) {
      if (meta.scalars[s].precision != meta.scalar_precision) bound.precisions[s] = meta.scalars[s].precision;
    }
  }
  return bound;
}

// The bound to check: the stream's, with what the command line gives in its place.
struct Bound {
  bool local = false;
  // Object space.
  float tolerance_m = 0.f;
  float shell_distance_m = 0.f;
  std::vector<BoneTolerance> overrides;
  // Local mode: translation metres, rotation degrees, scale.
  float thresholds[3] = {0.f, 0.f, 0.f};
  std::string origin;  // where it came from, for the report
};

// `given` holds kNotGiven for settings the command line left out.
Bound bound_to_check(const CodecOptions& given, const StreamMetadata& meta, const Skeleton& skeleton) {
  const FitSettings defaults;
  const FitSettings& fit = given.fit;
  Bound bound;
  // The stream's mode, unless the options ask for the other one.
  bound.local = fit.error_mode == ErrorMode::kLocal || (meta.local_mode && given.tolerance_option.empty());
  const bool stream_has_it =
      bound.local == meta.local_mode && (bound.local ? meta.translation_error_m > 0.f : meta.tolerance_m > 0.f);
  const bool any_given = bound.local ? !given.per_kind_option.empty() : !given.tolerance_option.empty();
  bound.origin = stream_has_it ? (any_given ? "given here, the rest stored in the stream" : "stored in the stream")
                               : (any_given ? "given here, the rest defaults" : "defaults: the stream stores none");
  auto pick = [&](float option, float stored, float fallback) {
    return option != kNotGiven ? option : (stream_has_it ? stored : fallback);
  };
  if (bound.local) {
    bound.thresholds[0] = pick(fit.translation_error_m, meta.translation_error_m, defaults.translation_error_m);
    bound.thresholds[1] = pick(fit.rotation_error_deg, meta.rotation_error_deg, defaults.rotation_error_deg);
    bound.thresholds[2] = pick(fit.scale_error, meta.scale_error, defaults.scale_error);
    return bound;
  }
  bound.tolerance_m = pick(fit.tolerance_m, meta.tolerance_m, defaults.tolerance_m);
  bound.shell_distance_m = pick(fit.shell_distance_m, meta.shell_distance_m, defaults.shell_distance_m);
  if (!given.bone_tolerance_origins.empty()) {
    bound.overrides = fit.bone_tolerances;
  } else if (stream_has_it) {
    // check_bones has matched the stream's bones to the skeleton's, in order.
    for (const StreamBoneTolerance& o : meta.bone_tolerances) {
      bound.overrides.push_back({skeleton.bone_names[o.bone], o.tolerance_m, o.shell_distance_m});
    }
  }
  return bound;
}

std::string format(const char* pattern, double value) {
  char text[64];
  std::snprintf(text, sizeof text, pattern, value);
  return text;
}

// "0.1 mm at 3 cm" (an override without a distance of its own inherits one).
std::string describe_tolerance(float tolerance_m, float shell_distance_m) {
  return format("%.4g", tolerance_m * 1e3) + " mm at " +
         (shell_distance_m > 0.f ? format("%.4g", shell_distance_m * 1e2) + " cm" : "the inherited distance");
}

// Tracks by their error relative to their threshold, worst first.
std::vector<size_t> worst_tracks(const ClipMeasurement& m, const float thresholds[3]) {
  std::vector<size_t> order(m.tracks.size());
  std::iota(order.begin(), order.end(), size_t{0});
  auto ratio = [&](size_t t) { return m.tracks[t].max / thresholds[t % 3]; };
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return ratio(a) > ratio(b); });
  return order;
}

}  // namespace

int run_verify(const std::vector<std::string_view>& raw_args) {
  if (wants_help(raw_args)) {
    std::printf(
        "%s%s%s  --tracks                 list every track's largest error, and every\n"
        "                           scalar track's, not only those over\n"
        "  --bones                  list every bone, not the %zu worst\n"
        "  --json                   print the report as JSON (every bone and scalar\n"
        "                           track)\n"
        "  --additive-base first-frame|bind-pose|FILE[#ANIMATION]\n"
        "                           an additive stream's base, when its recorded\n"
        "                           base file has moved (the kind must match)\n"
        "  -h, --help               show this help\n",
        kVerifyHelp, kImportOptionsHelp, kToleranceOptionsHelp, kWorstListed);
    return 0;
  }
  Arguments args("verify", raw_args);
  ImportSettings import;
  CodecOptions given;
  for (float* value : {&given.fit.tolerance_m, &given.fit.shell_distance_m, &given.fit.translation_error_m,
                       &given.fit.rotation_error_deg, &given.fit.scale_error, &given.fit.scalar_precision}) {
    *value = kNotGiven;
  }
  std::optional<AdditiveBaseSpec> additive;
  bool animation_given = false, list_tracks = false, list_bones = false, json = false;
  std::vector<std::filesystem::path> files;
  while (!args.done()) {
    const std::string_view arg = args.next();
    bool ok = true;
    if (parse_import_option(args, arg, import, ok) || parse_tolerance_option(args, arg, given, ok) ||
        parse_additive_option(args, arg, additive, ok)) {
      if (!ok) return 2;
      animation_given = animation_given || arg == "--animation";
    } else if (arg == "--tracks") {
      list_tracks = true;
    } else if (arg == "--bones") {
      list_bones = true;
    } else if (arg == "--json") {
      json = true;
    } else if (!arg.empty() && arg[0] == '-') {
      return args.fail("unknown option '" + shown_name(arg) + "' (see keystream verify --help)"), 2;
    } else {
      files.emplace_back(std::string(arg));
    }
  }
  if (files.size() != 2) return args.fail("needs SOURCE and FILE.ks (see keystream verify --help)"), 2;
  if (!finish_codec_options(args, given)) return 2;
  if (Status s = import.validate(); !s) return args.fail(s.error()), 2;
  const std::filesystem::path& source = files[0];
  const std::string stream_name = shown_path(files[1]);

  // Load the stream, then its source (the animation the stream names).
  Result<std::unique_ptr<StreamFile>> loaded = load_stream_file(files[1]);
  if (!loaded) return std::fprintf(stderr, "keystream: %s\n", shown_message(loaded.error()).c_str()), 1;
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
  if (!imported) return std::fprintf(stderr, "keystream: %s\n", shown_message(imported.error()).c_str()), 1;
  if (Status s = make_additive_as_stream(imported.value(), stream, files[1], additive, import); !s) {
    return std::fprintf(stderr, "keystream verify: %s: %s\n", stream_name.c_str(), shown_message(s.error()).c_str()), 1;
  }
  const ImportedClip& clip = imported.value();
  // What the import could not use is part of the answer: a clean bound over
  // a clip that lost a channel would be a false "ok".
  for (const std::string& warning : clip.warnings) {
    std::fprintf(stderr, "keystream verify: %s: warning: %s\n", shown_path(source).c_str(),
                 shown_message(warning).c_str());
  }
  const Skeleton& skeleton = clip.skeleton;
  if (Status s = check_bones(skeleton, stream, shown_path(source)); !s) {
    return std::fprintf(stderr, "keystream verify: %s: %s\n", stream_name.c_str(), shown_message(s.error()).c_str()), 1;
  }
  if (Status s = check_scalar_names(clip.clip, stream, shown_path(source)); !s) {
    return std::fprintf(stderr, "keystream verify: %s: %s\n", stream_name.c_str(), shown_message(s.error()).c_str()), 1;
  }
  if (!check_bone_tolerances(args, given, skeleton, source.string()) ||
      !check_scalar_precisions(args, given, clip.clip, source.string())) {
    return 2;
  }

  // The bound, every bone's tolerance, and the measurement at every frame.
  const Bound bound = bound_to_check(given, meta, skeleton);
  BoneTolerances tolerances;
  MeasureSettings measure_settings;
  if (!bound.local) {
    Result<BoneTolerances> resolved =
        resolve_bone_tolerances(skeleton, bound.tolerance_m, bound.shell_distance_m, bound.overrides);
    if (!resolved) {
      return std::fprintf(stderr, "keystream verify: %s: %s\n", stream_name.c_str(),
                          shown_message(resolved.error()).c_str()),
             1;
    }
    tolerances = std::move(resolved.value());
    measure_settings.bone_shell_distance_m = tolerances.shell_distance_m;
  }
  Result<ClipMeasurement> measured = measure(skeleton, clip.clip, stream, measure_settings);
  if (!measured) {
    return std::fprintf(stderr, "keystream verify: %s: %s\n", stream_name.c_str(),
                        shown_message(measured.error()).c_str()),
           1;
  }
  const ClipMeasurement& m = measured.value();
  const std::vector<BoneError> bones =
      bound.local ? std::vector<BoneError>{} : bone_errors(m, tolerances, skeleton.bone_names);
  const std::vector<size_t> bone_order = worst_first(bones);
  const size_t bones_over =
      static_cast<size_t>(std::count_if(bones.begin(), bones.end(), [](const BoneError& b) { return b.over(); }));
  std::vector<size_t> track_order;
  size_t tracks_over = 0;
  if (bound.local) {
    track_order = worst_tracks(m, bound.thresholds);
    for (size_t t = 0; t < m.tracks.size(); ++t) tracks_over += m.tracks[t].max > bound.thresholds[t % 3] ? 1 : 0;
  }
  // Every scalar track against its precision, on the decoded values at every source frame.
  const ScalarBound scalar_bound = scalar_bound_to_check(given, meta, clip.clip);
  std::vector<ScalarTrackInfo> scalar_infos = scalar_tracks_of(clip.clip);
  for (size_t s = 0; s < scalar_infos.size(); ++s) scalar_infos[s].precision = scalar_bound.precisions[s];
  const std::vector<ScalarError> scalars = scalar_errors(std::move(scalar_infos), m);
  const std::vector<size_t> scalar_order = worst_first(scalars);
  const size_t scalars_over = count_over(scalars);
  const bool ok = bones_over == 0 && tracks_over == 0 && scalars_over == 0;
  const std::vector<std::string>& names = skeleton.bone_names;

  if (json) {
    nlohmann::json doc = {{"source", source.string()},
                          {"warnings", clip.warnings},
                          {"stream", files[1].string()},
                          {"animation", clip.clip.name},
                          {"frames", clip.clip.frame_count},
                          {"ok", ok},
                          {"error_mode", bound.local ? "local" : "object-space"},
                          {"bound_origin", bound.origin}};
    if (bound.local) {
      doc["thresholds"] = {{"translation_mm", json_mm(bound.thresholds[0])},
                           {"rotation_deg", shortest(bound.thresholds[1])},
                           {"scale", shortest(bound.thresholds[2])}};
      doc["tracks_over"] = tracks_over;
    } else {
      nlohmann::json overrides = nlohmann::json::array();
      for (const BoneTolerance& o : bound.overrides) {
        overrides.push_back(
            {{"bone", o.bone},
             {"tolerance_mm", json_mm(o.tolerance_m)},
             {"shell_distance_cm",
              o.shell_distance_m > 0.f ? nlohmann::json(json_cm(o.shell_distance_m)) : nlohmann::json(nullptr)}});
      }
      doc["tolerance"] = {{"tolerance_mm", json_mm(bound.tolerance_m)},
                          {"shell_distance_cm", json_cm(bound.shell_distance_m)},
                          {"bone_tolerances", overrides}};
      doc["bones_over"] = bones_over;
      doc["bones"] = nlohmann::json::array();
      for (const BoneError& bone : bones) doc["bones"].push_back(to_json(bone));
      doc["worst_bones"] = nlohmann::json::array();
      for (size_t i = 0; i < bone_order.size() && i < kWorstListed; ++i) {
        doc["worst_bones"].push_back(bones[bone_order[i]].name);
      }
    }
    for (int k = 0; k < 3; ++k) {
      doc[kKindNames[k]] = {{"max", m.max_track_error[k]}, {"mean", m.mean_track_error[k]}};
      if (bound.local) doc[kKindNames[k]]["threshold"] = bound.thresholds[k];
    }
    for (size_t d = 0; d < m.distances_m.size(); ++d) {
      doc["object_space_error"].push_back(
          {{"distance_m", m.distances_m[d]}, {"max_m", m.max_object_error[d]}, {"p99_m", m.p99_object_error[d]}});
    }
    doc["max_joint_position_error_m"] = m.max_joint_position_error;
    doc["scalar_precision"] = {{"default", shortest(scalar_bound.default_precision)}, {"origin", scalar_bound.origin}};
    doc["scalar_tracks_over"] = scalars_over;
    doc["scalar_tracks"] = nlohmann::json::array();
    for (const ScalarError& e : scalars) doc["scalar_tracks"].push_back(to_json(e));
    doc["tracks"] = nlohmann::json::array();
    for (size_t t = 0; t < m.tracks.size(); ++t) {
      const bool over = bound.local && m.tracks[t].max > bound.thresholds[t % 3];
      if (!list_tracks && !over) continue;
      nlohmann::json track = {{"bone", names[t / 3]},
                              {"kind", kKindNames[t % 3]},
                              {"max", m.tracks[t].max},
                              {"mean", m.tracks[t].mean},
                              {"worst_frame", m.tracks[t].worst_frame}};
      if (bound.local) track["over_threshold"] = over;
      doc["tracks"].push_back(track);
    }
    std::printf("%s\n", doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    return ok ? 0 : 1;
  }

  std::printf("source           %s [%s], %u frames\n", shown_path(source).c_str(), shown_name(clip.clip.name).c_str(),
              clip.clip.frame_count);
  std::printf("stream           %s (version %u%s, %zu bytes)\n", stream_name.c_str(), stream.version(),
              stream.key_stream_compressed() ? ", zstd key stream" : "", stream.bytes().size());
  if (bound.local) {
    std::printf("bound            local: translation %.4g mm, rotation %.4g deg, scale %.4g (%s)\n",
                bound.thresholds[0] * 1e3, bound.thresholds[1], bound.thresholds[2], bound.origin.c_str());
  } else {
    std::printf("bound            object space: %s, %zu bone override%s (%s)\n",
                describe_tolerance(bound.tolerance_m, bound.shell_distance_m).c_str(), bound.overrides.size(),
                bound.overrides.size() == 1 ? "" : "s", bound.origin.c_str());
    for (const BoneTolerance& o : bound.overrides) {
      std::printf("  override       %s: %s, and the bones below it\n", shown_name(o.bone).c_str(),
                  describe_tolerance(o.tolerance_m, o.shell_distance_m).c_str());
    }
  }
  for (int k = 0; k < 3; ++k) {
    std::printf("%-16s max %.4g %s, mean %.3g %s\n", kKindNames[k], m.max_track_error[k] * kKindScale[k], kKindUnits[k],
                m.mean_track_error[k] * kKindScale[k], kKindUnits[k]);
  }
  for (size_t d = 0; d < m.distances_m.size(); ++d) {
    std::printf("object space     at %.3g m: max %.4g mm, 99th percentile %.4g mm\n", m.distances_m[d],
                m.max_object_error[d] * 1e3, m.p99_object_error[d] * 1e3);
  }
  std::printf("joint position   max %.4g mm (model space)\n", m.max_joint_position_error * 1e3);
  if (!bound.local) {
    std::printf("bones            %zu of %zu over their tolerance\n", bones_over, bones.size());
    std::printf("%s bones relative to their tolerance (largest error over the frames):\n",
                list_bones ? "all" : "worst");
    for (size_t i = 0; i < bone_order.size() && (list_bones || i < kWorstListed); ++i) {
      const BoneError& bone = bones[bone_order[i]];
      std::printf("  %-4s %s\n", bone.over() ? "OVER" : "ok", describe(bone).c_str());
    }
    if (!list_bones && bones_over > kWorstListed) {
      std::printf("  ... and %zu more over (--bones lists every bone)\n", bones_over - kWorstListed);
    }
  } else {
    std::printf("tracks           %zu of %zu over their threshold\n", tracks_over, m.tracks.size());
    std::printf("worst tracks relative to their threshold:\n");
    for (size_t i = 0; i < track_order.size() && i < kWorstListed; ++i) {
      const size_t t = track_order[i];
      const int k = static_cast<int>(t % 3);
      std::printf("  %-4s %s %s %.4g %s %s %.4g %s at %s\n",
                  m.tracks[t].max > bound.thresholds[k] ? "OVER" : "ok", shown_name(names[t / 3]).c_str(),
                  kKindNames[k], m.tracks[t].max * kKindScale[k], kKindUnits[k],
                  m.tracks[t].max > bound.thresholds[k] ? ">" : "<=", bound.thresholds[k] * kKindScale[k],
                  kKindUnits[k], describe_frame(m.tracks[t].worst_frame, m.tracks[t].worst_frame_time).c_str());
    }
  }
  if (!scalars.empty()) {
    std::printf("scalar tracks    %s, %zu over their precision; default precision %.4g (%s)\n",
                describe_count(scalar_tracks_of(clip.clip)).c_str(), scalars_over, scalar_bound.default_precision,
                scalar_bound.origin.c_str());
    for (size_t i = 0; i < scalar_order.size() && (list_tracks || i < kWorstListed); ++i) {
      const ScalarError& e = scalars[scalar_order[i]];
      if (!list_tracks && !e.over()) break;
      std::printf("  %-4s %s\n", e.over() ? "OVER" : "ok", describe(e).c_str());
    }
    if (!list_tracks && scalars_over > kWorstListed) {
      std::printf("  ... and %zu more over (--tracks lists every scalar track)\n", scalars_over - kWorstListed);
    }
  }
  if (list_tracks) {
    for (size_t t = 0; t < m.tracks.size(); ++t) {
      const int k = static_cast<int>(t % 3);
      std::printf("track %-28s %-11s max %.4g %s, mean %.3g %s, worst at frame %u\n", shown_name(names[t / 3]).c_str(),
                  kKindNames[k], m.tracks[t].max * kKindScale[k], kKindUnits[k], m.tracks[t].mean * kKindScale[k],
                  kKindUnits[k], m.tracks[t].worst_frame);
    }
  }
  if (scalars_over > 0) {
    std::fprintf(stderr, "keystream verify: %s: %zu of %zu scalar tracks over their precision; worst %s\n",
                 stream_name.c_str(), scalars_over, scalars.size(), describe(scalars[scalar_order.front()]).c_str());
  }
  if (bones_over > 0 || tracks_over > 0) {
    if (bound.local) {
      const size_t t = track_order.front();
      std::fprintf(stderr, "keystream verify: %s: %zu tracks over their threshold; worst %s %s at %s\n",
                   stream_name.c_str(), tracks_over, shown_name(names[t / 3]).c_str(), kKindNames[t % 3],
                   describe_frame(m.tracks[t].worst_frame, m.tracks[t].worst_frame_time).c_str());
    } else {
      std::fprintf(stderr, "keystream verify: %s: %zu of %zu bones over their tolerance; worst %s\n",
                   stream_name.c_str(), bones_over, bones.size(), describe(bones[bone_order.front()]).c_str());
    }
    return 1;
  }
  if (!ok) return 1;
  std::printf("result           %s%s at every frame\n",
              bound.local ? "every track within its threshold" : "every bone within its tolerance",
              scalars.empty() ? "" : ", every scalar track within its precision");
  return 0;
}

}  // namespace ks::cli
