#include "core/runtime/lane_reader.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

namespace ks {
namespace {

// Restores the best kernels when a test that picked a level ends.
struct LevelGuard {
  ~LevelGuard() { set_simd_level(best_simd_level()); }
};

bool same_cursors(const LaneCursors& a, const LaneCursors& b) {
  const auto same = [](const auto& x, const auto& y) { return std::memcmp(&x, &y, sizeof x) == 0; };
  return same(a.bit, b.bit) && same(a.shift, b.shift) && same(a.mask, b.mask) && same(a.key_bits, b.key_bits) &&
         same(a.codes, b.codes) && same(a.frame, b.frame) && same(a.need, b.need) && same(a.keys_left, b.keys_left) &&
         same(a.frame_delta_min, b.frame_delta_min) && same(a.keys_read, b.keys_read) &&
         same(a.segment_end, b.segment_end) && same(a.first_segment, b.first_segment) && a.wide_lanes == b.wide_lanes;
}

// Segments of random widths (some keys wider than one 64-bit load) and starts.
std::vector<StreamSegment> random_segments(std::mt19937& rng, uint32_t count) {
  std::vector<StreamSegment> segments(count);
  for (StreamSegment& s : segments) {
    s.start_bit = rng() % (1u << 30);
    for (uint32_t f = 0; f < kKeyFields; ++f) {
      s.widths |= (rng() % (kMaxCodeDifferenceBits + 1)) << (f * kSegmentWidthBits);
    }
    s.widths |= (rng() % 2) << kSegmentNegationBit;
  }
  return segments;
}

// A block whose lanes point into the segments at random keys, with junk in
// the fields a layout load writes.
LaneCursors random_cursors(std::mt19937& rng, uint32_t first_segments) {
  LaneCursors c;
  for (uint32_t l = 0; l < kLanesPerBlock; ++l) {
    c.first_segment[l] = rng() % first_segments;
    c.keys_read[l] = kInitialKeysPerTrack + rng() % (4 * kKeysPerSegment);
    c.bit[l] = rng();
    c.key_bits[l] = rng() % 128;
    c.segment_end[l] = rng();
    for (uint32_t f = 0; f < kLaneFields; ++f) {
      c.shift[f][l] = rng() % 64;
      c.mask[f][l] = rng();
    }
  }
  c.wide_lanes = rng() % 256;
  return c;
}

TEST(LaneReader, LoadsLayoutsAndPlacesCursorsEightLanesAtATimeAsOneByOne) {
  LevelGuard guard;
  std::mt19937 rng(5);
  const std::vector<StreamSegment> segments = random_segments(rng, 200);
  for (int trial = 0; trial < 300; ++trial) {
    const LaneCursors before = random_cursors(rng, 100);
    const uint32_t lanes = rng() % 256;
    for (const bool place : {false, true}) {
      const auto load = [&](SimdLevel level) {
        set_simd_level(level);
        LaneCursors c = before;
        if (place) {
          place_lane_cursors(c, lanes, segments);
        } else {
          load_lane_layouts(c, lanes, segments);
        }
        return c;
      };
      const LaneCursors scalar = load(SimdLevel::kScalar);
      // The scalar loads, lane by lane: each lane of `lanes` at its key's segment.
      for (uint32_t l = 0; l < kLanesPerBlock; ++l) {
        const bool loaded = ((lanes >> l) & 1u) != 0;
        const uint32_t key = before.keys_read[l];
        const StreamSegment& segment = segments[before.first_segment[l] + segment_of_key(key)];
        uint32_t bits = 0;
        for (uint32_t f = 0; f < kKeyFields; ++f) bits += (segment.widths >> (f * kSegmentWidthBits)) & 31u;
        bits += (segment.widths >> kSegmentNegationBit) & 1u;
        EXPECT_EQ(scalar.key_bits[l], loaded ? bits : before.key_bits[l]);
        EXPECT_EQ(scalar.segment_end[l], loaded ? next_segment_key(key) : before.segment_end[l]);
        EXPECT_EQ((scalar.wide_lanes >> l) & 1u, loaded ? (bits > kWidestLoadedKeyBits ? 1u : 0u)
                                                        : (before.wide_lanes >> l) & 1u);
        const uint64_t placed = segment.start_bit + uint64_t{(key - kInitialKeysPerTrack) % kKeysPerSegment} * bits;
        EXPECT_EQ(scalar.bit[l], loaded && place ? placed : before.bit[l]);
      }
      if (best_simd_level() < SimdLevel::kAvx2) continue;
      EXPECT_TRUE(same_cursors(load(SimdLevel::kAvx2), scalar)) << "lanes " << lanes << (place ? ", placed" : "");
    }
  }
}

}  // namespace
}  // namespace ks
