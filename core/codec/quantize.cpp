#include "keystream/codec/quantize.h"

#include <algorithm>
#include <cmath>

#include <limits>

#include "keystream/runtime/transform.h"

namespace ks {

namespace {

constexpr float kDegreesPerRadian = 57.29577951308232f;
// A relative rotation coding needs w (rebuilt from unit length) away from 0:
// its error grows as 1/w. Below this, the track takes the full coding.
constexpr float kMinRelativeW = 0.25f;

int32_t clamp_code(double code) {
  return static_cast<int32_t>(std::clamp(code, -double{kMaxCodeMagnitude}, double{kMaxCodeMagnitude}));
}


// How close a decoded (not quite unit) quaternion is to the unit `target`:
// cos^2 of half the angle between them; larger is nearer. In double: at
// fine steps the roundings differ by less than a float's epsilon.
double closeness(const float* decoded, const float* target) {
  double d = 0.0, length_squared = 0.0;
  for (int c = 0; c < 4; ++c) {
    d += double{decoded[c]} * double{target[c]};
    length_squared += double{decoded[c]} * double{decoded[c]};
  }
  return length_squared > 0.0 ? d * d / length_squared : 0.0;
}

// The largest magnitude a coded value takes over the samples: the sample's
// components, or for relative rotations those of conj(R) * sample (which
// reach past the sample's own when R is off the samples' centre).
float max_abs_coded(TrackKind kind, std::span<const Sample> samples, const TrackQuantization& q) {
  const bool relative = kind == TrackKind::kRotation && q.rotation == RotationCoding::kRelative;
  const float inverse[4] = {-q.reference[0], -q.reference[1], -q.reference[2], q.reference[3]};
  float largest = 0.f;
  for (const Sample& s : samples) {
    float coded[4] = {s[0], s[1], s[2], s[3]};
    if (relative) multiply_quaternions(inverse, s.data(), coded);
    for (int c = 0; c < 4; ++c) {
      if (q.coded(c)) largest = std::max(largest, std::fabs(coded[c]));
    }
  }
  return largest;
}

// The largest error of a key placed on any sample.
float key_floor(TrackKind kind, const TrackQuantization& q, std::span<const Sample> samples) {
  float worst = 0.f;
  int32_t codes[4];
  for (const Sample& s : samples) {
    quantize_key(kind, q, s.data(), codes);
    const CurveKey key = decode_key(kind, q, codes, 0);
    float value[4] = {key.value[0], key.value[1], key.value[2], key.value[3]};
    if (kind == TrackKind::kRotation) normalize_rotation(value);
    worst = std::max(worst, track_error(kind, s.data(), value));
  }
  return worst;
}

}  // namespace

float track_error(TrackKind kind, const float* source, const float* decoded) {
  switch (kind) {
    case TrackKind::kTranslation: {
      const float dx = source[0] - decoded[0], dy = source[1] - decoded[1], dz = source[2] - decoded[2];
      return std::sqrt(dx * dx + dy * dy + dz * dz);
    }
    case TrackKind::kRotation: {
      float q[4] = {decoded[0], decoded[1], decoded[2], decoded[3]};
      normalize_rotation(q);
      return angle_between_deg(Quat{source[0], source[1], source[2], source[3]}, Quat{q[0], q[1], q[2], q[3]});
    }
    case TrackKind::kScale:
      return std::max({std::fabs(source[0] - decoded[0]), std::fabs(source[1] - decoded[1]),
                       std::fabs(source[2] - decoded[2])});
    case TrackKind::kScalar:
      return std::max({std::fabs(source[0] - decoded[0]), std::fabs(source[1] - decoded[1]),
                       std::fabs(source[2] - decoded[2]), std::fabs(source[3] - decoded[3])});
  }
  return 0.f;
}

uint64_t quantize_smallest_three(const float* q, uint32_t bits) {
  float v[4] = {q[0], q[1], q[2], q[3]};
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
    low[other++] = std::min(static_cast<uint32_t>(std::floor(std::clamp(normalized, 0.0, 1.0) * mask)), mask);
  }
  uint64_t best_code = largest;
  double best = -1.0;
  for (uint32_t combo = 0; combo < 8; ++combo) {
    uint64_t code = largest;
    bool valid = true;
    for (uint32_t i = 0; i < 3; ++i) {
      const uint32_t component = low[i] + ((combo >> i) & 1u);
      valid = valid && component <= mask;
      code |= uint64_t{component} << (2 + i * bits);
    }
    if (!valid) continue;
    float decoded[4];
    dequantize_smallest_three(code, bits, decoded);
    const double c = closeness(decoded, v);
    if (c > best) {
      best = c;
      best_code = code;
    }
  }
  return best_code;
}

void quantize_key(TrackKind kind, const TrackQuantization& q, const float* value, int32_t codes[4]) {
  for (int c = 0; c < 4; ++c) codes[c] = 0;
  if (!(q.step > 0.f)) return;
  if (kind != TrackKind::kRotation) {
    for (int c = 0; c < component_count(kind); ++c) {
      if (!q.coded(c)) continue;
      codes[c] = clamp_code(std::nearbyint(double{value[c]} / q.step));
      // Rounding in double can disagree with the float decode by one step.
      float best = std::fabs(static_cast<float>(codes[c]) * q.step - value[c]);
      for (int delta : {-1, 1}) {
        const int32_t candidate = clamp_code(static_cast<double>(codes[c]) + delta);
        const float error = std::fabs(static_cast<float>(candidate) * q.step - value[c]);
        if (error < best) {
          best = error;
          codes[c] = candidate;
        }
      }
    }
    return;
  }
  if (q.rotation == RotationCoding::kFull) {
    for (int c = 0; c < 4; ++c) codes[c] = clamp_code(std::nearbyint(double{value[c]} / q.step));
    return;
  }
  // Relative to the reference: conj(R) * value, in the hemisphere w >= 0.
  const float inverse[4] = {-q.reference[0], -q.reference[1], -q.reference[2], q.reference[3]};
  float relative[4];
  multiply_quaternions(inverse, value, relative);
  if (relative[3] < 0.f) {
    for (float& v : relative) v = -v;
  }
  int32_t low[3];
  for (int c = 0; c < 3; ++c) low[c] = clamp_code(std::floor(double{relative[c]} / q.step));
  double best = -1.0;
  for (uint32_t combo = 0; combo < 8; ++combo) {
    int32_t candidate[4] = {0, 0, 0, 0};
    for (int c = 0; c < 3; ++c) candidate[c] = clamp_code(static_cast<double>(low[c]) + ((combo >> c) & 1u));
    float decoded[4];
    dequantize_key(kind, q, candidate, decoded);
    const double c = closeness(decoded, value);
    if (c > best) {
      best = c;
      std::copy(candidate, candidate + 4, codes);
    }
  }
}

Sample mean_rotation(std::span<const Sample> samples) {
  double sum[4] = {0, 0, 0, 0};
  for (const Sample& s : samples) {
    for (int c = 0; c < 4; ++c) sum[c] += s[c];
  }
  float mean[4] = {static_cast<float>(sum[0]), static_cast<float>(sum[1]), static_cast<float>(sum[2]),
                   static_cast<float>(sum[3])};
  normalize_rotation(mean);
  return {mean[0], mean[1], mean[2], mean[3]};
}

CurveKey decode_key(TrackKind kind, const TrackQuantization& q, const int32_t codes[4], uint16_t frame) {
  CurveKey key{};
  dequantize_key(kind, q, codes, key.value);
  key.frame = static_cast<float>(frame);
  return key;
}

ChosenQuantization choose_quantization(TrackKind kind, std::span<const Sample> samples, float key_error) {
  ChosenQuantization chosen;
  TrackQuantization& q = chosen.quantization;
  if (samples.empty()) return chosen;
  float first_step = 0.f;
  if (kind != TrackKind::kRotation) {
    for (int c = 0; c < component_count(kind); ++c) {
      q.constant[c] = samples[0][c];
      for (const Sample& s : samples) {
        if (s[c] != samples[0][c]) q.coded_mask |= static_cast<uint8_t>(1u << c);
      }
    }
    if (q.coded_mask == 0) return chosen;
    // Each coded component is off by at most step / 2: the distance (or the
    // largest component difference) by sqrt(n) * step / 2 (step / 2).
    const float spread = kind == TrackKind::kTranslation ? std::sqrt(static_cast<float>(q.coded_count())) : 1.f;
    first_step = 2.f * key_error / spread;
  } else {
    const Sample mean = mean_rotation(samples);
    q.reference_code = static_cast<uint32_t>(quantize_smallest_three(mean.data(), kReferenceComponentBits));
    dequantize_smallest_three(q.reference_code, kReferenceComponentBits, q.reference);
    float min_w = 1.f;
    for (const Sample& s : samples) {
      const float d = s[0] * q.reference[0] + s[1] * q.reference[1] + s[2] * q.reference[2] + s[3] * q.reference[3];
      min_w = std::min(min_w, std::fabs(d));
    }
    const float angle_rad = key_error / kDegreesPerRadian;
    if (min_w >= kMinRelativeW) {
      // The angle of a key is about twice the length of its quaternion's
      // error, which is at most |code error| / w = (sqrt(3) step / 2) / w.
      q.rotation = RotationCoding::kRelative;
      q.coded_mask = 0b0111;
      first_step = angle_rad * min_w / std::sqrt(3.f);
    } else {
      q.rotation = RotationCoding::kFull;
      q.coded_mask = 0b1111;
      q.reference_code = 0;
      q.reference[0] = q.reference[1] = q.reference[2] = 0.f;
      q.reference[3] = 1.f;
      first_step = angle_rad / 2.f;
    }
  }
  // The finest step whose codes of every sample stay within range.
  const float min_step = std::max(max_abs_coded(kind, samples, q) / static_cast<float>(kMaxCodeMagnitude) * 1.001f,
                                  std::numeric_limits<float>::min());
  q.step = std::max(first_step, min_step);
  chosen.floor = key_floor(kind, q, samples);
  // Float rounding and the w >= 0 fold can leave the floor a little above
  // the estimate: shrink the step until it holds or reaches its finest.
  for (int attempt = 0; attempt < 24 && chosen.floor > key_error && q.step > min_step; ++attempt) {
    q.step = std::max(min_step, q.step * std::clamp(0.95f * key_error / chosen.floor, 0.25f, 0.9f));
    chosen.floor = key_floor(kind, q, samples);
  }
  return chosen;
}

}  // namespace ks
