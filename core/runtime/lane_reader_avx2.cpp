// The AVX2 kernel of lane_reader.h. This file alone is compiled with -mavx2;
// it includes nothing but plain data and the declarations, so no inline
// function built for AVX2 reaches code that runs on older CPUs.
// lane_reader.cpp calls it only when the CPU has AVX2.

#include "keystream/runtime/lane_reader.h"

#include <cstddef>

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>

namespace ks {

namespace {

__m256i load(const void* p) {
  return _mm256_load_si256(static_cast<const __m256i*>(p));
}
void store(void* p, __m256i v) {
  _mm256_store_si256(static_cast<__m256i*>(p), v);
}

// The low 32 bits of each 64-bit lane of `low` (lanes 0..3) and `high`
// (lanes 4..7), in lane order.
__m256i narrow(__m256i low, __m256i high) {
  const __m256 evens = _mm256_shuffle_ps(_mm256_castsi256_ps(low), _mm256_castsi256_ps(high), _MM_SHUFFLE(2, 0, 2, 0));
  return _mm256_permute4x64_epi64(_mm256_castps_si256(evens), _MM_SHUFFLE(3, 1, 2, 0));
}

// Each due lane's next 64 bits of `key_stream`, shifted to its key's first
// bit (lanes 0..3 in `low`, 4..7 in `high`); lanes not due load nothing
// (their cursor may be at the end of the stream).
struct KeyBits {
  __m256i low, high;
};
KeyBits load_key_bits(const uint8_t* key_stream, __m256i bit_low, __m256i bit_high, __m256i due_low,
                      __m256i due_high) {
  const long long* base = reinterpret_cast<const long long*>(key_stream);
  const __m256i zero = _mm256_setzero_si256();
  const __m256i seven = _mm256_set1_epi64x(7);
  const __m256i low = _mm256_mask_i64gather_epi64(zero, base, _mm256_srli_epi64(bit_low, 3), due_low, 1);
  const __m256i high = _mm256_mask_i64gather_epi64(zero, base, _mm256_srli_epi64(bit_high, 3), due_high, 1);
  return {_mm256_srlv_epi64(low, _mm256_and_si256(bit_low, seven)),
          _mm256_srlv_epi64(high, _mm256_and_si256(bit_high, seven))};
}

// Field f (kLaneFields) of each lane's key, by its segment's shift and mask.
__m256i key_field(const LaneCursors& c, const KeyBits& keys, uint32_t f) {
  const __m256i low = _mm256_and_si256(_mm256_srlv_epi64(keys.low, load(c.shift[f])), load(c.mask[f]));
  const __m256i high = _mm256_and_si256(_mm256_srlv_epi64(keys.high, load(c.shift[f] + 4)), load(c.mask[f] + 4));
  return narrow(low, high);
}

// Stores `v`: in every lane, or (Masked) in the due lanes only.
template <bool Masked>
void put(float* p, __m256 v, __m256i due) {
  if constexpr (Masked) {
    _mm256_maskstore_ps(p, due, v);
  } else {
    _mm256_store_ps(p, v);
  }
}

// Stores the 32-bit `values` widened to 64 bits at `p` (eight), in the
// lanes of the 32-bit lane mask `lanes` only.
void store_widened(uint64_t* p, __m256i values, __m256i lanes) {
  long long* q = reinterpret_cast<long long*>(p);
  _mm256_maskstore_epi64(q, _mm256_cvtepi32_epi64(_mm256_castsi256_si128(lanes)),
                         _mm256_cvtepu32_epi64(_mm256_castsi256_si128(values)));
  _mm256_maskstore_epi64(q + 4, _mm256_cvtepi32_epi64(_mm256_extracti128_si256(lanes, 1)),
                         _mm256_cvtepu32_epi64(_mm256_extracti128_si256(values, 1)));
}

// place_lane_cursors for the lanes of `open` (a 32-bit lane mask): each
// lane's layout at its next key (c.keys_read), as load_lane_layout loads
// it, and its cursor's bit: its segment's start plus the key's place in it
// times the key length.
void place_cursors(LaneCursors& c, __m256i open, const StreamSegment* segments) {
  static_assert(sizeof(StreamSegment) == 8 && offsetof(StreamSegment, widths) == 4);
  static_assert(kKeysPerSegment == 16 && kSegmentWidthBits == 5);
  const __m256i zero = _mm256_setzero_si256();
  const __m256i one = _mm256_set1_epi32(1);
  const __m256i width_mask = _mm256_set1_epi32((1 << kSegmentWidthBits) - 1);
  // The key's place among the track's stream keys, and its segment's index
  // in `segments` (lanes not in `open` load nothing).
  const __m256i key = _mm256_sub_epi32(load(c.keys_read), _mm256_set1_epi32(kInitialKeysPerTrack));
  const __m256i in_track = _mm256_srli_epi32(key, 4);
  const __m256i segment = _mm256_add_epi32(load(c.first_segment), in_track);
  const int* words = reinterpret_cast<const int*>(segments);
  __m256i widths = _mm256_mask_i32gather_epi32(zero, words + 1, segment, open, 8);
  __m256i at = zero;
  for (uint32_t f = 0; f < kKeyFields; ++f) {
    const __m256i width = _mm256_and_si256(widths, width_mask);
    widths = _mm256_srli_epi32(widths, kSegmentWidthBits);
    store_widened(c.shift[f], at, open);
    store_widened(c.mask[f], _mm256_sub_epi32(_mm256_sllv_epi32(one, width), one), open);
    at = _mm256_add_epi32(at, width);
  }
  const __m256i negation = _mm256_and_si256(widths, one);
  const __m256i key_bits = _mm256_add_epi32(at, negation);
  store_widened(c.shift[kKeyFields], at, open);
  store_widened(c.mask[kKeyFields], negation, open);
  store_widened(c.key_bits, key_bits, open);
  const __m256i segment_end = _mm256_add_epi32(_mm256_set1_epi32(kInitialKeysPerTrack),
                                               _mm256_slli_epi32(_mm256_add_epi32(in_track, one), 4));
  store(c.segment_end, _mm256_blendv_epi8(load(c.segment_end), segment_end, open));
  const uint32_t lanes = static_cast<uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(open)));
  const __m256i wide = _mm256_and_si256(
      _mm256_cmpgt_epi32(key_bits, _mm256_set1_epi32(static_cast<int>(kWidestLoadedKeyBits))), open);
  c.wide_lanes = (c.wide_lanes & ~lanes) | static_cast<uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(wide)));
  const __m256i start = _mm256_mask_i32gather_epi32(zero, words, segment, open, 8);
  const __m256i place = _mm256_and_si256(key, _mm256_set1_epi32(kKeysPerSegment - 1));
  const auto bits = [&](__m128i s, __m128i p, __m128i k) {
    return _mm256_add_epi64(_mm256_cvtepu32_epi64(s),
                            _mm256_mul_epu32(_mm256_cvtepu32_epi64(p), _mm256_cvtepu32_epi64(k)));
  };
  const __m256i low = bits(_mm256_castsi256_si128(start), _mm256_castsi256_si128(place),
                           _mm256_castsi256_si128(key_bits));
  const __m256i high = bits(_mm256_extracti128_si256(start, 1), _mm256_extracti128_si256(place, 1),
                            _mm256_extracti128_si256(key_bits, 1));
  long long* bit = reinterpret_cast<long long*>(c.bit);
  _mm256_maskstore_epi64(bit, _mm256_cvtepi32_epi64(_mm256_castsi256_si128(open)), low);
  _mm256_maskstore_epi64(bit + 4, _mm256_cvtepi32_epi64(_mm256_extracti128_si256(open, 1)), high);
}

// Reads into `a`: a block's arrivals (every lane written, those not due
// marked not arrived) or a ring slot (Masked: due lanes only).
template <bool Masked>
uint32_t read_keys(LaneArrivals& a, LaneCursors& c, uint32_t due_bits, const uint8_t* key_stream, size_t bytes) {
  const __m256i lane_bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
  const __m256i zero = _mm256_setzero_si256();
  const __m256i due =
      _mm256_cmpgt_epi32(_mm256_and_si256(_mm256_set1_epi32(static_cast<int>(due_bits)), lane_bit), zero);
  const __m256i due_low = _mm256_cvtepi32_epi64(_mm256_castsi256_si128(due));
  const __m256i due_high = _mm256_cvtepi32_epi64(_mm256_extracti128_si256(due, 1));
  const __m256i bit_low = load(c.bit);
  const __m256i bit_high = load(c.bit + 4);
  // Every due lane's key in one 64-bit load inside the stream: its byte
  // at most bytes - 8 (signed compares: bit offsets are below 2^35), and
  // no key wider than 57 bits (the load less its first byte's offset).
  const __m256i last_byte = _mm256_set1_epi64x(static_cast<long long>(bytes) - 8);
  const __m256i widest = _mm256_set1_epi64x(static_cast<long long>(kWidestLoadedKeyBits));
  const __m256i outside_low = _mm256_or_si256(_mm256_cmpgt_epi64(_mm256_srli_epi64(bit_low, 3), last_byte),
                                              _mm256_cmpgt_epi64(load(c.key_bits), widest));
  const __m256i outside_high = _mm256_or_si256(_mm256_cmpgt_epi64(_mm256_srli_epi64(bit_high, 3), last_byte),
                                               _mm256_cmpgt_epi64(load(c.key_bits + 4), widest));
  if (!_mm256_testz_si256(
          _mm256_or_si256(_mm256_and_si256(outside_low, due_low), _mm256_and_si256(outside_high, due_high)),
          _mm256_set1_epi64x(-1))) {
    return detail::kNotRead;
  }
  const KeyBits keys = load_key_bits(key_stream, bit_low, bit_high, due_low, due_high);
  const auto field = [&](uint32_t f) { return key_field(c, keys, f); };
  const __m256i one = _mm256_set1_epi32(1);
  const __m256i frame_old = load(c.frame);
  const __m256i frame_new = _mm256_add_epi32(frame_old, _mm256_add_epi32(field(0), load(c.frame_delta_min)));
  store(c.frame, _mm256_blendv_epi8(frame_old, frame_new, due));
  store(c.need, _mm256_blendv_epi8(load(c.need), frame_old, due));
  put<Masked>(a.frame, _mm256_cvtepi32_ps(frame_new), due);
  for (int i = 0; i < 4; ++i) {
    // Unsigned arithmetic: untrusted differences wrap (read_stream_key).
    const __m256i u = field(static_cast<uint32_t>(i) + 1);
    const __m256i difference =
        _mm256_xor_si256(_mm256_srli_epi32(u, 1), _mm256_sub_epi32(zero, _mm256_and_si256(u, one)));
    const __m256i old = load(c.codes[i]);
    const __m256i codes = _mm256_blendv_epi8(old, _mm256_add_epi32(old, difference), due);
    store(c.codes[i], codes);
    put<Masked>(a.code[i], _mm256_cvtepi32_ps(codes), due);
  }
  const __m256i negated = field(kKeyFields);
  put<Masked>(a.sign, _mm256_cvtepi32_ps(_mm256_sub_epi32(one, _mm256_add_epi32(negated, negated))), due);
  put<Masked>(a.arrived, _mm256_and_ps(_mm256_castsi256_ps(due), _mm256_set1_ps(1.f)), due);
  a.any = a.any || due_bits != 0;
  // The due lanes' cursors move past their key.
  store(c.bit, _mm256_add_epi64(bit_low, _mm256_and_si256(load(c.key_bits), due_low)));
  store(c.bit + 4, _mm256_add_epi64(bit_high, _mm256_and_si256(load(c.key_bits + 4), due_high)));
  const __m256i left = _mm256_add_epi32(load(c.keys_left), due);  // due is -1 in a due lane
  store(c.keys_left, left);
  const __m256i read = _mm256_sub_epi32(load(c.keys_read), due);
  store(c.keys_read, read);
  // Lanes whose next key opens a segment (one key in sixteen).
  const __m256i opening = _mm256_andnot_si256(_mm256_cmpeq_epi32(left, zero),
                                              _mm256_and_si256(_mm256_cmpeq_epi32(read, load(c.segment_end)), due));
  return static_cast<uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(opening)));
}

// The lanes of `bits` (bit l: lane l) as a mask of 32-bit lanes.
__m256i lane_mask(uint32_t bits) {
  const __m256i lane_bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
  return _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32(static_cast<int>(bits)), lane_bit), lane_bit);
}

// read_lane_rounds' loop with the cursors in registers: a seek's read
// forward runs about twenty rounds per block, and one call per round that
// loads and stores every cursor cost cgspeed about 50 instructions per key.
detail::RoundsRead read_rounds(KeyRing& ring, LaneCursors& c, uint32_t round, const uint32_t (&forced)[kKeysPerLane],
                               int64_t frame, const uint8_t* key_stream, size_t bytes,
                               std::span<const StreamSegment> segments) {
  detail::RoundsRead out;
  const __m256i zero = _mm256_setzero_si256();
  const __m256i one = _mm256_set1_epi32(1);
  // No lane is due by its need before frame 0 (needs are frames, >= 0).
  const __m256i now = _mm256_set1_epi32(frame < 0 ? -1 : static_cast<int>(frame));
  const __m256i last_byte = _mm256_set1_epi64x(static_cast<long long>(bytes) - 8);
  __m256i wide = lane_mask(c.wide_lanes);
  __m256i segment_end = load(c.segment_end);
  const __m256i frame_delta_min = load(c.frame_delta_min);
  __m256i key_bits_low = load(c.key_bits);
  __m256i key_bits_high = load(c.key_bits + 4);
  __m256i bit_low = load(c.bit);
  __m256i bit_high = load(c.bit + 4);
  __m256i frames = load(c.frame);
  __m256i need = load(c.need);
  __m256i left = load(c.keys_left);
  __m256i keys_read = load(c.keys_read);
  __m256i codes[4] = {load(c.codes[0]), load(c.codes[1]), load(c.codes[2]), load(c.codes[3])};
  // Whether any lane's key may load past the stream in this call: each of
  // its keys left is shorter than 128 bits. Far from the stream's end (every
  // block but the last few) no round checks its loads.
  const auto reach = [&](__m256i bit, __m128i keys_left) {
    const __m256i end = _mm256_add_epi64(bit, _mm256_slli_epi64(_mm256_cvtepi32_epi64(keys_left), 7));
    return _mm256_cmpgt_epi64(_mm256_srli_epi64(end, 3), last_byte);
  };
  const __m256i lanes_left = _mm256_max_epi32(left, zero);
  const __m256i beyond = _mm256_or_si256(reach(bit_low, _mm256_castsi256_si128(lanes_left)),
                                         reach(bit_high, _mm256_extracti128_si256(lanes_left, 1)));
  const bool check_loads = !_mm256_testz_si256(beyond, beyond);
  // Whether any lane's keys carry a "negated" bit (the tracks whose
  // hemisphere chain negates a key: few; the initial keys of a track with
  // none in the stream too). Without, every key of the block is positive:
  // the ring's signs are set once, and no round extracts one.
  const auto any_negation = [&] {
    const __m256i negation = _mm256_or_si256(load(c.mask[kKeyFields]), load(c.mask[kKeyFields] + 4));
    return c.negation_lanes != 0 || !_mm256_testz_si256(negation, negation);
  };
  bool negations = any_negation();
  if (!negations) {
    for (LaneArrivals& slot : ring.slot) _mm256_store_ps(slot.sign, _mm256_set1_ps(1.f));
  }
  for (;; ++round) {
    const __m256i again = lane_mask(round < kKeysPerLane ? forced[round] : 0u);
    const __m256i due =
        _mm256_or_si256(again, _mm256_andnot_si256(_mm256_cmpgt_epi32(need, now), _mm256_cmpgt_epi32(left, zero)));
    if (_mm256_testz_si256(due, due)) {
      out.done = true;
      break;
    }
    // A due lane of wide keys, or whose key's 64-bit load would pass the
    // end of the stream: the caller reads this round its own way.
    if (!_mm256_testz_si256(due, wide)) break;
    const __m256i due_low = _mm256_cvtepi32_epi64(_mm256_castsi256_si128(due));
    const __m256i due_high = _mm256_cvtepi32_epi64(_mm256_extracti128_si256(due, 1));
    if (check_loads) {
      const __m256i outside = _mm256_or_si256(
          _mm256_and_si256(_mm256_cmpgt_epi64(_mm256_srli_epi64(bit_low, 3), last_byte), due_low),
          _mm256_and_si256(_mm256_cmpgt_epi64(_mm256_srli_epi64(bit_high, 3), last_byte), due_high));
      if (!_mm256_testz_si256(outside, outside)) break;
    }
    const KeyBits keys = load_key_bits(key_stream, bit_low, bit_high, due_low, due_high);
    const auto field = [&](uint32_t f) { return key_field(c, keys, f); };
    LaneArrivals& slot = ring.slot[round % kKeysPerLane];
    const __m256i frame_new =
        _mm256_add_epi32(frames, _mm256_and_si256(_mm256_add_epi32(field(0), frame_delta_min), due));
    need = _mm256_blendv_epi8(need, frames, due);
    frames = frame_new;
    _mm256_maskstore_ps(slot.frame, due, _mm256_cvtepi32_ps(frame_new));
    for (int i = 0; i < 4; ++i) {
      const __m256i u = field(static_cast<uint32_t>(i) + 1);
      const __m256i difference =
          _mm256_xor_si256(_mm256_srli_epi32(u, 1), _mm256_sub_epi32(zero, _mm256_and_si256(u, one)));
      codes[i] = _mm256_add_epi32(codes[i], _mm256_and_si256(difference, due));
      _mm256_maskstore_ps(slot.code[i], due, _mm256_cvtepi32_ps(codes[i]));
    }
    if (negations) {
      const __m256i negated = field(kKeyFields);
      _mm256_maskstore_ps(slot.sign, due,
                          _mm256_cvtepi32_ps(_mm256_sub_epi32(one, _mm256_add_epi32(negated, negated))));
    }
    // A ring slot's arrived and any are not read (refill_windows takes each
    // lane's count of keys read).
    bit_low = _mm256_add_epi64(bit_low, _mm256_and_si256(key_bits_low, due_low));
    bit_high = _mm256_add_epi64(bit_high, _mm256_and_si256(key_bits_high, due_high));
    left = _mm256_add_epi32(left, due);  // due is -1 in a due lane
    keys_read = _mm256_sub_epi32(keys_read, due);
    out.read |= static_cast<uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(due)));
    // Lanes whose next key opens a segment take its layout here (a key
    // that is too wide stops the next round, for the caller to read).
    const __m256i opening = _mm256_andnot_si256(_mm256_cmpeq_epi32(left, zero),
                                                _mm256_and_si256(_mm256_cmpeq_epi32(keys_read, segment_end), due));
    if (!_mm256_testz_si256(opening, opening)) {
      store(c.keys_read, keys_read);
      // Through the scalar code (load_lane_layouts says why), its loop
      // written out here: calling load_lane_layouts cost cgspeed's and
      // cc4's seeks 2% (3.02 -> 3.10 us, 6.78 -> 6.94).
      const uint32_t opened = static_cast<uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(opening)));
      for (uint32_t open = opened; open != 0; open &= open - 1) {
        const uint32_t l = static_cast<uint32_t>(__builtin_ctz(open));
        load_lane_layout(c, l, segments, c.keys_read[l]);
      }
      key_bits_low = load(c.key_bits);
      key_bits_high = load(c.key_bits + 4);
      segment_end = load(c.segment_end);
      wide = lane_mask(c.wide_lanes);
      // A forged stream may give a track's segments different negation
      // bits; the signs set at the start stand for the keys before.
      negations = negations || any_negation();
    }
  }
  out.round = round;
  store(c.bit, bit_low);
  store(c.bit + 4, bit_high);
  store(c.frame, frames);
  store(c.need, need);
  store(c.keys_left, left);
  store(c.keys_read, keys_read);
  for (int i = 0; i < 4; ++i) store(c.codes[i], codes[i]);
  return out;
}

}  // namespace

namespace detail {

uint32_t read_lane_keys_avx2(SegmentLanes& block, LaneCursors& c, uint32_t due, const uint8_t* key_stream,
                             size_t bytes) {
  return read_keys<false>(block.arrivals, c, due, key_stream, bytes);
}
uint32_t read_lane_keys_avx2(LaneArrivals& slot, LaneCursors& c, uint32_t due, const uint8_t* key_stream,
                             size_t bytes) {
  return read_keys<true>(slot, c, due, key_stream, bytes);
}
RoundsRead read_lane_rounds_avx2(KeyRing& ring, LaneCursors& c, uint32_t round, const uint32_t (&forced)[kKeysPerLane],
                                 int64_t frame, const uint8_t* key_stream, size_t bytes,
                                 std::span<const StreamSegment> segments) {
  return read_rounds(ring, c, round, forced, frame, key_stream, bytes, segments);
}
void place_lane_cursors_avx2(LaneCursors& c, uint32_t lanes, const StreamSegment* segments) {
  place_cursors(c, lane_mask(lanes), segments);
}

}  // namespace detail

}  // namespace ks
#endif
