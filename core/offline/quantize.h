#pragma once
// Quantization (DESIGN §6), the encoding half: choosing a track's range and
// bit width and turning values into codes. The decoding half lives in the
// runtime (core/runtime/quantization.h); the fitter quantizes every key as it
// inserts it and measures the decoded value, so the error bound holds for
// what the player produces.

#include <cstdint>
#include <span>

#include "core/runtime/curve.h"
#include "core/runtime/quantization.h"
#include "core/runtime/result.h"
#include "core/runtime/transform.h"

namespace ks {

/// How vec3 tracks (translation, scale) choose their range.
enum class RangeMode : uint8_t {
  kPerTrack,  // the track's own min..max per component: far finer steps for small motions
  kFixed,     // -10..10 for every component, the original engine's choice (0.3 mm steps)
};

struct QuantizationSettings {
  RangeMode range_mode = RangeMode::kPerTrack;  // default: per track
  uint32_t rotation_bits = 10;  // bits per smallest-three component, 10..20; default 10 (32-bit keys)
  /// When a rotation track cannot meet its threshold at `rotation_bits`,
  /// use the fewest extra bits that can (per track). Default: on.
  bool widen_rotation_bits = true;

  /// Checks the ranges above, naming the setting that is out of range.
  Status validate() const;
  bool operator==(const QuantizationSettings&) const = default;
};

/// The range of a vec3 track with these samples (per-track mode), or the fixed range.
TrackQuantization vec3_quantization(std::span<const Vec3> samples, RangeMode mode);

/// The 16-bit code of each component of `v` (clamped into the range).
void quantize_vec3(const TrackQuantization& q, Vec3 v, uint32_t codes[3]);

/// The smallest-three code of the unit quaternion `q` with `bits` per
/// component. Of the roundings of the three components, keeps the one whose
/// decoded rotation is nearest to `q`.
uint64_t quantize_rotation(Quat q, uint32_t bits);

/// The decoded key of a vec3 code, exactly as the player reads it.
CurveKey decode_vec3(const TrackQuantization& q, const uint32_t codes[3], uint16_t frame);
/// The decoded key of a rotation code, exactly as the player reads it (before the hemisphere fix).
CurveKey decode_rotation(uint64_t code, uint32_t bits, uint16_t frame);

}  // namespace ks
