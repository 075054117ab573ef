#include "core/runtime/quantization.h"

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

TEST(Vec3ComponentBits, SixteenBitsUnlessTheComponentNeverChanges) {
  TrackQuantization q;
  q.range_extent[0] = 0.f;
  q.range_extent[1] = 1e-30f;
  q.range_extent[2] = 20.f;
  EXPECT_EQ(vec3_component_bits(q, 0), 0u);
  EXPECT_EQ(vec3_component_bits(q, 1), 16u);
  EXPECT_EQ(vec3_component_bits(q, 2), 16u);
}

TEST(RotationCodeBits, IsTwoPlusThreeComponents) {
  EXPECT_EQ(rotation_code_bits(kMinRotationBits), 32u);  // the original engine's 32-bit key
  EXPECT_EQ(rotation_code_bits(15), 47u);
  EXPECT_EQ(rotation_code_bits(kMaxRotationBits), 62u);  // still fits a 64-bit code
}

TEST(DequantizeVec3Component, CodesSpanTheRangeUniformly) {
  TrackQuantization q;
  q.range_min[0] = -10.f;
  q.range_extent[0] = 20.f;
  const float step = 20.f / 65535.f;
  EXPECT_EQ(dequantize_vec3_component(q, 0, 0), -10.f);
  EXPECT_NEAR(dequantize_vec3_component(q, 0, 65535), 10.f, 1e-5f);
  EXPECT_NEAR(dequantize_vec3_component(q, 0, 32768), -10.f + 32768.f * step, 1e-6f);
  for (uint32_t code : {1u, 100u, 30000u, 65534u}) {
    const float delta = dequantize_vec3_component(q, 0, code) - dequantize_vec3_component(q, 0, code - 1);
    EXPECT_NEAR(delta, step, 1e-5f) << "code " << code;
  }
}

TEST(DequantizeVec3Component, EmptyRangeDecodesToItsMinimum) {
  TrackQuantization q;
  q.range_min[1] = 0.123f;
  q.range_extent[1] = 0.f;
  for (uint32_t code : {0u, 1u, 65535u}) EXPECT_EQ(dequantize_vec3_component(q, 1, code), 0.123f);
}

TEST(DequantizeRotation, ReadsTheDocumentedLayout) {
  // Largest component y (index 1); x at the top of the range, z at the
  // bottom, w in the middle of the 10-bit code range.
  const uint32_t bits = 10;
  const uint64_t mask = (uint64_t{1} << bits) - 1;
  float out[4];
  dequantize_rotation(rotation_code(1, bits, mask, 0, 0), bits, out);
  EXPECT_NEAR(out[0], kSmallestThreeBound, 1e-6f);
  EXPECT_NEAR(out[2], -kSmallestThreeBound, 1e-6f);
  EXPECT_NEAR(out[3], -kSmallestThreeBound, 1e-6f);
  // 1 - 3/2 < 0: the rebuilt component clamps to 0 rather than NaN.
  EXPECT_EQ(out[1], 0.f);

  // Largest component x (index 0): y, z, w from mid-range codes, x rebuilt from unit length.
  const float step = 2.f * kSmallestThreeBound / static_cast<float>(mask);
  dequantize_rotation(rotation_code(0, bits, 400, 511, 700), bits, out);
  EXPECT_NEAR(out[1], 400.f * step - kSmallestThreeBound, 1e-6f);
  EXPECT_NEAR(out[2], 511.f * step - kSmallestThreeBound, 1e-6f);
  EXPECT_NEAR(out[3], 700.f * step - kSmallestThreeBound, 1e-6f);
  EXPECT_GT(out[0], 0.f);
  EXPECT_NEAR(out[0] * out[0] + out[1] * out[1] + out[2] * out[2] + out[3] * out[3], 1.f, 1e-6f);
}

TEST(DequantizeRotation, RebuildsTheLargestComponentPositiveAtEveryWidth) {
  for (uint32_t bits = kMinRotationBits; bits <= kMaxRotationBits; ++bits) {
    SCOPED_TRACE(bits);
    const uint64_t mask = (uint64_t{1} << bits) - 1;
    for (uint32_t largest = 0; largest < 4; ++largest) {
      // Other components near a third of the range each: sum of squares < 1.
      float out[4];
      dequantize_rotation(rotation_code(largest, bits, mask / 3, mask / 2, 2 * mask / 3), bits, out);
      EXPECT_GT(out[largest], 0.5f);
      EXPECT_NEAR(out[0] * out[0] + out[1] * out[1] + out[2] * out[2] + out[3] * out[3], 1.f, 1e-5f);
    }
  }
}

TEST(DequantizeRotation, IgnoresBitsAboveTheCode) {
  // Bits above 2 + 3 * bits belong to whatever follows the code in a stream.
  const uint32_t bits = 12;
  const uint64_t code = rotation_code(2, bits, 1000, 2000, 3000);
  float clean[4], dirty[4];
  dequantize_rotation(code, bits, clean);
  dequantize_rotation(code | (~uint64_t{0} << (2 + 3 * bits)), bits, dirty);
  for (int c = 0; c < 4; ++c) EXPECT_EQ(clean[c], dirty[c]) << "component " << c;
}

}  // namespace
}  // namespace ks
