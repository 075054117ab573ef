#pragma once
// Dequantization of key values (DESIGN §6), shared by the player and the
// fitter so the fitter measures exactly what the player will decode.
//
// An animated track codes each key as small integers on a per-track grid of
// `step`: value = code * step. The step follows from the track's error
// budget (the fitter picks it), so a track needs as many bits as its budget
// and its motion ask for, no fixed width. Codes are written as differences
// from the track's previous key (core/runtime/key_coding.h), so the range a
// track covers costs nothing per key.
//   vec3 (translation, scale) and scalar tracks: the components that change
//     are coded; one that never changes holds its float32 value in the track
//     table (a vec3's fourth, and a scalar's past its count, are 0).
//   rotation, relative coding: the vector part (x, y, z) of the key's
//     rotation relative to a per-track reference R, taken with w >= 0; w is
//     rebuilt from unit length and the key is R * (x, y, z, w). Tracks that
//     stay within some 145 degrees of R (all but spinning roots) have w well
//     away from 0, where rebuilding it is accurate.
//   rotation, full coding: all four components, for tracks no reference
//     keeps away from w = 0; the curve normalises after interpolation.
// Only exact float operations the IEEE standard rounds the same everywhere
// (+, -, *, /, sqrt) are used, so every platform decodes the same bits.

#include <cmath>
#include <cstdint>

#include "keystream/runtime/curve.h"

namespace ks {

/// How a track is stored.
enum class TrackCoding : uint8_t {
  kIdentity = 0,  // constant at the identity (translation 0, rotation 1, scale 1): no bytes at all
  kConstant = 1,  // constant: float32 values in the track table, decoded bit for bit
  kAnimated = 2,  // keys in the initial keys and the key stream
  kRest = 3,      // constant at the bone's rest value, which the engine's skeleton holds: no bytes in the
                  // stream (version 11; a copy in the metadata for tools, Player::set_rest_pose)
};

/// The name tools show for a coding.
inline const char* to_string(TrackCoding coding) {
  switch (coding) {
    case TrackCoding::kIdentity: return "identity";
    case TrackCoding::kConstant: return "constant";
    case TrackCoding::kAnimated: return "animated";
    case TrackCoding::kRest: return "rest";
  }
  return "unknown";
}

/// How an animated rotation track codes its keys.
enum class RotationCoding : uint8_t {
  kRelative = 0,  // x, y, z relative to the track's reference, w rebuilt
  kFull = 1,      // x, y, z, w
};

/// Codes are kept where a float holds every integer exactly.
inline constexpr int32_t kMaxCodeMagnitude = (1 << 24) - 1;
/// Bits per smallest-three component of a relative track's reference rotation.
inline constexpr uint32_t kReferenceComponentBits = 10;
inline constexpr uint32_t kReferenceCodeBits = 2 + 3 * kReferenceComponentBits;
inline constexpr float kSmallestThreeBound = 0.70710678118654752f;  // 1/sqrt(2)

/// How one animated track's key values are coded.
struct TrackQuantization {
  // The byte-wide fields together: every track of a clip has one (44 bytes, not 48).
  float step = 0.f;           // value of one code step: metres, scale, or quaternion component
  uint8_t coded_mask = 0;     // bit c set: component c is coded in every key
  RotationCoding rotation = RotationCoding::kRelative;
  float constant[4] = {0.f, 0.f, 0.f, 0.f};     // the value of each component not coded (a constant track: all)
  uint32_t reference_code = 0;                  // relative rotations: smallest-three code of R
  float reference[4] = {0.f, 0.f, 0.f, 1.f};    // R as decoded from reference_code

  bool coded(int component) const { return ((coded_mask >> component) & 1u) != 0; }
  int coded_count() const {
    int n = 0;
    for (int c = 0; c < 4; ++c) n += coded(c) ? 1 : 0;
    return n;
  }
};

/// sqrt(max(0, 1 - sum_squares)): the component a unit quaternion's code
/// drops. Not std::fmax, which GCC calls out of line (a libm call per
/// rotation key, a tenth of the player's key update): sum_squares is finite
/// and >= 0, so 1 - sum_squares is never NaN or -0 and the comparison gives
/// fmax's bits.
inline float dropped_component(float sum_squares) {
  const float x = 1.f - sum_squares;
  return std::sqrt(x > 0.f ? x : 0.f);
}

/// The unit quaternion (x, y, z, w) of a smallest-three code: bits 0..1 hold
/// the index of the largest component (made positive and rebuilt from unit
/// length), then the other three in order, each `bits` wide over +-1/sqrt(2).
inline void dequantize_smallest_three(uint64_t code, uint32_t bits, float* out) {
  const uint32_t largest = static_cast<uint32_t>(code & 3u);
  const uint64_t mask = (uint64_t{1} << bits) - 1u;
  const float step = (2.f * kSmallestThreeBound) / static_cast<float>(mask);
  float sum_squares = 0.f;
  int next_bit = 2;
  for (uint32_t c = 0; c < 4; ++c) {
    if (c == largest) continue;
    const uint64_t component_code = (code >> next_bit) & mask;
    next_bit += static_cast<int>(bits);
    const float v = static_cast<float>(component_code) * step - kSmallestThreeBound;
    out[c] = v;
    sum_squares += v * v;
  }
  out[largest] = dropped_component(sum_squares);
}

/// Hamilton product a * b of quaternions (x, y, z, w), component by component
/// in a fixed order so the fitter and the player round alike.
inline void multiply_quaternions(const float* a, const float* b, float* out) {
  const float x = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
  const float y = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
  const float z = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
  const float w = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
  out[0] = x;
  out[1] = y;
  out[2] = z;
  out[3] = w;
}

/// The value of a key of an animated track of `kind` from its codes (one per
/// coded component, in component order; the rest are ignored), before any
/// hemisphere fix.
inline void dequantize_key(TrackKind kind, const TrackQuantization& q, const int32_t* codes, float* out) {
  if (kind != TrackKind::kRotation) {
    for (int c = 0; c < 3; ++c) out[c] = q.coded(c) ? static_cast<float>(codes[c]) * q.step : q.constant[c];
    out[3] = kind != TrackKind::kScalar ? 0.f : q.coded(3) ? static_cast<float>(codes[3]) * q.step : q.constant[3];
    return;
  }
  if (q.rotation == RotationCoding::kFull) {
    for (int c = 0; c < 4; ++c) out[c] = static_cast<float>(codes[c]) * q.step;
    return;
  }
  float relative[4];
  for (int c = 0; c < 3; ++c) relative[c] = static_cast<float>(codes[c]) * q.step;
  const float sum_squares = relative[0] * relative[0] + relative[1] * relative[1] + relative[2] * relative[2];
  relative[3] = dropped_component(sum_squares);
  multiply_quaternions(q.reference, relative, out);
}

}  // namespace ks
