#pragma once
// The rate–distortion sweep of `keystream bench` (issue 7, DESIGN §10): per
// clip, for a sweep of error thresholds, how big the stream is and how far
// the decoded animation is from the source. Each point runs the real
// pipeline (fit, pack plain and zstd, open, measure through the Player), so
// the numbers are what a user of `keystream compress` gets.
//
// Our thresholds are per track (FitSettings); ACL and most engines quote an
// object-space error instead (ACL's default: 0.1 mm for virtual vertices 3 cm
// from each bone). A point reports both, and point_for_object_error finds the
// threshold scale that meets an object-space target.

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "core/offline/fit.h"
#include "core/offline/import.h"
#include "core/runtime/result.h"

namespace ks::bench {

/// Virtual vertex distances of every point, metres: 3 cm (ACL's default) and 1 m.
inline constexpr float kRateDistortionDistances_m[2] = {0.03f, 1.f};

/// The threshold scale at which the rotation threshold (0.1° x scale) reaches
/// 180°, which FitSettings::validate() refuses: scales must stay below it.
inline constexpr float kMaxThresholdScale = 1800.f;

/// One point of the sweep: the thresholds used, the sizes, and the errors
/// measured by decoding the stream at every source frame.
struct RateDistortionPoint {
  std::string label;                // e.g. "0.5x defaults" or "0.1 mm at 3 cm"
  float threshold_scale = 1.f;      // multiple of the default FitSettings thresholds
  float translation_error_m = 0.f;  // the thresholds used: metres,
  float rotation_error_deg = 0.f;   // degrees,
  float scale_error = 0.f;          // unitless

  size_t raw_bytes = 0;     // float32 T/R/S of every bone at every frame
  size_t stream_bytes = 0;  // the plain stream, jump frames every second
  size_t zstd_bytes = 0;    // the same stream with its key stream zstd-compressed (level 19)
  size_t key_count = 0;
  double bits_per_key = 0.0;  // bits of key data (initial keys and key stream) per key
  double ratio = 0.0;         // raw_bytes / stream_bytes

  /// Object-space error at kRateDistortionDistances_m (3 cm, 1 m), metres:
  /// the largest, and the 99th percentile over all bone-frames.
  float max_object_error_m[2] = {0.f, 0.f};
  float p99_object_error_m[2] = {0.f, 0.f};
  float max_joint_position_error_m = 0.f;
  /// Largest decoded error per track kind: translation metres, rotation degrees, scale.
  float max_track_error[3] = {0.f, 0.f, 0.f};
  /// Tracks whose measured error is over their threshold: 0 is the error
  /// bound held. Above 0 only where a track's quantization floor (a 16-bit
  /// range step, or 20-bit rotations) is over the threshold; reported, never hidden.
  size_t tracks_over_threshold = 0;
  double fit_ms = 0.0;  // wall time of the fit, milliseconds (informational)
};

/// The default sweep: 0.002x to 20x the default thresholds in 1-2-5 steps, ascending.
std::vector<float> default_threshold_scales();

/// The FitSettings of `threshold_scale`: all three default thresholds times
/// the scale, everything else default. Refuses a scale that is not a finite
/// number in (0, kMaxThresholdScale).
Result<FitSettings> scaled_fit_settings(float threshold_scale);

/// Fits `clip` with scaled_fit_settings(threshold_scale) on `threads`
/// threads, packs it, and measures the decoded stream. Errors name the clip.
Result<RateDistortionPoint> measure_point(const ImportedClip& clip, float threshold_scale, const std::string& label,
                                          unsigned threads);

/// One point per scale, in the given order, labelled "<scale>x defaults".
/// Refuses the whole sweep if any scale is invalid (before fitting anything).
Result<std::vector<RateDistortionPoint>> sweep_rate_distortion(const ImportedClip& clip, std::span<const float> scales,
                                                               unsigned threads);

/// What point_for_object_error found.
struct ObjectErrorSearch {
  /// The largest scale found whose max object error at the distance is within
  /// the target, with its point (labelled e.g. "0.1 mm at 3 cm").
  RateDistortionPoint point;
  float object_error_m = 0.f;  // the point's max object error at the distance, metres
  /// The nearest scale above point's that was measured over the target, and
  /// its error; 0 and 0 when the loosest scale of the default sweep is within it.
  float over_scale = 0.f;
  float over_error_m = 0.f;
  unsigned fit_count = 0;  // fits the search ran
};

/// The largest threshold scale whose max object-space error at `distance_m`
/// is <= `target_m` (e.g. 0.1 mm at 3 cm, ACL's default), and its point.
/// Walks default_threshold_scales() down from the loose end to the first
/// scale within the target, then bisects on log(scale) between it and the
/// next looser one until they are within 5% (5 fits; at most 18 in all).
/// The walk is there because the error is not monotone in the scale (the
/// greedy fit places keys differently at each threshold): it makes sure no
/// sweep scale looser than the answer meets the target, though a scale
/// between two measured ones still might. An error, naming the clip and the
/// error reached, when even the tightest scale misses the target (a
/// quantization floor, or a clip that needs tighter than 0.002x); a refusal
/// for a target or distance that is not a positive number.
/// `swept`: points of this clip's sweep_rate_distortion, whose scales the
/// search takes as measured instead of fitting them again (only at one of
/// kRateDistortionDistances_m, which they hold); fit_count counts real fits.
Result<ObjectErrorSearch> point_for_object_error(const ImportedClip& clip, float target_m, float distance_m,
                                                 unsigned threads,
                                                 std::span<const RateDistortionPoint> swept = {});

}  // namespace ks::bench
