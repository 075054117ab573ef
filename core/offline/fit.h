#pragma once
// Fitting (DESIGN §5): per track, the fewest keys whose decoded curve stays
// within the track's threshold at every source frame. Keys are quantized as
// they are inserted, so the error measured here is the error of what the
// player decodes, hemisphere fix and normalisation included.

#include <cstdint>
#include <string>
#include <vector>

#include "core/offline/quantize.h"
#include "core/offline/raw_clip.h"
#include "core/offline/skeleton.h"
#include "core/runtime/curve.h"
#include "core/runtime/result.h"

namespace ks {

/// Where the fitter places the key that splits a segment over its threshold.
enum class SplitRule : uint8_t {
  kLargestError,  // at the source frame of largest error (default: fewer keys, see issue 3 note)
  kMidpoint,      // at the segment's middle frame, as the original engine did
};

const char* to_string(SplitRule rule);

struct FitSettings {
  float translation_error_m = 0.0005f;  // metres, distance; default 0.5 mm
  float rotation_error_deg = 0.1f;      // degrees, angle between source and decoded; default 0.1
  float scale_error = 0.001f;           // largest component difference, unitless; default 0.001
  SplitRule split_rule = SplitRule::kLargestError;
  /// A step between two frames at least this many times larger than the steps
  /// on either side of it (and than 20 thresholds) becomes a discontinuity:
  /// two keys at one frame. 0 disables. Default 8.
  float discontinuity_ratio = 8.f;
  QuantizationSettings quantization;

  /// Checks every field, naming the one out of range.
  Status validate() const;
  bool operator==(const FitSettings&) const = default;
};

/// One key of a fitted track.
struct FittedKey {
  uint16_t frame = 0;
  uint64_t code = 0;    // quantized value: smallest-three code, or three 16-bit codes (x | y << 16 | z << 32)
  CurveKey decoded{};   // as the player holds it: dequantized, hemisphere-aligned with the key before
  float ideal[4] = {};  // the unquantized value the key was made from (for plotting the fitted curve)
};

/// The keys of one track and what they achieve.
struct FittedTrack {
  uint32_t bone = 0;
  TrackKind kind = TrackKind::kTranslation;
  TrackQuantization quantization;
  std::vector<FittedKey> keys;  // frames non-decreasing; two keys at one frame mark a discontinuity
  float threshold = 0.f;        // in the kind's unit (metres, degrees, scale)
  float max_error = 0.f;        // largest decoded error over the source frames
  /// The least error this bit width can promise: the largest error of a key
  /// placed at any source frame. Above the threshold, the threshold cannot be
  /// met (threshold_met is false where it actually is missed).
  float floor = 0.f;
  bool threshold_met = true;
  uint32_t discontinuities = 0;
};

struct FittedClip {
  std::string name;
  float sample_rate_hz = 30.f;
  uint32_t frame_count = 0;
  std::vector<int32_t> parents;     // from the skeleton
  std::vector<std::string> bone_names;  // from the skeleton (the stream's metadata)
  std::vector<FittedTrack> tracks;  // 3 per bone: translation, rotation, scale
  FitSettings settings;

  size_t key_count() const;
  /// True when every track met its threshold.
  bool thresholds_met() const;
};

/// Fits every track of `clip`. Refuses invalid settings or an invalid clip.
/// `threads` > 1 fits tracks in parallel (same result).
Result<FittedClip> fit_clip(const Skeleton& skeleton, const RawClip& clip, const FitSettings& settings,
                            unsigned threads = 1);

/// The error between a source value and a decoded curve value of `kind`, in
/// the kind's unit: distance, degrees (decoded is normalised first), or the
/// largest component difference.
float track_error(TrackKind kind, const float* source, const float* decoded);

/// The decoded value of a fitted track at frame time `t`, evaluated the
/// straightforward way: binary search for the segment, then the curve. It is
/// the reference the player is tested against.
void evaluate_fitted(const FittedTrack& track, float t, float out[4]);

/// The same curve through the keys' unquantized values (FittedKey::ideal):
/// what the fit chose before quantization. Its distance to the source is the
/// fit error; its distance to evaluate_fitted is the quantization error.
void evaluate_ideal(const FittedTrack& track, float t, float out[4]);

}  // namespace ks
