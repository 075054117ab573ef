#pragma once
// A restore's read of a jump state (DESIGN §8, format version 8), eight
// lanes at a time. Every state has the same layout (stream_format.h), so
// where each lane's saved window sits in a state, and how wide its fields
// are, is worked out once, when the player is made (SavedWindowLanes); a
// restore then takes each field of a block's eight lanes with one gather,
// and writes the windows' oldest keys and the cursors after them for the
// whole block. Parsing a state track by track, each field's place known
// only after the one before it was read, cost about 150 instructions per
// track: a third of a seek on the shared mocap takes.

#include <cstdint>
#include <span>

#include "keystream/runtime/lane_reader.h"
#include "keystream/runtime/segment_lanes.h"

namespace ks {

/// A saved window's fields: keys read, the oldest key's frame difference
/// (the jump frame minus its frame), its codes 0..3 and its "negated" bit.
inline constexpr uint32_t kSavedWindowFields = 7;
inline constexpr uint32_t kSavedKeysRead = 0;
inline constexpr uint32_t kSavedFrameDifference = 1;
inline constexpr uint32_t kSavedFirstCode = 2;  // codes 0..3 at 2..5
inline constexpr uint32_t kSavedNegated = 6;

/// Where a block's lanes' saved windows are in a jump state: field f of
/// lane l is bit_at[f][l] bits into the state and width[f][l] bits wide (0:
/// none, read as 0: a component the track does not code, a track that
/// saves no oldest key, a lane not in the states).
struct alignas(32) SavedWindowLanes {
  uint32_t bit_at[kSavedWindowFields][kLanesPerBlock] = {};
  uint32_t width[kSavedWindowFields][kLanesPerBlock] = {};
  int32_t key_count[kLanesPerBlock] = {};
  uint32_t streamed = 0;  // lanes with a saved window (bit l: lane l)
};

/// Sets lane `lane` of `lanes` to a streamed track of `key_count` keys whose
/// saved window starts `offset` bits into each state (StreamView::
/// saved_window_offsets), with keys-read counts `key_index_bits` wide and,
/// when the track saves oldest keys (saves_oldest_key), frame differences
/// `difference_bits` wide, `coded_mask`'s components coded in
/// `absolute_bits` each and a "negated" bit when `negation_bits`.
void set_saved_window_lane(SavedWindowLanes& lanes, uint32_t lane, uint32_t offset, uint32_t key_count,
                           uint32_t key_index_bits, uint32_t difference_bits, uint32_t absolute_bits,
                           uint8_t coded_mask, bool negation_bits);

/// Reads the saved windows of `lanes` from the state at bit `state_bit` of
/// `states` (the jump states, and any bytes after them a 32-bit load may
/// touch: fields within 4 bytes of the end are read lane by lane), at jump
/// frame `jump_frame`. For every lane, `keys_read[l]` is its count, kept to
/// kInitialKeysPerTrack..its key count (0 for a lane without a window).
/// For each lane that has read kRestoreFromRunKeys keys or more (returned,
/// bit l: lane l), its window's oldest key goes to `slot` (codes as floats,
/// frame, sign, arrived) and the lane's cursor in `c` to the key after it:
/// keys read and left, the oldest key's codes and frame, and need 0 (its
/// caller reads again the three keys after the oldest). Nothing else of
/// `c` or `slot` is written.
uint32_t read_saved_windows(const SavedWindowLanes& lanes, std::span<const uint8_t> states, uint64_t state_bit,
                            uint32_t jump_frame, LaneCursors& c, LaneArrivals& slot,
                            uint32_t (&keys_read)[kLanesPerBlock]);

namespace detail {
// The AVX2 kernel (saved_window_reader_avx2.cpp). It reads nothing and
// returns kNotRead unless every field it loads lies in the `bytes` of
// `states`.
uint32_t read_saved_windows_avx2(const SavedWindowLanes& lanes, const uint8_t* states, size_t bytes,
                                 uint64_t state_bit, uint32_t jump_frame, LaneCursors& c, LaneArrivals& slot,
                                 uint32_t (&keys_read)[kLanesPerBlock]);
}  // namespace detail

}  // namespace ks
