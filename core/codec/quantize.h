#pragma once
// Quantization (DESIGN §6), the encoding half: choosing how an animated
// track codes its keys, and turning values into codes. The decoding half
// lives in the runtime (core/runtime/quantization.h); the fitter quantizes
// every key as it inserts it and measures the decoded value, so the error
// bound holds for what the player produces.

#include <array>
#include <cstdint>
#include <span>

#include "keystream/runtime/curve.h"
#include "keystream/runtime/quantization.h"

namespace ks {

/// A track's value at one frame: x y z w for a rotation, x y z 0 for a
/// vec3, a scalar track's components (0 past its count).
using Sample = std::array<float, 4>;

/// The error between a source value and a decoded curve value of `kind`, in
/// the kind's unit: distance, degrees (decoded is normalised first), or the
/// largest component difference (scale, scalar tracks).
float track_error(TrackKind kind, const float* source, const float* decoded);

/// The coding of an animated track of `kind` through `samples` whose step
/// makes a key placed on any sample decode within `key_error` (the kind's
/// unit) of it: the finest step codes stay within kMaxCodeMagnitude for. The
/// second member is that floor: the largest error of such a key (above
/// `key_error` only where the code range or float precision stops it).
struct ChosenQuantization {
  TrackQuantization quantization;
  float floor = 0.f;
};
ChosenQuantization choose_quantization(TrackKind kind, std::span<const Sample> samples, float key_error);

/// The normalised component-wise mean of a rotation track's samples (one
/// hemisphere), its centre: a constant's candidate, a reference's choice.
Sample mean_rotation(std::span<const Sample> samples);

/// The codes of `value` (one per coded component, the rest 0), the nearest
/// decoded value among the roundings of each component.
void quantize_key(TrackKind kind, const TrackQuantization& q, const float* value, int32_t codes[4]);

/// The decoded value of `codes`, as the player holds it before the hemisphere fix.
CurveKey decode_key(TrackKind kind, const TrackQuantization& q, const int32_t codes[4], uint16_t frame);

/// The smallest-three code of the unit quaternion `q` with `bits` per
/// component, the nearest decoded rotation of the roundings.
uint64_t quantize_smallest_three(const float* q, uint32_t bits);

}  // namespace ks
