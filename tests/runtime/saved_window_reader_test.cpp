#include "keystream/runtime/saved_window_reader.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "keystream/codec/bit_writer.h"
#include "keystream/runtime/stream_format.h"

namespace ks {
namespace {

struct LevelGuard {
  ~LevelGuard() { set_simd_level(best_simd_level()); }
};

// One lane's saved window as written.
struct Window {
  uint32_t keys_read = 0, before = 0;
  int32_t codes[4] = {};
  bool negated = false;
};

// A random block: lanes in the states or not, tracks that save oldest keys
// or not, components coded or not; a state of their windows written after
// `lead` bits, with `tail` bytes after it.
struct Block {
  SavedWindowLanes lanes;
  Window windows[kLanesPerBlock];
  std::vector<uint8_t> states;
  uint64_t state_bit = 0;
};

Block random_block(std::mt19937& rng, uint32_t tail) {
  Block block;
  const uint32_t key_index_bits = 4 + rng() % 14;
  const uint32_t lead = rng() % 200;
  BitWriter writer;
  for (uint32_t i = 0; i < lead; ++i) writer.write(rng() % 2, 1);
  block.state_bit = writer.size_bits();
  for (uint32_t l = 0; l < kLanesPerBlock; ++l) {
    if (rng() % 5 == 0) continue;  // no window: a constant track, or padding
    const uint32_t max_count = (1u << key_index_bits) - 1;
    const uint32_t key_count = kInitialKeysPerTrack + 1 + rng() % (max_count - kInitialKeysPerTrack);
    const uint32_t difference_bits = rng() % (kFrameBits + 1);
    const uint32_t absolute_bits = 1 + rng() % kMaxAbsoluteCodeBits;
    const uint8_t coded = static_cast<uint8_t>(rng() % 16);
    const bool negation = rng() % 2 == 0;
    set_saved_window_lane(block.lanes, l, static_cast<uint32_t>(writer.size_bits() - block.state_bit), key_count,
                          key_index_bits, difference_bits, absolute_bits, coded, negation);
    Window& w = block.windows[l];
    // Counts out of range now and then (kept to 3..key count on reading).
    w.keys_read = rng() % 8 == 0 ? static_cast<uint32_t>(rng() % (max_count + 1)) : 3 + rng() % (key_count - 2);
    writer.write(w.keys_read, key_index_bits);
    if (!saves_oldest_key(key_count)) continue;
    w.before = difference_bits == 0 ? 0 : static_cast<uint32_t>(rng() % (1u << difference_bits));
    writer.write(w.before, difference_bits);
    for (int c = 0; c < 4; ++c) {
      if (((coded >> c) & 1u) == 0) continue;
      const int32_t limit = (1 << (absolute_bits - 1)) - 1;
      w.codes[c] = static_cast<int32_t>(rng() % (2 * static_cast<uint32_t>(limit) + 1)) - limit;
      writer.write_signed(w.codes[c], absolute_bits);
    }
    if (negation) {
      w.negated = rng() % 2 == 0;
      writer.write(w.negated ? 1 : 0, 1);
    }
  }
  block.states = writer.bytes();
  block.states.resize(block.states.size() + tail, 0xA5);
  return block;
}

struct Read {
  LaneCursors c;
  LaneArrivals slot{};
  uint32_t keys_read[kLanesPerBlock] = {};
  uint32_t saved = 0;
};

Read read(const Block& block, SimdLevel level, uint32_t jump_frame) {
  set_simd_level(level);
  Read out;
  for (uint32_t l = 0; l < kLanesPerBlock; ++l) {
    out.c.need[l] = 77;
    out.c.keys_read[l] = 5;
    out.slot.frame[l] = -1.f;
  }
  out.saved = read_saved_windows(block.lanes, block.states, block.state_bit, jump_frame, out.c, out.slot,
                                 out.keys_read);
  return out;
}

TEST(SavedWindowReader, ReadsEachLanesWindowEightAtATimeAsOneByOne) {
  LevelGuard guard;
  std::mt19937 rng(3);
  for (int trial = 0; trial < 400; ++trial) {
    SCOPED_TRACE(trial);
    // Tails of 0..3 bytes make the last fields' 32-bit loads pass the end:
    // the AVX2 kernel then leaves the block to the lane-by-lane reader.
    const Block block = random_block(rng, static_cast<uint32_t>(trial % 8));
    const uint32_t jump_frame = rng() % 70000;
    const Read scalar = read(block, SimdLevel::kScalar, jump_frame);
    for (uint32_t l = 0; l < kLanesPerBlock; ++l) {
      const bool streamed = ((block.lanes.streamed >> l) & 1u) != 0;
      const Window& w = block.windows[l];
      const uint32_t key_count = static_cast<uint32_t>(block.lanes.key_count[l]);
      const uint32_t count = !streamed                          ? 0
                             : w.keys_read < kInitialKeysPerTrack ? kInitialKeysPerTrack
                             : w.keys_read > key_count            ? key_count
                                                                  : w.keys_read;
      EXPECT_EQ(scalar.keys_read[l], count) << "lane " << l;
      const bool saved = count >= kRestoreFromRunKeys;
      EXPECT_EQ((scalar.saved >> l) & 1u, saved ? 1u : 0u) << "lane " << l;
      if (!saved) {
        EXPECT_EQ(scalar.c.need[l], 77) << "lane " << l;  // untouched
        EXPECT_EQ(scalar.c.keys_read[l], 5u);
        EXPECT_EQ(scalar.slot.frame[l], -1.f);
        continue;
      }
      const uint32_t frame = w.before <= jump_frame ? jump_frame - w.before : 0;
      EXPECT_EQ(scalar.slot.frame[l], static_cast<float>(frame));
      EXPECT_EQ(scalar.c.frame[l], static_cast<int32_t>(frame));
      EXPECT_EQ(scalar.c.need[l], 0);
      EXPECT_EQ(scalar.c.keys_read[l], count - 3);
      EXPECT_EQ(scalar.c.keys_left[l], static_cast<int32_t>(key_count - (count - 3)));
      EXPECT_EQ(scalar.slot.sign[l], w.negated ? -1.f : 1.f);
      EXPECT_EQ(scalar.slot.arrived[l], 1.f);
      for (int c = 0; c < 4; ++c) {
        EXPECT_EQ(scalar.c.codes[c][l], w.codes[c]) << "lane " << l << " component " << c;
        EXPECT_EQ(scalar.slot.code[c][l], static_cast<float>(w.codes[c]));
      }
    }
    if (best_simd_level() < SimdLevel::kAvx2) continue;
    const Read avx2 = read(block, SimdLevel::kAvx2, jump_frame);
    EXPECT_EQ(avx2.saved, scalar.saved);
    EXPECT_EQ(std::memcmp(avx2.keys_read, scalar.keys_read, sizeof avx2.keys_read), 0);
    EXPECT_EQ(std::memcmp(avx2.c.codes, scalar.c.codes, sizeof avx2.c.codes), 0);
    EXPECT_EQ(std::memcmp(avx2.c.frame, scalar.c.frame, sizeof avx2.c.frame), 0);
    EXPECT_EQ(std::memcmp(avx2.c.need, scalar.c.need, sizeof avx2.c.need), 0);
    EXPECT_EQ(std::memcmp(avx2.c.keys_left, scalar.c.keys_left, sizeof avx2.c.keys_left), 0);
    EXPECT_EQ(std::memcmp(avx2.c.keys_read, scalar.c.keys_read, sizeof avx2.c.keys_read), 0);
    EXPECT_EQ(std::memcmp(avx2.slot.code, scalar.slot.code, sizeof avx2.slot.code), 0);
    EXPECT_EQ(std::memcmp(avx2.slot.frame, scalar.slot.frame, sizeof avx2.slot.frame), 0);
    EXPECT_EQ(std::memcmp(avx2.slot.sign, scalar.slot.sign, sizeof avx2.slot.sign), 0);
    EXPECT_EQ(std::memcmp(avx2.slot.arrived, scalar.slot.arrived, sizeof avx2.slot.arrived), 0);
  }
}

}  // namespace
}  // namespace ks
