#include "core/offline/quantize.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace ks {

Status QuantizationSettings::validate() const {
  if (rotation_bits < kMinRotationBits || rotation_bits > kMaxRotationBits) {
    return Error{"rotation bit width " + std::to_string(rotation_bits) + " is outside " +
                 std::to_string(kMinRotationBits) + ".." + std::to_string(kMaxRotationBits)};
  }
  if (range_mode != RangeMode::kPerTrack && range_mode != RangeMode::kFixed) {
    return Error{"range mode is neither per-track nor fixed"};
  }
  return {};
}

TrackQuantization vec3_quantization(std::span<const Vec3> samples, RangeMode mode) {
  TrackQuantization q;
  if (mode == RangeMode::kFixed || samples.empty()) {
    for (int c = 0; c < 3; ++c) {
      q.range_min[c] = kFixedRangeMin;
      q.range_extent[c] = kFixedRangeExtent;
    }
    return q;
  }
  float lo[3] = {samples[0].x, samples[0].y, samples[0].z};
  float hi[3] = {lo[0], lo[1], lo[2]};
  for (const Vec3& v : samples) {
    const float value[3] = {v.x, v.y, v.z};
    for (int c = 0; c < 3; ++c) {
      lo[c] = std::min(lo[c], value[c]);
      hi[c] = std::max(hi[c], value[c]);
    }
  }
  for (int c = 0; c < 3; ++c) {
    q.range_min[c] = lo[c];
    // The extent is rounded up until min + extent reaches max in float, so the
    // top code decodes to (at least) the largest sample.
    float extent = hi[c] - lo[c];
    while (extent > 0.f && lo[c] + extent < hi[c]) extent = std::nextafter(extent, INFINITY);
    q.range_extent[c] = extent;
  }
  return q;
}

void quantize_vec3(const TrackQuantization& q, Vec3 v, uint32_t codes[3]) {
  const float value[3] = {v.x, v.y, v.z};
  for (int c = 0; c < 3; ++c) {
    if (!(q.range_extent[c] > 0.f)) {
      codes[c] = 0;
      continue;
    }
    const double normalized = (double{value[c]} - q.range_min[c]) / q.range_extent[c];
    const double code = std::nearbyint(std::clamp(normalized, 0.0, 1.0) * 65535.0);
    codes[c] = static_cast<uint32_t>(code);
    // Rounding in double can disagree with the float decode by one step: take
    // the neighbour code when it decodes nearer.
    float best = std::fabs(dequantize_vec3_component(q, c, codes[c]) - value[c]);
    for (int delta : {-1, 1}) {
      const int64_t candidate = int64_t{codes[c]} + delta;
      if (candidate < 0 || candidate > 65535) continue;
      const float error = std::fabs(dequantize_vec3_component(q, c, static_cast<uint32_t>(candidate)) - value[c]);
      if (error < best) {
        best = error;
        codes[c] = static_cast<uint32_t>(candidate);
      }
    }
  }
}

uint64_t quantize_rotation(Quat q, uint32_t bits) {
  float v[4] = {q.x, q.y, q.z, q.w};
  uint32_t largest = 0;
  for (uint32_t c = 1; c < 4; ++c) {
    if (std::fabs(v[c]) > std::fabs(v[largest])) largest = c;
  }
  if (v[largest] < 0.f) {
    for (float& x : v) x = -x;
  }
  const uint32_t mask = (1u << bits) - 1u;
  uint32_t low[3];
  int other = 0;
  for (uint32_t c = 0; c < 4; ++c) {
    if (c == largest) continue;
    const double normalized = (double{v[c]} + kSmallestThreeBound) / (2.0 * kSmallestThreeBound);
    const double scaled = std::clamp(normalized, 0.0, 1.0) * mask;
    low[other++] = std::min(static_cast<uint32_t>(std::floor(scaled)), mask);
  }
  // Try every floor/ceiling combination and keep the nearest decoded rotation.
  uint64_t best_code = 0;
  float best_angle = INFINITY;
  const Quat target{v[0], v[1], v[2], v[3]};
  for (uint32_t combo = 0; combo < 8; ++combo) {
    uint64_t code = largest;
    bool valid = true;
    for (int i = 0; i < 3; ++i) {
      const uint32_t component = low[i] + ((combo >> i) & 1u);
      if (component > mask) valid = false;
      code |= uint64_t{component} << (2 + i * bits);
    }
    if (!valid) continue;
    float decoded[4];
    dequantize_rotation(code, bits, decoded);
    const float angle = angle_between_deg(target, Quat{decoded[0], decoded[1], decoded[2], decoded[3]});
    if (angle < best_angle) {
      best_angle = angle;
      best_code = code;
    }
  }
  return best_code;
}

CurveKey decode_vec3(const TrackQuantization& q, const uint32_t codes[3], uint16_t frame) {
  CurveKey key{};
  for (int c = 0; c < 3; ++c) key.value[c] = dequantize_vec3_component(q, c, codes[c]);
  key.value[3] = 0.f;
  key.frame = frame;
  return key;
}

CurveKey decode_rotation(uint64_t code, uint32_t bits, uint16_t frame) {
  CurveKey key{};
  dequantize_rotation(code, bits, key.value);
  key.frame = frame;
  return key;
}

}  // namespace ks
