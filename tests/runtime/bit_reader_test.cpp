#include "keystream/runtime/bit_reader.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "keystream/codec/bit_writer.h"

namespace ks {
namespace {

uint64_t random_value(std::mt19937_64& rng, uint32_t bits) {
  const uint64_t v = rng();
  return bits == 64 ? v : v & ((uint64_t{1} << bits) - 1u);
}

// Bit `i` of `bytes`, least significant bit of byte 0 first.
uint64_t bit_at(const std::vector<uint8_t>& bytes, uint64_t i) {
  return (bytes[i >> 3] >> (i & 7u)) & 1u;
}

TEST(BitReader, RoundTripsRandomWidthsFromBitWriter) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 50; ++trial) {
    SCOPED_TRACE(trial);
    std::vector<std::pair<uint64_t, uint32_t>> fields;
    BitWriter writer;
    uint64_t total_bits = 0;
    for (int i = 0; i < 200; ++i) {
      const uint32_t bits = static_cast<uint32_t>(rng() % 65);  // 0..64
      const uint64_t value = random_value(rng, bits);
      writer.write(value, bits);
      fields.emplace_back(value, bits);
      total_bits += bits;
    }
    ASSERT_EQ(writer.size_bits(), total_bits);
    ASSERT_EQ(writer.bytes().size(), (total_bits + 7) / 8);
    // A copy of exactly the written bytes, so a read past them is a heap overflow under ASan.
    const std::vector<uint8_t> bytes = writer.bytes();
    BitReader reader(bytes);
    EXPECT_EQ(reader.size_bits(), bytes.size() * 8);
    for (size_t i = 0; i < fields.size(); ++i) {
      const auto [value, bits] = fields[i];
      ASSERT_EQ(reader.read64(bits), value) << "field " << i << " of " << bits << " bits";
    }
    EXPECT_EQ(reader.position(), total_bits);
    EXPECT_FALSE(reader.overrun());
  }
}

TEST(BitReader, ReadsEveryWidthAtEveryPositionNearTheEnd) {
  // The last 8 bytes take the byte-by-byte path; check it against a
  // reference for every start and width, on buffers of exactly the size.
  std::mt19937_64 rng(11);
  for (size_t size = 1; size <= 17; ++size) {
    std::vector<uint8_t> bytes(size);
    for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng());
    const uint64_t size_bits = uint64_t{size} * 8;
    for (uint64_t start = 0; start <= size_bits; ++start) {
      for (uint32_t bits = 0; bits <= 32 && start + bits <= size_bits; ++bits) {
        BitReader reader(bytes, start);
        uint64_t expected = 0;
        for (uint32_t i = 0; i < bits; ++i) expected |= bit_at(bytes, start + i) << i;
        ASSERT_EQ(reader.read(bits), expected) << "size " << size << " start " << start << " bits " << bits;
        ASSERT_FALSE(reader.overrun());
        ASSERT_EQ(reader.position(), start + bits);
      }
    }
  }
}

TEST(BitReader, ZeroBitsReadZeroAndDoNotMove) {
  const std::vector<uint8_t> bytes = {0xFF};
  BitReader reader(bytes, 3);
  EXPECT_EQ(reader.read(0), 0u);
  EXPECT_EQ(reader.read64(0), 0u);
  EXPECT_EQ(reader.position(), 3u);
  EXPECT_FALSE(reader.overrun());
}

TEST(BitReader, ReadsPastTheEndGiveZerosAndOverrun) {
  for (size_t size = 0; size <= 12; ++size) {
    SCOPED_TRACE(size);
    const std::vector<uint8_t> bytes(size, 0xFF);
    for (uint32_t bits = 1; bits <= 32; ++bits) {
      // Read everything that fits in whole fields of this width, then one more.
      BitReader reader(bytes);
      const uint64_t whole = bytes.size() * 8 / bits;
      for (uint64_t i = 0; i < whole; ++i) ASSERT_EQ(reader.read(bits), (uint64_t{1} << bits) - 1u);
      ASSERT_FALSE(reader.overrun());
      // The next field starts exactly at the end or straddles it; either
      // way nothing of it is returned (the bytes are all ones).
      EXPECT_EQ(reader.read(bits), 0u) << bits;
      EXPECT_TRUE(reader.overrun());
      EXPECT_EQ(reader.position(), reader.size_bits());
      // Once overrun, every further read is zero too.
      EXPECT_EQ(reader.read(bits), 0u);
      EXPECT_EQ(reader.read64(64), 0u);
      EXPECT_TRUE(reader.overrun());
    }
  }
}

TEST(BitReader, Read64PastTheEndOverrunsWithoutReadingOutside) {
  for (size_t size = 0; size <= 12; ++size) {
    SCOPED_TRACE(size);
    const std::vector<uint8_t> bytes(size, 0xA5);
    for (uint32_t bits = 33; bits <= 64; ++bits) {
      BitReader reader(bytes);
      const uint64_t value = reader.read64(bits);
      if (uint64_t{bits} <= reader.size_bits()) {
        EXPECT_FALSE(reader.overrun());
        uint64_t expected = 0;
        for (uint32_t i = 0; i < bits; ++i) expected |= bit_at(bytes, i) << i;
        EXPECT_EQ(value, expected);
      } else {
        EXPECT_TRUE(reader.overrun()) << bits;
        EXPECT_EQ(reader.position(), reader.size_bits());
      }
    }
  }
}

TEST(BitReader, SeekingPastTheEndThenReadingOverruns) {
  const std::vector<uint8_t> bytes = {1, 2, 3};
  BitReader reader(bytes);
  reader.seek(1000);
  EXPECT_EQ(reader.read(1), 0u);
  EXPECT_TRUE(reader.overrun());
  for (const uint64_t start : {uint64_t{25}, uint64_t{1} << 32, uint64_t{1} << 62}) {
    BitReader far(bytes, start);
    EXPECT_EQ(far.read(32), 0u);
    EXPECT_TRUE(far.overrun());
  }
  BitReader empty;
  EXPECT_EQ(empty.read(8), 0u);
  EXPECT_TRUE(empty.overrun());
}

TEST(BitReader, SeekReturnsToAnEarlierField) {
  BitWriter writer;
  writer.write(5, 3);
  writer.write(0x1234, 16);
  writer.write(1, 1);
  const std::vector<uint8_t> bytes = writer.bytes();
  BitReader reader(bytes);
  reader.read(3);
  const uint64_t at = reader.position();
  EXPECT_EQ(reader.read(16), 0x1234u);
  EXPECT_EQ(reader.read(1), 1u);
  reader.seek(at);
  EXPECT_EQ(reader.read(16), 0x1234u);
  EXPECT_FALSE(reader.overrun());
}

TEST(BitReader, PeekDoesNotMoveAndSkipDoes) {
  const std::vector<uint8_t> bytes = {0xA5, 0x3C, 0x0F};
  BitReader reader(bytes);
  EXPECT_EQ(reader.peek(4), 0x5u);
  EXPECT_EQ(reader.peek(12), 0xCA5u);
  EXPECT_EQ(reader.position(), 0u);
  reader.skip(4);
  EXPECT_EQ(reader.position(), 4u);
  EXPECT_EQ(reader.peek(8), 0xCAu);
  EXPECT_EQ(reader.read(8), 0xCAu);
  // Bits past the end peek as zeros without an overrun.
  reader.seek(20);
  EXPECT_EQ(reader.peek(17), 0x0u);
  EXPECT_FALSE(reader.overrun());
  reader.seek(16);
  EXPECT_EQ(reader.peek(17), 0x0Fu);
  EXPECT_FALSE(reader.overrun());
  EXPECT_EQ(reader.peek(0), 0u);
  // Skipping past the end is an overrun and stops at the end.
  reader.skip(9);
  EXPECT_TRUE(reader.overrun());
  EXPECT_EQ(reader.position(), 24u);
  EXPECT_EQ(reader.peek(8), 0u);
}

TEST(BitsFor, CountsTheBitsOfTheLargestValue) {
  EXPECT_EQ(bits_for(0), 0u);
  EXPECT_EQ(bits_for(1), 1u);
  EXPECT_EQ(bits_for(2), 2u);
  EXPECT_EQ(bits_for(3), 2u);
  EXPECT_EQ(bits_for(255), 8u);
  EXPECT_EQ(bits_for(256), 9u);
  EXPECT_EQ(bits_for(65535), 16u);
  EXPECT_EQ(bits_for(std::numeric_limits<uint64_t>::max()), 64u);
}

}  // namespace
}  // namespace ks
