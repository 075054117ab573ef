#pragma once
// The key stream's read side, eight tracks at a time (DESIGN §8, format
// version 7). Each animated track keeps a cursor into its own run of stream
// keys (stream_format.h), beside its lane of the active array
// (segment_lanes.h): the keys of every lane that has one due are read in
// one pass, eight cursors per AVX2 instruction (a gather of each lane's
// next 64 bits, then each fixed-width field by a per-lane shift and mask;
// AVX-512 holds the eight 64-bit cursors in one register),
// and staged in the block's arrivals, where its next build dequantizes and
// shifts them in. No lane waits for another's key: the runs are separate,
// so there is no need calendar and no per-key bookkeeping.

#include <cstdint>
#include <span>

#include "keystream/runtime/segment_lanes.h"
#include "keystream/runtime/stream_key_layout.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <emmintrin.h>
#endif

namespace ks {

/// A key's fields as a lane reader extracts them: the frame difference, the
/// four code differences, then the "negated" bit.
inline constexpr uint32_t kLaneFields = kKeyFields + 1;

/// The read state of one block of lanes, structure-of-arrays. Its layout
/// fields describe the segment of each lane's next key, as 64-bit shifts
/// and masks (the width AVX2's variable shifts take). Aligned so that each
/// row of eight 64-bit fields is one AVX-512 load.
struct alignas(64) LaneCursors {
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
  uint32_t segment_end[kLanesPerBlock] = {};    // the first key of the next segment
  uint32_t first_segment[kLanesPerBlock] = {};  // the lane's track's first segment in StreamView::segments
  // Lanes whose segment's keys are wider than the AVX2 kernel's one 64-bit
  // load holds (bit l: lane l): read by the scalar reader below AVX-512,
  // the others still eight at a time.
  uint32_t wide_lanes = 0;
  // Lanes whose track's keys carry a "negated" bit (bit l: lane l; set when
  // the player is made): without any, a seek's rounds extract no sign.
  uint32_t negation_lanes = 0;
};

/// Keys wider than this are read lane by lane below AVX-512: a 64-bit load
/// less the offset of the key's first bit in its byte.
inline constexpr uint64_t kWidestLoadedKeyBits = 57;
/// The AVX-512 kernels read a wider key with a second load: two loads hold
/// every key StreamView accepts (a frame difference, four code differences
/// and the negated bit at their widest: 121 bits).
inline constexpr uint64_t kWidestPairLoadedKeyBits = 128 - 7;

/// Points lane `lane` of `c` at key `key` (>= kInitialKeysPerTrack, below
/// the track's key count) of its track, whose segments start at
/// c.first_segment[lane] in `segments` (StreamView::segments): its segment's
/// shifts, masks and key length.
void load_lane_layout(LaneCursors& c, uint32_t lane, std::span<const StreamSegment> segments, uint32_t key);
/// load_lane_layout for every lane of `lanes` (bit l: lane l), each at its
/// next key (c.keys_read[l]).
void load_lane_layouts(LaneCursors& c, uint32_t lanes, std::span<const StreamSegment> segments);
/// load_lane_layouts, and each of those cursors at its next key: the start
/// of the key's segment plus its place in the segment times the segment's
/// key length (a restore: where the key after a saved one starts). Eight
/// lanes at a time where the CPU has AVX2.
void place_lane_cursors(LaneCursors& c, uint32_t lanes, std::span<const StreamSegment> segments);

/// Reads the next key of every lane in `due` (bit l: lane l; each with keys
/// left) from `key_stream` (the plain key stream) into `block`'s arrivals,
/// and moves those cursors past them. Lanes whose next key opens a segment
/// get its layout from `segments` (load_lane_layout).
/// The arrivals must be empty (shifted in) before the call. Untrusted keys
/// read as whatever their bits say, never out of `key_stream`.
void read_lane_keys(SegmentLanes& block, LaneCursors& c, uint32_t due, std::span<const uint8_t> key_stream,
                    std::span<const StreamSegment> segments);

/// What a play step (read_play_step) left to its caller in one block.
struct PlayStepBlock {
  uint32_t block = 0;
  // Due lanes the step did not read: a wide key's (below AVX-512), one
  // near the stream's end, or any lane of a block whose arrivals still hold keys (a
  // seek_frame without a sample since). The caller reads them.
  uint32_t declined = 0;
  uint32_t opened = 0;           // lanes whose next key opens a segment: the caller loads its layout
  uint32_t more = 0;             // lanes due again at the frame (their next key is needed by then too)
  uint32_t finished_before = 0;  // lanes with no key left before the step: the others that have none now finished
};
/// What a play step did over a group's blocks.
struct PlayStep {
  uint32_t keys = 0;         // keys read (not those declined)
  uint32_t latest_need = 0;  // latest_need of the lanes that read, before they did
  uint32_t events = 0;       // PlayStepBlock entries written
  // The earliest frame a lane of the group has a key due at after the step
  // (UINT32_MAX: none): a play step at an earlier frame reads nothing.
  // Meaningful when the step left no events.
  uint32_t next_due = 0;
};

/// Play's first round over the blocks of a group: the next key of every
/// lane due at `frame` (lanes_due) staged in its block's arrivals, as
/// read_lane_keys stages it, and the blocks that read marked stale. One call
/// per group (the AVX-512 kernel keeps the loop over blocks in registers:
/// deciding, counting and reading a block a call at a time cost about as
/// much as reading). A block that needs more than that (a declined lane, a
/// segment to open, a lane due again or one that finished) gets an entry in
/// `events` (room for one per block), in block order. Layouts are loaded
/// as read_lane_keys does, except at SimdLevel::kAvx512, which leaves them
/// to the caller (`opened`).
PlayStep read_play_step(std::span<SegmentLanes> blocks, std::span<LaneCursors> cursors, uint32_t frame,
                        std::span<const uint8_t> key_stream, std::span<const StreamSegment> segments,
                        PlayStepBlock* events);

/// Reads keys of the lanes of `c` into `ring`, one round per key, from round
/// `round` on: in rounds below kKeysPerLane the lanes `forced[round]`
/// (keys read again after a restore), with the others due at `frame` (none
/// when `frame` is negative); then the lanes due. A lane reads in
/// consecutive rounds until it is done (a lane's reads make no other lane
/// due), so the i-th key it reads (i from 1) lands in ring slot
/// (round + i - 1) % 4 (KeyRing). Layouts are loaded as read_lane_keys
/// does. Returns the lanes that read.
uint32_t read_lane_rounds(KeyRing& ring, LaneCursors& c, uint32_t round, const uint32_t (&forced)[kKeysPerLane],
                          int64_t frame, std::span<const uint8_t> key_stream, std::span<const StreamSegment> segments);

/// The lanes of `c` whose next key is needed at or before `frame` (bit l:
/// lane l). Inline, like the helpers below: play calls them for every
/// block at every sample.
inline uint32_t lanes_due(const LaneCursors& c, uint32_t frame) {
#if defined(__x86_64__) || defined(_M_X64)
  // SSE2, which every x86-64 CPU has: four lanes per compare. Frames fit in
  // 16 bits, so the signed compares are exact.
  const __m128i now = _mm_set1_epi32(static_cast<int32_t>(frame));
  const __m128i zero = _mm_setzero_si128();
  const auto half = [&](uint32_t at) {
    const __m128i need = _mm_load_si128(reinterpret_cast<const __m128i*>(c.need + at));
    const __m128i left = _mm_load_si128(reinterpret_cast<const __m128i*>(c.keys_left + at));
    const __m128i due = _mm_andnot_si128(_mm_cmpgt_epi32(need, now), _mm_cmpgt_epi32(left, zero));
    return static_cast<uint32_t>(_mm_movemask_ps(_mm_castsi128_ps(due)));
  };
  return half(0) | (half(4) << 4);
#else
  uint32_t due = 0;
  for (uint32_t l = 0; l < kLanesPerBlock; ++l) {
    due |= (c.keys_left[l] > 0 && c.need[l] <= static_cast<int32_t>(frame) ? 1u : 0u) << l;
  }
  return due;
#endif
}

/// The latest frame the next keys of lanes `lanes` of `c` are needed at (0
/// for none): after they are read, the block's state is valid from there on.
inline uint32_t latest_need(const LaneCursors& c, uint32_t lanes) {
#if defined(__x86_64__) || defined(_M_X64)
  // As floats, exact below 2^24: SSE2 has no 32-bit integer maximum.
  const __m128i bit = _mm_setr_epi32(1, 2, 4, 8);
  const auto half = [&](uint32_t at, uint32_t bits) {
    const __m128i in = _mm_cmpeq_epi32(_mm_and_si128(_mm_set1_epi32(static_cast<int32_t>(bits)), bit), bit);
    const __m128i need = _mm_load_si128(reinterpret_cast<const __m128i*>(c.need + at));
    return _mm_cvtepi32_ps(_mm_and_si128(need, in));
  };
  __m128 latest = _mm_max_ps(half(0, lanes & 15u), half(4, lanes >> 4));
  latest = _mm_max_ps(latest, _mm_movehl_ps(latest, latest));
  latest = _mm_max_ss(latest, _mm_shuffle_ps(latest, latest, 1));
  return static_cast<uint32_t>(_mm_cvttss_si32(latest));
#else
  int32_t latest = 0;
  for (uint32_t l = 0; l < kLanesPerBlock; ++l) {
    if ((lanes >> l) & 1u) latest = c.need[l] > latest ? c.need[l] : latest;
  }
  return static_cast<uint32_t>(latest);
#endif
}

/// The earliest need of the lanes of `c` with keys left (UINT32_MAX: none):
/// no lane is due before that frame.
inline uint32_t earliest_need(const LaneCursors& c) {
  uint32_t earliest = UINT32_MAX;
  for (uint32_t l = 0; l < kLanesPerBlock; ++l) {
    if (c.keys_left[l] > 0 && static_cast<uint32_t>(c.need[l]) < earliest) earliest = static_cast<uint32_t>(c.need[l]);
  }
  return earliest;
}

/// The lanes of `c` with no key left to read (padding lanes included).
inline uint32_t lanes_finished(const LaneCursors& c) {
#if defined(__x86_64__) || defined(_M_X64)
  const __m128i zero = _mm_setzero_si128();
  const auto half = [&](uint32_t at) {
    const __m128i left = _mm_load_si128(reinterpret_cast<const __m128i*>(c.keys_left + at));
    return static_cast<uint32_t>(_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(left, zero))));
  };
  return half(0) | (half(4) << 4);
#else
  uint32_t finished = 0;
  for (uint32_t l = 0; l < kLanesPerBlock; ++l) finished |= (c.keys_left[l] == 0 ? 1u : 0u) << l;
  return finished;
#endif
}

/// Lanes set in a mask of eight.
inline uint32_t count_lanes(uint32_t lanes) {
  // std::popcount is a library call on x86-64 without -mpopcnt.
  lanes = lanes - ((lanes >> 1) & 0x55u);
  lanes = (lanes & 0x33u) + ((lanes >> 2) & 0x33u);
  return (lanes + (lanes >> 4)) & 0x0Fu;
}

namespace detail {
/// What the AVX2 kernel returns when it reads nothing.
inline constexpr uint32_t kNotRead = ~0u;
// The AVX2 kernel (lane_reader_avx2.cpp); read_lane_keys and
// read_lane_rounds call it when the CPU has AVX2. It reads nothing and
// returns kNotRead unless every due lane's key lies in one 64-bit load
// inside the `bytes` of `key_stream`.
uint32_t read_lane_keys_avx2(SegmentLanes& block, LaneCursors& c, uint32_t due, const uint8_t* key_stream,
                             size_t bytes);
// Into one slot of a KeyRing: only the due lanes' entries are written (the
// others keep the keys they hold), all four codes.
uint32_t read_lane_keys_avx2(LaneArrivals& slot, LaneCursors& c, uint32_t due, const uint8_t* key_stream,
                             size_t bytes);
/// Where read_lane_rounds_avx2 stopped.
struct RoundsRead {
  uint32_t round = 0;   // the first round it did not read
  uint32_t read = 0;    // lanes that read
  bool done = false;    // no lane was due at `round`
};
// read_lane_rounds' rounds from `round` on, while every due lane's key lies
// in one 64-bit load inside the stream, loading the layouts of the segments
// its lanes open from `segments` as it goes. It stops before a round it
// cannot read (a wide key, the end of the stream: the caller reads it), or
// when no lane is due.
RoundsRead read_lane_rounds_avx2(KeyRing& ring, LaneCursors& c, uint32_t round, const uint32_t (&forced)[kKeysPerLane],
                                 int64_t frame, const uint8_t* key_stream, size_t bytes,
                                 std::span<const StreamSegment> segments);
// read_lane_keys_avx2 and read_lane_rounds_avx2 with AVX-512
// (lane_reader_avx512.cpp), at SimdLevel::kAvx512: they also read keys
// wider than one load (up to kWidestPairLoadedKeyBits, with a second), and
// decline only keys whose loads would pass the end of the stream.
uint32_t read_lane_keys_avx512(SegmentLanes& block, LaneCursors& c, uint32_t due, const uint8_t* key_stream,
                               size_t bytes);
uint32_t read_lane_keys_avx512(LaneArrivals& slot, LaneCursors& c, uint32_t due, const uint8_t* key_stream,
                               size_t bytes);
RoundsRead read_lane_rounds_avx512(KeyRing& ring, LaneCursors& c, uint32_t round,
                                   const uint32_t (&forced)[kKeysPerLane], int64_t frame, const uint8_t* key_stream,
                                   size_t bytes, std::span<const StreamSegment> segments);
// read_play_step at SimdLevel::kAvx512 (lane_reader_avx512.cpp), layouts left to the caller.
PlayStep read_play_step_avx512(SegmentLanes* blocks, LaneCursors* cursors, size_t count, uint32_t frame,
                               const uint8_t* key_stream, size_t bytes, PlayStepBlock* events);
// place_lane_cursors, eight lanes at a time.
void place_lane_cursors_avx2(LaneCursors& c, uint32_t lanes, const StreamSegment* segments);
}  // namespace detail

}  // namespace ks
