#include "keystream/codec/quantize.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "keystream/runtime/transform.h"
#include "tests/codec/random_clip.h"

namespace ks {
namespace {

constexpr double kRadToDeg = 57.29577951308232;

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

Quat decoded_smallest_three(Quat q, uint32_t bits) {
  const float v[4] = {q.x, q.y, q.z, q.w};
  float out[4];
  dequantize_smallest_three(quantize_smallest_three(v, bits), bits, out);
  return Quat{out[0], out[1], out[2], out[3]};
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


// The error of a key of `kind` on `value` with quantization `q`, decoded as
// the player decodes a key standing alone (normalised for rotations).
float round_trip_error(TrackKind kind, const TrackQuantization& q, const float* value) {
  int32_t codes[4];
  quantize_key(kind, q, value, codes);
  for (int c = 0; c < 4; ++c) {
    EXPECT_LE(std::abs(codes[c]), kMaxCodeMagnitude);
    if (!q.coded(c)) {
      EXPECT_EQ(codes[c], 0) << "component " << c << " is not coded";
    }
  }
  CurveKey key = decode_key(kind, q, codes, 0);
  if (kind == TrackKind::kRotation) normalize_rotation(key.value);
  return track_error(kind, value, key.value);
}

std::vector<Sample> rotation_samples(const std::vector<Quat>& rotations) {
  std::vector<Sample> samples;
  for (const Quat& q : rotations) samples.push_back({q.x, q.y, q.z, q.w});
  return samples;
}

// --- track_error ---------------------------------------------------------------------

TEST(TrackError, IsInTheKindsUnit) {
  const float a[4] = {1.f, 2.f, 3.f, 0.f}, b[4] = {1.f, 2.f + 0.3f, 3.f + 0.4f, 0.f};
  EXPECT_NEAR(track_error(TrackKind::kTranslation, a, b), 0.5f, 1e-6f);  // distance
  EXPECT_NEAR(track_error(TrackKind::kScale, a, b), 0.4f, 1e-6f);        // largest component
  const Quat turned = quat_from_axis_angle({0.f, 0.f, 1.f}, 0.1f);
  const float r0[4] = {0.f, 0.f, 0.f, 1.f};
  const float r1[4] = {2.f * turned.x, 2.f * turned.y, 2.f * turned.z, 2.f * turned.w};  // normalised first
  EXPECT_NEAR(track_error(TrackKind::kRotation, r0, r1), 0.1f * static_cast<float>(kRadToDeg), 1e-3f);
}

// --- smallest three (the reference rotation of relative tracks) -------------------

TEST(QuantizeSmallestThree, RandomRotationsRoundTripWithinTheDerivedBound) {
  std::mt19937 rng(2024);
  for (uint32_t bits : {kReferenceComponentBits, 14u, 20u}) {
    SCOPED_TRACE(bits);
    double worst = 0.0;
    for (int i = 0; i < 4000; ++i) {
      const Quat q = random_rotation(rng);
      const float v[4] = {q.x, q.y, q.z, q.w};
      const uint64_t code = quantize_smallest_three(v, bits);
      EXPECT_EQ(code >> (2 + 3 * bits), 0u) << "bits above the code are set";
      worst = std::max<double>(worst, angle_between_deg(q, decoded_smallest_three(q, bits)));
    }
    EXPECT_LE(worst, smallest_three_bound_deg(bits) + kAngleNoiseDeg);
  }
}

TEST(QuantizeSmallestThree, KeepsTheNearestOfTheComponentRoundings) {
  std::mt19937 rng(5);
  const uint32_t bits = kReferenceComponentBits;
  const uint64_t mask = (uint64_t{1} << bits) - 1;
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
    const float chosen = angle_between_deg(q, decoded_smallest_three(q, bits));
    uint64_t low[3];
    int other = 0;
    for (uint32_t c = 0; c < 4; ++c) {
      if (c == largest) continue;
      const double scaled = (double{v[c]} + kSmallestThreeBound) / (2.0 * kSmallestThreeBound) * static_cast<double>(mask);
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
      float out[4];
      dequantize_smallest_three(code, bits, out);
      EXPECT_GE(angle_between_deg(q, Quat{out[0], out[1], out[2], out[3]}), chosen) << "rounding " << combo;
    }
  }
}

// --- choose_quantization, quantize_key, decode_key --------------------------------

TEST(ChooseQuantization, ConstantComponentsAreExactAndNotCoded) {
  const std::vector<Sample> samples = {{0.1f, 0.37f, -3.f, 0.f}, {0.2f, 0.37f, -3.f, 0.f}, {0.3f, 0.37f, -3.f, 0.f}};
  for (const TrackKind kind : {TrackKind::kTranslation, TrackKind::kScale}) {
    const ChosenQuantization chosen = choose_quantization(kind, samples, 1e-4f);
    const TrackQuantization& q = chosen.quantization;
    EXPECT_EQ(q.coded_mask, 0b001);
    EXPECT_EQ(q.constant[1], 0.37f);
    EXPECT_EQ(q.constant[2], -3.f);
    for (const Sample& s : samples) {
      int32_t codes[4];
      quantize_key(kind, q, s.data(), codes);
      EXPECT_EQ(codes[1], 0);
      EXPECT_EQ(codes[2], 0);
      const CurveKey key = decode_key(kind, q, codes, 7);
      EXPECT_EQ(key.frame, 7.f);
      EXPECT_EQ(key.value[1], 0.37f);  // bit for bit
      EXPECT_EQ(key.value[2], -3.f);
      EXPECT_LE(std::fabs(key.value[0] - s[0]), 1e-4f);
    }
  }
  // Nothing changes: nothing is coded.
  const std::vector<Sample> still(5, Sample{1.f, 2.f, 3.f, 0.f});
  EXPECT_EQ(choose_quantization(TrackKind::kTranslation, still, 1e-4f).quantization.coded_mask, 0);
}

TEST(ChooseQuantization, Vec3KeysRoundTripWithinTheKeyError) {
  test::TestRandom rng(11);
  for (int track = 0; track < 200; ++track) {
    const TrackKind kind = track % 2 == 0 ? TrackKind::kTranslation : TrackKind::kScale;
    const float key_error = std::pow(10.f, rng.uniform(-6.f, -2.f));
    std::vector<Sample> samples(50);
    float centre[3], extent[3];
    for (int c = 0; c < 3; ++c) {
      centre[c] = rng.uniform(-100.f, 100.f);
      extent[c] = std::pow(10.f, rng.uniform(-6.f, 2.f));
    }
    for (Sample& s : samples) {
      for (int c = 0; c < 3; ++c) s[c] = centre[c] + extent[c] * rng.uniform(-1.f, 1.f);
    }
    const ChosenQuantization chosen = choose_quantization(kind, samples, key_error);
    SCOPED_TRACE(::testing::Message() << "track " << track << ", key error " << key_error << ", step "
                                      << chosen.quantization.step << ", floor " << chosen.floor);
    EXPECT_GT(chosen.quantization.step, 0.f);
    float worst = 0.f;
    for (const Sample& s : samples) worst = std::max(worst, round_trip_error(kind, chosen.quantization, s.data()));
    EXPECT_EQ(worst, chosen.floor);  // the floor is the largest error of a key on any sample
    // Within the key error unless the code range stops it: 2^24 steps over
    // values up to 200 m allow about 1.2e-5 m.
    const float range_limit = 200.f / static_cast<float>(kMaxCodeMagnitude);
    if (key_error > 2.f * range_limit) {
      EXPECT_LE(chosen.floor, key_error);
    }
    if (testing::Test::HasFailure()) return;
  }
}

TEST(ChooseQuantization, RelativeRotationsRoundTripWithinTheKeyError) {
  test::TestRandom rng(12);
  for (int track = 0; track < 100; ++track) {
    const float key_error = std::pow(10.f, rng.uniform(-4.f, 0.f));  // degrees
    // Rotations within some 90 degrees of a random centre.
    const Quat centre = normalize(Quat{rng.uniform(-1.f, 1.f), rng.uniform(-1.f, 1.f), rng.uniform(-1.f, 1.f), 1.f});
    std::vector<Quat> rotations;
    for (int i = 0; i < 40; ++i) {
      const Vec3 v{rng.uniform(-1.f, 1.f), rng.uniform(-1.f, 1.f), rng.uniform(-1.f, 1.f) + 0.01f};
      const Vec3 axis = v * (1.f / length(v));
      rotations.push_back(centre * quat_from_axis_angle(axis, rng.uniform(-0.8f, 0.8f)));
    }
    make_rotations_continuous(rotations);
    const std::vector<Sample> samples = rotation_samples(rotations);
    const ChosenQuantization chosen = choose_quantization(TrackKind::kRotation, samples, key_error);
    SCOPED_TRACE(::testing::Message() << "track " << track << ", key error " << key_error << " deg, floor "
                                      << chosen.floor);
    const TrackQuantization& q = chosen.quantization;
    EXPECT_EQ(q.rotation, RotationCoding::kRelative);
    EXPECT_EQ(q.coded_mask, 0b0111);
    // The reference is its smallest-three code decoded.
    float reference[4];
    dequantize_smallest_three(q.reference_code, kReferenceComponentBits, reference);
    for (int c = 0; c < 4; ++c) EXPECT_EQ(q.reference[c], reference[c]);
    float worst = 0.f;
    for (const Sample& s : samples) worst = std::max(worst, round_trip_error(TrackKind::kRotation, q, s.data()));
    EXPECT_EQ(worst, chosen.floor);
    EXPECT_LE(chosen.floor, key_error);
    if (testing::Test::HasFailure()) return;
  }
}

TEST(ChooseQuantization, SpinningRotationsTakeTheFullCoding) {
  // Several turns: no reference keeps every key's w away from 0.
  std::vector<Quat> rotations;
  for (int f = 0; f < 60; ++f) {
    rotations.push_back(quat_from_axis_angle(Vec3{0.3f, 1.f, 0.2f} * (1.f / length(Vec3{0.3f, 1.f, 0.2f})), 0.4f * static_cast<float>(f)));
  }
  make_rotations_continuous(rotations);
  const std::vector<Sample> samples = rotation_samples(rotations);
  for (const float key_error : {1.f, 0.05f, 0.001f}) {
    SCOPED_TRACE(key_error);
    const ChosenQuantization chosen = choose_quantization(TrackKind::kRotation, samples, key_error);
    EXPECT_EQ(chosen.quantization.rotation, RotationCoding::kFull);
    EXPECT_EQ(chosen.quantization.coded_mask, 0b1111);
    float worst = 0.f;
    for (const Sample& s : samples) worst = std::max(worst, round_trip_error(TrackKind::kRotation, chosen.quantization, s.data()));
    EXPECT_EQ(worst, chosen.floor);
    EXPECT_LE(chosen.floor, key_error);
  }
}

TEST(ChooseQuantization, AFinerKeyErrorGivesAFinerStep) {
  const std::vector<Sample> samples = {{0.f, 0.f, 0.f, 0.f}, {0.5f, -0.25f, 1.f, 0.f}, {1.f, 0.5f, -1.f, 0.f}};
  float previous = 1e9f;
  for (const float key_error : {1e-2f, 1e-3f, 1e-4f, 1e-5f}) {
    const ChosenQuantization chosen = choose_quantization(TrackKind::kTranslation, samples, key_error);
    EXPECT_LT(chosen.quantization.step, previous) << key_error;
    EXPECT_LE(chosen.floor, key_error);
    previous = chosen.quantization.step;
  }
}

TEST(ChooseQuantization, AFloorAboveTheKeyErrorOnlyWhereTheCodeRangeStopsIt) {
  // 1e6 m over 2^24 codes: no step finer than ~0.06 m keeps every code in range.
  const std::vector<Sample> samples = {{-1e6f, 0.f, 0.f, 0.f}, {1e6f, 1.f, 0.f, 0.f}};
  const ChosenQuantization chosen = choose_quantization(TrackKind::kTranslation, samples, 1e-4f);
  EXPECT_GT(chosen.floor, 1e-4f);
  EXPECT_LT(chosen.floor, 0.2f);
  for (const Sample& s : samples) {
    int32_t codes[4];
    quantize_key(TrackKind::kTranslation, chosen.quantization, s.data(), codes);
    for (int c = 0; c < 4; ++c) EXPECT_LE(std::abs(codes[c]), kMaxCodeMagnitude);
  }
}

TEST(QuantizeKey, KeepsTheNearestRoundingOfEachComponent) {
  TrackQuantization q;
  q.coded_mask = 0b111;
  q.step = 0.1f;
  const float value[4] = {0.349f, -0.351f, 1e9f, 0.f};
  int32_t codes[4];
  quantize_key(TrackKind::kTranslation, q, value, codes);
  EXPECT_EQ(codes[0], 3);
  EXPECT_EQ(codes[1], -4);
  EXPECT_EQ(codes[2], kMaxCodeMagnitude);  // clamped to the code range
  EXPECT_EQ(codes[3], 0);
}

TEST(DecodeKey, MatchesTheRuntimeDecoder) {
  TrackQuantization q;
  q.rotation = RotationCoding::kRelative;
  q.coded_mask = 0b0111;
  q.step = 1.f / 3000.f;
  const float reference[4] = {0.1f, 0.2f, 0.3f, 0.9f};
  q.reference_code = static_cast<uint32_t>(quantize_smallest_three(reference, kReferenceComponentBits));
  dequantize_smallest_three(q.reference_code, kReferenceComponentBits, q.reference);
  const int32_t codes[4] = {120, -700, 33, 0};
  const CurveKey key = decode_key(TrackKind::kRotation, q, codes, 77);
  float runtime[4];
  dequantize_key(TrackKind::kRotation, q, codes, runtime);
  EXPECT_EQ(key.frame, 77.f);
  for (int c = 0; c < 4; ++c) EXPECT_EQ(key.value[c], runtime[c]);
}

}  // namespace
}  // namespace ks
