#include "core/offline/quantize.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace ks {
namespace {

constexpr double kRadToDeg = 57.29577951308232;

// Passes when `status` is a refusal whose message contains every part.
::testing::AssertionResult refused_mentioning(const Status& status, std::initializer_list<std::string_view> parts) {
  if (status.ok()) return ::testing::AssertionFailure() << "the settings were accepted";
  for (std::string_view part : parts) {
    if (status.error().find(part) == std::string::npos) {
      return ::testing::AssertionFailure()
             << "message \"" << status.error() << "\" does not mention \"" << part << "\"";
    }
  }
  return ::testing::AssertionSuccess();
}

float component(Vec3 v, int c) {
  return c == 0 ? v.x : c == 1 ? v.y : v.z;
}

// A rotation uniformly distributed over the unit sphere of quaternions.
Quat random_rotation(std::mt19937& rng) {
  std::normal_distribution<double> gauss;
  double v[4];
  double norm = 0.0;
  do {
    norm = 0.0;
    for (double& x : v) {
      x = gauss(rng);
      norm += x * x;
    }
  } while (norm < 1e-6);
  norm = std::sqrt(norm);
  return Quat{static_cast<float>(v[0] / norm), static_cast<float>(v[1] / norm), static_cast<float>(v[2] / norm),
              static_cast<float>(v[3] / norm)};
}

Quat decoded_rotation(Quat q, uint32_t bits) {
  const CurveKey key = decode_rotation(quantize_rotation(q, bits), bits, 0);
  return Quat{key.value[0], key.value[1], key.value[2], key.value[3]};
}

// The largest angle, in degrees, between a unit quaternion and its
// smallest-three decoding at `bits` per component.
//
// Derivation. Let w be the largest component (|w| >= 1/2, because four
// squares sum to 1) and v the other three, |v|^2 = 1 - w^2 <= 3/4. Each
// component of v lies in [-1/sqrt 2, 1/sqrt 2] (v_i^2 <= w^2 and
// v_i^2 + w^2 <= 1) and is coded with step s = 2/sqrt(2) / (2^bits - 1). The
// quantizer keeps the best of the floor/ceiling roundings, so at worst the
// nearest rounding: an error vector e with |e| <= (sqrt 3 / 2) s. The
// decoder rebuilds w' = sqrt(1 - |v'|^2), i.e. maps v' onto the unit sphere
// through the chart v -> (v, sqrt(1 - |v|^2)), whose derivative has norm
// 1 / sqrt(1 - |v|^2) = 1 / w. Along the segment from v to v', |v| stays
// below sqrt 3 / 2 + |e|, so w stays above
//   w_min = sqrt(1 - (sqrt 3 / 2 + |e|)^2)
// and the image of the segment, a path from q to q' on the sphere, is at
// most |e| / w_min long. The sphere angle between q and q' is no longer than
// any such path, and the rotation angle is twice the sphere angle:
//   angle <= 2 |e| / w_min = sqrt 3 s / w_min.
// It halves with every extra bit. For 10 bits: 0.276 degrees.
double smallest_three_bound_deg(uint32_t bits) {
  const double step = 2.0 / std::sqrt(2.0) / static_cast<double>((uint64_t{1} << bits) - 1);
  const double error = std::sqrt(3.0) / 2.0 * step;
  const double v_max = std::sqrt(3.0) / 2.0 + error;
  const double w_min = std::sqrt(1.0 - v_max * v_max);
  return 2.0 * error / w_min * kRadToDeg;
}

// What float arithmetic adds to the bound: decoding in float, and measuring
// the angle of a nearly-identity relative rotation (products of
// unit-sized floats, each rounded to ~6e-8) adds ~1e-5 degrees.
constexpr double kAngleNoiseDeg = 3e-5;

// --- QuantizationSettings::validate -------------------------------------------

TEST(QuantizationSettingsValidate, AcceptsDefaultsAndTheWidthLimits) {
  EXPECT_TRUE(QuantizationSettings{}.validate().ok());
  for (uint32_t bits : {10u, 15u, 20u}) {
    QuantizationSettings settings;
    settings.rotation_bits = bits;
    settings.range_mode = RangeMode::kFixed;
    settings.widen_rotation_bits = false;
    const Status status = settings.validate();
    EXPECT_TRUE(status.ok()) << bits << ": " << status.error();
  }
}

TEST(QuantizationSettingsValidate, RefusesRotationBitsOutside10To20) {
  for (uint32_t bits : {0u, 9u, 21u, 64u}) {
    SCOPED_TRACE(bits);
    QuantizationSettings settings;
    settings.rotation_bits = bits;
    EXPECT_TRUE(refused_mentioning(settings.validate(), {"rotation bit width", std::to_string(bits), "10..20"}));
  }
}

TEST(QuantizationSettingsValidate, RefusesAnUnknownRangeMode) {
  QuantizationSettings settings;
  settings.range_mode = static_cast<RangeMode>(2);
  EXPECT_TRUE(refused_mentioning(settings.validate(), {"range mode"}));
}

// --- vec3_quantization ------------------------------------------------------------

TEST(Vec3Quantization, PerTrackRangeSpansTheSamples) {
  const std::vector<Vec3> samples = {{0.5f, -2.f, 7.f}, {0.25f, 3.f, 7.f}, {1.75f, -0.1f, 7.f}};
  const TrackQuantization q = vec3_quantization(samples, RangeMode::kPerTrack);
  const float lo[3] = {0.25f, -2.f, 7.f};
  const float hi[3] = {1.75f, 3.f, 7.f};
  for (int c = 0; c < 3; ++c) {
    EXPECT_EQ(q.range_min[c], lo[c]) << "component " << c;
    EXPECT_GE(q.range_min[c] + q.range_extent[c], hi[c]) << "component " << c;
    EXPECT_NEAR(q.range_extent[c], hi[c] - lo[c], 1e-6f) << "component " << c;
  }
  EXPECT_EQ(q.range_extent[2], 0.f);  // constant component: empty range, no bits
  EXPECT_EQ(vec3_component_bits(q, 2), 0u);
}

TEST(Vec3Quantization, PerTrackRangeReachesTheMaximumInFloat) {
  // max - min rounds down in float here; the extent is widened until the top
  // of the range reaches the largest sample.
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> value(-1000.f, 1000.f);
  for (int i = 0; i < 2000; ++i) {
    const float a = value(rng), b = a + std::ldexp(value(rng), -20);
    const std::vector<Vec3> samples = {{a, a, a}, {b, b, b}};
    const TrackQuantization q = vec3_quantization(samples, RangeMode::kPerTrack);
    EXPECT_GE(q.range_min[0] + q.range_extent[0], std::max(a, b)) << a << " " << b;
    EXPECT_EQ(q.range_min[0], std::min(a, b));
  }
}

TEST(Vec3Quantization, FixedRangeIsMinus10To10Metres) {
  const std::vector<Vec3> samples = {{0.001f, 0.002f, 0.003f}};
  const TrackQuantization q = vec3_quantization(samples, RangeMode::kFixed);
  for (int c = 0; c < 3; ++c) {
    EXPECT_EQ(q.range_min[c], -10.f);
    EXPECT_EQ(q.range_extent[c], 20.f);
  }
}

// --- vec3 round trip ------------------------------------------------------------------

// Quantizes and decodes `v`, expecting every component within half a step
// (plus float rounding of the decode) of the source.
void expect_within_half_step(const TrackQuantization& q, Vec3 v) {
  uint32_t codes[3];
  quantize_vec3(q, v, codes);
  const CurveKey key = decode_vec3(q, codes, 0);
  for (int c = 0; c < 3; ++c) {
    EXPECT_LE(codes[c], 65535u);
    const float step = q.range_extent[c] / 65535.f;
    const float rounding = 2.f * FLT_EPSILON * (std::fabs(q.range_min[c]) + q.range_extent[c]);
    EXPECT_LE(std::fabs(key.value[c] - component(v, c)), 0.5f * step + rounding)
        << "component " << c << " of " << v.x << ", " << v.y << ", " << v.z << " over [" << q.range_min[c] << ", +"
        << q.range_extent[c] << "]";
  }
}

TEST(QuantizeVec3, PerTrackRoundTripIsWithinHalfAStep) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> centre(-100.f, 100.f);
  std::uniform_real_distribution<float> decade(-6.f, 2.f);
  std::uniform_real_distribution<float> unit(0.f, 1.f);
  for (int track = 0; track < 200; ++track) {
    std::vector<Vec3> samples(50);
    float lo[3], extent[3];
    for (int c = 0; c < 3; ++c) {
      lo[c] = centre(rng);
      extent[c] = std::pow(10.f, decade(rng));
    }
    for (Vec3& s : samples)
      s = {lo[0] + extent[0] * unit(rng), lo[1] + extent[1] * unit(rng), lo[2] + extent[2] * unit(rng)};
    const TrackQuantization q = vec3_quantization(samples, RangeMode::kPerTrack);
    for (const Vec3& s : samples) expect_within_half_step(q, s);
    if (testing::Test::HasFailure()) return;
  }
}

TEST(QuantizeVec3, FixedRangeRoundTripIsWithinHalfAStep) {
  std::mt19937 rng(12);
  std::uniform_real_distribution<float> value(-10.f, 10.f);
  const TrackQuantization q = vec3_quantization({}, RangeMode::kFixed);
  for (int i = 0; i < 20000; ++i) {
    expect_within_half_step(q, {value(rng), value(rng), value(rng)});
    if (testing::Test::HasFailure()) return;
  }
  // The ends and zero.
  for (const float x : {-10.f, 10.f, 0.f}) expect_within_half_step(q, {x, x, x});
}

TEST(QuantizeVec3, ZeroExtentComponentDecodesExactlyToTheMinimum) {
  const std::vector<Vec3> samples = {{0.1f, 0.37f, -3.f}, {0.2f, 0.37f, -3.f}, {0.3f, 0.37f, -3.f}};
  const TrackQuantization q = vec3_quantization(samples, RangeMode::kPerTrack);
  for (const Vec3& s : samples) {
    uint32_t codes[3];
    quantize_vec3(q, s, codes);
    EXPECT_EQ(codes[1], 0u);
    EXPECT_EQ(codes[2], 0u);
    const CurveKey key = decode_vec3(q, codes, 0);
    EXPECT_EQ(key.value[1], 0.37f);
    EXPECT_EQ(key.value[2], -3.f);
  }
}

TEST(QuantizeVec3, ValuesOutsideTheFixedRangeClamp) {
  const TrackQuantization q = vec3_quantization({}, RangeMode::kFixed);
  uint32_t codes[3];
  quantize_vec3(q, {15.f, -12.f, 1e30f}, codes);
  EXPECT_EQ(codes[0], 65535u);
  EXPECT_EQ(codes[1], 0u);
  EXPECT_EQ(codes[2], 65535u);
  const CurveKey key = decode_vec3(q, codes, 0);
  EXPECT_NEAR(key.value[0], 10.f, 1e-5f);
  EXPECT_EQ(key.value[1], -10.f);
  EXPECT_NEAR(key.value[2], 10.f, 1e-5f);

  quantize_vec3(q, {-1e30f, -10.0001f, 10.0001f}, codes);
  EXPECT_EQ(codes[0], 0u);
  EXPECT_EQ(codes[1], 0u);
  EXPECT_EQ(codes[2], 65535u);
}

TEST(QuantizeVec3, ValuesOutsideAPerTrackRangeClamp) {
  const std::vector<Vec3> samples = {{0.f, 1.f, 2.f}, {1.f, 2.f, 3.f}};
  const TrackQuantization q = vec3_quantization(samples, RangeMode::kPerTrack);
  uint32_t codes[3];
  quantize_vec3(q, {-0.5f, 2.5f, 2.f}, codes);
  EXPECT_EQ(codes[0], 0u);
  EXPECT_EQ(codes[1], 65535u);
  EXPECT_EQ(codes[2], 0u);
}

TEST(DecodeVec3, FillsTheFrameAndLeavesTheFourthComponentZero) {
  const TrackQuantization q = vec3_quantization({}, RangeMode::kFixed);
  const uint32_t codes[3] = {0, 32768, 65535};
  const CurveKey key = decode_vec3(q, codes, 4321);
  EXPECT_EQ(key.frame, 4321.f);
  EXPECT_EQ(key.value[0], -10.f);
  EXPECT_EQ(key.value[1], dequantize_vec3_component(q, 1, 32768));
  EXPECT_EQ(key.value[3], 0.f);
}

// --- smallest three ---------------------------------------------------------------------

TEST(SmallestThreeBound, DecreasesWithWidth) {
  EXPECT_NEAR(smallest_three_bound_deg(10), 0.2755, 0.001);
  for (uint32_t bits = kMinRotationBits; bits < kMaxRotationBits; ++bits) {
    EXPECT_LT(smallest_three_bound_deg(bits + 1), 0.51 * smallest_three_bound_deg(bits)) << bits;
  }
}

TEST(QuantizeRotation, RandomRotationsRoundTripWithinTheDerivedBound) {
  std::mt19937 rng(2024);
  std::vector<Quat> rotations;
  for (int i = 0; i < 4000; ++i) rotations.push_back(random_rotation(rng));
  double previous_worst = 1e9;
  for (uint32_t bits = kMinRotationBits; bits <= kMaxRotationBits; ++bits) {
    SCOPED_TRACE(bits);
    const double bound = smallest_three_bound_deg(bits);
    double worst = 0.0;
    for (const Quat& q : rotations) {
      const uint64_t code = quantize_rotation(q, bits);
      EXPECT_EQ(code >> rotation_code_bits(bits), 0u) << "bits above the code are set";
      const double angle = angle_between_deg(q, decoded_rotation(q, bits));
      worst = std::max(worst, angle);
    }
    EXPECT_LE(worst, bound + kAngleNoiseDeg);
    // The error itself shrinks with the width (about half per bit).
    EXPECT_LT(worst, 0.75 * previous_worst);
    previous_worst = worst;
  }
}

TEST(QuantizeRotation, RebuildsTheLargestComponentPositive) {
  std::mt19937 rng(99);
  for (int i = 0; i < 2000; ++i) {
    Quat q = random_rotation(rng);
    const float v[4] = {q.x, q.y, q.z, q.w};
    uint32_t largest = 0;
    for (uint32_t c = 1; c < 4; ++c) {
      if (std::fabs(v[c]) > std::fabs(v[largest])) largest = c;
    }
    for (uint32_t bits : {10u, 16u, 20u}) {
      const uint64_t code = quantize_rotation(q, bits);
      EXPECT_EQ(code & 3u, largest);
      const CurveKey key = decode_rotation(code, bits, 0);
      EXPECT_GE(key.value[largest], 0.5f);
      // Decoded in the hemisphere where the largest component is positive:
      // q itself, or -q when q's largest component was negative.
      const float sign = v[largest] < 0.f ? -1.f : 1.f;
      for (int c = 0; c < 4; ++c) EXPECT_NEAR(key.value[c], sign * v[c], 0.003f) << "component " << c;
    }
  }
}

TEST(QuantizeRotation, NegativeLargestComponentDecodesToTheSameRotation) {
  const Quat q = normalize(Quat{0.1f, -0.2f, 0.3f, -0.9f});
  const Quat decoded = decoded_rotation(q, 10);
  EXPECT_GT(decoded.w, 0.f);
  EXPECT_LE(angle_between_deg(q, decoded), smallest_three_bound_deg(10) + kAngleNoiseDeg);
  EXPECT_LE(angle_between_deg(-q, decoded), smallest_three_bound_deg(10) + kAngleNoiseDeg);
}

TEST(QuantizeRotation, EdgeRotationsRoundTripWithinTheBound) {
  const float h = kSmallestThreeBound;
  const Quat edges[] = {
      Quat{},
      Quat{0.f, 0.f, 0.f, -1.f},
      Quat{1.f, 0.f, 0.f, 0.f},
      Quat{0.f, -1.f, 0.f, 0.f},
      Quat{h, h, 0.f, 0.f},
      Quat{0.f, 0.f, -h, h},
      Quat{0.5f, 0.5f, 0.5f, 0.5f},
      Quat{-0.5f, 0.5f, -0.5f, 0.5f},
      normalize(Quat{1e-7f, 0.f, 0.f, 1.f}),
  };
  for (uint32_t bits = kMinRotationBits; bits <= kMaxRotationBits; ++bits) {
    for (const Quat& q : edges) {
      const Quat decoded = decoded_rotation(q, bits);
      EXPECT_LE(angle_between_deg(q, decoded), smallest_three_bound_deg(bits) + kAngleNoiseDeg)
          << bits << " bits, " << q.x << " " << q.y << " " << q.z << " " << q.w;
      EXPECT_NEAR(length(decoded), 1.f, 1e-5f);
    }
  }
}

TEST(QuantizeRotation, KeepsTheNearestOfTheComponentRoundings) {
  // The eight codes that round each small component down or up: none decodes
  // nearer than the one chosen.
  std::mt19937 rng(5);
  for (int i = 0; i < 300; ++i) {
    const Quat q = random_rotation(rng);
    float v[4] = {q.x, q.y, q.z, q.w};
    uint32_t largest = 0;
    for (uint32_t c = 1; c < 4; ++c) {
      if (std::fabs(v[c]) > std::fabs(v[largest])) largest = c;
    }
    if (v[largest] < 0.f) {
      for (float& x : v) x = -x;
    }
    for (uint32_t bits : {10u, 13u}) {
      const uint64_t mask = (uint64_t{1} << bits) - 1;
      const float chosen = angle_between_deg(q, decoded_rotation(q, bits));
      uint64_t low[3];
      int other = 0;
      for (uint32_t c = 0; c < 4; ++c) {
        if (c == largest) continue;
        const double scaled =
            (double{v[c]} + kSmallestThreeBound) / (2.0 * kSmallestThreeBound) * static_cast<double>(mask);
        low[other++] = std::min<uint64_t>(static_cast<uint64_t>(std::floor(scaled)), mask);
      }
      for (uint32_t combo = 0; combo < 8; ++combo) {
        uint64_t code = largest;
        bool valid = true;
        for (int k = 0; k < 3; ++k) {
          const uint64_t value = low[k] + ((combo >> k) & 1u);
          valid = valid && value <= mask;
          code |= value << (2 + k * static_cast<int>(bits));
        }
        if (!valid) continue;
        const CurveKey key = decode_rotation(code, bits, 0);
        const float angle = angle_between_deg(q, Quat{key.value[0], key.value[1], key.value[2], key.value[3]});
        EXPECT_GE(angle, chosen) << "rounding " << combo << " at " << bits << " bits decodes nearer";
      }
    }
  }
}

TEST(DecodeRotation, FillsTheFrameAndMatchesTheRuntimeDecoder) {
  const Quat q = normalize(Quat{0.3f, 0.1f, -0.5f, 0.8f});
  const uint64_t code = quantize_rotation(q, 14);
  const CurveKey key = decode_rotation(code, 14, 77);
  float runtime[4];
  dequantize_rotation(code, 14, runtime);
  EXPECT_EQ(key.frame, 77.f);
  for (int c = 0; c < 4; ++c) EXPECT_EQ(key.value[c], runtime[c]);
}

}  // namespace
}  // namespace ks
