// check_jump_frames (player.h): StreamView::open's full check that every
// jump frame restores exactly the state forward play reaches, comparing two
// players lane by lane. Apart from the player's sampling: it runs once per
// stream opened with StreamCheck::kFull.

#include <cstring>
#include <span>
#include <string>

#include "keystream/runtime/player.h"

namespace ks {

namespace {

// True when lane `l` of blocks `x` and `y` hold the same keys and coefficients.
bool same_lane(const SegmentLanes& x, const SegmentLanes& y, uint32_t l) {
  const auto same = [l](const float* a, const float* b) { return std::memcmp(a + l, b + l, sizeof(float)) == 0; };
  for (uint32_t k = 0; k < kKeysPerLane; ++k) {
    if (!same(x.key_frame[k], y.key_frame[k])) return false;
    for (int c = 0; c < kLaneComponents; ++c) {
      if (!same(x.key_value[k][c], y.key_value[k][c])) return false;
    }
  }
  if (!same(x.start, y.start) || !same(x.span, y.span)) return false;
  for (int c = 0; c < kLaneComponents; ++c) {
    if (!same(x.p[c], y.p[c]) || !same(x.q[c], y.q[c]) || !same(x.difference[c], y.difference[c]) ||
        !same(x.tangent_p[c], y.tangent_p[c]) || !same(x.tangent_q[c], y.tangent_q[c])) {
      return false;
    }
  }
  return true;
}

// The track of the first lane whose state (cursor, keys, coefficients: all
// that decides later poses) differs between the groups, or -1.
int64_t first_different_track(const LaneGroup& a, const LaneGroup& b) {
  for (uint32_t lane = 0; lane < a.tracks.size(); ++lane) {
    const uint32_t i = lane / kLanesPerBlock, l = lane % kLanesPerBlock;
    const LaneCursors& x = a.cursors[i];
    const LaneCursors& y = b.cursors[i];
    bool same =
        x.keys_left[l] == y.keys_left[l] && x.keys_read[l] == y.keys_read[l] && same_lane(a.blocks[i], b.blocks[i], l);
    // A finished lane's cursor is never read again.
    if (same && x.keys_left[l] != 0) {
      same = x.bit[l] == y.bit[l] && x.frame[l] == y.frame[l] && x.need[l] == y.need[l] &&
             x.key_bits[l] == y.key_bits[l] && x.segment_end[l] == y.segment_end[l];
      for (int c = 0; c < 4; ++c) same = same && x.codes[c][l] == y.codes[c][l];
      for (uint32_t f = 0; f < kLaneFields; ++f)
        same = same && x.shift[f][l] == y.shift[f][l] && x.mask[f][l] == y.mask[f][l];
    }
    if (!same) return a.tracks[lane];
  }
  return -1;
}

}  // namespace

Status check_jump_frames(const StreamView& stream) {
  if (stream.jump_frames().empty()) return {};
  // Without key caches: the check reads the stream, as play and restores do.
  Player forward(stream, 0);
  Player restored(stream, 0);
  for (uint32_t j = 0; j < stream.jump_frames().size(); ++j) {
    const JumpFrame& jump = stream.jump_frames()[j];
    forward.advance_to(jump.frame);
    restored.restore(j, jump.frame);
    // Coefficients are built at evaluation: build them to compare them.
    for (Player* p : {&forward, &restored}) {
      build_stale_coefficients(std::span<SegmentLanes>(p->m_lanes.blocks));
    }
    if (forward.m_cursor_key_index != jump.stream_keys_read) {
      return Error{"jump frame " + std::to_string(j) + " (frame " + std::to_string(jump.frame) + ") says " +
                   std::to_string(jump.stream_keys_read) + " stream keys are read, forward play has read " +
                   std::to_string(forward.m_cursor_key_index)};
    }
    const int64_t track = first_different_track(forward.m_lanes, restored.m_lanes);
    if (track >= 0) {
      return Error{"jump frame " + std::to_string(j) + " (frame " + std::to_string(jump.frame) +
                   ") does not hold the state forward play reaches for track " + std::to_string(track)};
    }
  }
  return {};
}

}  // namespace ks
