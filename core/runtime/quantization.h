#pragma once
// Dequantization of key values (DESIGN §6), shared by the player and the
// fitter so the fitter measures exactly what the player will decode.
//   vec3: 16 bits per component, uniform over the track's range; a component
//         whose range is empty takes 0 bits and decodes to its minimum.
//   quaternion: smallest three; 2 bits name the largest component (made
//         positive and rebuilt from unit length), the other three take
//         `bits` each over [-1/sqrt(2), 1/sqrt(2)].

#include <cmath>
#include <cstdint>

namespace ks {

inline constexpr uint32_t kVec3ComponentBits = 16;
inline constexpr uint32_t kMinRotationBits = 10;  // the original engine's width
inline constexpr uint32_t kMaxRotationBits = 20;  // 2 + 3 * 20 bits still fit a 64-bit code
inline constexpr float kFixedRangeMin = -10.f;    // metres; the original engine's fixed range
inline constexpr float kFixedRangeExtent = 20.f;
inline constexpr float kSmallestThreeBound = 0.70710678118654752f;  // 1/sqrt(2)

/// How one track's key values are coded.
struct TrackQuantization {
  uint32_t rotation_bits = kMinRotationBits;  // per smallest-three component; rotation tracks
  float range_min[3] = {0.f, 0.f, 0.f};      // vec3 tracks: lowest value per component
  float range_extent[3] = {0.f, 0.f, 0.f};   // vec3 tracks: max - min per component, >= 0
};

/// Bits of one component of a vec3 key: none when the component never changes.
inline uint32_t vec3_component_bits(const TrackQuantization& q, int component) {
  return q.range_extent[component] > 0.f ? kVec3ComponentBits : 0u;
}

/// Bits of one key value of a rotation track.
inline uint32_t rotation_code_bits(uint32_t rotation_bits) { return 2 + 3 * rotation_bits; }

/// Value of a quantized vec3 component.
inline float dequantize_vec3_component(const TrackQuantization& q, int component, uint32_t code) {
  const float step = q.range_extent[component] / 65535.f;
  return q.range_min[component] + static_cast<float>(code) * step;
}

/// The unit quaternion (x, y, z, w) of a smallest-three code: bits 0..1 hold
/// the index of the largest component, then the other three in order, each
/// `bits` wide.
inline void dequantize_rotation(uint64_t code, uint32_t bits, float* out) {
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
  out[largest] = std::sqrt(std::fmax(0.f, 1.f - sum_squares));
}

}  // namespace ks
