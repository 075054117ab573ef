// The AVX2 kernel of bisection_lanes.h. This file alone is compiled with
// -mavx2 and calls no inline function of the headers it includes, so no
// code built for AVX2 reaches a CPU without it; bisection_lanes.cpp calls
// it only when the CPU has AVX2.

#include "keystream/runtime/bisection_lanes.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>

namespace ks::detail {

namespace {

__m256i load(const void* p) {
  return _mm256_load_si256(static_cast<const __m256i*>(p));
}
void store(void* p, __m256i v) {
  _mm256_storeu_si256(static_cast<__m256i*>(p), v);
}

// The low 32 bits of each 64-bit lane of `low` (lanes 0..3) and `high`
// (lanes 4..7), in lane order.
__m256i narrow(__m256i low, __m256i high) {
  const __m256 evens = _mm256_shuffle_ps(_mm256_castsi256_ps(low), _mm256_castsi256_ps(high), _MM_SHUFFLE(2, 0, 2, 0));
  return _mm256_permute4x64_epi64(_mm256_castps_si256(evens), _MM_SHUFFLE(3, 1, 2, 0));
}
__m256i widen_low(__m256i v) {
  return _mm256_cvtepu32_epi64(_mm256_castsi256_si128(v));
}
__m256i widen_high(__m256i v) {
  return _mm256_cvtepu32_epi64(_mm256_extracti128_si256(v, 1));
}
__m256i signed_low(__m256i v) {
  return _mm256_cvtepi32_epi64(_mm256_castsi256_si128(v));
}
__m256i signed_high(__m256i v) {
  return _mm256_cvtepi32_epi64(_mm256_extracti128_si256(v, 1));
}

// Unsigned a <= b in each 32-bit lane (all ones where it holds).
__m256i at_or_before(__m256i a, __m256i b) {
  const __m256i bias = _mm256_set1_epi32(static_cast<int>(0x80000000u));
  const __m256i after = _mm256_cmpgt_epi32(_mm256_xor_si256(a, bias), _mm256_xor_si256(b, bias));
  return _mm256_xor_si256(after, _mm256_set1_epi32(-1));
}

__m256i unzigzag(__m256i u) {
  return _mm256_xor_si256(_mm256_srli_epi32(u, 1),
                          _mm256_sub_epi32(_mm256_setzero_si256(), _mm256_and_si256(u, _mm256_set1_epi32(1))));
}

// Field f of each lane's record (its 64 bits in `low`, `high`), by the
// group's per-lane shift and mask.
__m256i field(const BisectionLanes& lanes, uint32_t group, uint32_t f, __m256i low, __m256i high) {
  const __m256i a = _mm256_and_si256(_mm256_srlv_epi64(low, load(lanes.shift[group][f])), load(lanes.mask[group][f]));
  const __m256i b =
      _mm256_and_si256(_mm256_srlv_epi64(high, load(lanes.shift[group][f] + 4)), load(lanes.mask[group][f] + 4));
  return narrow(a, b);
}

constexpr uint32_t kMaxLevels = 4;
static_assert(kBisectionTrees[kKeysPerSegment].depth == kMaxLevels);

// What the frame pass leaves to the code pass, per level: the records'
// bits, the fraction of the way between the bracketing keys' frames (0
// where they coincide, which makes the guess the left code, as
// bisection_code_guess does), and which lanes took the key as their new
// left or right end.
struct Path {
  __m256i low[kMaxLevels], high[kMaxLevels];
  __m256 t[kMaxLevels];
  __m256i to_left[kMaxLevels], to_right[kMaxLevels];
  uint32_t levels = 0;
};

// One field's values along the path (1..4 a coded component, guessed on
// the line between the bracketing keys; kKeyFields the "negated" bit), from
// the ends `left_in` and `right_in`; the bracket's four keys go to the outs.
void replay(const BisectionLanes& lanes, const Path& path, __m256i past, uint32_t value, const int32_t* left_in,
            const int32_t* right_in, int32_t* left_out, int32_t* right_out, int32_t* outer_left_out,
            int32_t* outer_right_out) {
  __m256i right = load(right_in);
  __m256i left = _mm256_blendv_epi8(load(left_in), right, past);
  __m256i outer_left = left, outer_right = right;
  const bool code = value < kKeyFields;
  const __m256i none = _mm256_setzero_si256();
  for (uint32_t level = 0; level < path.levels; ++level) {
    const uint32_t group = level + 1 <= kBisectionUpperLevels ? 0 : 1;
    __m256i key = field(lanes, group, value, path.low[level], path.high[level]);
    if (code) {
      // bisection_code_guess: the same float steps (codes within +-2^30,
      // as every stream StreamView accepts has).
      const __m256i rise = _mm256_sub_epi32(right, left);
      const __m256 scaled = _mm256_add_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(rise), path.t[level]), _mm256_set1_ps(0.5f));
      __m256i step = _mm256_cvttps_epi32(_mm256_floor_ps(scaled));
      step = _mm256_min_epi32(_mm256_max_epi32(step, _mm256_min_epi32(rise, none)), _mm256_max_epi32(rise, none));
      key = _mm256_add_epi32(_mm256_add_epi32(left, step), unzigzag(key));
    }
    outer_left = _mm256_blendv_epi8(outer_left, left, path.to_left[level]);
    left = _mm256_blendv_epi8(left, key, path.to_left[level]);
    outer_right = _mm256_blendv_epi8(outer_right, right, path.to_right[level]);
    right = _mm256_blendv_epi8(right, key, path.to_right[level]);
  }
  store(left_out, left);
  store(right_out, right);
  store(outer_left_out, outer_left);
  store(outer_right_out, outer_right);
}

}  // namespace

namespace {

// One block's frame pass: the path, and the bracket's frames and positions.
struct Descent {
  const BisectionLanes* lanes = nullptr;
  __m256i goal, count, past, active;
  __m256i left_frame, right_frame, left_position, right_position;
  __m256i outer_left_frame, outer_right_frame, outer_left_position, outer_right_position;
  Path path;
};

// Sets `d` up for `lanes`; false when a lane's records are too wide for
// one load or too near the stream's end (the scalar reader takes them).
bool start(Descent& d, const BisectionLanes& lanes, size_t bytes, const uint32_t* target, bool by_frame) {
  const __m256i zero = _mm256_setzero_si256();
  const __m256i one = _mm256_set1_epi32(1);
  d.lanes = &lanes;
  d.count = load(lanes.count);
  const __m256i present = _mm256_cmpgt_epi32(d.count, zero);
  const uint32_t present_bits = static_cast<uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(present)));
  if ((lanes.wide_lanes & present_bits) != 0) return false;
  for (uint32_t lane = 0; lane < kLanesPerBlock; ++lane) {
    // Every record of the lane is one 8-byte load inside the stream.
    if (((present_bits >> lane) & 1u) != 0 && lanes.end_byte[lane] + 8 > bytes) return false;
  }
  d.goal = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(target));
  d.left_frame = load(lanes.frame[0]);
  d.right_frame = load(lanes.frame[1]);
  d.left_position = zero;
  d.right_position = d.count;
  // Lanes whose target is at or after the anchor end there.
  d.past = at_or_before(by_frame ? d.right_frame : d.count, d.goal);
  d.left_frame = _mm256_blendv_epi8(d.left_frame, d.right_frame, d.past);
  d.left_position = _mm256_blendv_epi8(d.left_position, d.count, d.past);
  d.outer_left_frame = d.left_frame, d.outer_right_frame = d.right_frame;
  d.outer_left_position = d.left_position, d.outer_right_position = d.right_position;
  d.active = _mm256_andnot_si256(d.past, _mm256_and_si256(present, _mm256_cmpgt_epi32(d.count, one)));
  return true;
}

// One level of `d`'s frame pass (its lanes still descending).
uint32_t step(Descent& d, const uint8_t* key_stream, bool by_frame) {
  const BisectionLanes& lanes = *d.lanes;
  const __m256i zero = _mm256_setzero_si256();
  const __m256i one = _mm256_set1_epi32(1);
  const __m256 zero_ps = _mm256_setzero_ps();
  const uint32_t level = d.path.levels++;
  const uint32_t group = level + 1 <= kBisectionUpperLevels ? 0 : 1;
  const __m256i active = d.active;
  const __m256i middle = _mm256_srli_epi32(_mm256_add_epi32(d.left_position, d.right_position), 1);
  // The record's index in its group. In a whole segment (every one but a
  // track's last) level L's middles are odd multiples of 2^(4-L), numbered
  // left to right after the 2^(L-1) - 1 records above them (level 4 opens
  // the second group): no gather on the chain. Otherwise one byte of the
  // table, at [count][middle].
  __m256i index;
  const __m256i whole = _mm256_cmpeq_epi32(d.count, _mm256_set1_epi32(static_cast<int>(kKeysPerSegment)));
  if (_mm256_testc_si256(whole, active)) {
    static_assert(kKeysPerSegment == 16 && kBisectionUpperLevels == 3);
    const int above = group == 0 ? (1 << level) - 1 : 0;
    index = _mm256_add_epi32(_mm256_set1_epi32(above), _mm256_srli_epi32(middle, static_cast<int>(4 - level)));
  } else {
    const __m256i entry = _mm256_add_epi32(_mm256_mullo_epi32(d.count, _mm256_set1_epi32(kKeysPerSegment + 1)), middle);
    const int* index_table = reinterpret_cast<const int*>(&kBisectionIndexInGroup);
    const __m256i word = _mm256_mask_i32gather_epi32(zero, index_table, _mm256_srli_epi32(entry, 2), active, 4);
    index =
        _mm256_and_si256(_mm256_srlv_epi32(word, _mm256_slli_epi32(_mm256_and_si256(entry, _mm256_set1_epi32(3)), 3)),
                         _mm256_set1_epi32(0xFF));
  }
  // Its first bit: the group's records' start plus index times their length.
  const __m256i bit_low =
      _mm256_add_epi64(load(lanes.records_bit[group]), _mm256_mul_epu32(widen_low(index), load(lanes.key_bits[group])));
  const __m256i bit_high = _mm256_add_epi64(load(lanes.records_bit[group] + 4),
                                            _mm256_mul_epu32(widen_high(index), load(lanes.key_bits[group] + 4)));
  const long long* words = reinterpret_cast<const long long*>(key_stream);
  const __m256i seven = _mm256_set1_epi64x(7);
  const __m256i low = _mm256_mask_i64gather_epi64(zero, words, _mm256_srli_epi64(bit_low, 3), signed_low(active), 1);
  const __m256i high = _mm256_mask_i64gather_epi64(zero, words, _mm256_srli_epi64(bit_high, 3), signed_high(active), 1);
  d.path.low[level] = _mm256_srlv_epi64(low, _mm256_and_si256(bit_low, seven));
  d.path.high[level] = _mm256_srlv_epi64(high, _mm256_and_si256(bit_high, seven));

  const __m256i span = _mm256_sub_epi32(d.right_frame, d.left_frame);
  const __m256i frame = _mm256_add_epi32(_mm256_add_epi32(d.left_frame, _mm256_srli_epi32(span, 1)),
                                         unzigzag(field(lanes, group, 0, d.path.low[level], d.path.high[level])));
  // bisection_code_guess's fraction, kept within 0..1, and 0 without a span.
  const __m256 span_ps = _mm256_cvtepi32_ps(span);
  const __m256 t = _mm256_div_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(frame, d.left_frame)), span_ps);
  d.path.t[level] = _mm256_and_ps(_mm256_min_ps(_mm256_max_ps(t, zero_ps), _mm256_set1_ps(1.f)),
                                  _mm256_cmp_ps(span_ps, zero_ps, _CMP_GT_OQ));

  const __m256i at_or_after_key = at_or_before(by_frame ? frame : middle, d.goal);
  const __m256i to_left = _mm256_and_si256(active, at_or_after_key);  // the key becomes the left end
  const __m256i to_right = _mm256_andnot_si256(at_or_after_key, active);
  d.path.to_left[level] = to_left;
  d.path.to_right[level] = to_right;
  d.outer_left_frame = _mm256_blendv_epi8(d.outer_left_frame, d.left_frame, to_left);
  d.outer_left_position = _mm256_blendv_epi8(d.outer_left_position, d.left_position, to_left);
  d.outer_right_frame = _mm256_blendv_epi8(d.outer_right_frame, d.right_frame, to_right);
  d.outer_right_position = _mm256_blendv_epi8(d.outer_right_position, d.right_position, to_right);
  d.left_frame = _mm256_blendv_epi8(d.left_frame, frame, to_left);
  d.left_position = _mm256_blendv_epi8(d.left_position, middle, to_left);
  d.right_frame = _mm256_blendv_epi8(d.right_frame, frame, to_right);
  d.right_position = _mm256_blendv_epi8(d.right_position, middle, to_right);
  d.active = _mm256_and_si256(active, _mm256_cmpgt_epi32(_mm256_sub_epi32(d.right_position, d.left_position), one));
  return static_cast<uint32_t>(
      __builtin_popcount(static_cast<unsigned>(_mm256_movemask_ps(_mm256_castsi256_ps(active)))));
}

// The results of `d`: its bracket's frames and positions, then the code
// pass: each field some lane has, along the path; the others are zero in
// every key.
void finish(const Descent& d, BisectionBracket& out) {
  const BisectionLanes& lanes = *d.lanes;
  store(out.left_position, d.left_position);
  store(out.outer_left_position, d.outer_left_position);
  store(out.outer_right_position, d.outer_right_position);
  store(out.left.frame, d.left_frame);
  store(out.right.frame, d.right_frame);
  store(out.outer_left.frame, d.outer_left_frame);
  store(out.outer_right.frame, d.outer_right_frame);
  const __m256i zero = _mm256_setzero_si256();
  BisectionLaneKeys* const keys[4] = {&out.left, &out.right, &out.outer_left, &out.outer_right};
  for (uint32_t c = 0; c < 4; ++c) {
    if (((lanes.coded >> c) & 1u) == 0) {
      for (BisectionLaneKeys* k : keys) store(k->code[c], zero);
    } else {
      replay(lanes, d.path, d.past, c + 1, lanes.code[0][c], lanes.code[1][c], out.left.code[c], out.right.code[c],
             out.outer_left.code[c], out.outer_right.code[c]);
    }
  }
  if (((lanes.coded >> 4) & 1u) == 0) {
    for (BisectionLaneKeys* k : keys) store(k->negated, zero);
  } else {
    replay(lanes, d.path, d.past, kKeyFields, lanes.negated[0], lanes.negated[1], out.left.negated, out.right.negated,
           out.outer_left.negated, out.outer_right.negated);
  }
}

}  // namespace

uint32_t descend_bisection_blocks_avx2(std::span<const BisectionLanes> blocks, const uint8_t* key_stream, size_t bytes,
                                       std::span<const uint32_t> targets, BisectionTarget kind,
                                       std::span<BisectionBracket> out, uint32_t& records) {
  // Up to kInterleavedBlocks blocks descend level by level together: each
  // level waits on its gathers, and the blocks' chains are independent.
  const bool by_frame = kind == BisectionTarget::kFrame;
  Descent d[kInterleavedBlocks];
  uint32_t taken = 0;  // bit b: block b is the kernel's
  const size_t n = std::min<size_t>(blocks.size(), kInterleavedBlocks);
  for (size_t b = 0; b < n; ++b) {
    if (start(d[b], blocks[b], bytes, targets.data() + b * kLanesPerBlock, by_frame)) taken |= 1u << b;
  }
  records = 0;
  for (uint32_t level = 0; level < kMaxLevels; ++level) {
    bool any = false;
    for (size_t b = 0; b < n; ++b) {
      if (((taken >> b) & 1u) == 0 || _mm256_testz_si256(d[b].active, d[b].active)) continue;
      records += step(d[b], key_stream, by_frame);
      any = true;
    }
    if (!any) break;
  }
  for (size_t b = 0; b < n; ++b) {
    if (((taken >> b) & 1u) != 0) finish(d[b], out[b]);
  }
  return taken;
}

}  // namespace ks::detail

#endif
