// keystream measure: runs the whole codec on a source clip (fit, pack, open,
// decode every frame through the Player) and reports what it achieved.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <thread>

#include "app/cli/arguments.h"
#include "app/cli/clip_report.h"
#include "app/cli/commands.h"
#include "app/cli/scalar_report.h"
#include "keystream/codec/measure.h"
#include "keystream/runtime/stream_view.h"

namespace ks::cli {

const char* const kMeasureHelp =
    "usage: keystream measure [SOURCE] [options]\n"
    "\n"
    "Fits, quantizes and packs a source clip, decodes every frame through the\n"
    "player and prints sizes, keys, per-track and object-space errors and the\n"
    "fit time, and every scalar track's error against its precision. Exits 1\n"
    "when the bound is missed: a bone over its object-space tolerance (or with\n"
    "--local, a track over its threshold) or a scalar track over its\n"
    "precision, listed with the frame and the floor that stops it; 2 for bad\n"
    "usage. Without SOURCE, measures the built-in demo clip.\n"
    "\n"
    "options:\n";

namespace {

constexpr const char* kKindNames[3] = {"translation", "rotation", "scale"};
constexpr const char* kKindUnits[3] = {"mm", "deg", ""};
constexpr float kKindDisplayScale[3] = {1000.f, 1.f, 1.f};

void print_report(const ImportedClip& imported, const FittedClip& fitted, const ClipMeasurement& m, double fit_ms,
                  unsigned threads, const StreamView& stream, bool list_tracks) {
  const Skeleton& skeleton = imported.skeleton;
  const RawClip& clip = imported.clip;
  const FitSettings& s = fitted.settings;
  std::printf("source           %s [%s]\n", shown_path(imported.source).c_str(), shown_name(clip.name).c_str());
  std::printf("clip             %zu bones, %u frames at %.4g Hz (%.3f s)\n", skeleton.bone_count(), clip.frame_count,
              clip.sample_rate_hz, clip.duration_s());
  if (s.error_mode == ErrorMode::kLocal) {
    std::printf("thresholds       local: translation %.4g mm, rotation %.4g deg, scale %.4g\n",
                s.translation_error_m * 1000.f, s.rotation_error_deg, s.scale_error);
  } else {
    std::printf("tolerance        %.4g mm at %.4g cm (object space), %zu bone override%s, %u fit rounds\n",
                s.tolerance_m * 1000.f, s.shell_distance_m * 100.f, s.bone_tolerances.size(),
                s.bone_tolerances.size() == 1 ? "" : "s", fitted.rounds);
  }
  if (fitted.additive.base != AdditiveBase::kNone) {
    std::printf("additive         to %s%s (errors on the pose composed on it)\n", to_string(fitted.additive.base),
                fitted.additive.base_name.empty() ? "" : (" " + shown_name(fitted.additive.base_name)).c_str());
  }
  std::printf("settings         split %s, discontinuity ratio %.3g, jump interval %u frames, rest tracks %s\n",
              to_string(s.split_rule), s.discontinuity_ratio, stream.jump_interval_frames(),
              s.rest_tracks == RestTracks::kSkip ? "skipped" : "kept");
  std::printf("fit time         %.1f ms (%u threads), %.1f ms per 1000 frames\n", fit_ms, threads,
              fit_ms * 1000.0 / clip.frame_count);
  const StreamSizes& z = m.sizes;
  std::printf("raw size         %zu bytes (float32 T/R/S and scalar values)\n", z.raw_bytes);
  std::printf("compressed       %zu bytes, ratio %.2f : 1\n", z.compressed_bytes, z.ratio());
  std::printf("  tables         %zu bytes\n", z.table_bytes);
  std::printf("  keys           %zu bytes, %.2f bits per key\n", z.key_bytes, z.bits_per_key());
  std::printf("  jump frames    %zu bytes (%zu frames)\n", z.jump_frame_bytes, stream.jump_frames().size());
  std::printf("  metadata       %zu bytes (without it: %zu bytes)\n", z.metadata_bytes, z.bytes_without_metadata());
  std::printf("tracks           %zu animated, %zu constant, %zu identity, %zu rest\n", z.tracks_by_coding[2],
              z.tracks_by_coding[1], z.tracks_by_coding[0], z.tracks_by_coding[3]);
  const double keys_per_track_second =
      z.key_count / (static_cast<double>(fitted.tracks.size()) * std::max(clip.duration_s(), 1e-6f));
  std::printf(
      "keys             %zu: translation %zu, rotation %zu, scale %zu, scalar %zu (%.2f per track per second)\n",
      z.key_count, z.keys_by_kind[0], z.keys_by_kind[1], z.keys_by_kind[2], z.keys_by_kind[3], keys_per_track_second);
  size_t discontinuities = 0;
  for (const FittedTrack& t : fitted.tracks) discontinuities += t.discontinuities;
  std::printf("discontinuities  %zu\n", discontinuities);
  const float thresholds[3] = {s.translation_error_m, s.rotation_error_deg, s.scale_error};
  // Per-kind thresholds bound the tracks only in local mode; in object space
  // each track has its own budget (listed with --tracks).
  for (int kind = 0; kind < 3; ++kind) {
    std::printf("%-16s max %.4g %s", kKindNames[kind], m.max_track_error[kind] * kKindDisplayScale[kind],
                kKindUnits[kind]);
    if (s.error_mode == ErrorMode::kLocal) std::printf(" (threshold %.4g)", thresholds[kind] * kKindDisplayScale[kind]);
    std::printf(", mean %.3g %s\n", m.mean_track_error[kind] * kKindDisplayScale[kind], kKindUnits[kind]);
  }
  for (size_t d = 0; d < m.distances_m.size(); ++d) {
    std::printf("object space     at %.3g m: max %.4g mm, 99th percentile %.4g mm\n", m.distances_m[d],
                m.max_object_error[d] * 1000.f, m.p99_object_error[d] * 1000.f);
  }
  std::printf("joint position   max %.4g mm (model space)\n", m.max_joint_position_error * 1000.f);
  if (!fitted.bones.empty()) {
    size_t over = 0;
    float worst_ratio = 0.f;
    size_t worst = 0;
    for (size_t b = 0; b < fitted.bones.size() && b < m.bone_error_m.size(); ++b) {
      const float ratio = m.bone_error_m[b] / fitted.bones[b].tolerance_m;
      over += ratio > 1.f ? 1 : 0;
      if (ratio > worst_ratio) {
        worst_ratio = ratio;
        worst = b;
      }
    }
    std::printf("bones            %zu over their tolerance; worst %s %.4g mm = %.1f%% of %.4g mm at %s\n", over,
                shown_name(skeleton.bone_names[worst]).c_str(), m.bone_error_m[worst] * 1000.f, 100.f * worst_ratio,
                fitted.bones[worst].tolerance_m * 1000.f,
                describe_frame(m.bone_worst_frame[worst], m.bone_worst_frame_time[worst]).c_str());
    for (size_t b = 0; b < fitted.bones.size() && b < m.bone_error_m.size(); ++b) {
      if (m.bone_error_m[b] <= fitted.bones[b].tolerance_m) continue;
      std::printf("MISSED bone %-24s %.4g mm > %.4g mm at %s; floor of its chain %.4g mm\n",
                  shown_name(skeleton.bone_names[b]).c_str(), m.bone_error_m[b] * 1000.f,
                  fitted.bones[b].tolerance_m * 1000.f,
                  describe_frame(m.bone_worst_frame[b], m.bone_worst_frame_time[b]).c_str(),
                  fitted.bones[b].floor_m * 1000.f);
    }
  }
  // The bones' tracks; the scalar tracks follow them in fitted.tracks.
  for (size_t t = 0; t < fitted.bone_track_count() && t < m.tracks.size(); ++t) {
    const FittedTrack& track = fitted.tracks[t];
    const int kind = static_cast<int>(track.kind);
    const bool missed = !track.threshold_met;
    if (!list_tracks && !missed) continue;
    std::printf("%s %-28s %-11s %-8s %5zu keys step %.3g  threshold %.4g  max %.4g %s  floor %.4g %s\n",
                missed ? "MISSED" : "track ", shown_name(skeleton.bone_names[track.bone]).c_str(), kKindNames[kind],
                to_string(track.coding), track.keys.size(), track.quantization.step,
                track.threshold * kKindDisplayScale[kind], m.tracks[t].max * kKindDisplayScale[kind], kKindUnits[kind],
                track.floor * kKindDisplayScale[kind], kKindUnits[kind]);
  }
  // Scalar tracks: each against its precision, measured on the decoded stream.
  const std::vector<ScalarError> scalars = scalar_errors(scalar_tracks_of(fitted), m);
  if (scalars.empty()) {
    std::printf("scalar tracks    none\n");
    return;
  }
  std::printf("scalar tracks    %s, %s, %zu over their precision; worst %s\n",
              describe_count(scalar_tracks_of(fitted)).c_str(),
              describe_share(z.scalar_bytes, z.compressed_bytes).c_str(), count_over(scalars),
              describe(scalars[worst_first(scalars).front()]).c_str());
  for (size_t i = 0; i < scalars.size(); ++i) {
    const FittedTrack& track = fitted.tracks[fitted.bone_track_count() + i];
    const bool missed = scalars[i].over();
    if (!list_tracks && !missed) continue;
    std::printf("%s %s; %s, %s, %zu keys, step %.3g, floor %.4g\n", missed ? "MISSED scalar" : "scalar",
                describe(scalars[i]).c_str(), to_string(scalars[i].track.target),
                to_string(track.coding), track.keys.size(), track.quantization.step, track.floor);
  }
}

}  // namespace

int run_measure(const std::vector<std::string_view>& raw_args) {
  if (wants_help(raw_args)) {
    std::printf(
        "%s%s%s%s%s  --threads N              fit threads (default: all cores)\n"
        "  --tracks                 list every track (scalar tracks too), not only\n"
        "                           those that missed\n"
        "  -h, --help               show this help\n",
        kMeasureHelp, kImportOptionsHelp, kToleranceOptionsHelp, kCodecOptionsHelp, kAdditiveOptionHelp);
    return 0;
  }
  Arguments args("measure", raw_args);
  std::filesystem::path source = KS_DEMO_CLIP;
  ImportSettings import;
  CodecOptions codec;
  const FitSettings& fit = codec.fit;
  const PackSettings& pack_settings = codec.pack;
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  bool list_tracks = false;
  std::optional<AdditiveBaseSpec> additive;
  while (!args.done()) {
    const std::string_view arg = args.next();
    bool ok = true;
    long n = 0;
    if (parse_import_option(args, arg, import, ok) || parse_codec_option(args, arg, codec, ok) ||
        parse_additive_option(args, arg, additive, ok)) {
      if (!ok) return 2;
    } else if (arg == "--threads") {
      if (!args.whole_number(arg, 1, 256, n)) return 2;
      threads = static_cast<unsigned>(n);
    } else if (arg == "--tracks") {
      list_tracks = true;
    } else if (!args.source(arg, source)) {
      return 2;
    }
  }
  if (!finish_codec_options(args, codec)) return 2;
  for (const Status& s : {import.validate(), fit.validate(), pack_settings.validate()}) {
    if (!s) {
      args.fail(s.error());
      return 2;
    }
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
  const ImportedClip& clip = imported.value();
  if (!check_bone_tolerances(args, codec, clip.skeleton, source.string()) ||
      !check_scalar_precisions(args, codec, clip.clip, source.string())) {
    return 2;
  }
  const auto start = std::chrono::steady_clock::now();
  Result<FittedClip> fitted = fit_clip(clip.skeleton, clip.clip, fit, threads);
  const double fit_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (!fitted) {
    std::fprintf(stderr, "keystream: %s: %s\n", shown_path(source).c_str(), shown_message(fitted.error()).c_str());
    return 1;
  }
  Result<std::vector<uint8_t>> bytes = pack(fitted.value(), pack_settings);
  if (!bytes) {
    std::fprintf(stderr, "keystream: %s: %s\n", shown_path(source).c_str(), shown_message(bytes.error()).c_str());
    return 1;
  }
  Result<StreamView> stream = StreamView::open(bytes.value(), "packed stream", StreamCheck::kFull);
  if (!stream) {
    std::fprintf(stderr, "keystream: %s: %s\n", shown_path(source).c_str(), shown_message(stream.error()).c_str());
    return 1;
  }
  MeasureSettings measure_settings;
  for (const BoneFit& bone : fitted.value().bones)
    measure_settings.bone_shell_distance_m.push_back(bone.shell_distance_m);
  Result<ClipMeasurement> measured = measure(clip.skeleton, clip.clip, stream.value(), measure_settings);
  if (!measured) {
    std::fprintf(stderr, "keystream: %s: %s\n", shown_path(source).c_str(), shown_message(measured.error()).c_str());
    return 1;
  }
  print_report(clip, fitted.value(), measured.value(), fit_ms, threads, stream.value(), list_tracks);
  const ClipMeasurement& m = measured.value();
  bool missed = fit.error_mode == ErrorMode::kLocal && !fitted.value().thresholds_met();
  for (size_t b = 0; b < m.bone_error_m.size(); ++b)
    missed = missed || m.bone_error_m[b] > fitted.value().bones[b].tolerance_m;
  missed = missed || count_over(scalar_errors(scalar_tracks_of(fitted.value()), m)) > 0;
  if (missed) {
    std::fprintf(stderr, "keystream: %s: the bound is missed (listed as MISSED above)\n", shown_path(source).c_str());
    return 1;
  }
  return 0;
}

}  // namespace ks::cli
