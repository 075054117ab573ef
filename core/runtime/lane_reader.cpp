#include "keystream/runtime/lane_reader.h"

#include <algorithm>
#include <bit>

#include "keystream/runtime/bit_reader.h"

#if defined(__x86_64__) || defined(_M_X64)
#define KS_X86_64 1
#endif

namespace ks {

namespace {

// The segment layout of lane `l` as read_stream_key takes it.
StreamKeyLayout lane_layout(const LaneCursors& c, uint32_t l) {
  StreamKeyLayout layout;
  for (uint32_t f = 0; f < kKeyFields; ++f) {
    layout.shift[f] = static_cast<uint8_t>(c.shift[f][l]);
    layout.mask[f] = static_cast<uint32_t>(c.mask[f][l]);
  }
  layout.negation_shift = static_cast<uint8_t>(c.shift[kKeyFields][l]);
  layout.negation_mask = static_cast<uint8_t>(c.mask[kKeyFields][l]);
  layout.key_bits = static_cast<uint8_t>(c.key_bits[l]);
  return layout;
}

// The reference, lane by lane through a bounds-checked reader: also what
// reads keys near the end of the stream (a 64-bit load there would pass it)
// and keys wider than one load.
uint32_t read_lane_keys_scalar(LaneArrivals& a, LaneCursors& c, uint32_t due, std::span<const uint8_t> key_stream) {
  uint32_t opening = 0;
  for (uint32_t l = 0; l < kLanesPerBlock; ++l) {
    if (((due >> l) & 1u) == 0) continue;
    BitReader reader(key_stream, c.bit[l]);
    uint32_t frame = static_cast<uint32_t>(c.frame[l]);
    int32_t codes[4] = {c.codes[0][l], c.codes[1][l], c.codes[2][l], c.codes[3][l]};
    const bool negated =
        read_stream_key(reader, lane_layout(c, l), static_cast<uint32_t>(c.frame_delta_min[l]), frame, codes);
    c.bit[l] = reader.position();
    c.need[l] = c.frame[l];
    c.frame[l] = static_cast<int32_t>(frame);
    for (int i = 0; i < 4; ++i) c.codes[i][l] = codes[i];
    --c.keys_left[l];
    ++c.keys_read[l];
    if (c.keys_read[l] == c.segment_end[l] && c.keys_left[l] > 0) opening |= 1u << l;
    for (int i = 0; i < kLaneComponents; ++i) a.code[i][l] = static_cast<float>(codes[i]);
    a.frame[l] = static_cast<float>(frame);
    a.sign[l] = negated ? -1.f : 1.f;
    a.arrived[l] = 1.f;
  }
  a.any = a.any || due != 0;
  return opening;
}

// Where read_keys writes: a block's arrivals, or a ring slot itself.
LaneArrivals& arrivals_of(SegmentLanes& block) {
  return block.arrivals;
}
LaneArrivals& arrivals_of(LaneArrivals& slot) { return slot; }

// Reads the next key of the lanes `due` into `into` (a block, or a ring
// slot with all four codes), through the AVX2 or AVX-512 kernel at those
// levels, and loads the layout of each lane whose next key opens a segment.
template <class Into>
void read_keys(Into& into, LaneCursors& c, uint32_t due, std::span<const uint8_t> key_stream,
               std::span<const StreamSegment> segments, SimdLevel level) {
  uint32_t open = 0;
  uint32_t scalar = due;
#if KS_X86_64
  // Below AVX-512, lanes of wide keys go to the scalar reader after the
  // kernel has read the others (a block's arrivals: the kernel marks every
  // lane it does not read as not arrived); the AVX-512 kernel reads them
  // with a second load. A kernel declines (kNotRead) when a due lane's key
  // is not in its loads inside the stream: near its end.
  const uint32_t loaded = level == SimdLevel::kAvx512 ? due : due & ~c.wide_lanes;
  if (level >= SimdLevel::kAvx2 && loaded != 0) {
    const uint32_t opened =
        level == SimdLevel::kAvx512
            ? detail::read_lane_keys_avx512(into, c, loaded, key_stream.data(), key_stream.size())
            : detail::read_lane_keys_avx2(into, c, loaded, key_stream.data(), key_stream.size());
    if (opened != detail::kNotRead) {
      open = opened;
      scalar = due & ~loaded;
    }
  }
#endif
  if (scalar != 0) open |= read_lane_keys_scalar(arrivals_of(into), c, scalar, key_stream);
  if (open != 0) load_lane_layouts(c, open, segments);
}

}  // namespace

void load_lane_layout(LaneCursors& c, uint32_t lane, std::span<const StreamSegment> segments, uint32_t key) {
  // The layout was worked out at open (StreamView::segments): here it is
  // only spread over the lane's shifts and masks. This runs for every lane
  // a seek restores and every sixteenth key a lane reads.
  const uint32_t segment = segment_of_key(key);
  uint32_t widths = segments[c.first_segment[lane] + segment].widths;
  uint64_t at = 0;
#pragma GCC unroll 8
  for (uint32_t f = 0; f < kKeyFields; ++f) {
    const uint32_t width = widths & ((1u << kSegmentWidthBits) - 1u);
    widths >>= kSegmentWidthBits;
    c.shift[f][lane] = at;
    c.mask[f][lane] = (uint64_t{1} << width) - 1u;
    at += width;
  }
  c.shift[kKeyFields][lane] = at;
  c.mask[kKeyFields][lane] = widths & 1u;
  c.key_bits[lane] = at + (widths & 1u);
  const uint32_t bit = 1u << lane;
  c.wide_lanes = c.key_bits[lane] > kWidestLoadedKeyBits ? c.wide_lanes | bit : c.wide_lanes & ~bit;
  c.segment_end[lane] = next_segment_key(key);
}

void load_lane_layouts(LaneCursors& c, uint32_t lanes, std::span<const StreamSegment> segments) {
  // Lane by lane: an AVX2 version (gathers of the segment table, masked
  // stores) cost cc4's play at the clip's rate 10% more time, the masked
  // stores stalling the next reads of the shifts and masks.
  for (; lanes != 0; lanes &= lanes - 1) {
    const uint32_t l = static_cast<uint32_t>(std::countr_zero(lanes));
    load_lane_layout(c, l, segments, c.keys_read[l]);
  }
}

void place_lane_cursors(LaneCursors& c, uint32_t lanes, std::span<const StreamSegment> segments) {
  if (lanes == 0) return;
#if KS_X86_64
  // Eight lanes at a time: a restore places every lane of a block, and
  // the gathers beat the lane-by-lane loads (cc4's seek 3.6% faster); one
  // or two lanes (a small clip's) go faster one by one.
  if (count_lanes(lanes) > 2 && simd_level() >= SimdLevel::kAvx2) {
    detail::place_lane_cursors_avx2(c, lanes, segments.data());
    return;
  }
#endif
  for (; lanes != 0; lanes &= lanes - 1) {
    const uint32_t l = static_cast<uint32_t>(std::countr_zero(lanes));
    const uint32_t key = c.keys_read[l];
    load_lane_layout(c, l, segments, key);
    c.bit[l] = segments[c.first_segment[l] + segment_of_key(key)].start_bit +
               uint64_t{(key - kInitialKeysPerTrack) % kKeysPerSegment} * c.key_bits[l];
  }
}

void read_lane_keys(SegmentLanes& block, LaneCursors& c, uint32_t due, std::span<const uint8_t> key_stream,
                    std::span<const StreamSegment> segments) {
  read_keys(block, c, due, key_stream, segments, simd_level());
}

namespace {

// read_play_step below AVX-512: block by block, through read_keys.
PlayStep play_step(std::span<SegmentLanes> blocks, std::span<LaneCursors> cursors, uint32_t frame,
                   std::span<const uint8_t> key_stream, std::span<const StreamSegment> segments, PlayStepBlock* events,
                   SimdLevel level) {
  PlayStep out;
  out.next_due = UINT32_MAX;
  for (uint32_t b = 0; b < blocks.size(); ++b) {
    LaneCursors& c = cursors[b];
    const uint32_t due = lanes_due(c, frame);
    if (due == 0) {
      out.next_due = std::min(out.next_due, earliest_need(c));
      continue;
    }
    const uint32_t finished_before = lanes_finished(c);
    SegmentLanes& lanes = blocks[b];
    if (lanes.arrivals.any) {
      events[out.events++] = {b, due, 0, 0, finished_before};
      continue;
    }
    const uint32_t need = latest_need(c, due);
    out.latest_need = need > out.latest_need ? need : out.latest_need;
    out.keys += count_lanes(due);
    read_keys(lanes, c, due, key_stream, segments, level);
    lanes.stale = true;
    out.next_due = std::min(out.next_due, earliest_need(c));
    const uint32_t more = lanes_due(c, frame);
    if ((more | (lanes_finished(c) & ~finished_before)) != 0) events[out.events++] = {b, 0, 0, more, finished_before};
  }
  return out;
}

}  // namespace

PlayStep read_play_step(std::span<SegmentLanes> blocks, std::span<LaneCursors> cursors, uint32_t frame,
                        std::span<const uint8_t> key_stream, std::span<const StreamSegment> segments,
                        PlayStepBlock* events) {
  const SimdLevel level = simd_level();
#if KS_X86_64
  if (level == SimdLevel::kAvx512) {
    return detail::read_play_step_avx512(blocks.data(), cursors.data(), blocks.size(), frame, key_stream.data(),
                                         key_stream.size(), events);
  }
#endif
  return play_step(blocks, cursors, frame, key_stream, segments, events, level);
}

uint32_t read_lane_rounds(KeyRing& ring, LaneCursors& c, uint32_t round, const uint32_t (&forced)[kKeysPerLane],
                          int64_t frame, std::span<const uint8_t> key_stream, std::span<const StreamSegment> segments) {
  // The loop is here, beside the kernels, so that a round costs one call
  // and the instruction set is looked up once: a seek on long mocap runs
  // about twenty rounds per block.
  const SimdLevel level = simd_level();
  const bool avx2 = level >= SimdLevel::kAvx2;
  uint32_t read = 0;
  for (;; ++round) {
#if KS_X86_64
    if (avx2) {
      // As many rounds as the kernel can read in one call; then the one
      // round it declined, read below.
      const detail::RoundsRead rounds =
          level == SimdLevel::kAvx512
              ? detail::read_lane_rounds_avx512(ring, c, round, forced, frame, key_stream.data(), key_stream.size(),
                                                segments)
              : detail::read_lane_rounds_avx2(ring, c, round, forced, frame, key_stream.data(), key_stream.size(),
                                              segments);
      read |= rounds.read;
      if (rounds.done) return read;
      round = rounds.round;
    }
#endif
    const uint32_t again = round < kKeysPerLane ? forced[round] : 0;
    // A lane's need is its own only once it has read again what it had.
    const uint32_t due = again | (frame < 0 ? 0 : lanes_due(c, static_cast<uint32_t>(frame)) & ~again);
    if (due == 0) return read;
    read |= due;
    read_keys(ring.slot[round % kKeysPerLane], c, due, key_stream, segments, level);
  }
}

}  // namespace ks
