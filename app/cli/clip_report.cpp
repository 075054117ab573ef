#include "app/cli/clip_report.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace ks::cli {

namespace {

std::string format(const char* pattern, double a) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, pattern, a);
  return buffer;
}

double ratio(size_t raw, size_t bytes) { return bytes ? static_cast<double>(raw) / static_cast<double>(bytes) : 0.0; }

}  // namespace

ClipReport start_report(const ImportedClip& imported) {
  ClipReport report;
  report.source = imported.source;
  report.animation = imported.clip.name;
  report.bones = imported.skeleton.bone_count();
  report.frames = imported.clip.frame_count;
  report.sample_rate_hz = imported.clip.sample_rate_hz;
  report.raw_bytes = size_t{10} * sizeof(float) * report.bones * report.frames;
  return report;
}

ClipReport failed(ClipReport report, const std::string& error) {
  report.error = error;
  return report;
}

void add_measurement(ClipReport& report, const StreamView& stream, const ClipMeasurement& m,
                     const FitSettings& settings, const std::vector<std::string>& bone_names,
                     const BoneTolerances& tolerances) {
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
  report.missed_tracks = 0;
  report.bones_over = 0;
  report.bone_errors.clear();
  if (report.local_mode) {
    for (size_t t = 0; t < m.tracks.size(); ++t) {
      if (m.tracks[t].max > report.thresholds[static_cast<size_t>(stream.tracks()[t].kind)]) ++report.missed_tracks;
    }
    return;
  }
  for (size_t b = 0; b < m.bone_error_m.size() && b < tolerances.tolerance_m.size(); ++b) {
    ClipReport::BoneError e;
    e.name = b < bone_names.size() ? bone_names[b] : "bone " + std::to_string(b);
    e.tolerance_m = tolerances.tolerance_m[b];
    e.shell_distance_m = tolerances.shell_distance_m[b];
    e.max_error_m = m.bone_error_m[b];
    e.worst_frame = m.bone_worst_frame[b];
    if (e.max_error_m > e.tolerance_m) ++report.bones_over;
    report.bone_errors.push_back(std::move(e));
  }
}

std::string one_line(const ClipReport& r) {
  std::string line = r.source.filename().string();
  if (!r.animation.empty()) line += " [" + r.animation + "]";
  if (!r.error.empty()) return line + ": FAILED: " + r.error;
  line += ": " + std::to_string(r.written_bytes) + " bytes, " + format("%.2f", ratio(r.raw_bytes, r.written_bytes)) +
          ":1, max " + format("%.3g", r.max_error[0] * 1000.0) + " mm / " + format("%.3g", r.max_error[1]) + " deg";
  if (r.missed_tracks > 0) line += ", " + std::to_string(r.missed_tracks) + " tracks MISS their threshold";
  if (r.bones_over > 0) {
    // Name the worst bone: where the tolerance was missed, and by how much.
    const auto worst = std::max_element(r.bone_errors.begin(), r.bone_errors.end(), [](const auto& a, const auto& b) {
      return a.max_error_m / a.tolerance_m < b.max_error_m / b.tolerance_m;
    });
    line += ", " + std::to_string(r.bones_over) + " bones MISS their tolerance (worst " + worst->name + " " +
            format("%.4g", worst->max_error_m * 1000.0) + " mm > " + format("%.4g", worst->tolerance_m * 1000.0) +
            " mm at frame " + std::to_string(worst->worst_frame) + ")";
  }
  line += r.written ? " -> " + r.output.string() : " (not written)";
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
    std::string name = r.source.filename().string();
    if (!r.animation.empty()) name += " [" + r.animation + "]";
    if (!r.error.empty()) {
      std::fprintf(out, "| %s | | | | | | | | | | | | | FAILED: %s |\n", name.c_str(), r.error.c_str());
      ++failures;
      continue;
    }
    raw += r.raw_bytes;
    plain += r.plain_bytes;
    zstd += r.zstd_bytes;
    auto object = [&](size_t d) { return d < r.max_object_error_m.size() ? r.max_object_error_m[d] * 1000.0 : 0.0; };
    const bool ok = r.ok();
    failures += ok ? 0 : 1;
    std::fprintf(out, "| %s | %zu | %u | %zu | %zu | %zu | %.1f%% | %.2f | %.3f | %.3f | %.2f | %.2f | %.0f | %s |\n",
                 name.c_str(), r.bones, r.frames, r.raw_bytes, r.plain_bytes, r.zstd_bytes,
                 100.0 * (1.0 - static_cast<double>(r.zstd_bytes) / static_cast<double>(std::max<size_t>(r.plain_bytes, 1))),
                 ratio(r.raw_bytes, zstd_written ? r.zstd_bytes : r.plain_bytes), r.max_error[0] * 1000.0,
                 static_cast<double>(r.max_error[1]), object(0), object(1), r.fit_ms,
                 ok ? "ok" : (r.missed_tracks || r.bones_over ? "MISSED" : "not written"));
  }
  std::fprintf(out, "| **total** (%zu clips) | | | %zu | %zu | %zu | %.1f%% | %.2f | | | | | | %zu failed |\n",
               reports.size(), raw, plain, zstd,
               100.0 * (1.0 - static_cast<double>(zstd) / static_cast<double>(std::max<size_t>(plain, 1))),
               ratio(raw, zstd_written ? zstd : plain), failures);
}

std::string reports_json(const std::vector<ClipReport>& reports, const FitSettings& fit, const PackSettings& pack) {
  nlohmann::json doc;
  nlohmann::json overrides = nlohmann::json::array();
  for (const BoneTolerance& o : fit.bone_tolerances) {
    overrides.push_back({{"bone", o.bone}, {"tolerance_m", o.tolerance_m}, {"shell_distance_m", o.shell_distance_m}});
  }
  doc["settings"] = {{"error_mode", to_string(fit.error_mode)},
                     {"tolerance_m", fit.tolerance_m},
                     {"shell_distance_m", fit.shell_distance_m},
                     {"bone_tolerances", overrides},
                     {"translation_error_m", fit.translation_error_m},
                     {"rotation_error_deg", fit.rotation_error_deg},
                     {"scale_error", fit.scale_error},
                     {"split", to_string(fit.split_rule)},
                     {"jump_interval_s", pack.jump_interval_s},
                     {"zstd", pack.zstd},
                     {"zstd_level", pack.zstd_level}};
  nlohmann::json clips = nlohmann::json::array();
  for (const ClipReport& r : reports) {
    nlohmann::json c = {{"source", r.source.string()}, {"output", r.output.string()}, {"animation", r.animation},
                        {"ok", r.ok()},                {"written", r.written},          {"error", r.error}};
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
      c["missed_tracks"] = r.missed_tracks;
      c["bones_over"] = r.bones_over;
      c["metadata_bytes"] = r.metadata_bytes;
      nlohmann::json bones = nlohmann::json::array();
      for (const ClipReport::BoneError& e : r.bone_errors) {
        bones.push_back({{"bone", e.name},
                         {"tolerance_m", e.tolerance_m},
                         {"shell_distance_m", e.shell_distance_m},
                         {"max_error_m", e.max_error_m},
                         {"worst_frame", e.worst_frame}});
      }
      c["bones"] = bones;
      c["fit_ms"] = r.fit_ms;
      nlohmann::json object = nlohmann::json::array();
      for (size_t d = 0; d < r.distances_m.size(); ++d) {
        object.push_back({{"distance_m", r.distances_m[d]},
                          {"max_m", r.max_object_error_m[d]},
                          {"p99_m", r.p99_object_error_m[d]}});
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
