#include "keystream/codec/bisection_segment_writer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "keystream/runtime/bisection_segment.h"
#include "keystream/runtime/quantization.h"
#include "tests/codec/bisection_tracks.h"

namespace ks {
namespace {

using namespace test;

// Every inner position once, each after the keys bracketing it, the upper
// levels first, and no deeper than four levels.
TEST(BisectionTree, EveryPositionOnceAfterItsBrackets) {
  for (uint32_t count = 1; count <= kKeysPerSegment; ++count) {
    SCOPED_TRACE(count);
    const BisectionTree& tree = kBisectionTrees[count];
    EXPECT_EQ(tree.count, count);
    EXPECT_EQ(tree.inner, count - 1);
    EXPECT_EQ(tree.group_size[0] + tree.group_size[1], count - 1);
    EXPECT_LE(tree.depth, 4u);
    std::vector<int> decoded(count + 1, 0);
    decoded[0] = decoded[count] = 1;
    for (uint32_t r = 0; r < tree.inner; ++r) {
      const BisectionNode& node = tree.node[r];
      ASSERT_GT(node.position, 0u);
      ASSERT_LT(node.position, count);
      EXPECT_EQ(decoded[node.position], 0) << "position " << int(node.position) << " twice";
      EXPECT_EQ(decoded[node.left], 1);
      EXPECT_EQ(decoded[node.right], 1);
      EXPECT_LT(node.left, node.position);
      EXPECT_GT(node.right, node.position);
      EXPECT_EQ(node.position, (node.left + node.right) / 2);
      EXPECT_EQ(node.group, r < tree.group_size[0] ? 0 : 1);
      EXPECT_EQ(tree.record_of[node.position], r);
      decoded[node.position] = 1;
    }
    EXPECT_EQ(std::count(decoded.begin(), decoded.end(), 1), static_cast<long>(count + 1));
  }
}

// The guess lies between the bracketing codes and is defined at the
// extremes of the code range and for frames out of order.
TEST(BisectionGuess, StaysBetweenItsKeysAtTheExtremes) {
  const int32_t lo = -kMaxCodeMagnitude, hi = kMaxCodeMagnitude;
  EXPECT_EQ(bisection_code_guess(lo, hi, 0, 65535, 0), lo);
  EXPECT_EQ(bisection_code_guess(lo, hi, 0, 65535, 65535), hi);
  EXPECT_EQ(bisection_code_guess(10, 20, 4, 4, 4), 10);
  EXPECT_EQ(bisection_code_guess(10, 20, 0, 10, 5), 15);
  EXPECT_EQ(bisection_code_guess(10, 20, 0, 4, 1), 13);  // 12.5 rounds up
  EXPECT_EQ(bisection_code_guess(10, 20, 0, 4, 9), 20);  // past the right key: held there
  EXPECT_EQ(bisection_code_guess(10, 20, 8, 4, 6), 10);  // forged order: the left key
  EXPECT_EQ(bisection_frame_guess(3, 10), 6u);
  std::mt19937 rng(7);
  std::uniform_int_distribution<int32_t> code(lo, hi);
  std::uniform_int_distribution<uint32_t> frame(0, 65535);
  for (int i = 0; i < 100000; ++i) {
    const int32_t a = code(rng), b = code(rng);
    uint32_t fa = frame(rng), fb = frame(rng);
    if (fa > fb) std::swap(fa, fb);
    const uint32_t f = fa + (fb > fa ? frame(rng) % (fb - fa + 1) : 0);
    const int32_t g = bisection_code_guess(a, b, fa, fb, f);
    ASSERT_GE(g, std::min(a, b));
    ASSERT_LE(g, std::max(a, b));
  }
}

// Every key reads back as written, segment after segment, over random
// tracks of every segment length.
TEST(BisectionSegment, EveryKeyReadsBackAsWritten) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 400; ++trial) {
    const RandomTrack t = random_track(rng, 1 + rng() % 70);
    const WrittenTrack written = write_track(t);
    BitReader reader(written.bytes);
    BisectionKey before = t.keys[0];
    for (const WrittenSegment& segment : written.segments) {
      ASSERT_EQ(reader.position(), segment.start_bit);
      BisectionKey decoded[kKeysPerSegment + 1];
      read_bisection_segment(reader, t.coding, segment.count, before, decoded);
      for (uint32_t p = 1; p <= segment.count; ++p) {
        ASSERT_TRUE(same_key(decoded[p], t.keys[segment.first + p - 1]))
            << "trial " << trial << " key " << segment.first + p - 1;
      }
      before = decoded[segment.count];
    }
    EXPECT_EQ(reader.position(), written.bits);
    EXPECT_FALSE(reader.overrun());
  }
}

// The descent finds the last key at or before a frame, as a search of the
// whole segment does, and the keys it decodes on the way are the segment's.
TEST(BisectionSegment, DescentFindsTheKeyAtAFrame) {
  std::mt19937 rng(23);
  for (int trial = 0; trial < 300; ++trial) {
    const RandomTrack t = random_track(rng, 1 + rng() % 40);
    const WrittenTrack written = write_track(t);
    for (const WrittenSegment& segment : written.segments) {
      const size_t s = segment.first;
      const uint32_t count = segment.count;
      const BisectionKey& before = t.keys[s - 1];
      for (uint32_t probe = 0; probe < 12; ++probe) {
        const uint32_t frame = random_frame_in(rng, t, segment);
        BitReader reader(written.bytes, segment.start_bit);
        const BisectionSegmentHead head = read_bisection_head(reader, t.coding, count);
        BisectionKey path[kKeysPerSegment + 1];
        const uint32_t found = find_in_bisection_segment(reader, head, count, before, frame, path);
        ASSERT_EQ(found, last_position_at(t, segment, frame)) << "trial " << trial << " frame " << frame;
        const BisectionKey& key = found == 0 ? before : t.keys[s + found - 1];
        ASSERT_TRUE(same_key(path[found], key));
      }
    }
  }
}

// Bytes that are no segment: reading them neither crashes nor reads out of
// bounds (the sanitizer build checks), whatever the widths claim.
TEST(BisectionSegment, ArbitraryBytesReadSafely) {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<uint8_t> bytes(1 + rng() % 64);
    for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng());
    const BisectionTrackCoding coding = random_coding(rng);
    const uint32_t count = 1 + rng() % kKeysPerSegment;
    BitReader reader(bytes);
    BisectionKey keys[kKeysPerSegment + 1];
    read_bisection_segment(reader, coding, count, BisectionKey{}, keys);
    BitReader again(bytes);
    const BisectionSegmentHead head = read_bisection_head(again, coding, count);
    find_in_bisection_segment(again, head, count, BisectionKey{}, static_cast<uint32_t>(rng()), keys);
  }
}

}  // namespace
}  // namespace ks
