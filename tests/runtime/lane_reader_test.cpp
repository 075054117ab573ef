#include "keystream/runtime/lane_reader.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
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

// A track's run of keys as StreamView lays it out: `keys` keys after its
// initial ones, in segments of random widths up to the widest a difference
// may take (keys up to kWidestPairLoadedKeyBits long), back to back from
// `start_bit`. Returns the bit after the run.
uint64_t random_run(std::mt19937& rng, uint32_t keys, uint64_t start_bit, std::vector<StreamSegment>& segments) {
  const uint32_t count = segment_count(kInitialKeysPerTrack + keys);
  uint64_t bit = start_bit;
  for (uint32_t s = 0; s < count; ++s) {
    StreamSegment& segment = segments.emplace_back();
    segment.start_bit = static_cast<uint32_t>(bit);
    // Half the segments wide: a frame difference and codes at their widest.
    const bool wide = rng() % 2 == 0;
    uint32_t key_bits = 0;
    for (uint32_t f = 0; f < kKeyFields; ++f) {
      const uint32_t widest = f == 0 ? kMaxFrameDifferenceBits : kMaxCodeDifferenceBits;
      const uint32_t width = wide ? widest - rng() % 4 : rng() % 12;
      segment.widths |= width << (f * kSegmentWidthBits);
      key_bits += width;
    }
    const uint32_t negation = rng() % 2;
    segment.widths |= negation << kSegmentNegationBit;
    key_bits += negation;
    bit += uint64_t{std::min(kKeysPerSegment, keys - s * kKeysPerSegment)} * key_bits;
  }
  return bit;
}

// Every level reads the same keys as the scalar reader, one key per lane
// (play) and in rounds into a ring (a seek), keys wider than one 64-bit
// load and up to the widest a stream may hold among them, some of them up
// to the last byte of the stream.
TEST(LaneReader, EveryLevelReadsWideKeysAsTheScalarReader) {
  LevelGuard guard;
  std::mt19937 rng(9);
  for (int trial = 0; trial < 60; ++trial) {
    std::vector<StreamSegment> segments;
    LaneCursors start;
    uint64_t bits = 0;
    for (uint32_t l = 0; l < kLanesPerBlock; ++l) {
      const uint32_t keys = 1 + rng() % 40;
      start.first_segment[l] = static_cast<uint32_t>(segments.size());
      bits = random_run(rng, keys, bits, segments);
      start.keys_read[l] = kInitialKeysPerTrack;
      start.keys_left[l] = static_cast<int32_t>(keys);
      start.frame[l] = static_cast<int32_t>(rng() % 8);
      start.need[l] = 0;
      start.frame_delta_min[l] = 1;
      for (int c = 0; c < 4; ++c) start.codes[c][l] = static_cast<int32_t>(rng() % 1000) - 500;
    }
    place_lane_cursors(start, 0xFFu, segments);
    // The run's bytes, random, and nothing after them: the last keys' loads
    // would pass the end, which the kernels must leave to the scalar reader.
    std::vector<uint8_t> stream((bits + 7) / 8);
    for (uint8_t& byte : stream) byte = static_cast<uint8_t>(rng());
    std::vector<uint32_t> due_masks;
    for (int i = 0; i < 60; ++i) due_masks.push_back(rng() % 256);
    uint32_t forced[kKeysPerLane] = {};
    for (uint32_t round = 1; round < kKeysPerLane; ++round) forced[round] = rng() % 256;
    const int64_t frame = static_cast<int64_t>(rng() % (1u << 19));

    struct Read {
      LaneCursors played;                // after reading one key per lane at a time
      std::vector<LaneArrivals> staged;  // each of those reads
      LaneCursors sought;                // after reading rounds into the ring
      KeyRing ring;
    };
    const auto read = [&](SimdLevel level) {
      set_simd_level(level);
      Read r;
      r.played = start;
      for (const uint32_t mask : due_masks) {
        const uint32_t due = mask & ~lanes_finished(r.played);
        if (due == 0) continue;
        SegmentLanes block;
        clear_arrivals(block.arrivals);
        read_lane_keys(block, r.played, due, stream, segments);
        r.staged.push_back(block.arrivals);
      }
      r.sought = start;
      r.ring = KeyRing{};
      read_lane_rounds(r.ring, r.sought, 1, forced, frame, stream, segments);
      return r;
    };
    const Read scalar = read(SimdLevel::kScalar);
    for (const SimdLevel level : {SimdLevel::kAvx2, SimdLevel::kAvx512}) {
      if (best_simd_level() < level) continue;
      const Read simd = read(level);
      const std::string where = std::string(to_string(level)) + ", trial " + std::to_string(trial);
      EXPECT_TRUE(same_cursors(simd.played, scalar.played)) << where;
      ASSERT_EQ(simd.staged.size(), scalar.staged.size()) << where;
      const auto same_key = [](const LaneArrivals& a, const LaneArrivals& b, uint32_t l) {
        return a.frame[l] == b.frame[l] && a.sign[l] == b.sign[l] && a.code[0][l] == b.code[0][l] &&
               a.code[1][l] == b.code[1][l] && a.code[2][l] == b.code[2][l] && a.code[3][l] == b.code[3][l];
      };
      for (size_t i = 0; i < scalar.staged.size(); ++i) {
        for (uint32_t l = 0; l < kLanesPerBlock; ++l) {
          EXPECT_EQ(simd.staged[i].arrived[l], scalar.staged[i].arrived[l]) << where << ", read " << i;
          if (scalar.staged[i].arrived[l] != 0.f) {
            EXPECT_TRUE(same_key(simd.staged[i], scalar.staged[i], l)) << where << ", read " << i << ", lane " << l;
          }
        }
      }
      // The ring holds each lane's last four keys read (slot i % 4 for its
      // i-th, from round 1).
      EXPECT_TRUE(same_cursors(simd.sought, scalar.sought)) << where;
      for (uint32_t l = 0; l < kLanesPerBlock; ++l) {
        const uint32_t read_keys = scalar.sought.keys_read[l] - start.keys_read[l];
        for (uint32_t i = read_keys > kKeysPerLane ? read_keys - kKeysPerLane + 1 : 1; i <= read_keys; ++i) {
          EXPECT_TRUE(same_key(simd.ring.slot[i % kKeysPerLane], scalar.ring.slot[i % kKeysPerLane], l))
              << where << ", lane " << l << ", key " << i;
        }
      }
    }
  }
}

}  // namespace
}  // namespace ks
