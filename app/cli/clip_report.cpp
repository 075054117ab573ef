#include "app/cli/clip_report.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <nlohmann/json.hpp>

namespace ks::cli {

namespace {

// "FILE [ANIMATION]", as the text reports name a clip.
std::string clip_label(const ClipReport& r) {
  std::string label = shown_path(r.source.filename());
  if (!r.animation.empty()) label += " [" + shown_name(r.animation) + "]";
  return label;
}

std::string format(const char* pattern, double a) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, pattern, a);
  return buffer;
}

double ratio(size_t raw, size_t bytes) {
  return bytes ? static_cast<double>(raw) / static_cast<double>(bytes) : 0.0;
}

// "73.5%" of the tolerance, or "8.8e+05x" it when far over.
std::string ratio_text(float ratio) {
  return ratio < 10.f ? format("%.1f%%", 100.0 * ratio) : format("%.3gx", ratio);
}

}  // namespace

double shortest(float value) {
  char text[32];
  const auto end = std::to_chars(text, text + sizeof(text) - 1, value).ptr;
  *end = '\0';
  return std::strtod(text, nullptr);
}

// Seven significant digits, a float's precision: 0.0001f m (which is
// 0.09999999747 mm) is written as 0.1.
double json_mm(float metres) {
  return std::strtod(format("%.7g", double{metres} * 1e3).c_str(), nullptr);
}
double json_cm(float metres) {
  return std::strtod(format("%.7g", double{metres} * 1e2).c_str(), nullptr);
}

std::vector<BoneError> bone_errors(const ClipMeasurement& m, const BoneTolerances& tolerances,
                                   const std::vector<std::string>& bone_names, const FittedClip* fitted) {
  std::vector<BoneError> bones;
  const size_t count = std::min(m.bone_error_m.size(), tolerances.tolerance_m.size());
  for (size_t b = 0; b < count; ++b) {
    BoneError e;
    e.name = b < bone_names.size() ? bone_names[b] : "bone " + std::to_string(b);
    e.tolerance_m = tolerances.tolerance_m[b];
    e.shell_distance_m = tolerances.shell_distance_m[b];
    e.max_error_m = m.bone_error_m[b];
    e.worst_frame = m.bone_worst_frame[b];
    e.worst_frame_time = m.bone_worst_frame_time[b];
    if (fitted != nullptr && b < fitted->bones.size()) e.floor_m = fitted->bones[b].floor_m;
    bones.push_back(std::move(e));
  }
  return bones;
}

std::string describe_frame(uint32_t frame, float frame_time) {
  if (frame_time == static_cast<float>(frame)) return "frame " + std::to_string(frame);
  return "frame " + format("%.2f", frame_time) + " (a source key between frames)";
}

std::vector<size_t> worst_first(const std::vector<BoneError>& bones) {
  std::vector<size_t> order(bones.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return bones[a].ratio() > bones[b].ratio(); });
  return order;
}

std::string describe(const BoneError& bone) {
  std::string text = shown_name(bone.name) + " " + format("%.4g", bone.max_error_m * 1e3) + " mm " +
                     (bone.over() ? ">" : "<=") + " " + format("%.4g", bone.tolerance_m * 1e3) + " mm at " +
                     format("%.4g", bone.shell_distance_m * 1e2) + " cm (" + ratio_text(bone.ratio()) + "), " +
                     describe_frame(bone.worst_frame, bone.worst_frame_time);
  if (bone.over() && bone.floor_m > 0.f) text += "; floor of its chain " + format("%.4g", bone.floor_m * 1e3) + " mm";
  return text;
}

nlohmann::json to_json(const BoneError& bone) {
  nlohmann::json j = {{"bone", bone.name},
                      {"max_mm", json_mm(bone.max_error_m)},
                      {"tolerance_mm", json_mm(bone.tolerance_m)},
                      {"shell_distance_cm", json_cm(bone.shell_distance_m)},
                      {"worst_frame", bone.worst_frame},
                      {"ratio", shortest(bone.ratio())},
                      {"over", bone.over()}};
  if (bone.floor_m > 0.f) j["floor_mm"] = json_mm(bone.floor_m);
  if (bone.worst_frame_time != static_cast<float>(bone.worst_frame)) {
    j["worst_frame_time"] = shortest(bone.worst_frame_time);
  }
  return j;
}

std::string describe(const TrackMiss& miss) {
  static const char* const kNames[3] = {"translation", "rotation", "scale"};
  static const char* const kUnits[3] = {" mm", " deg", ""};
  static const double kScale[3] = {1e3, 1.0, 1.0};
  const int k = static_cast<int>(miss.kind);
  return shown_name(miss.bone) + " " + kNames[k] + " " + format("%.4g", miss.max_error * kScale[k]) + kUnits[k] +
         " > " + format("%.4g", miss.threshold * kScale[k]) + kUnits[k] + " at " +
         describe_frame(miss.worst_frame, miss.worst_frame_time) + "; floor " +
         format("%.4g", miss.floor * kScale[k]) + kUnits[k];
}

ClipReport start_report(const ImportedClip& imported) {
  ClipReport report;
  report.source = imported.source;
  report.animation = imported.clip.name;
  report.bones = imported.skeleton.bone_count();
  report.frames = imported.clip.frame_count;
  report.sample_rate_hz = imported.clip.sample_rate_hz;
  // float32 T/R/S of every bone and every scalar component, at every frame (as StreamSizes::raw_bytes).
  size_t scalar_floats = 0;
  for (const ScalarTrack& track : imported.clip.scalars) scalar_floats += track.components;
  report.raw_bytes = sizeof(float) * (size_t{10} * report.bones + scalar_floats) * report.frames;
  report.warnings = imported.warnings;
  return report;
}

ClipReport failed(ClipReport report, const std::string& error) {
  report.error = error;
  return report;
}

void add_measurement(ClipReport& report, const ClipMeasurement& m, const FittedClip& fitted,
                     const BoneTolerances& tolerances) {
  const FitSettings& settings = fitted.settings;
  report.local_mode = settings.error_mode == ErrorMode::kLocal;
  report.metadata_bytes = m.sizes.metadata_bytes;
  report.written_bytes = m.sizes.compressed_bytes;
  report.keys = m.sizes.key_count;
  report.bits_per_key = m.sizes.bits_per_key();
  report.thresholds[0] = settings.translation_error_m;
  report.thresholds[1] = settings.rotation_error_deg;
  report.thresholds[2] = settings.scale_error;
  for (int kind = 0; kind < 3; ++kind) report.max_error[kind] = m.max_track_error[kind];
  report.distances_m = m.distances_m;
  report.max_object_error_m = m.max_object_error;
  report.p99_object_error_m = m.p99_object_error;
  report.missed_tracks.clear();
  report.bone_errors.clear();
  report.bones_over = 0;
  // Scalar tracks hold their precision in either mode, measured as verify will.
  report.scalar_errors = scalar_errors(scalar_tracks_of(fitted), m);
  report.scalars_over = count_over(report.scalar_errors);
  report.scalar_bytes = m.sizes.scalar_bytes;
  report.additive = fitted.additive;
  if (report.local_mode) {
    // Measured on the decoded stream, as verify will; the fit's floor says why.
    for (size_t t = 0; t < m.tracks.size() && t < fitted.tracks.size(); ++t) {
      const FittedTrack& track = fitted.tracks[t];
      const float threshold = report.thresholds[static_cast<size_t>(track.kind)];
      if (m.tracks[t].max <= threshold) continue;
      report.missed_tracks.push_back({track.bone < fitted.bone_names.size() ? fitted.bone_names[track.bone] : "?",
                                      track.kind, m.tracks[t].max, threshold, m.tracks[t].worst_frame,
                                      m.tracks[t].worst_frame_time, track.floor});
    }
    return;
  }
  report.bone_errors = bone_errors(m, tolerances, fitted.bone_names, &fitted);
  for (const BoneError& e : report.bone_errors) report.bones_over += e.over() ? 1 : 0;
}

std::string one_line(const ClipReport& r) {
  std::string line = clip_label(r);
  if (!r.error.empty()) return line + ": FAILED: " + shown_message(r.error);
  line += ": " + std::to_string(r.written_bytes) + " bytes, " + format("%.2f", ratio(r.raw_bytes, r.written_bytes)) +
          ":1, max " + format("%.3g", r.max_error[0] * 1000.0) + " mm / " + format("%.3g", r.max_error[1]) + " deg";
  if (!r.missed_tracks.empty()) {
    line += ", " + std::to_string(r.missed_tracks.size()) + " tracks MISS their threshold";
  }
  if (r.bones_over > 0) {
    // Name the worst bone: where the tolerance was missed, and by how much.
    const BoneError& worst = r.bone_errors[worst_first(r.bone_errors).front()];
    line += ", " + std::to_string(r.bones_over) + " bones MISS their tolerance (worst " + shown_name(worst.name) + " " +
            format("%.4g", worst.max_error_m * 1e3) + " mm > " + format("%.4g", worst.tolerance_m * 1e3) +
            " mm at " + describe_frame(worst.worst_frame, worst.worst_frame_time) + ")";
  }
  if (r.scalars_over > 0) {
    const ScalarError& worst = r.scalar_errors[worst_first(r.scalar_errors).front()];
    line += ", " + std::to_string(r.scalars_over) + " of " + std::to_string(r.scalar_errors.size()) +
            " scalar tracks MISS their precision (worst " + describe(worst) + ")";
  } else if (!r.scalar_errors.empty()) {
    line += ", " + std::to_string(r.scalar_errors.size()) + " scalar tracks within their precision";
  }
  if (r.additive.base != AdditiveBase::kNone) {
    line += ", additive to " + (r.additive.base_name.empty() ? std::string(to_string(r.additive.base))
                                                             : shown_name(r.additive.base_name));
  }
  line += r.written         ? " -> " + shown_path(r.output)
          : r.kept_existing ? " (not written: " + shown_path(r.output) + " exists and is kept; --force replaces it)"
                            : " (not written)";
  return line;
}

void print_summary_table(const std::vector<ClipReport>& reports, bool zstd_written, std::FILE* out) {
  std::fprintf(out,
               "\n| clip | bones | frames | raw bytes | packed bytes | packed+zstd bytes | zstd saves | ratio (%s) | "
               "max T mm | max R deg | obj 3 cm mm | obj 1 m mm | fit ms | status |\n",
               zstd_written ? "zstd" : "packed");
  std::fprintf(out, "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|\n");
  size_t raw = 0, plain = 0, zstd = 0, failures = 0;
  for (const ClipReport& r : reports) {
    const std::string name = clip_label(r);
    if (!r.error.empty()) {
      std::fprintf(out, "| %s | | | | | | | | | | | | | FAILED: %s |\n", name.c_str(), shown_message(r.error).c_str());
      ++failures;
      continue;
    }
    raw += r.raw_bytes;
    plain += r.plain_bytes;
    zstd += r.zstd_bytes;
    auto object = [&](size_t d) { return d < r.max_object_error_m.size() ? r.max_object_error_m[d] * 1000.0 : 0.0; };
    const bool ok = r.ok();
    failures += ok ? 0 : 1;
    std::fprintf(
        out, "| %s | %zu | %u | %zu | %zu | %zu | %.1f%% | %.2f | %.3f | %.3f | %.2f | %.2f | %.0f | %s |\n",
        name.c_str(), r.bones, r.frames, r.raw_bytes, r.plain_bytes, r.zstd_bytes,
        100.0 * (1.0 - static_cast<double>(r.zstd_bytes) / static_cast<double>(std::max<size_t>(r.plain_bytes, 1))),
        ratio(r.raw_bytes, zstd_written ? r.zstd_bytes : r.plain_bytes), r.max_error[0] * 1000.0,
        static_cast<double>(r.max_error[1]), object(0), object(1), r.fit_ms,
        ok ? "ok" : (r.missed() ? "MISSED" : "not written"));
  }
  std::fprintf(out, "| **total** (%zu clips) | | | %zu | %zu | %zu | %.1f%% | %.2f | | | | | | %zu failed |\n",
               reports.size(), raw, plain, zstd,
               100.0 * (1.0 - static_cast<double>(zstd) / static_cast<double>(std::max<size_t>(plain, 1))),
               ratio(raw, zstd_written ? zstd : plain), failures);
}

void print_warnings(const std::vector<ClipReport>& reports, std::FILE* out) {
  for (const ClipReport& r : reports) {
    const std::string name = clip_label(r);
    for (const std::string& warning : r.warnings) {
      std::fprintf(out, "%s: warning: %s\n", name.c_str(), shown_message(warning).c_str());
    }
  }
}

void print_misses(const std::vector<ClipReport>& reports, size_t limit, std::FILE* out) {
  for (const ClipReport& r : reports) {
    if (!r.error.empty() || !r.missed()) continue;
    const std::string name = clip_label(r);
    if (r.bones_over > 0) {
      std::fprintf(out, "%s: %zu of %zu bones over their tolerance%s:\n", name.c_str(), r.bones_over,
                   r.bone_errors.size(),
                   r.written         ? " (the stream is written, for inspection)"
                   : r.kept_existing ? " (not written: the existing file is kept; --force replaces it)"
                                     : "");
      size_t shown = 0;
      for (const size_t b : worst_first(r.bone_errors)) {
        if (!r.bone_errors[b].over() || shown == limit) break;
        std::fprintf(out, "  OVER %s\n", describe(r.bone_errors[b]).c_str());
        ++shown;
      }
      if (shown < r.bones_over)
        std::fprintf(out, "  ... and %zu more (--json lists every bone)\n", r.bones_over - shown);
    }
    if (!r.missed_tracks.empty()) {
      std::fprintf(out, "%s: %zu tracks over their threshold:\n", name.c_str(), r.missed_tracks.size());
      for (size_t i = 0; i < r.missed_tracks.size() && i < limit; ++i) {
        std::fprintf(out, "  OVER %s\n", describe(r.missed_tracks[i]).c_str());
      }
      if (r.missed_tracks.size() > limit) std::fprintf(out, "  ... and %zu more\n", r.missed_tracks.size() - limit);
    }
    if (r.scalars_over > 0) {
      std::fprintf(out, "%s: %zu of %zu scalar tracks over their precision:\n", name.c_str(), r.scalars_over,
                   r.scalar_errors.size());
      size_t shown = 0;
      for (const size_t s : worst_first(r.scalar_errors)) {
        if (!r.scalar_errors[s].over() || shown == limit) break;
        std::fprintf(out, "  OVER %s\n", describe(r.scalar_errors[s]).c_str());
        ++shown;
      }
      if (shown < r.scalars_over) {
        std::fprintf(out, "  ... and %zu more (--json lists every scalar track)\n", r.scalars_over - shown);
      }
    }
  }
}

std::string reports_json(const std::vector<ClipReport>& reports, const FitSettings& fit, const PackSettings& pack) {
  nlohmann::json doc;
  nlohmann::json overrides = nlohmann::json::array();
  for (const BoneTolerance& o : fit.bone_tolerances) {
    // A shell distance of 0 is inherited from the bone's parent (null here).
    overrides.push_back({{"bone", o.bone},
                         {"tolerance_mm", json_mm(o.tolerance_m)},
                         {"shell_distance_cm", o.shell_distance_m > 0.f ? nlohmann::json(json_cm(o.shell_distance_m))
                                                                        : nlohmann::json(nullptr)}});
  }
  nlohmann::json scalar_overrides = nlohmann::json::array();
  for (const ScalarPrecision& o : fit.scalar_precisions) {
    scalar_overrides.push_back({{"track", o.track}, {"precision", shortest(o.precision)}});
  }
  doc["settings"] = {{"error_mode", to_string(fit.error_mode)},
                     {"tolerance_m", fit.tolerance_m},
                     {"shell_distance_m", fit.shell_distance_m},
                     {"tolerance_mm", json_mm(fit.tolerance_m)},
                     {"shell_distance_cm", json_cm(fit.shell_distance_m)},
                     {"bone_tolerances", overrides},
                     {"translation_error_m", fit.translation_error_m},
                     {"rotation_error_deg", fit.rotation_error_deg},
                     {"scale_error", fit.scale_error},
                     {"scalar_precision", shortest(fit.scalar_precision)},
                     {"scalar_precisions", scalar_overrides},
                     {"split", to_string(fit.split_rule)},
                     {"jump_interval_s", pack.auto_jump_interval ? nlohmann::json("auto") : nlohmann::json(pack.jump_interval_s)},
                     {"zstd", pack.zstd},
                     {"zstd_level", pack.zstd_level}};
  nlohmann::json clips = nlohmann::json::array();
  for (const ClipReport& r : reports) {
    nlohmann::json c = {{"source", r.source.string()}, {"output", r.output.string()},
                        {"animation", r.animation},    {"ok", r.ok()},
                        {"written", r.written},        {"kept_existing", r.kept_existing},
                        {"warnings", r.warnings},
                        {"error", r.error}};
    if (r.error.empty()) {
      c["bones"] = r.bones;
      c["frames"] = r.frames;
      c["sample_rate_hz"] = r.sample_rate_hz;
      c["raw_bytes"] = r.raw_bytes;
      c["packed_bytes"] = r.plain_bytes;
      c["packed_zstd_bytes"] = r.zstd_bytes;
      c["written_bytes"] = r.written_bytes;
      c["keys"] = r.keys;
      c["bits_per_key"] = r.bits_per_key;
      c["max_translation_error_m"] = r.max_error[0];
      c["max_rotation_error_deg"] = r.max_error[1];
      c["max_scale_error"] = r.max_error[2];
      c["missed_tracks"] = r.missed_tracks.size();
      c["bones_over"] = r.bones_over;
      c["metadata_bytes"] = r.metadata_bytes;
      // Object space: every bone's largest error at its own shell distance.
      nlohmann::json bones = nlohmann::json::array();
      for (const BoneError& e : r.bone_errors) bones.push_back(to_json(e));
      c["bone_errors"] = bones;
      nlohmann::json tracks = nlohmann::json::array();
      for (const TrackMiss& miss : r.missed_tracks) {
        static const char* const kNames[3] = {"translation", "rotation", "scale"};
        nlohmann::json track = {{"bone", miss.bone},
                                {"kind", kNames[static_cast<int>(miss.kind)]},
                                {"max", miss.max_error},
                                {"threshold", miss.threshold},
                                {"worst_frame", miss.worst_frame},
                                {"floor", miss.floor}};
        if (miss.worst_frame_time != static_cast<float>(miss.worst_frame)) {
          track["worst_frame_time"] = shortest(miss.worst_frame_time);
        }
        tracks.push_back(track);
      }
      c["tracks_over"] = tracks;
      // Scalar tracks (morph weights, user curves): each against its precision.
      c["scalar_track_count"] = r.scalar_errors.size();
      c["scalar_tracks_over"] = r.scalars_over;
      c["scalar_precisions_met"] = r.scalars_over == 0;
      c["scalar_bytes"] = r.scalar_bytes;
      nlohmann::json scalars = nlohmann::json::array();
      for (const ScalarError& e : r.scalar_errors) scalars.push_back(to_json(e));
      c["scalar_tracks"] = scalars;
      if (r.additive.base != AdditiveBase::kNone) {
        c["additive"] = {{"base", to_string(r.additive.base)}, {"base_name", r.additive.base_name}};
      }
      c["fit_ms"] = r.fit_ms;
      nlohmann::json object = nlohmann::json::array();
      for (size_t d = 0; d < r.distances_m.size(); ++d) {
        object.push_back(
            {{"distance_m", r.distances_m[d]}, {"max_m", r.max_object_error_m[d]}, {"p99_m", r.p99_object_error_m[d]}});
      }
      c["object_space_error"] = object;
    }
    clips.push_back(c);
  }
  doc["clips"] = clips;
  // Names come from files: replace invalid UTF-8 rather than throw.
  return doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace ks::cli
