// The AVX2 kernel of bisection_lanes.h. This file alone is compiled with
// -mavx2 and calls no inline function of the headers it includes, so no
// code built for AVX2 reaches a CPU without it; bisection_lanes.cpp calls
// it only when the CPU has AVX2.

#include "core/runtime/bisection_lanes.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>

namespace ks::detail {

namespace {

__m256i load(const void* p) { return _mm256_load_si256(static_cast<const __m256i*>(p)); }
void store(void* p, __m256i v) { _mm256_storeu_si256(static_cast<__m256i*>(p), v); }

// The low 32 bits of each 64-bit lane of `low` (lanes 0..3) and `high`
// (lanes 4..7), in lane order.
__m256i narrow(__m256i low, __m256i high) {
  const __m256 evens = _mm256_shuffle_ps(_mm256_castsi256_ps(low), _mm256_castsi256_ps(high), _MM_SHUFFLE(2, 0, 2, 0));
  return _mm256_permute4x64_epi64(_mm256_castps_si256(evens), _MM_SHUFFLE(3, 1, 2, 0));
}
__m256i widen_low(__m256i v) { return _mm256_cvtepu32_epi64(_mm256_castsi256_si128(v)); }
__m256i widen_high(__m256i v) { return _mm256_cvtepu32_epi64(_mm256_extracti128_si256(v, 1)); }
__m256i signed_low(__m256i v) { return _mm256_cvtepi32_epi64(_mm256_castsi256_si128(v)); }
__m256i signed_high(__m256i v) { return _mm256_cvtepi32_epi64(_mm256_extracti128_si256(v, 1)); }

// Unsigned a <= b in each 32-bit lane (all ones where it holds).
__m256i at_or_before(__m256i a, __m256i b) {
  const __m256i bias = _mm256_set1_epi32(static_cast<int>(0x80000000u));
  const __m256i after = _mm256_cmpgt_epi32(_mm256_xor_si256(a, bias), _mm256_xor_si256(b, bias));
  return _mm256_xor_si256(after, _mm256_set1_epi32(-1));
}

__m256i unzigzag(__m256i u) {
  return _mm256_xor_si256(_mm256_srli_epi32(u, 1), _mm256_sub_epi32(_mm256_setzero_si256(),
                                                                    _mm256_and_si256(u, _mm256_set1_epi32(1))));
}

struct Key {
  __m256i frame, code[4], negated;
};

Key load_key(const BisectionLanes& lanes, uint32_t end) {
  Key k;
  k.frame = load(lanes.frame[end]);
  for (int c = 0; c < 4; ++c) k.code[c] = load(lanes.code[end][c]);
  k.negated = load(lanes.negated[end]);
  return k;
}

Key blend(const Key& a, const Key& b, __m256i take_b) {
  Key k;
  k.frame = _mm256_blendv_epi8(a.frame, b.frame, take_b);
  for (int c = 0; c < 4; ++c) k.code[c] = _mm256_blendv_epi8(a.code[c], b.code[c], take_b);
  k.negated = _mm256_blendv_epi8(a.negated, b.negated, take_b);
  return k;
}

// bisection_code_guess, eight lanes: the same float steps (frames below
// 2^31 and codes within +-2^30, as every stream StreamView accepts).
__m256i code_guess(__m256i left_code, __m256i right_code, __m256i left_frame, __m256i right_frame, __m256i frame) {
  const __m256 zero = _mm256_setzero_ps();
  const __m256 span = _mm256_cvtepi32_ps(_mm256_sub_epi32(right_frame, left_frame));
  const __m256 has_span = _mm256_cmp_ps(span, zero, _CMP_GT_OQ);
  __m256 t = _mm256_div_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(frame, left_frame)), span);
  t = _mm256_min_ps(_mm256_max_ps(t, zero), _mm256_set1_ps(1.f));
  const __m256i rise = _mm256_sub_epi32(right_code, left_code);
  const __m256 scaled = _mm256_add_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(rise), t), _mm256_set1_ps(0.5f));
  __m256i step = _mm256_cvttps_epi32(_mm256_floor_ps(scaled));
  const __m256i none = _mm256_setzero_si256();
  step = _mm256_min_epi32(_mm256_max_epi32(step, _mm256_min_epi32(rise, none)), _mm256_max_epi32(rise, none));
  return _mm256_blendv_epi8(left_code, _mm256_add_epi32(left_code, step), _mm256_castps_si256(has_span));
}

// Field f of each lane's record (its 64 bits in `low`, `high`), by the
// group's per-lane shift and mask.
__m256i field(const BisectionLanes& lanes, uint32_t group, uint32_t f, __m256i low, __m256i high) {
  const __m256i a = _mm256_and_si256(_mm256_srlv_epi64(low, load(lanes.shift[group][f])), load(lanes.mask[group][f]));
  const __m256i b =
      _mm256_and_si256(_mm256_srlv_epi64(high, load(lanes.shift[group][f] + 4)), load(lanes.mask[group][f] + 4));
  return narrow(a, b);
}

}  // namespace

bool descend_bisection_lanes_avx2(const BisectionLanes& lanes, const uint8_t* key_stream, size_t bytes,
                                  const uint32_t (&target)[kLanesPerBlock], BisectionTarget kind,
                                  BisectionBracket& out, uint32_t& records) {
  const __m256i zero = _mm256_setzero_si256();
  const __m256i one = _mm256_set1_epi32(1);
  const __m256i count = load(lanes.count);
  const __m256i present = _mm256_cmpgt_epi32(count, zero);
  const uint32_t present_bits = static_cast<uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(present)));
  if ((lanes.wide_lanes & present_bits) != 0) return false;
  for (uint32_t lane = 0; lane < kLanesPerBlock; ++lane) {
    // Every record of the lane is one 8-byte load inside the stream.
    if (((present_bits >> lane) & 1u) != 0 && lanes.end_byte[lane] + 8 > bytes) return false;
  }
  const __m256i goal = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(target));
  const bool by_frame = kind == BisectionTarget::kFrame;

  Key left = load_key(lanes, 0), right = load_key(lanes, 1);
  __m256i left_position = zero, right_position = count;
  // Lanes whose target is at or after the anchor end there.
  const __m256i past = at_or_before(by_frame ? right.frame : count, goal);
  left = blend(left, right, past);
  left_position = _mm256_blendv_epi8(left_position, count, past);
  __m256i active = _mm256_andnot_si256(past, _mm256_and_si256(present, _mm256_cmpgt_epi32(count, one)));
  active = _mm256_and_si256(active, _mm256_cmpgt_epi32(_mm256_sub_epi32(right_position, left_position), one));
  const int* index_table = reinterpret_cast<const int*>(&kBisectionIndexInGroup);
  const long long* words = reinterpret_cast<const long long*>(key_stream);
  const __m256i seven = _mm256_set1_epi64x(7);
  records = 0;
  for (uint32_t level = 1; !_mm256_testz_si256(active, active); ++level) {
    const uint32_t group = level <= kBisectionUpperLevels ? 0 : 1;
    const __m256i middle = _mm256_srli_epi32(_mm256_add_epi32(left_position, right_position), 1);
    // The record's index in its group: one byte of the table, at [count][middle].
    const __m256i entry = _mm256_add_epi32(_mm256_mullo_epi32(count, _mm256_set1_epi32(kKeysPerSegment + 1)), middle);
    const __m256i word = _mm256_mask_i32gather_epi32(zero, index_table, _mm256_srli_epi32(entry, 2), active, 4);
    const __m256i index = _mm256_and_si256(
        _mm256_srlv_epi32(word, _mm256_slli_epi32(_mm256_and_si256(entry, _mm256_set1_epi32(3)), 3)),
        _mm256_set1_epi32(0xFF));
    // Its first bit: the group's records' start plus index times their length.
    const __m256i bit_low = _mm256_add_epi64(load(lanes.records_bit[group]),
                                             _mm256_mul_epu32(widen_low(index), load(lanes.key_bits[group])));
    const __m256i bit_high = _mm256_add_epi64(load(lanes.records_bit[group] + 4),
                                              _mm256_mul_epu32(widen_high(index), load(lanes.key_bits[group] + 4)));
    __m256i low = _mm256_mask_i64gather_epi64(zero, words, _mm256_srli_epi64(bit_low, 3), signed_low(active), 1);
    __m256i high = _mm256_mask_i64gather_epi64(zero, words, _mm256_srli_epi64(bit_high, 3), signed_high(active), 1);
    low = _mm256_srlv_epi64(low, _mm256_and_si256(bit_low, seven));
    high = _mm256_srlv_epi64(high, _mm256_and_si256(bit_high, seven));

    Key key;
    key.frame = _mm256_add_epi32(
        _mm256_add_epi32(left.frame, _mm256_srli_epi32(_mm256_sub_epi32(right.frame, left.frame), 1)),
        unzigzag(field(lanes, group, 0, low, high)));
    for (uint32_t c = 0; c < 4; ++c) {
      const __m256i guess = code_guess(left.code[c], right.code[c], left.frame, right.frame, key.frame);
      key.code[c] = _mm256_add_epi32(guess, unzigzag(field(lanes, group, c + 1, low, high)));
    }
    key.negated = field(lanes, group, kKeyFields, low, high);
    records += static_cast<uint32_t>(__builtin_popcount(
        static_cast<unsigned>(_mm256_movemask_ps(_mm256_castsi256_ps(active)))));

    const __m256i to_right = at_or_before(by_frame ? key.frame : middle, goal);
    const __m256i move_left = _mm256_and_si256(active, to_right);
    const __m256i move_right = _mm256_andnot_si256(to_right, active);
    left = blend(left, key, move_left);
    right = blend(right, key, move_right);
    left_position = _mm256_blendv_epi8(left_position, middle, move_left);
    right_position = _mm256_blendv_epi8(right_position, middle, move_right);
    active = _mm256_and_si256(active, _mm256_cmpgt_epi32(_mm256_sub_epi32(right_position, left_position), one));
  }

  alignas(32) int32_t frame[2][kLanesPerBlock], code[2][4][kLanesPerBlock], negated[2][kLanesPerBlock];
  store(frame[0], left.frame);
  store(frame[1], right.frame);
  store(negated[0], left.negated);
  store(negated[1], right.negated);
  for (int c = 0; c < 4; ++c) {
    store(code[0][c], left.code[c]);
    store(code[1][c], right.code[c]);
  }
  alignas(32) uint32_t position[kLanesPerBlock];
  store(position, left_position);
  for (uint32_t lane = 0; lane < kLanesPerBlock; ++lane) {
    if (((present_bits >> lane) & 1u) == 0) continue;
    out.left_position[lane] = position[lane];
    BisectionKey* keys[2] = {&out.left[lane], &out.right[lane]};
    for (uint32_t e = 0; e < 2; ++e) {
      keys[e]->frame = static_cast<uint32_t>(frame[e][lane]);
      for (int c = 0; c < 4; ++c) keys[e]->codes[c] = code[e][c][lane];
      keys[e]->negated = negated[e][lane] != 0;
    }
  }
  return true;
}

}  // namespace ks::detail

#endif
