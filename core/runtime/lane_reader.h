#pragma once
// The key stream's read side, eight tracks at a time (DESIGN §8, format
// version 6). Each animated track keeps a cursor into its own run of stream
// keys (stream_format.h), beside its lane of the active array
// (segment_lanes.h): the keys of every lane that has one due are read in
// one pass, eight cursors per AVX2 instruction (a gather of each lane's
// next 64 bits, then each fixed-width field by a per-lane shift and mask),
// and staged in the block's arrivals, where its next build dequantizes and
// shifts them in. No lane waits for another's key: the runs are separate,
// so there is no need calendar and no per-key bookkeeping.

#include <cstdint>
#include <span>

#include "core/runtime/segment_lanes.h"
#include "core/runtime/stream_key_layout.h"

namespace ks {

struct StreamTrack;

/// A key's fields as a lane reader extracts them: the frame difference, the
/// four code differences, then the "negated" bit.
inline constexpr uint32_t kLaneFields = kKeyFields + 1;

/// The read state of one block of lanes, structure-of-arrays. Its layout
/// fields describe the segment of each lane's next key, as 64-bit shifts
/// and masks (the width AVX2's variable shifts take).
struct alignas(32) LaneCursors {
  uint64_t bit[kLanesPerBlock] = {};  // where the lane's next key starts in the plain key stream
  uint64_t shift[kLaneFields][kLanesPerBlock] = {};
  uint64_t mask[kLaneFields][kLanesPerBlock] = {};
  uint64_t key_bits[kLanesPerBlock] = {};  // every key of the segment is this long
  int32_t codes[4][kLanesPerBlock] = {};   // the newest key's codes: the next key's differences start here
  int32_t frame[kLanesPerBlock] = {};      // the newest key's frame
  int32_t need[kLanesPerBlock] = {};       // the frame the next key is needed at: the key before the newest's
  int32_t keys_left[kLanesPerBlock] = {};  // keys not read yet; 0 for a lane without a track
  int32_t frame_delta_min[kLanesPerBlock] = {};
  uint32_t keys_read[kLanesPerBlock] = {};
  uint32_t segment_end[kLanesPerBlock] = {};  // the first key of the next segment
  uint32_t track[kLanesPerBlock] = {};        // the lane's track in the stream
};

/// Points lane `lane` of `c` at key `key` (>= kInitialKeysPerTrack, below
/// the track's key count) of `track`, whose widths are in `key_widths`: its
/// segment's shifts, masks and key length.
void load_lane_layout(LaneCursors& c, uint32_t lane, const StreamTrack& track, std::span<const uint8_t> key_widths,
                      uint32_t key);

/// Reads the next key of every lane in `due` (bit l: lane l; each with keys
/// left) from `key_stream` (the plain key stream) into `block`'s arrivals,
/// and moves those cursors past them. Lanes whose next key opens a segment
/// get its layout from their track in `tracks` (c.track) and `key_widths`.
/// The arrivals must be empty (shifted in) before the call. Untrusted keys
/// read as whatever their bits say, never out of `key_stream`.
void read_lane_keys(RotationLanes& block, LaneCursors& c, uint32_t due, std::span<const uint8_t> key_stream,
                    std::span<const StreamTrack> tracks, std::span<const uint8_t> key_widths);
void read_lane_keys(Vec3Lanes& block, LaneCursors& c, uint32_t due, std::span<const uint8_t> key_stream,
                    std::span<const StreamTrack> tracks, std::span<const uint8_t> key_widths);

/// Reads keys of the lanes of `c` into `ring`, one round per key, from round
/// `round` (>= 1) on: in rounds below kKeysPerLane the lanes `forced[round]`
/// (keys read again after a restore), with the others due at `frame` (none
/// when `frame` is negative); then the lanes due. A lane reads in
/// consecutive rounds until it is done (a lane's reads make no other lane
/// due), so the i-th key it reads from round 1 lands in ring slot i % 4
/// (KeyRing). Layouts are loaded as read_lane_keys does. Returns the lanes
/// that read.
uint32_t read_lane_rounds(KeyRing& ring, LaneCursors& c, uint32_t round, const uint32_t (&forced)[kKeysPerLane],
                          int64_t frame, std::span<const uint8_t> key_stream, std::span<const StreamTrack> tracks,
                          std::span<const uint8_t> key_widths);

/// The lanes of `c` whose next key is needed at or before `frame` (bit l:
/// lane l).
uint32_t lanes_due(const LaneCursors& c, uint32_t frame);

/// The lanes of `c` with no key left to read (padding lanes included).
uint32_t lanes_finished(const LaneCursors& c);

/// Lanes set in a mask of eight.
uint32_t count_lanes(uint32_t lanes);

namespace detail {
/// What the AVX2 kernel returns when it reads nothing.
inline constexpr uint32_t kNotRead = ~0u;
// The AVX2 kernel (lane_reader_avx2.cpp); read_lane_keys and
// read_lane_rounds call it when the CPU has AVX2. It reads nothing and
// returns kNotRead unless every due lane's key lies in one 64-bit load
// inside the `bytes` of `key_stream`.
uint32_t read_lane_keys_avx2(RotationLanes& block, LaneCursors& c, uint32_t due, const uint8_t* key_stream,
                             size_t bytes);
uint32_t read_lane_keys_avx2(Vec3Lanes& block, LaneCursors& c, uint32_t due, const uint8_t* key_stream, size_t bytes);
// Into one slot of a KeyRing: only the due lanes' entries are written (the
// others keep the keys they hold), all four codes.
uint32_t read_lane_keys_avx2(LaneArrivals& slot, LaneCursors& c, uint32_t due, const uint8_t* key_stream,
                             size_t bytes);
}  // namespace detail

}  // namespace ks
