#pragma once
// Bisection segments (bisection_segment.h) descended eight tracks at a
// time, one lane each: the step with which a seek reaches a track's window
// without reading the keys before it. Every lane decodes one record per
// level, in lockstep; a lane whose interval is down to two neighbours
// takes no part in the levels left. AVX2 reads the eight records of a
// level with one 64-bit gather per half and per-lane shifts and masks, as
// lane_reader.h reads v11 keys. The path follows from frames alone (one
// field a record, no guess in floats), so the kernel descends on frames
// first and then decodes the path's codes one component at a time: a
// key's six values never have to be live together.

#include <cstdint>
#include <span>

#include "keystream/runtime/bisection_segment.h"
#include "keystream/runtime/lane_reader.h"

namespace ks {

/// Eight lanes' segments, set by set_bisection_lane; structure-of-arrays
/// for the SIMD kernel, with each lane's head at hand for the scalar one.
struct alignas(64) BisectionLanes {
  uint64_t records_bit[kBisectionGroups][kLanesPerBlock] = {};
  uint64_t key_bits[kBisectionGroups][kLanesPerBlock] = {};
  uint64_t shift[kBisectionGroups][kLaneFields][kLanesPerBlock] = {};
  uint64_t mask[kBisectionGroups][kLaneFields][kLanesPerBlock] = {};
  int32_t count[kLanesPerBlock] = {};  // keys in the lane's segment; 0: the lane takes no part
  // The keys at positions 0 (the one before the segment) and count (the anchor).
  int32_t frame[2][kLanesPerBlock] = {};
  int32_t code[2][4][kLanesPerBlock] = {};
  int32_t negated[2][kLanesPerBlock] = {};
  uint64_t end_byte[kLanesPerBlock] = {};  // the byte after the lane's last record
  uint32_t wide_lanes = 0;                 // lanes with records wider than one 64-bit load reads (bit l: lane l)
  // Components coded (bit c) and "negated" bits (bit 4) in some lane set
  // since the lanes were made: a superset only costs the kernel time.
  uint32_t coded = 0;
  const BisectionSegmentHead* head[kLanesPerBlock] = {};  // the caller's, alive while the lanes are used
};

/// Gives lane `lane` the segment of `count` keys (1..kKeysPerSegment) whose
/// head is `head` (kept by the caller while the lanes are used), `before`
/// being the key before it.
void set_bisection_lane(BisectionLanes& lanes, uint32_t lane, const BisectionSegmentHead& head, uint32_t count,
                        const BisectionKey& before);
/// Takes lane `lane` out of the next descents.
void clear_bisection_lane(BisectionLanes& lanes, uint32_t lane);

/// Eight lanes' keys, structure-of-arrays.
struct alignas(32) BisectionLaneKeys {
  int32_t frame[kLanesPerBlock] = {};
  int32_t code[4][kLanesPerBlock] = {};
  int32_t negated[kLanesPerBlock] = {};
  BisectionKey key(uint32_t lane) const {
    BisectionKey k;
    k.frame = static_cast<uint32_t>(frame[lane]);
    for (uint32_t c = 0; c < 4; ++c) k.codes[c] = code[c][lane];
    k.negated = negated[lane] != 0;
    return k;
  }
};

/// Where each lane's descent ended: the two neighbouring positions that
/// bracket its target and their keys, and the keys the descent had before
/// its last steps on either side (the bracket's outer neighbours where
/// their positions are left - 1 and left + 2).
struct BisectionBracket {
  alignas(32) uint32_t left_position[kLanesPerBlock] = {};
  alignas(32) uint32_t outer_left_position[kLanesPerBlock] = {};
  alignas(32) uint32_t outer_right_position[kLanesPerBlock] = {};
  BisectionLaneKeys left;
  BisectionLaneKeys right;  // position left + 1; the anchor again when left is the anchor
  BisectionLaneKeys outer_left;
  BisectionLaneKeys outer_right;
};

/// What a descent aims at in each lane.
enum class BisectionTarget : uint8_t {
  kFrame,     // the last position whose key's frame is at or before the target (0 when none is)
  kPosition,  // the target position itself (0..count)
};

/// Blocks a descent takes together: a level of each waits on its gathers,
/// and the blocks' chains are independent.
inline constexpr size_t kInterleavedBlocks = 4;

/// descend_bisection_lanes over several blocks (`targets`: eight per block,
/// `out`: one per block), up to kInterleavedBlocks descending together.
uint32_t descend_bisection_blocks(std::span<const BisectionLanes> blocks, std::span<const uint8_t> key_stream,
                                  std::span<const uint32_t> targets, BisectionTarget kind,
                                  std::span<BisectionBracket> out);

/// Descends every lane with a segment towards `target[lane]` (a frame or a
/// position), decoding only the keys on the way: the result equals
/// find_in_bisection_segment's (kFrame) lane by lane. Records are read from
/// `key_stream`, where each lane's head was read; a record that would read
/// past it decodes as zero bits. Eight lanes at a time where the CPU has
/// AVX2 (records up to kWidestLoadedKeyBits; wider ones lane by lane).
/// Returns the records decoded (over every lane), for the counters.
uint32_t descend_bisection_lanes(const BisectionLanes& lanes, std::span<const uint8_t> key_stream,
                                 const uint32_t (&target)[kLanesPerBlock], BisectionTarget kind,
                                 BisectionBracket& out);

namespace detail {
/// Per segment length and position (both 0..kKeysPerSegment): the record's
/// index within its group (bisection_segment.h), the group following from
/// the level.
struct BisectionIndexTable {
  uint8_t at[kKeysPerSegment + 1][kKeysPerSegment + 1];
  uint8_t padding[3];  // the AVX2 kernel gathers the table by 32-bit words
};
extern const BisectionIndexTable kBisectionIndexInGroup;
/// The reference, lane by lane (`target`: eight).
uint32_t descend_bisection_lanes_scalar(const BisectionLanes& lanes, std::span<const uint8_t> key_stream,
                                        const uint32_t* target, BisectionTarget kind, BisectionBracket& out);
#if defined(__x86_64__) || defined(_M_X64)
/// The AVX2 kernel over the first kInterleavedBlocks of `blocks` (targets:
/// eight per block). Returns the blocks it read (bit b: block b); the
/// others, whose records are too wide for one load or too near the
/// stream's end, are left to the scalar reader.
uint32_t descend_bisection_blocks_avx2(std::span<const BisectionLanes> blocks, const uint8_t* key_stream, size_t bytes,
                                       std::span<const uint32_t> targets, BisectionTarget kind,
                                       std::span<BisectionBracket> out, uint32_t& records);
#endif
}  // namespace detail

}  // namespace ks
