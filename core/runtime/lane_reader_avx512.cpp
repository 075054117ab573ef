// The AVX-512 form of lane_reader_avx2.cpp's seek kernel (read_lane_rounds):
// a block's eight 64-bit cursors fit one register, so each round takes one
// gather and one shift and mask per field where AVX2 takes two of each and
// a narrowing shuffle, and the due lanes are a mask register that merges
// the updates instead of AND-ing every one. This file alone is compiled with
// -mavx512f -mavx512vl (and the library's -ffp-contract=off); everything
// built for AVX-512 stays in an anonymous namespace, and lane_reader.cpp
// calls it only at SimdLevel::kAvx512. Reading single rounds and placing
// cursors stay AVX2 at that level: they run once per block, not per key.

#include "core/runtime/lane_reader.h"

#include <cstddef>

#if defined(__x86_64__) || defined(_M_X64)
#include "core/runtime/avx512_intrinsics.h"

namespace ks {

namespace {

__m256i load(const void* p) {
  return _mm256_load_si256(static_cast<const __m256i*>(p));
}
void store(void* p, __m256i v) {
  _mm256_store_si256(static_cast<__m256i*>(p), v);
}
// A row of eight 64-bit fields (LaneCursors is 64-byte aligned, and so is each row).
__m512i load_wide(const uint64_t* p) {
  return _mm512_load_si512(p);
}

detail::RoundsRead read_rounds(KeyRing& ring, LaneCursors& c, uint32_t round, const uint32_t (&forced)[kKeysPerLane],
                               int64_t frame, const uint8_t* key_stream, size_t bytes,
                               std::span<const StreamSegment> segments) {
  detail::RoundsRead out;
  const __m256i zero = _mm256_setzero_si256();
  const __m256i one = _mm256_set1_epi32(1);
  const __m512i seven = _mm512_set1_epi64(7);
  // No lane is due by its need before frame 0 (needs are frames, >= 0).
  const __m256i now = _mm256_set1_epi32(frame < 0 ? -1 : static_cast<int>(frame));
  const __m512i last_byte = _mm512_set1_epi64(static_cast<long long>(bytes) - 8);
  __mmask8 wide = static_cast<__mmask8>(c.wide_lanes);
  __m256i segment_end = load(c.segment_end);
  const __m256i frame_delta_min = load(c.frame_delta_min);
  __m512i key_bits = load_wide(c.key_bits);
  __m512i bit = load_wide(c.bit);
  __m256i frames = load(c.frame);
  __m256i need = load(c.need);
  __m256i left = load(c.keys_left);
  __m256i keys_read = load(c.keys_read);
  __m256i codes[4] = {load(c.codes[0]), load(c.codes[1]), load(c.codes[2]), load(c.codes[3])};
  // As the AVX2 kernel: only a call whose lanes may reach the stream's end
  // with the keys they have left (each shorter than 128 bits) checks loads.
  const __m512i lanes_left = _mm512_cvtepi32_epi64(_mm256_max_epi32(left, zero));
  const __m512i reach = _mm512_add_epi64(bit, _mm512_slli_epi64(lanes_left, 7));
  const bool check_loads = _mm512_cmpgt_epi64_mask(_mm512_srli_epi64(reach, 3), last_byte) != 0;
  // Signs: set once, and none extracted, for a block without negated keys.
  const auto any_negation = [&] {
    const __m512i negation = load_wide(c.mask[kKeyFields]);
    return c.negation_lanes != 0 || _mm512_test_epi64_mask(negation, negation) != 0;
  };
  bool negations = any_negation();
  if (!negations) {
    for (LaneArrivals& slot : ring.slot) _mm256_store_ps(slot.sign, _mm256_set1_ps(1.f));
  }
  const long long* base = reinterpret_cast<const long long*>(key_stream);
  for (;; ++round) {
    const __mmask8 again = static_cast<__mmask8>(round < kKeysPerLane ? forced[round] : 0u);
    const __mmask8 due = again | _mm256_mask_cmple_epi32_mask(_mm256_cmpgt_epi32_mask(left, zero), need, now);
    if (due == 0) {
      out.done = true;
      break;
    }
    // A due lane of wide keys, or whose key's 64-bit load would pass the
    // end of the stream: the caller reads this round its own way.
    if ((due & wide) != 0) break;
    if (check_loads && _mm512_mask_cmpgt_epi64_mask(due, _mm512_srli_epi64(bit, 3), last_byte) != 0) break;
    const __m512i loaded = _mm512_mask_i64gather_epi64(_mm512_setzero_si512(), due, _mm512_srli_epi64(bit, 3), base, 1);
    const __m512i keys = _mm512_srlv_epi64(loaded, _mm512_and_si512(bit, seven));
    const auto field = [&](uint32_t f) {
      return _mm512_cvtepi64_epi32(
          _mm512_and_si512(_mm512_srlv_epi64(keys, load_wide(c.shift[f])), load_wide(c.mask[f])));
    };
    LaneArrivals& slot = ring.slot[round % kKeysPerLane];
    const __m256i frame_new = _mm256_mask_add_epi32(frames, due, frames, _mm256_add_epi32(field(0), frame_delta_min));
    need = _mm256_mask_mov_epi32(need, due, frames);
    frames = frame_new;
    _mm256_mask_store_ps(slot.frame, due, _mm256_cvtepi32_ps(frame_new));
    for (int i = 0; i < 4; ++i) {
      // Unsigned arithmetic: untrusted differences wrap (read_stream_key).
      const __m256i u = field(static_cast<uint32_t>(i) + 1);
      const __m256i difference =
          _mm256_xor_si256(_mm256_srli_epi32(u, 1), _mm256_sub_epi32(zero, _mm256_and_si256(u, one)));
      codes[i] = _mm256_mask_add_epi32(codes[i], due, codes[i], difference);
      _mm256_mask_store_ps(slot.code[i], due, _mm256_cvtepi32_ps(codes[i]));
    }
    if (negations) {
      const __m256i negated = field(kKeyFields);
      _mm256_mask_store_ps(slot.sign, due,
                           _mm256_cvtepi32_ps(_mm256_sub_epi32(one, _mm256_add_epi32(negated, negated))));
    }
    // A ring slot's arrived and any are not read (refill_windows takes each
    // lane's count of keys read).
    bit = _mm512_mask_add_epi64(bit, due, bit, key_bits);
    left = _mm256_mask_sub_epi32(left, due, left, one);
    keys_read = _mm256_mask_add_epi32(keys_read, due, keys_read, one);
    out.read |= due;
    // Lanes whose next key opens a segment take its layout here (a key
    // that is too wide stops the next round, for the caller to read).
    const __mmask8 opening =
        _mm256_mask_cmpeq_epi32_mask(due, keys_read, segment_end) & _mm256_cmpneq_epi32_mask(left, zero);
    if (opening != 0) {
      store(c.keys_read, keys_read);
      // Through the scalar code, as the AVX2 kernel does (load_lane_layouts says why).
      for (uint32_t open = opening; open != 0; open &= open - 1) {
        const uint32_t l = static_cast<uint32_t>(__builtin_ctz(open));
        load_lane_layout(c, l, segments, c.keys_read[l]);
      }
      key_bits = load_wide(c.key_bits);
      segment_end = load(c.segment_end);
      wide = static_cast<__mmask8>(c.wide_lanes);
      // A forged stream may give a track's segments different negation
      // bits; the signs set at the start stand for the keys before.
      negations = negations || any_negation();
    }
  }
  out.round = round;
  _mm512_store_si512(c.bit, bit);
  store(c.frame, frames);
  store(c.need, need);
  store(c.keys_left, left);
  store(c.keys_read, keys_read);
  for (int i = 0; i < 4; ++i) store(c.codes[i], codes[i]);
  return out;
}

}  // namespace

namespace detail {

RoundsRead read_lane_rounds_avx512(KeyRing& ring, LaneCursors& c, uint32_t round,
                                   const uint32_t (&forced)[kKeysPerLane], int64_t frame, const uint8_t* key_stream,
                                   size_t bytes, std::span<const StreamSegment> segments) {
  return read_rounds(ring, c, round, forced, frame, key_stream, bytes, segments);
}

}  // namespace detail

}  // namespace ks
#endif
