#include "keystream/runtime/key_coding.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "keystream/codec/bit_writer.h"
#include "keystream/runtime/bit_reader.h"
#include "keystream/runtime/quantization.h"

namespace ks {
namespace {

TEST(Zigzag, MapsSmallMagnitudesToSmallNumbers) {
  EXPECT_EQ(zigzag(0), 0u);
  EXPECT_EQ(zigzag(-1), 1u);
  EXPECT_EQ(zigzag(1), 2u);
  EXPECT_EQ(zigzag(-2), 3u);
  EXPECT_EQ(zigzag(std::numeric_limits<int32_t>::max()), 0xFFFFFFFEu);
  EXPECT_EQ(zigzag(std::numeric_limits<int32_t>::min()), 0xFFFFFFFFu);
  for (const int32_t v : {0, 1, -1, 2, -2, 1000, -1000, kMaxCodeMagnitude, -kMaxCodeMagnitude,
                          2 * kMaxCodeMagnitude, -2 * kMaxCodeMagnitude, std::numeric_limits<int32_t>::max(),
                          std::numeric_limits<int32_t>::min()}) {
    EXPECT_EQ(unzigzag(zigzag(v)), v) << v;
  }
}

TEST(SignExtend, ReadsTwosComplementFields) {
  EXPECT_EQ(sign_extend(0b1, 1), -1);
  EXPECT_EQ(sign_extend(0b0, 1), 0);
  EXPECT_EQ(sign_extend(0b0111, 4), 7);
  EXPECT_EQ(sign_extend(0b1000, 4), -8);
  EXPECT_EQ(sign_extend(0x1FFFFFFu, kMaxAbsoluteCodeBits), -1);
  EXPECT_EQ(sign_extend(0x0FFFFFFu, kMaxAbsoluteCodeBits), kMaxCodeMagnitude);
  EXPECT_EQ(sign_extend(0x1000001u, kMaxAbsoluteCodeBits), -kMaxCodeMagnitude);
  EXPECT_EQ(sign_extend(0x80000000u, 32), std::numeric_limits<int32_t>::min());
}

TEST(RiceCode, CountsItsBits) {
  EXPECT_EQ(rice_bits(0, 0), 1u);
  EXPECT_EQ(rice_bits(5, 0), 6u);
  EXPECT_EQ(rice_bits(5, 2), 4u);                    // quotient 1: "01", then 2 bits
  EXPECT_EQ(rice_bits(15, 0), 16u);                  // quotient 15: the longest unary code
  EXPECT_EQ(rice_bits(16, 0), kRiceEscapeZeros + kRiceEscapeBits);  // quotient 16: the escape
  EXPECT_EQ(rice_bits((16u << 3) - 1, 3), 19u);
  EXPECT_EQ(rice_bits(16u << 3, 3), 48u);
}

TEST(RiceCode, WritesTheDocumentedBits) {
  BitWriter writer;
  writer.write_rice(5, 2);  // quotient 1: one 0, a 1, then 01
  EXPECT_EQ(writer.size_bits(), 4u);
  EXPECT_EQ(writer.bytes()[0], 0b0110);  // LSB first: 0, 1, then 1, 0
  BitWriter escape;
  escape.write_rice(0xABCDEF, 0);  // quotient far past 16: 16 zeros, then 32 raw bits
  EXPECT_EQ(escape.size_bits(), 48u);
  BitReader reader(escape.bytes());
  EXPECT_EQ(reader.read(16), 0u);
  EXPECT_EQ(reader.read(32), 0xABCDEFu);
}

TEST(RiceCode, RoundTripsEveryParameterAndTheEscape) {
  std::vector<std::pair<uint32_t, uint32_t>> cases;  // value, parameter
  for (uint32_t k = 0; k <= kMaxRiceParameter; ++k) {
    for (const uint32_t v : {0u, 1u, 2u, 3u, 7u, 100u, 65535u, 1u << 20, (1u << 26) - 1, 0xFFFFFFFFu}) {
      cases.push_back({v, k});
    }
    // Either side of the escape.
    cases.push_back({(kRiceEscapeZeros << k) - 1, k});
    cases.push_back({kRiceEscapeZeros << k, k});
  }
  BitWriter writer;
  uint64_t expected_bits = 0;
  for (const auto& [v, k] : cases) {
    writer.write_rice(v, k);
    expected_bits += rice_bits(v, k);
    writer.write(1, 1);  // a marker, so a code reading one bit too many or too few shows
  }
  EXPECT_EQ(writer.size_bits(), expected_bits + cases.size());
  BitReader reader(writer.bytes());
  for (const auto& [v, k] : cases) {
    EXPECT_EQ(read_rice(reader, k), v) << "value " << v << " parameter " << k;
    EXPECT_EQ(reader.read(1), 1u) << "value " << v << " parameter " << k;
  }
  EXPECT_FALSE(reader.overrun());
}

TEST(RiceCode, AnAllZeroTailReadsAsAnEscapeAndOverruns) {
  // A stream cut inside a code: the reader must not loop or read outside.
  const std::vector<uint8_t> zeros(2, 0);
  BitReader reader(zeros);
  EXPECT_EQ(read_rice(reader, 3), 0u);
  EXPECT_TRUE(reader.overrun());
}

TEST(SignedField, RoundTripsEveryWidth) {
  for (uint32_t bits = 1; bits <= kMaxAbsoluteCodeBits; ++bits) {
    const int32_t high = static_cast<int32_t>((uint32_t{1} << (bits - 1)) - 1);
    const int32_t low = -high - 1;
    BitWriter writer;
    for (const int32_t v : {0, high, low, bits > 1 ? -1 : 0}) writer.write_signed(v, bits);
    BitReader reader(writer.bytes());
    for (const int32_t v : {0, high, low, bits > 1 ? -1 : 0}) EXPECT_EQ(sign_extend(reader.read(bits), bits), v) << bits;
  }
}

TEST(KeyCoding, ComparesEveryField) {
  KeyCoding a, b;
  EXPECT_EQ(a, b);
  b.absolute_bits = 7;
  EXPECT_FALSE(a == b);
  b = a;
  b.value_rice[3] = 1;
  EXPECT_FALSE(a == b);
  b = a;
  b.frame_rice = 2;
  EXPECT_FALSE(a == b);
  b = a;
  b.frame_delta_min = 0;
  EXPECT_FALSE(a == b);
}

}  // namespace
}  // namespace ks
