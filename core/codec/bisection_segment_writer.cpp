#include "keystream/codec/bisection_segment_writer.h"

#include <algorithm>
#include <bit>
#include <cassert>

namespace ks {

namespace {

// A record's residuals: frame, then components 0..3 (0 where not coded).
struct Residuals {
  uint32_t field[kKeyFields] = {};
};

Residuals residuals_of(const BisectionKey& key, const BisectionKey& left, const BisectionKey& right, uint8_t coded_mask) {
  Residuals r;
  const uint32_t frame_guess = bisection_frame_guess(left.frame, right.frame);
  r.field[0] = zigzag(static_cast<int32_t>(key.frame - frame_guess));
  for (uint32_t c = 0; c < 4; ++c) {
    if (((coded_mask >> c) & 1u) == 0) continue;
    const int32_t guess = bisection_code_guess(left.codes[c], right.codes[c], left.frame, right.frame, key.frame);
    r.field[c + 1] = zigzag(static_cast<int32_t>(static_cast<uint32_t>(key.codes[c]) - static_cast<uint32_t>(guess)));
  }
  return r;
}

}  // namespace

void write_segment_anchor(BitWriter& out, const BisectionTrackCoding& track, const BisectionKey& anchor) {
  assert(track.frame_bits == 32 || (anchor.frame >> track.frame_bits) == 0);
  out.write(anchor.frame, track.frame_bits);
  for (uint32_t c = 0; c < 4; ++c) {
    if (((track.coded_mask >> c) & 1u) != 0) out.write_signed(anchor.codes[c], track.absolute_bits);
  }
  if (track.negation_bits) out.write(anchor.negated ? 1u : 0u, 1);
}

void write_bisection_segment(BitWriter& out, const BisectionTrackCoding& track, std::span<const BisectionKey> keys,
                             const BisectionKey& before) {
  const uint32_t count = static_cast<uint32_t>(keys.size());
  assert(count >= 1 && count <= kKeysPerSegment);
  const BisectionTree& tree = kBisectionTrees[count];
  BisectionKey at[kKeysPerSegment + 1];
  at[0] = before;
  std::copy(keys.begin(), keys.end(), at + 1);

  write_segment_anchor(out, track, at[count]);

  Residuals residuals[kKeysPerSegment - 1];
  uint32_t widths[kBisectionGroups][kKeyFields] = {};
  for (uint32_t r = 0; r < tree.inner; ++r) {
    const BisectionNode& node = tree.node[r];
    residuals[r] = residuals_of(at[node.position], at[node.left], at[node.right], track.coded_mask);
    for (uint32_t f = 0; f < kKeyFields; ++f) {
      widths[node.group][f] = std::max(widths[node.group][f], static_cast<uint32_t>(std::bit_width(residuals[r].field[f])));
    }
  }
  for (uint32_t g = 0; g < kBisectionGroups; ++g) {
    if (tree.group_size[g] == 0) continue;
    for (uint32_t f = 0; f < kKeyFields; ++f) {
      if (f > 0 && ((track.coded_mask >> (f - 1)) & 1u) == 0) continue;
      assert(widths[g][f] < (1u << kSegmentWidthBits));
      out.write(widths[g][f], kSegmentWidthBits);
    }
  }
  // Storage order puts the upper group's records first.
  for (uint32_t r = 0; r < tree.inner; ++r) {
    const BisectionNode& node = tree.node[r];
    for (uint32_t f = 0; f < kKeyFields; ++f) out.write(residuals[r].field[f], widths[node.group][f]);
    if (track.negation_bits) out.write(at[node.position].negated ? 1u : 0u, 1);
  }
}

}  // namespace ks
