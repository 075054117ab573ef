#pragma once
// Bisection segments: a key layout weighed for format v12's random access
// (issue 41), the reading half; core/codec/bisection_segment_writer.h
// writes it. No stream uses it: its lockstep descent took two thirds of
// v11's whole seek (docs/benchmarks.md, "The bisection descent").
//
// A track's stream keys (keys 3, 4, ...) fall in segments of
// kKeysPerSegment, as in stream_key_layout.h. Within a segment, keys are
// numbered by position: position 0 is the key before the segment (the
// previous segment's last key, or the track's key 2), positions 1..count
// the segment's keys. The last (position count) is the segment's anchor,
// stored absolute. Every other key is coded against a guess from the two
// keys bracketing it: the middle position between 0 and count first
// (level 1), then the middle of each half (level 2), and so on. A key is
// therefore reached from the anchors by decoding at most four others, so a
// seek needs no jump frame and reads no key it does not use; and the guess
// (the line between the bracketing keys) leaves smaller residuals than a
// difference from the key before (keystream-key-layout-probe: the shared
// mocap takes 4-6% smaller without their jump frames).
//
// A segment's bits: the anchor (its frame in `frame_bits`, each coded
// component two's complement in the track's absolute width, then the
// "negated" bit on tracks that carry one); the widths of the upper group's
// records (levels 1-3) and of the lower group's (levels 4 and deeper), each
// the frame residual's and each coded component's (kSegmentWidthBits),
// present only when the group has records; then the records, in storage
// order (level by level, left to right): frame residual, component
// residuals (zigzag), "negated" bit.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

#include "keystream/runtime/bit_reader.h"
#include "keystream/runtime/key_coding.h"
#include "keystream/runtime/stream_key_layout.h"

namespace ks {

/// Levels 1..kBisectionUpperLevels share the upper group's widths.
inline constexpr uint32_t kBisectionUpperLevels = 3;
inline constexpr uint32_t kBisectionGroups = 2;

/// A key coded against two others: its position and theirs.
struct BisectionNode {
  uint8_t position = 0;
  uint8_t left = 0;   // the bracketing keys, decoded before it
  uint8_t right = 0;
  uint8_t group = 0;  // 0: levels 1..kBisectionUpperLevels; 1: deeper
};

/// The storage order of a segment of `count` keys: its inner keys
/// (positions 1..count-1) level by level, the upper group first.
struct BisectionTree {
  uint8_t count = 0;
  uint8_t inner = 0;  // count - 1 records
  uint8_t group_size[kBisectionGroups] = {0, 0};
  BisectionNode node[kKeysPerSegment - 1] = {};
  uint8_t record_of[kKeysPerSegment + 1] = {};  // position -> index in `node` (positions 1..count-1)
  uint8_t depth = 0;  // levels
};

constexpr BisectionTree make_bisection_tree(uint32_t count) {
  BisectionTree tree;
  tree.count = static_cast<uint8_t>(count);
  struct Span {
    uint32_t left, right, level;
  };
  Span queue[kKeysPerSegment] = {};
  uint32_t head = 0, tail = 0;
  if (count >= 2) queue[tail++] = {0, count, 1};
  while (head < tail) {
    const Span s = queue[head++];
    const uint32_t middle = (s.left + s.right) / 2;
    BisectionNode& n = tree.node[tree.inner];
    n.position = static_cast<uint8_t>(middle);
    n.left = static_cast<uint8_t>(s.left);
    n.right = static_cast<uint8_t>(s.right);
    n.group = s.level <= kBisectionUpperLevels ? 0 : 1;
    tree.record_of[middle] = tree.inner;
    ++tree.group_size[n.group];
    ++tree.inner;
    if (s.level > tree.depth) tree.depth = static_cast<uint8_t>(s.level);
    if (middle - s.left >= 2) queue[tail++] = {s.left, middle, s.level + 1};
    if (s.right - middle >= 2) queue[tail++] = {middle, s.right, s.level + 1};
  }
  return tree;
}

/// The tree of each segment length (index: keys in the segment, 1..kKeysPerSegment).
inline constexpr std::array<BisectionTree, kKeysPerSegment + 1> kBisectionTrees = [] {
  std::array<BisectionTree, kKeysPerSegment + 1> trees{};
  for (uint32_t count = 1; count <= kKeysPerSegment; ++count) trees[count] = make_bisection_tree(count);
  return trees;
}();
static_assert(kBisectionTrees[kKeysPerSegment].depth == 4, "a key is reached through at most four others");
static_assert(kBisectionTrees[kKeysPerSegment].group_size[0] == 7 && kBisectionTrees[kKeysPerSegment].group_size[1] == 8);

/// One key as the segments code it.
struct BisectionKey {
  uint32_t frame = 0;
  int32_t codes[4] = {0, 0, 0, 0};  // components not coded stay 0
  bool negated = false;
};

/// The guess of a key's frame: the middle of the bracketing keys' frames.
constexpr uint32_t bisection_frame_guess(uint32_t left_frame, uint32_t right_frame) {
  return left_frame + ((right_frame - left_frame) >> 1);
}

/// The guess of a code: the line between the bracketing keys' codes, at
/// the key's frame, rounded half up, never past either code. Float arithmetic with
/// -ffp-contract=off: the writer, this reader and the SIMD readers round
/// alike. Defined for any input (a forged segment's frames may be out of
/// order): the fraction is kept within 0..1.
inline int32_t bisection_code_guess(int32_t left_code, int32_t right_code, uint32_t left_frame, uint32_t right_frame,
                                    uint32_t frame) {
  const float span = static_cast<float>(static_cast<int64_t>(right_frame) - static_cast<int64_t>(left_frame));
  if (!(span > 0.f)) return left_code;
  float t = static_cast<float>(static_cast<int64_t>(frame) - static_cast<int64_t>(left_frame)) / span;
  t = t < 0.f ? 0.f : (t > 1.f ? 1.f : t);
  const int64_t rise = static_cast<int64_t>(right_code) - static_cast<int64_t>(left_code);
  // A rise past 2^24 rounds as a float: the step is held within it.
  int64_t step = static_cast<int64_t>(std::floor(static_cast<float>(rise) * t + 0.5f));
  step = std::clamp<int64_t>(step, rise < 0 ? rise : 0, rise < 0 ? 0 : rise);
  return static_cast<int32_t>(left_code + step);
}

/// What a reader needs of a track to read its segments.
struct BisectionTrackCoding {
  uint8_t coded_mask = 0;    // components coded (TrackQuantization::coded_mask)
  uint8_t absolute_bits = 1; // width of an anchor's codes (two's complement)
  uint8_t frame_bits = 0;    // width of an anchor's frame
  bool negation_bits = false;
};

/// Bits of one group's widths.
constexpr uint32_t bisection_group_width_bits(uint8_t coded_mask) { return segment_width_bits(coded_mask); }

/// The parts of a segment a reader finds before it reads a record: the
/// anchor, each group's record layout and where its records start.
struct BisectionSegmentHead {
  BisectionKey anchor;
  StreamKeyLayout group[kBisectionGroups];
  uint64_t records_bit[kBisectionGroups] = {0, 0};  // first record of each group
  uint64_t end_bit = 0;                             // the bit after the segment
};

/// Reads the head of the segment of `count` keys at `reader`'s position.
inline BisectionSegmentHead read_bisection_head(BitReader& reader, const BisectionTrackCoding& track, uint32_t count) {
  BisectionSegmentHead head;
  head.anchor.frame = reader.read(track.frame_bits);
  for (uint32_t c = 0; c < 4; ++c) {
    if (((track.coded_mask >> c) & 1u) != 0) {
      head.anchor.codes[c] = sign_extend(reader.read(track.absolute_bits), track.absolute_bits);
    }
  }
  head.anchor.negated = track.negation_bits && reader.read(1) != 0;
  const BisectionTree& tree = kBisectionTrees[count];
  for (uint32_t g = 0; g < kBisectionGroups; ++g) {
    if (tree.group_size[g] == 0) continue;
    uint32_t widths[kKeyFields];
    read_segment_widths(reader, track.coded_mask, widths);
    head.group[g] = make_stream_key_layout(widths, track.negation_bits);
  }
  head.records_bit[0] = reader.position();
  head.records_bit[1] = head.records_bit[0] + uint64_t{tree.group_size[0]} * head.group[0].key_bits;
  head.end_bit = head.records_bit[1] + uint64_t{tree.group_size[1]} * head.group[1].key_bits;
  return head;
}

/// The key of record `record` (storage order), from its residuals and the
/// bracketing keys.
inline BisectionKey read_bisection_record(BitReader& reader, const BisectionSegmentHead& head, const BisectionTree& tree,
                                          uint32_t record, const BisectionKey& left, const BisectionKey& right) {
  const BisectionNode& node = tree.node[record];
  const StreamKeyLayout& layout = head.group[node.group];
  const uint64_t in_group = node.group == 0 ? record : record - tree.group_size[0];
  reader.seek(head.records_bit[node.group] + in_group * layout.key_bits);
  const auto field = [&](uint32_t f) { return reader.read(static_cast<uint32_t>(std::bit_width(layout.mask[f]))); };
  BisectionKey key;
  key.frame = bisection_frame_guess(left.frame, right.frame) + static_cast<uint32_t>(unzigzag(field(0)));
  for (uint32_t c = 0; c < 4; ++c) {
    // A component not coded has width 0 and codes 0: it stays 0.
    const uint32_t residual = field(c + 1);
    const int32_t guess = bisection_code_guess(left.codes[c], right.codes[c], left.frame, right.frame, key.frame);
    key.codes[c] = static_cast<int32_t>(static_cast<uint32_t>(guess) + static_cast<uint32_t>(unzigzag(residual)));
  }
  key.negated = reader.read(layout.negation_mask) != 0;
  return key;
}

/// Decodes every key of the segment of `count` keys at `reader`'s position,
/// `before` the key before it: out[p] is the key at position p (out[0] =
/// `before`, out[count] the anchor). Leaves the reader after the segment.
inline void read_bisection_segment(BitReader& reader, const BisectionTrackCoding& track, uint32_t count,
                                   const BisectionKey& before, BisectionKey (&out)[kKeysPerSegment + 1]) {
  const BisectionSegmentHead head = read_bisection_head(reader, track, count);
  const BisectionTree& tree = kBisectionTrees[count];
  out[0] = before;
  out[count] = head.anchor;
  for (uint32_t r = 0; r < tree.inner; ++r) {
    const BisectionNode& node = tree.node[r];
    out[node.position] = read_bisection_record(reader, head, tree, r, out[node.left], out[node.right]);
  }
  reader.seek(head.end_bit);
}

/// The last position (0..count) of the segment whose key's frame is at or
/// before `frame` (0 when none of the segment's is), found by descending
/// the tree: it decodes only the keys on the way, at most the tree's depth.
/// `path` receives every key decoded (by position), for a caller that goes
/// on to the keys around it.
inline uint32_t find_in_bisection_segment(BitReader& reader, const BisectionSegmentHead& head, uint32_t count,
                                          const BisectionKey& before, uint32_t frame,
                                          BisectionKey (&path)[kKeysPerSegment + 1]) {
  const BisectionTree& tree = kBisectionTrees[count];
  path[0] = before;
  path[count] = head.anchor;
  if (head.anchor.frame <= frame) return count;
  uint32_t left = 0, right = count;
  while (right - left >= 2) {
    const uint32_t middle = (left + right) / 2;
    path[middle] = read_bisection_record(reader, head, tree, tree.record_of[middle], path[left], path[right]);
    if (path[middle].frame <= frame) {
      left = middle;
    } else {
      right = middle;
    }
  }
  return left;
}

}  // namespace ks
