#pragma once
// What `keystream compress` reports per clip: sizes plain and with zstd,
// keys, errors against the source, fit time and whether it was written; as
// one progress line, a summary table (Markdown, so it pastes into notes) and
// JSON for pipelines.

#include <cstddef>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "core/offline/fit.h"
#include "core/offline/import.h"
#include "core/offline/measure.h"
#include "core/offline/pack.h"
#include "core/runtime/stream_view.h"

namespace ks::cli {

struct ClipReport {
  std::filesystem::path source;
  std::filesystem::path output;
  std::string animation;
  size_t bones = 0;
  uint32_t frames = 0;
  float sample_rate_hz = 0.f;
  double fit_ms = 0.0;
  size_t raw_bytes = 0;    // float32 T/R/S of every bone at every frame
  size_t plain_bytes = 0;  // the stream with a plain key stream
  size_t zstd_bytes = 0;   // the stream with zstd key stream blocks
  size_t written_bytes = 0;
  size_t keys = 0;
  double bits_per_key = 0.0;
  float max_error[3] = {0, 0, 0};   // translation m, rotation degrees, scale
  float thresholds[3] = {0, 0, 0};
  std::vector<float> distances_m;   // object-space error at these distances:
  std::vector<float> max_object_error_m;
  std::vector<float> p99_object_error_m;
  size_t missed_tracks = 0;         // local mode: tracks whose decoded error exceeds the threshold
  bool local_mode = false;
  /// Object space: per bone, its name, tolerance, largest error and its frame.
  struct BoneError {
    std::string name;
    float tolerance_m = 0.f;
    float shell_distance_m = 0.f;
    float max_error_m = 0.f;
    uint32_t worst_frame = 0;
  };
  std::vector<BoneError> bone_errors;
  size_t bones_over = 0;            // object space: bones whose error exceeds their tolerance
  size_t metadata_bytes = 0;
  bool written = false;
  std::string error;                // why the clip failed, empty when it did not

  bool ok() const { return error.empty() && missed_tracks == 0 && bones_over == 0 && written; }
};

/// A report with the source's names and shape filled in.
ClipReport start_report(const ImportedClip& imported);
/// `report` marked failed with `error`.
ClipReport failed(ClipReport report, const std::string& error);
/// Fills sizes, keys and errors from a decoded stream's measurement.
void add_measurement(ClipReport& report, const StreamView& stream, const ClipMeasurement& m,
                     const FitSettings& settings, const std::vector<std::string>& bone_names,
                     const BoneTolerances& tolerances);

/// "walk.bvh [walk]: 12345 bytes, 9.3:1, max 0.49 mm / 0.1 deg, written" or the error.
std::string one_line(const ClipReport& report);
/// The summary table with a total row; `zstd_written` says which size was written.
void print_summary_table(const std::vector<ClipReport>& reports, bool zstd_written, std::FILE* out);
/// Every report and the settings as a JSON document.
std::string reports_json(const std::vector<ClipReport>& reports, const FitSettings& fit, const PackSettings& pack);

}  // namespace ks::cli
