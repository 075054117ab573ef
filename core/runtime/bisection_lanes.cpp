#include "keystream/runtime/bisection_lanes.h"

#include <algorithm>

namespace ks {

void set_bisection_lane(BisectionLanes& lanes, uint32_t lane, const BisectionSegmentHead& head, uint32_t count,
                        const BisectionKey& before) {
  lanes.head[lane] = &head;
  lanes.count[lane] = static_cast<int32_t>(count);
  for (uint32_t g = 0; g < kBisectionGroups; ++g) {
    const StreamKeyLayout& layout = head.group[g];
    lanes.records_bit[g][lane] = head.records_bit[g];
    lanes.key_bits[g][lane] = layout.key_bits;
    for (uint32_t f = 0; f < kKeyFields; ++f) {
      lanes.shift[g][f][lane] = layout.shift[f];
      lanes.mask[g][f][lane] = layout.mask[f];
      if (f > 0 && layout.mask[f] != 0) lanes.coded |= 1u << (f - 1);
    }
    lanes.shift[g][kKeyFields][lane] = layout.negation_shift;
    lanes.mask[g][kKeyFields][lane] = layout.negation_mask;
    if (layout.negation_mask != 0) lanes.coded |= 1u << 4;
  }
  lanes.end_byte[lane] = (head.end_bit + 7) / 8;
  const bool wide = head.group[0].key_bits > kWidestLoadedKeyBits || head.group[1].key_bits > kWidestLoadedKeyBits;
  lanes.wide_lanes = (lanes.wide_lanes & ~(1u << lane)) | (wide ? 1u << lane : 0u);
  const BisectionKey* ends[2] = {&before, &head.anchor};
  for (uint32_t e = 0; e < 2; ++e) {
    lanes.frame[e][lane] = static_cast<int32_t>(ends[e]->frame);
    for (uint32_t c = 0; c < 4; ++c) {
      lanes.code[e][c][lane] = ends[e]->codes[c];
      if (ends[e]->codes[c] != 0) lanes.coded |= 1u << c;  // an uncoded component's value still travels
    }
    lanes.negated[e][lane] = ends[e]->negated ? 1 : 0;
    if (ends[e]->negated) lanes.coded |= 1u << 4;
  }
}

void clear_bisection_lane(BisectionLanes& lanes, uint32_t lane) {
  lanes.count[lane] = 0;
  lanes.head[lane] = nullptr;
  lanes.wide_lanes &= ~(1u << lane);
}

namespace detail {

const BisectionIndexTable kBisectionIndexInGroup = [] {
  BisectionIndexTable table{};
  for (uint32_t count = 1; count <= kKeysPerSegment; ++count) {
    const BisectionTree& tree = kBisectionTrees[count];
    for (uint32_t r = 0; r < tree.inner; ++r) {
      const BisectionNode& node = tree.node[r];
      table.at[count][node.position] = static_cast<uint8_t>(node.group == 0 ? r : r - tree.group_size[0]);
    }
  }
  return table;
}();

namespace {

void put(BisectionLaneKeys& keys, uint32_t lane, const BisectionKey& key) {
  keys.frame[lane] = static_cast<int32_t>(key.frame);
  for (uint32_t c = 0; c < 4; ++c) keys.code[c][lane] = key.codes[c];
  keys.negated[lane] = key.negated ? 1 : 0;
}

}  // namespace

uint32_t descend_bisection_lanes_scalar(const BisectionLanes& lanes, std::span<const uint8_t> key_stream,
                                        const uint32_t* target, BisectionTarget kind, BisectionBracket& out) {
  uint32_t records = 0;
  for (uint32_t lane = 0; lane < kLanesPerBlock; ++lane) {
    const uint32_t count = static_cast<uint32_t>(lanes.count[lane]);
    if (count == 0) continue;
    const BisectionSegmentHead& head = *lanes.head[lane];
    const BisectionTree& tree = kBisectionTrees[count];
    BitReader reader(key_stream);
    BisectionKey before;
    before.frame = static_cast<uint32_t>(lanes.frame[0][lane]);
    for (uint32_t c = 0; c < 4; ++c) before.codes[c] = lanes.code[0][c][lane];
    before.negated = lanes.negated[0][lane] != 0;
    BisectionKey left = before, right = head.anchor;
    uint32_t l = 0, r = count;
    const auto at_or_before = [&](uint32_t position, const BisectionKey& key) {
      return kind == BisectionTarget::kFrame ? key.frame <= target[lane] : position <= target[lane];
    };
    if (at_or_before(count, right)) {
      l = count;
      left = right;
    }
    BisectionKey outer_left = left, outer_right = right;
    uint32_t outer_l = l, outer_r = r;
    while (r - l >= 2) {
      const uint32_t middle = (l + r) / 2;
      const BisectionKey key = read_bisection_record(reader, head, tree, tree.record_of[middle], left, right);
      ++records;
      if (at_or_before(middle, key)) {
        outer_left = left, outer_l = l;
        l = middle, left = key;
      } else {
        outer_right = right, outer_r = r;
        r = middle, right = key;
      }
    }
    out.left_position[lane] = l;
    out.outer_left_position[lane] = outer_l;
    out.outer_right_position[lane] = outer_r;
    put(out.left, lane, left);
    put(out.right, lane, right);
    put(out.outer_left, lane, outer_left);
    put(out.outer_right, lane, outer_right);
  }
  return records;
}

}  // namespace detail

uint32_t descend_bisection_blocks(std::span<const BisectionLanes> blocks, std::span<const uint8_t> key_stream,
                                  std::span<const uint32_t> targets, BisectionTarget kind,
                                  std::span<BisectionBracket> out) {
  uint32_t records = 0;
  for (size_t first = 0; first < blocks.size(); first += kInterleavedBlocks) {
    const size_t n = std::min(kInterleavedBlocks, blocks.size() - first);
    uint32_t taken = 0;
#if defined(__x86_64__) || defined(_M_X64)
    if (simd_level() >= SimdLevel::kAvx2) {
      uint32_t read = 0;
      taken = detail::descend_bisection_blocks_avx2(blocks.subspan(first, n), key_stream.data(), key_stream.size(),
                                                    targets.subspan(first * kLanesPerBlock, n * kLanesPerBlock), kind,
                                                    out.subspan(first, n), read);
      records += read;
    }
#endif
    for (size_t b = 0; b < n; ++b) {
      if (((taken >> b) & 1u) != 0) continue;
      records += detail::descend_bisection_lanes_scalar(
          blocks[first + b], key_stream, targets.data() + (first + b) * kLanesPerBlock, kind, out[first + b]);
    }
  }
  return records;
}

uint32_t descend_bisection_lanes(const BisectionLanes& lanes, std::span<const uint8_t> key_stream,
                                 const uint32_t (&target)[kLanesPerBlock], BisectionTarget kind,
                                 BisectionBracket& out) {
  return descend_bisection_blocks(std::span(&lanes, 1), key_stream, target, kind, std::span(&out, 1));
}

}  // namespace ks
