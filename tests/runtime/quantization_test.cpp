#include "keystream/runtime/quantization.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

namespace ks {
namespace {

// A smallest-three code from its parts: the index of the largest component,
// then the other three component codes in order.
uint64_t rotation_code(uint32_t largest, uint32_t bits, uint64_t a, uint64_t b, uint64_t c) {
  return uint64_t{largest} | (a << 2) | (b << (2 + bits)) | (c << (2 + 2 * bits));
}

float squared_length(const float* q) { return q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]; }

TEST(TrackQuantization, CodedComponentsFollowTheMask) {
  TrackQuantization q;
  EXPECT_EQ(q.coded_count(), 0);
  q.coded_mask = 0b0101;
  EXPECT_TRUE(q.coded(0));
  EXPECT_FALSE(q.coded(1));
  EXPECT_TRUE(q.coded(2));
  EXPECT_FALSE(q.coded(3));
  EXPECT_EQ(q.coded_count(), 2);
  q.coded_mask = 0b1111;
  EXPECT_EQ(q.coded_count(), 4);
}

TEST(DequantizeKey, Vec3CodesScaleByTheStepAndConstantsPassThrough) {
  TrackQuantization q;
  q.step = 0.25f;
  q.coded_mask = 0b101;
  q.constant[1] = 0.123f;
  const int32_t codes[4] = {-3, 999, 8, 77};  // y and w are not coded: ignored
  float out[4] = {9.f, 9.f, 9.f, 9.f};
  dequantize_key(TrackKind::kTranslation, q, codes, out);
  EXPECT_EQ(out[0], -0.75f);
  EXPECT_EQ(out[1], 0.123f);  // bit for bit the stored float
  EXPECT_EQ(out[2], 2.f);
  EXPECT_EQ(out[3], 0.f);
  // The largest codes stay exact integers times the step.
  const int32_t extreme[4] = {kMaxCodeMagnitude, 0, -kMaxCodeMagnitude, 0};
  dequantize_key(TrackKind::kScale, q, extreme, out);
  EXPECT_EQ(out[0], static_cast<float>(kMaxCodeMagnitude) * 0.25f);
  EXPECT_EQ(out[2], -static_cast<float>(kMaxCodeMagnitude) * 0.25f);
  EXPECT_EQ(static_cast<float>(kMaxCodeMagnitude), 16777215.f);  // every code is a float exactly
}

TEST(DequantizeKey, FullRotationsScaleAllFourComponents) {
  TrackQuantization q;
  q.rotation = RotationCoding::kFull;
  q.coded_mask = 0b1111;
  q.step = 1.f / 1024.f;
  const int32_t codes[4] = {512, -256, 0, 768};
  float out[4];
  dequantize_key(TrackKind::kRotation, q, codes, out);
  EXPECT_EQ(out[0], 0.5f);
  EXPECT_EQ(out[1], -0.25f);
  EXPECT_EQ(out[2], 0.f);
  EXPECT_EQ(out[3], 0.75f);  // not normalised: the curve normalises after interpolation
}

TEST(DequantizeKey, RelativeRotationsRebuildWAndApplyTheReference) {
  TrackQuantization q;
  q.rotation = RotationCoding::kRelative;
  q.coded_mask = 0b0111;
  q.step = 1.f / 1024.f;
  // With the identity reference, the key is the relative rotation itself.
  const int32_t codes[4] = {0, 384, 0, 0};  // y = 0.375
  float out[4];
  dequantize_key(TrackKind::kRotation, q, codes, out);
  EXPECT_EQ(out[0], 0.f);
  EXPECT_EQ(out[1], 0.375f);
  EXPECT_EQ(out[2], 0.f);
  EXPECT_FLOAT_EQ(out[3], std::sqrt(1.f - 0.375f * 0.375f));
  EXPECT_GE(out[3], 0.f);
  // A reference R: the key is R * relative.
  const float turned[4] = {0.f, 0.f, std::sqrt(0.5f), std::sqrt(0.5f)};  // 90 degrees about z
  for (int c = 0; c < 4; ++c) q.reference[c] = turned[c];
  float relative[4] = {0.f, 0.375f, 0.f, 0.f};
  relative[3] = std::sqrt(1.f - 0.375f * 0.375f);
  float expected[4];
  multiply_quaternions(turned, relative, expected);
  dequantize_key(TrackKind::kRotation, q, codes, out);
  for (int c = 0; c < 4; ++c) EXPECT_EQ(out[c], expected[c]) << c;
  EXPECT_NEAR(squared_length(out), 1.f, 1e-6f);
  // Codes past unit length rebuild w as 0 rather than NaN.
  const int32_t long_codes[4] = {1024, 1024, 0, 0};
  dequantize_key(TrackKind::kRotation, q, long_codes, out);
  for (float v : out) EXPECT_TRUE(std::isfinite(v));
}

TEST(MultiplyQuaternions, IsTheHamiltonProduct) {
  const float i[4] = {1.f, 0.f, 0.f, 0.f}, j[4] = {0.f, 1.f, 0.f, 0.f}, k[4] = {0.f, 0.f, 1.f, 0.f};
  const float one[4] = {0.f, 0.f, 0.f, 1.f};
  float out[4];
  multiply_quaternions(i, j, out);  // i j = k
  for (int c = 0; c < 4; ++c) EXPECT_EQ(out[c], k[c]);
  multiply_quaternions(j, i, out);  // j i = -k
  for (int c = 0; c < 4; ++c) EXPECT_EQ(out[c], -k[c] + 0.f);
  multiply_quaternions(i, i, out);  // i i = -1
  EXPECT_EQ(out[3], -1.f);
  multiply_quaternions(one, k, out);
  for (int c = 0; c < 4; ++c) EXPECT_EQ(out[c], k[c]);
}

TEST(DequantizeSmallestThree, ReadsTheDocumentedLayout) {
  // Largest component y (index 1); x at the top of the range, z at the
  // bottom, w in the middle of the 10-bit code range.
  const uint32_t bits = kReferenceComponentBits;
  const uint64_t mask = (uint64_t{1} << bits) - 1;
  float out[4];
  dequantize_smallest_three(rotation_code(1, bits, mask, 0, 0), bits, out);
  EXPECT_NEAR(out[0], kSmallestThreeBound, 1e-6f);
  EXPECT_NEAR(out[2], -kSmallestThreeBound, 1e-6f);
  EXPECT_NEAR(out[3], -kSmallestThreeBound, 1e-6f);
  // 1 - 3/2 < 0: the rebuilt component clamps to 0 rather than NaN.
  EXPECT_EQ(out[1], 0.f);

  const float step = 2.f * kSmallestThreeBound / static_cast<float>(mask);
  dequantize_smallest_three(rotation_code(0, bits, 400, 511, 700), bits, out);
  EXPECT_NEAR(out[1], 400.f * step - kSmallestThreeBound, 1e-6f);
  EXPECT_NEAR(out[2], 511.f * step - kSmallestThreeBound, 1e-6f);
  EXPECT_NEAR(out[3], 700.f * step - kSmallestThreeBound, 1e-6f);
  EXPECT_GT(out[0], 0.f);
  EXPECT_NEAR(squared_length(out), 1.f, 1e-6f);
  EXPECT_EQ(kReferenceCodeBits, 32u);
}

TEST(DequantizeSmallestThree, IgnoresBitsAboveTheCode) {
  const uint32_t bits = kReferenceComponentBits;
  const uint64_t code = rotation_code(2, bits, 100, 200, 300);
  float clean[4], dirty[4];
  dequantize_smallest_three(code, bits, clean);
  dequantize_smallest_three(code | (~uint64_t{0} << (2 + 3 * bits)), bits, dirty);
  for (int c = 0; c < 4; ++c) EXPECT_EQ(clean[c], dirty[c]) << "component " << c;
}

}  // namespace
}  // namespace ks
