#include "keystream/runtime/bisection_lanes.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "keystream/runtime/segment_lanes.h"
#include "tests/codec/bisection_tracks.h"

namespace ks {
namespace {

using namespace test;

struct LevelGuard {
  ~LevelGuard() { set_simd_level(best_simd_level()); }
};

std::vector<SimdLevel> levels() {
  std::vector<SimdLevel> out = {SimdLevel::kScalar};
  if (best_simd_level() >= SimdLevel::kAvx2) out.push_back(SimdLevel::kAvx2);
  return out;
}

// Eight random tracks' segments in one key stream, as a player holds them.
struct Block {
  RandomTrack track[kLanesPerBlock];
  WrittenTrack written[kLanesPerBlock];
  uint64_t base_bit[kLanesPerBlock] = {};  // where each track starts in `bytes`
  std::vector<uint8_t> bytes;
};

Block random_block(std::mt19937& rng, bool narrow) {
  Block b;
  BitWriter out;
  for (uint32_t lane = 0; lane < kLanesPerBlock; ++lane) {
    b.track[lane] = random_track(rng, 1 + rng() % 50);
    if (narrow) {
      // Small steps: records within one 64-bit load, as mocap's are.
      for (BisectionKey& key : b.track[lane].keys) {
        for (int32_t& c : key.codes) c %= 500;
      }
      b.track[lane].coding.absolute_bits = 11;
    }
    b.written[lane] = write_track(b.track[lane]);
    b.base_bit[lane] = out.size_bits();
    for (uint64_t bit = 0; bit < b.written[lane].bits; ++bit) {
      out.write((b.written[lane].bytes[bit / 8] >> (bit % 8)) & 1u, 1);
    }
  }
  b.bytes = out.bytes();
  b.bytes.resize(b.bytes.size() + 8, 0);  // as a player pads its key stream: every record one load
  return b;
}

// What a lane's descent must give: the last position at or before the
// target, its key and the next one's.
struct Expected {
  uint32_t position = 0;
  BisectionKey left, right;
};
// The key at position p of segment `s` (0: the key before it).
const BisectionKey& key_at(const RandomTrack& t, const WrittenSegment& s, uint32_t p) { return t.keys[s.first + p - 1]; }

Expected expected(const RandomTrack& t, const WrittenSegment& s, uint32_t target, BisectionTarget kind) {
  const auto key = [&](uint32_t p) { return key_at(t, s, p); };
  Expected e;
  for (uint32_t p = 1; p <= s.count; ++p) {
    if (kind == BisectionTarget::kFrame ? key(p).frame <= target : p <= target) e.position = p;
  }
  e.left = key(e.position);
  e.right = key(std::min(e.position + 1, s.count));
  return e;
}

// Checks one descent of random segments of `b` at every level; counts in
// `kernel_blocks` those the AVX2 kernel read itself.
void check_block(const Block& b, std::mt19937& rng, BisectionTarget kind, const std::string& what,
                 int& kernel_blocks) {
  BisectionLanes lanes;
  BisectionSegmentHead heads[kLanesPerBlock];  // the lanes point at them
  uint32_t target[kLanesPerBlock] = {};
  const WrittenSegment* segment[kLanesPerBlock] = {};
  for (uint32_t lane = 0; lane < kLanesPerBlock; ++lane) {
    if (rng() % 7 == 0) {
      clear_bisection_lane(lanes, lane);
      continue;
    }
    const RandomTrack& t = b.track[lane];
    const WrittenSegment& s = b.written[lane].segments[rng() % b.written[lane].segments.size()];
    segment[lane] = &s;
    BitReader reader(b.bytes, b.base_bit[lane] + s.start_bit);
    heads[lane] = read_bisection_head(reader, t.coding, s.count);
    set_bisection_lane(lanes, lane, heads[lane], s.count, t.keys[s.first - 1]);
    if (kind == BisectionTarget::kFrame) {
      const uint32_t lo = t.keys[s.first - 1].frame, hi = t.keys[s.first + s.count - 1].frame + 2;
      target[lane] = lo + rng() % (hi - lo + 1);
    } else {
      target[lane] = rng() % (s.count + 2);
    }
  }
  LevelGuard guard;
  for (const SimdLevel level : levels()) {
    set_simd_level(level);
    BisectionBracket out;
    const uint32_t records = descend_bisection_lanes(lanes, b.bytes, target, kind, out);
    uint32_t most = 0;
    for (uint32_t lane = 0; lane < kLanesPerBlock; ++lane) {
      if (segment[lane] == nullptr) continue;
      most += 4;
      const Expected e = expected(b.track[lane], *segment[lane], target[lane], kind);
      const std::string where = what + ", " + to_string(level) + ", lane " + std::to_string(lane) + ", target " +
                                std::to_string(target[lane]);
      ASSERT_EQ(out.left_position[lane], e.position) << where;
      ASSERT_TRUE(same_key(out.left.key(lane), e.left)) << where;
      ASSERT_TRUE(same_key(out.right.key(lane), e.right)) << where;
      // The outer keys are the segment's at their positions, outside the bracket.
      const uint32_t outer_left = out.outer_left_position[lane], outer_right = out.outer_right_position[lane];
      ASSERT_LE(outer_left, e.position) << where;
      ASSERT_TRUE(outer_right >= e.position + 1 || outer_right == segment[lane]->count) << where;
      ASSERT_LE(outer_right, segment[lane]->count) << where;
      ASSERT_TRUE(same_key(out.outer_left.key(lane), key_at(b.track[lane], *segment[lane], outer_left))) << where;
      ASSERT_TRUE(same_key(out.outer_right.key(lane), key_at(b.track[lane], *segment[lane], outer_right))) << where;
    }
    EXPECT_LE(records, most) << what;  // at most four levels a lane
  }
#if defined(__x86_64__) || defined(_M_X64)
  if (best_simd_level() >= SimdLevel::kAvx2) {
    // Records within one load are the kernel's own, not left to the scalar reader.
    BisectionBracket out;
    uint32_t records = 0;
    const bool read = detail::descend_bisection_blocks_avx2(std::span(&lanes, 1), b.bytes.data(), b.bytes.size(),
                                                            target, kind, std::span(&out, 1), records) == 1;
    EXPECT_EQ(read, lanes.wide_lanes == 0) << what;
    kernel_blocks += read ? 1 : 0;
  }
#endif
}

// Every level's descent ends where a search of the whole segment does,
// with the keys on either side, in every lane: records narrow enough for
// the AVX2 kernel, and wide ones (which it leaves to the scalar reader).
TEST(BisectionLanes, DescentMatchesASearchInEveryLane) {
  std::mt19937 rng(41);
  int kernel_blocks = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const Block b = random_block(rng, trial % 3 != 0);
    for (int round = 0; round < 8; ++round) {
      const std::string what = "trial " + std::to_string(trial);
      check_block(b, rng, BisectionTarget::kFrame, what + " (frame)", kernel_blocks);
      check_block(b, rng, BisectionTarget::kPosition, what + " (position)", kernel_blocks);
    }
  }
  if (best_simd_level() >= SimdLevel::kAvx2) {
    EXPECT_GT(kernel_blocks, 1000);  // of 4,800
  }
}

// Several blocks descend together (kInterleavedBlocks at a time, a
// remainder after) to what each block's lanes give alone, outer keys
// included, whichever blocks the kernel leaves to the scalar reader.
TEST(BisectionLanes, BlocksTogetherMatchEachAlone) {
  std::mt19937 rng(77);
  for (int trial = 0; trial < 60; ++trial) {
    const Block b = random_block(rng, trial % 4 != 0);
    const size_t blocks = 1 + rng() % 7;
    std::vector<BisectionLanes> lanes(blocks);
    std::vector<BisectionSegmentHead> heads(blocks * kLanesPerBlock);
    std::vector<uint32_t> targets(blocks * kLanesPerBlock);
    for (size_t k = 0; k < blocks; ++k) {
      for (uint32_t lane = 0; lane < kLanesPerBlock; ++lane) {
        const RandomTrack& t = b.track[lane];
        const WrittenSegment& s = b.written[lane].segments[rng() % b.written[lane].segments.size()];
        BitReader reader(b.bytes, b.base_bit[lane] + s.start_bit);
        BisectionSegmentHead& head = heads[k * kLanesPerBlock + lane];
        head = read_bisection_head(reader, t.coding, s.count);
        set_bisection_lane(lanes[k], lane, head, s.count, t.keys[s.first - 1]);
        targets[k * kLanesPerBlock + lane] = t.keys[s.first - 1].frame + rng() % 200;
      }
    }
    std::vector<BisectionBracket> together(blocks), alone(blocks);
    descend_bisection_blocks(lanes, b.bytes, targets, BisectionTarget::kFrame, together);
    for (size_t k = 0; k < blocks; ++k) {
      detail::descend_bisection_lanes_scalar(lanes[k], b.bytes, targets.data() + k * kLanesPerBlock,
                                             BisectionTarget::kFrame, alone[k]);
      for (uint32_t lane = 0; lane < kLanesPerBlock; ++lane) {
        const std::string where = "trial " + std::to_string(trial) + " block " + std::to_string(k) + " lane " +
                                  std::to_string(lane);
        ASSERT_EQ(together[k].left_position[lane], alone[k].left_position[lane]) << where;
        ASSERT_EQ(together[k].outer_left_position[lane], alone[k].outer_left_position[lane]) << where;
        ASSERT_EQ(together[k].outer_right_position[lane], alone[k].outer_right_position[lane]) << where;
        for (const auto member : {&BisectionBracket::left, &BisectionBracket::right, &BisectionBracket::outer_left,
                                  &BisectionBracket::outer_right}) {
          ASSERT_TRUE(same_key((together[k].*member).key(lane), (alone[k].*member).key(lane))) << where;
        }
      }
    }
  }
}

// Heads and records read from arbitrary bytes: no level reads outside the
// stream (the sanitizer build checks) and every level agrees.
TEST(BisectionLanes, ArbitraryBytesReadSafelyAndAlike) {
  std::mt19937 rng(8);
  LevelGuard guard;
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<uint8_t> bytes(1 + rng() % 96);
    for (uint8_t& byte : bytes) byte = static_cast<uint8_t>(rng());
    BisectionLanes lanes;
    BisectionSegmentHead heads[kLanesPerBlock];
    uint32_t target[kLanesPerBlock] = {};
    for (uint32_t lane = 0; lane < kLanesPerBlock; ++lane) {
      BisectionTrackCoding coding;
      coding.coded_mask = static_cast<uint8_t>(rng() % 16);
      coding.absolute_bits = static_cast<uint8_t>(1 + rng() % 16);
      coding.frame_bits = static_cast<uint8_t>(rng() % 17);
      coding.negation_bits = rng() % 2 == 0;
      const uint32_t count = 1 + rng() % kKeysPerSegment;
      BitReader reader(bytes, rng() % (bytes.size() * 8));
      heads[lane] = read_bisection_head(reader, coding, count);
      BisectionKey before;
      before.frame = rng() % 65536;
      set_bisection_lane(lanes, lane, heads[lane], count, before);
      target[lane] = rng() % 65536;
    }
    BisectionBracket reference, simd;
    set_simd_level(SimdLevel::kScalar);
    descend_bisection_lanes(lanes, bytes, target, BisectionTarget::kFrame, reference);
    set_simd_level(best_simd_level());
    descend_bisection_lanes(lanes, bytes, target, BisectionTarget::kFrame, simd);
    for (uint32_t lane = 0; lane < kLanesPerBlock; ++lane) {
      ASSERT_EQ(reference.left_position[lane], simd.left_position[lane]) << "trial " << trial;
    }
  }
}

}  // namespace
}  // namespace ks
