#pragma once
// --jump-interval auto (DESIGN §7): the jump interval of a clip from a cost
// model of bytes against seek cost. A seek restores the jump frame at or
// before its time (every streamed window: a fixed cost) and reads forward
// the keys needed since (each read into the player's ring of four, only the
// last four of a window dequantized). Halving the interval halves the keys
// read forward and doubles the bytes of jump frames. The choice is the
// shortest interval whose jump frames stay within a budget of the stream's
// bytes, stopping where the keys read forward already cost less than half
// the restore (a shorter interval would add bytes for little). A clip whose
// key cache the default player keeps (Player::kDefaultKeyCacheBytes) gets
// none: its seeks set the lanes from the cache and read no jump frame.

#include <cstdint>
#include <vector>

#include "keystream/codec/fit.h"
#include "keystream/runtime/key_coding.h"
#include "keystream/runtime/stream_format.h"

namespace ks {

/// Costs of a seek in units of one stream key read forward, measured with
/// the bench's seeks at J = 0.25, 1 and 4 s (docs/benchmarks.md, format 6
/// with the ring): a key read forward about 5.5 ns on cgspeed and cc4 (the
/// slope between the intervals); restoring a streamed window (its jump
/// state parsed, three keys read again, its lane refilled and rebuilt)
/// 30-70 ns, 6 to 12 keys.
inline constexpr double kRestoreCostPerStreamedTrack = 8.0;
/// The search stops at an interval whose keys read forward cost at most
/// this share of a restore. Half (format 8): on robot#Robot_Dance, the one
/// shared clip the rule stops rather than the budget, 1.18 s instead of
/// 1.67 s seeks in 0.93 rather than 1.01 us for 3 more bytes (a whole
/// restore was the rule before, when restoring cost more).
inline constexpr double kStopAtRestoreShare = 0.5;
/// Jump frames may take this fraction of the stream's other bytes.
inline constexpr double kJumpFrameByteBudget = 0.10;

/// What the model predicts for one jump interval.
struct JumpIntervalCost {
  uint32_t interval_frames = 0;    // 0: no jump frames
  uint64_t jump_frame_bytes = 0;   // jump index and jump states
  double seek_keys_forward = 0.0;  // stream keys a seek to a uniformly random frame reads after its restore
  double seek_cost = 0.0;          // restore plus keys forward, in skipped-key units
};

/// True when `track` has keys in the key stream (stream_format.h): an
/// animated track of more than kInitialKeysPerTrack keys. Such a track has a
/// run of stream keys and a saved window in every jump state.
inline bool is_streamed(const FittedTrack& track) {
  return track.coding == TrackCoding::kAnimated && track.keys.size() > kInitialKeysPerTrack;
}

/// Width of `track`'s saved oldest-key frames (stream_format.h: the jump
/// frame minus the key's frame) in the jump states of `jump_count` jump
/// frames every `interval_frames` (>= 1): the bits the largest needs. The
/// track must be streamed (more than kInitialKeysPerTrack keys).
uint32_t jump_frame_difference_bits(const FittedTrack& track, uint32_t interval_frames, uint32_t jump_count);

/// Bits of `track`'s saved window in each jump state, coded as `coding`:
/// stream_format.h's saved_window_bits for a fitted track. The track must
/// be streamed.
uint32_t saved_window_bits(const FittedTrack& track, const KeyCoding& coding, uint32_t key_index_bits,
                           uint32_t frame_difference_bits);

/// The model's figures for `interval_frames` (>= 1) on `clip` with the key
/// codings the packer chose (one per track).
JumpIntervalCost jump_interval_cost(const FittedClip& clip, const std::vector<KeyCoding>& codings,
                                    uint32_t interval_frames);

/// The interval auto chooses for `clip` (at least 1 frame, or 0 when even the
/// longest useful interval does not fit the budget), given `other_bytes`,
/// the stream's bytes besides jump frames.
JumpIntervalCost choose_jump_interval(const FittedClip& clip, const std::vector<KeyCoding>& codings,
                                      uint64_t other_bytes);

}  // namespace ks
