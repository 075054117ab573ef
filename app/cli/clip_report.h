#pragma once
// What `keystream compress` reports per clip: sizes plain and with zstd,
// keys, errors against the source, fit time and whether it was written; as
// one progress line, a summary table (Markdown, so it pastes into notes) and
// JSON for pipelines.

#include <cstddef>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "app/cli/scalar_report.h"
#include "app/cli/shown_text.h"
#include "keystream/codec/fit.h"
#include "keystream/codec/measure.h"
#include "keystream/codec/pack.h"
#include "keystream/io/import.h"
#include "keystream/runtime/stream_view.h"

namespace ks::cli {

/// The double whose shortest decimal form is the float's, so that JSON shows
/// 3 cm as 3, not as the 2.9999999329... its widening would give.
double shortest(float value);
/// Metres as millimetres (centimetres) for JSON, to a float's precision.
double json_mm(float metres);
double json_cm(float metres);

/// One bone's object-space error against its own tolerance.
struct BoneError {
  std::string name;
  float tolerance_m = 0.f;       // E of this bone
  float shell_distance_m = 0.f;  // d of this bone
  float max_error_m = 0.f;       // largest over the source frames, at d, on the decoded pose
  uint32_t worst_frame = 0;      // the frame of max_error_m, or the nearest to it
  float worst_frame_time = 0.f;  // fractional where it is a source key between frames
  float floor_m = 0.f;           // the least its chain's codings can reach; 0 when unknown
  bool over() const { return max_error_m > tolerance_m; }
  float ratio() const { return tolerance_m > 0.f ? max_error_m / tolerance_m : 0.f; }
};

/// Per bone, its error at its own shell distance (`m` measured with
/// MeasureSettings::bone_shell_distance_m = tolerances.shell_distance_m);
/// `fitted`, when given, supplies the floors.
std::vector<BoneError> bone_errors(const ClipMeasurement& m, const BoneTolerances& tolerances,
                                   const std::vector<std::string>& bone_names, const FittedClip* fitted = nullptr);
/// "frame 17", or "frame 15.37 (a source key between frames)".
std::string describe_frame(uint32_t frame, float frame_time);
/// Indices into `bones`, worst relative to its tolerance first (ties by index).
std::vector<size_t> worst_first(const std::vector<BoneError>& bones);
/// "left_hand 0.1234 mm > 0.1 mm at 3 cm (123.4%), frame 17; floor 0.2 mm".
std::string describe(const BoneError& bone);
/// As JSON: bone, max_mm, tolerance_mm, shell_distance_cm, worst_frame,
/// ratio, over, floor_mm when known, and worst_frame_time when the worst is
/// a source key between frames.
nlohmann::json to_json(const BoneError& bone);

/// A track over its threshold (local mode).
struct TrackMiss {
  std::string bone;
  TrackKind kind = TrackKind::kTranslation;
  float max_error = 0.f;  // the kind's unit: metres, degrees, scale
  float threshold = 0.f;
  uint32_t worst_frame = 0;
  float worst_frame_time = 0.f;  // fractional where it is a source key between frames
  float floor = 0.f;  // the least its coding can reach
};
/// "hips translation 0.61 mm > 0.5 mm at frame 12; floor 0.6 mm".
std::string describe(const TrackMiss& miss);

struct ClipReport {
  std::filesystem::path source;
  std::filesystem::path output;
  std::string animation;
  size_t bones = 0;
  uint32_t frames = 0;
  float sample_rate_hz = 0.f;
  double fit_ms = 0.0;
  size_t raw_bytes = 0;    // float32 T/R/S of every bone and scalar values at every frame
  size_t plain_bytes = 0;  // the stream with a plain key stream
  size_t zstd_bytes = 0;   // the stream with zstd key stream blocks
  size_t written_bytes = 0;
  size_t keys = 0;
  double bits_per_key = 0.0;
  float max_error[3] = {0, 0, 0};   // translation m, rotation degrees, scale
  float thresholds[3] = {0, 0, 0};  // local mode
  std::vector<float> distances_m;   // object-space error at these distances:
  std::vector<float> max_object_error_m;
  std::vector<float> p99_object_error_m;
  bool local_mode = false;
  std::vector<TrackMiss> missed_tracks;    // local mode: tracks whose decoded error exceeds the threshold
  std::vector<BoneError> bone_errors;      // object space: every bone, in skeleton order
  size_t bones_over = 0;                   // object space: bones whose error exceeds their tolerance
  std::vector<ScalarError> scalar_errors;  // every scalar track against its precision, in stream order
  size_t scalars_over = 0;                 // scalar tracks whose error exceeds their precision
  size_t scalar_bytes = 0;                 // the scalar tracks' share of written_bytes
  size_t metadata_bytes = 0;
  AdditiveInfo additive;  // the base the stream is the difference to; errors are on the composed pose
  bool written = false;
  std::vector<std::string> warnings;  // what the import accepted with a fix-up or could not use
  bool kept_existing = false;  // missed its bound, so the file already at `output` was kept (no --force)
  std::string error;  // why the clip failed, empty when it did not

  bool missed() const { return !missed_tracks.empty() || bones_over > 0 || scalars_over > 0; }
  bool ok() const { return error.empty() && !missed() && written; }
};

/// A report with the source's names and shape filled in.
ClipReport start_report(const ImportedClip& imported);
/// `report` marked failed with `error`.
ClipReport failed(ClipReport report, const std::string& error);
/// Fills sizes, keys and errors from the measurement of the stream packed
/// from `fitted` (object space: measured at `tolerances`' shell distances).
void add_measurement(ClipReport& report, const ClipMeasurement& m, const FittedClip& fitted,
                     const BoneTolerances& tolerances);

/// "walk.bvh [walk]: 12345 bytes, 9.3:1, max 0.49 mm / 0.1 deg, written" or the error.
std::string one_line(const ClipReport& report);
/// The summary table with a total row; `zstd_written` says which size was written.
void print_summary_table(const std::vector<ClipReport>& reports, bool zstd_written, std::FILE* out);
/// For each report that missed its bound, the bones (or tracks, or scalar tracks) over it,
/// worst first, at most `limit` per clip, with frame and floor.
void print_misses(const std::vector<ClipReport>& reports, size_t limit, std::FILE* out);
/// Every clip's import warnings, one line each, named by clip.
void print_warnings(const std::vector<ClipReport>& reports, std::FILE* out);
/// Every report and the settings as a JSON document.
std::string reports_json(const std::vector<ClipReport>& reports, const FitSettings& fit, const PackSettings& pack);

}  // namespace ks::cli
