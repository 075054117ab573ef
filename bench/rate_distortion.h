#pragma once
// The rate–distortion sweep of `keystream bench` (issue 14, DESIGN §5, §10):
// per clip, for a sweep of object-space tolerances E at a shell distance d,
// how big the stream is and how far the decoded animation is from the
// source. Each point runs the real pipeline (fit at E, pack plain and zstd,
// open, measure through the Player), so the numbers are what a user of
// `keystream compress --tolerance E` gets.
//
// The codec meets a tolerance directly, so "bytes at X mm" is one fit at X:
// no search over thresholds. A point also checks the promise on the decoded
// stream: every bone within its tolerance at its shell distance at every
// frame, or, for each bone over, a quantization floor the fit reported.
// A bone over without one is a violation (RateDistortionPoint::violation()).
// Scalar tracks (morph weights, user curves) are fitted at their default
// precision at every point, and held to it the same way.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "keystream/codec/fit.h"
#include "keystream/codec/measure.h"
#include "keystream/io/import.h"
#include "keystream/runtime/result.h"

namespace ks::bench {

/// Virtual vertex distances of every point, metres: 3 cm (ACL's default
/// shell) and 1 m.
inline constexpr float kRateDistortionDistances_m[2] = {0.03f, 1.f};

/// One point of the sweep: the tolerance, the sizes, and the errors measured
/// by decoding the stream at every source frame.
struct RateDistortionPoint {
  std::string label;             // e.g. "0.1 mm at 3 cm"
  float tolerance_m = 0.f;       // E of every bone, metres
  float shell_distance_m = 0.f;  // d of every bone, metres

  size_t raw_bytes = 0;         // float32 T/R/S of every bone at every frame
  size_t stream_bytes = 0;      // the plain stream, jump frames every second, metadata included
  size_t metadata_bytes = 0;    // names and tolerances, which an engine may strip
  size_t table_bytes = 0;       // of which: header, parents, track records (constants included)
  size_t key_bytes = 0;         // key widths, initial keys and key stream
  size_t jump_frame_bytes = 0;  // jump index and states (seeking; every second)
  size_t zstd_bytes = 0;        // the same stream with its key stream zstd-compressed (level 19)
  size_t key_count = 0;
  double bits_per_key = 0.0;               // bits of key data (initial keys and key stream) per key
  double ratio = 0.0;                      // raw_bytes / stream_bytes
  size_t tracks_by_coding[4] = {0, 0, 0, 0};  // identity, constant, animated, rest
  /// The animated tracks' key bits as the stream writes them (stream keys
  /// at fixed widths per segment, format version 5), and as they would be
  /// with every key a Rice-coded difference (version 4): what the layout
  /// that makes keys cheap to read costs in bytes.
  uint64_t written_key_bits = 0;
  uint64_t rice_key_bits = 0;
  /// written_key_bits / rice_key_bits; 1 without animated tracks.
  double fixed_width_key_ratio() const {
    if (rice_key_bits == 0) return 1.0;
    return static_cast<double>(written_key_bits) / static_cast<double>(rice_key_bits);
  }

  /// Object-space error at kRateDistortionDistances_m (3 cm, 1 m), metres:
  /// the largest, and the 99th percentile over all bone-frames.
  float max_object_error_m[2] = {0.f, 0.f};
  float p99_object_error_m[2] = {0.f, 0.f};
  float max_joint_position_error_m = 0.f;

  /// Bones whose decoded error at their shell distance is over their
  /// tolerance, measured on the stream (not taken from the fit).
  size_t bones_over = 0;
  /// Of those, the ones the fit reported no floor for (a floor_m of 0, or
  /// the fit believed the bone within its tolerance): the promise broken.
  size_t bones_over_without_floor = 0;
  /// Of the bones over with a floor, those whose floor is below their
  /// tolerance: the fit stopped short of E though its floor estimate says E
  /// is within reach (the floor is a lower bound of what the codings on the
  /// chain can reach; interpolation adds to it). Reported, not a violation.
  size_t bones_over_floor_below_tolerance = 0;
  /// The largest floor the fit reported among the bones over, metres; 0 when none.
  float floor_m = 0.f;
  /// The bone furthest over its tolerance (by ratio), when bones_over > 0.
  std::string worst_bone;
  float worst_bone_error_m = 0.f;
  float worst_bone_tolerance_m = 0.f;
  float worst_bone_floor_m = 0.f;
  uint32_t worst_bone_frame = 0;

  /// Scalar tracks (morph weights, user curves); all 0 for a bone-only clip.
  size_t scalar_tracks = 0;
  size_t scalar_bytes = 0;  // their track records and keys (StreamSizes::scalar_bytes)
  /// Largest decoded error over the scalar tracks, each in its own unit.
  float max_scalar_error = 0.f;
  /// Scalar tracks over their precision; of those, the ones the fit believed
  /// within it (it reported no floor): the promise broken.
  size_t scalars_over = 0;
  size_t scalars_over_without_floor = 0;
  /// The scalar track with the largest error relative to its precision,
  /// over it or not (empty without scalar tracks).
  std::string worst_scalar;
  float worst_scalar_error = 0.f;
  float worst_scalar_precision = 0.f;
  uint32_t worst_scalar_frame = 0;

  uint32_t fit_rounds = 0;  // fit, measure, tighten rounds the fit ran
  double fit_ms = 0.0;      // wall time of the fit, milliseconds (informational)

  /// The stream an engine needs: everything but the metadata.
  size_t stream_bytes_without_metadata() const { return stream_bytes - metadata_bytes; }
  /// The rest of that, the bones' part: header, bone tracks and jump frames
  /// (whose states hold the scalar lanes too: the split is by track, as
  /// `keystream measure` reports it).
  size_t bone_bytes() const {
    return stream_bytes_without_metadata() - std::min(scalar_bytes, stream_bytes_without_metadata());
  }
  /// Shares of the whole stream, 0..1: bones, scalars and metadata add up to 1.
  double bone_share() const { return stream_share(bone_bytes()); }
  double scalar_share() const { return stream_share(scalar_bytes); }
  double stream_share(size_t bytes) const {
    return stream_bytes > 0 ? static_cast<double>(bytes) / static_cast<double>(stream_bytes) : 0.0;
  }
  /// A bone over its tolerance with no floor to explain it, or a scalar
  /// track over its precision that the fit believed within it.
  bool violation() const { return bones_over_without_floor > 0 || scalars_over_without_floor > 0; }
};

/// The default sweep, metres: 0.01, 0.03, 0.1, 0.3, 1, 3 and 10 mm, ascending.
/// 0.1 mm at 3 cm is ACL's default (and ours).
std::vector<float> default_tolerances_m();

/// The FitSettings of a tolerance: object-space mode, E = `tolerance_m` and
/// d = `shell_distance_m` for every bone, `rest_tracks`, everything else default. Refuses a
/// tolerance or distance that is not a positive finite number of metres.
Result<FitSettings> tolerance_fit_settings(float tolerance_m, float shell_distance_m,
                                           RestTracks rest_tracks = RestTracks::kKeep);

/// "0.1 mm at 3 cm": a tolerance in the units people quote it in.
std::string tolerance_label(float tolerance_m, float shell_distance_m);

/// Fits `clip` at `tolerance_m` / `shell_distance_m` on `threads` threads,
/// packs it, and measures the decoded stream. Errors name the clip.
Result<RateDistortionPoint> measure_point(const ImportedClip& clip, float tolerance_m, float shell_distance_m,
                                          unsigned threads, RestTracks rest_tracks = RestTracks::kKeep);

/// Counts into `point` (bones_over, bones_over_without_floor, floor_m and
/// the worst bone) the bones whose measured error, `bone_error_m` (per bone,
/// metres, at its own shell distance; worst frames in `bone_worst_frame`), is
/// over the tolerance `fitted` gave them (and bones_over_floor_below_tolerance). A bone over is explained only when
/// the fit also saw it miss and reported a floor for it; a bone `fitted` has
/// no record of never is.
void count_bones_over(const FittedClip& fitted, std::span<const float> bone_error_m,
                      std::span<const uint32_t> bone_worst_frame, std::span<const std::string> bone_names,
                      RateDistortionPoint& point);

/// Counts into `point` (scalar_tracks, scalars_over, the worst scalar track)
/// the scalar tracks of `fitted` against their precision, given their
/// decoded errors (ClipMeasurement::scalar_tracks, one per track). A track
/// over is explained only when the fit also saw it miss (a floor).
void count_scalars_over(const FittedClip& fitted, std::span<const TrackError> scalar_errors,
                        RateDistortionPoint& point);

/// One point per tolerance, in the given order. Refuses the whole sweep if
/// any tolerance is invalid (before fitting anything).
Result<std::vector<RateDistortionPoint>> sweep_rate_distortion(const ImportedClip& clip,
                                                               std::span<const float> tolerances_m,
                                                               float shell_distance_m, unsigned threads,
                                                               RestTracks rest_tracks = RestTracks::kKeep);

}  // namespace ks::bench
