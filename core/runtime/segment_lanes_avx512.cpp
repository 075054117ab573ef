// The AVX-512 kernels of segment_lanes.h: two neighbouring blocks per
// instruction, sixteen lanes. This file alone is compiled with -mavx512f
// (and with the library's -ffp-contract=off: -mavx512f also enables FMA,
// which would round differently from the scalar curve if the compiler
// fused anything; the kernel's intrinsics multiply and add separately). As
// in segment_lanes_avx2.cpp, everything built for AVX-512 stays in an
// anonymous namespace; segment_lanes.cpp calls it only at
// SimdLevel::kAvx512 (the CPU reports AVX-512F and VL).
// Evaluation and building coefficients (two neighbouring blocks at once)
// and refills (one block, two keys of each window at once: seeks 7-14%
// faster than with AVX2's) have AVX-512 forms; shifting staged keys in
// stays AVX2 at this level.

#include "keystream/runtime/segment_lanes.h"

#if defined(__x86_64__) || defined(_M_X64)
#include "keystream/runtime/avx512_intrinsics.h"

namespace ks {

namespace {

// Sixteen lanes per instruction: the eight of a block and the eight of the
// block after it in the same array, `kBlockFloats` floats on (a block's
// size: the same field of the next block).
template <size_t kBlockFloats>
struct Avx512Pair {
  static constexpr uint32_t kWidth = 16;
  __m512 v;
  static Avx512Pair load(const float* p) {
    const __m512d first = _mm512_castpd256_pd512(_mm256_castps_pd(_mm256_load_ps(p)));
    return {_mm512_castpd_ps(_mm512_insertf64x4(first, _mm256_castps_pd(_mm256_load_ps(p + kBlockFloats)), 1))};
  }
  static Avx512Pair broadcast(float x) { return {_mm512_set1_ps(x)}; }
  static Avx512Pair zero() { return {_mm512_setzero_ps()}; }
  void store(float* p) const {
    _mm256_store_ps(p, _mm512_castps512_ps256(v));
    _mm256_store_ps(p + kBlockFloats, _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1)));
  }
  static Avx512Pair sqrt(Avx512Pair a) { return {_mm512_sqrt_ps(a.v)}; }
  static __mmask16 less(Avx512Pair a, Avx512Pair b) { return _mm512_cmp_ps_mask(a.v, b.v, _CMP_LT_OQ); }
  static __mmask16 greater(Avx512Pair a, Avx512Pair b) { return _mm512_cmp_ps_mask(a.v, b.v, _CMP_GT_OQ); }
  static __mmask16 equal(Avx512Pair a, Avx512Pair b) { return _mm512_cmp_ps_mask(a.v, b.v, _CMP_EQ_OQ); }
  /// mask ? a : b, lane by lane.
  static Avx512Pair select(__mmask16 mask, Avx512Pair a, Avx512Pair b) {
    return {_mm512_mask_blend_ps(mask, b.v, a.v)};
  }
  Avx512Pair negated() const {
    return {_mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(v), _mm512_set1_epi32(INT32_MIN)))};
  }
  /// Lane i's x, y, z and w to out[4 * i .. 4 * i + 3], for the sixteen
  /// lanes (64-byte aligned).
  static void store_transposed(Avx512Pair x, Avx512Pair y, Avx512Pair z, Avx512Pair w, float* out) {
    // Within each 128-bit quarter, as AVX2 does: lanes k, k + 4, k + 8 and
    // k + 12 in lanes_k's four quarters.
    const __m512 xy_low = _mm512_unpacklo_ps(x.v, y.v);
    const __m512 xy_high = _mm512_unpackhi_ps(x.v, y.v);
    const __m512 zw_low = _mm512_unpacklo_ps(z.v, w.v);
    const __m512 zw_high = _mm512_unpackhi_ps(z.v, w.v);
    const __m512 lanes_0 = _mm512_shuffle_ps(xy_low, zw_low, _MM_SHUFFLE(1, 0, 1, 0));
    const __m512 lanes_1 = _mm512_shuffle_ps(xy_low, zw_low, _MM_SHUFFLE(3, 2, 3, 2));
    const __m512 lanes_2 = _mm512_shuffle_ps(xy_high, zw_high, _MM_SHUFFLE(1, 0, 1, 0));
    const __m512 lanes_3 = _mm512_shuffle_ps(xy_high, zw_high, _MM_SHUFFLE(3, 2, 3, 2));
    // Then the quarters in lane order: quarters 0 and 2 of lanes_0 and
    // lanes_1 (lanes 0, 8, 1, 9), and so on, then every other quarter of those.
    const __m512 even_01 = _mm512_shuffle_f32x4(lanes_0, lanes_1, _MM_SHUFFLE(2, 0, 2, 0));
    const __m512 even_23 = _mm512_shuffle_f32x4(lanes_2, lanes_3, _MM_SHUFFLE(2, 0, 2, 0));
    const __m512 odd_01 = _mm512_shuffle_f32x4(lanes_0, lanes_1, _MM_SHUFFLE(3, 1, 3, 1));
    const __m512 odd_23 = _mm512_shuffle_f32x4(lanes_2, lanes_3, _MM_SHUFFLE(3, 1, 3, 1));
    _mm512_store_ps(out, _mm512_shuffle_f32x4(even_01, even_23, _MM_SHUFFLE(2, 0, 2, 0)));       // lanes 0-3
    _mm512_store_ps(out + 16, _mm512_shuffle_f32x4(odd_01, odd_23, _MM_SHUFFLE(2, 0, 2, 0)));    // lanes 4-7
    _mm512_store_ps(out + 32, _mm512_shuffle_f32x4(even_01, even_23, _MM_SHUFFLE(3, 1, 3, 1)));  // lanes 8-11
    _mm512_store_ps(out + 48, _mm512_shuffle_f32x4(odd_01, odd_23, _MM_SHUFFLE(3, 1, 3, 1)));    // lanes 12-15
  }
  friend Avx512Pair operator+(Avx512Pair a, Avx512Pair b) { return {_mm512_add_ps(a.v, b.v)}; }
  friend Avx512Pair operator-(Avx512Pair a, Avx512Pair b) { return {_mm512_sub_ps(a.v, b.v)}; }
  friend Avx512Pair operator*(Avx512Pair a, Avx512Pair b) { return {_mm512_mul_ps(a.v, b.v)}; }
  friend Avx512Pair operator/(Avx512Pair a, Avx512Pair b) { return {_mm512_div_ps(a.v, b.v)}; }
};

template <class Lanes>
using PairOf = Avx512Pair<sizeof(Lanes) / sizeof(float)>;
static_assert(sizeof(SegmentLanes) % 32 == 0, "the next block's fields must stay 32-byte aligned");

#include "keystream/runtime/segment_lanes_kernel.h"

// Sixteen lanes: a block's eight twice, for two keys of each lane's window
// at once (refill_windows); a load reads a field's eight lanes into both
// halves.
struct Avx512KeyPair {
  __m512 v;
  static Avx512KeyPair load(const float* p) {
    return {_mm512_castpd_ps(_mm512_broadcast_f64x4(_mm256_castps_pd(_mm256_load_ps(p))))};
  }
  static Avx512KeyPair broadcast(float x) { return {_mm512_set1_ps(x)}; }
  static Avx512KeyPair zero() { return {_mm512_setzero_ps()}; }
  static Avx512KeyPair sqrt(Avx512KeyPair a) { return {_mm512_sqrt_ps(a.v)}; }
  static __mmask16 greater(Avx512KeyPair a, Avx512KeyPair b) { return _mm512_cmp_ps_mask(a.v, b.v, _CMP_GT_OQ); }
  static __mmask16 equal(Avx512KeyPair a, Avx512KeyPair b) { return _mm512_cmp_ps_mask(a.v, b.v, _CMP_EQ_OQ); }
  /// mask ? a : b, lane by lane.
  static Avx512KeyPair select(__mmask16 mask, Avx512KeyPair a, Avx512KeyPair b) {
    return {_mm512_mask_blend_ps(mask, b.v, a.v)};
  }
  friend Avx512KeyPair operator+(Avx512KeyPair a, Avx512KeyPair b) { return {_mm512_add_ps(a.v, b.v)}; }
  friend Avx512KeyPair operator-(Avx512KeyPair a, Avx512KeyPair b) { return {_mm512_sub_ps(a.v, b.v)}; }
  friend Avx512KeyPair operator*(Avx512KeyPair a, Avx512KeyPair b) { return {_mm512_mul_ps(a.v, b.v)}; }
};

// refill_block (segment_lanes_kernel.h) two keys at a time: keys k and k + 1
// of every lane in one register, so each key is dequantized with half the
// instructions. Writing both after reading is safe: key k + 1 keeps only
// places k + 1 and later of its own window (a lane's sources rise by one a
// key), and neither place is written before both keys are computed.
void refill_key_pairs(SegmentLanes& b, const KeyRing& ring, const detail::RefillSources& sources, bool keeps) {
  using V = Avx512KeyPair;
  static_assert(sizeof(b.key_frame[0]) == 32, "keys k and k + 1 of a lane's frames are one 64-byte row");
  for (uint32_t k = 0; k < kKeysPerLane; k += 2) {
    const V source{_mm512_loadu_ps(sources[k])};  // rows k and k + 1
    V code[4], frame = V::load(ring.slot[0].frame), sign = V::load(ring.slot[0].sign);
    for (int c = 0; c < 4; ++c) code[c] = V::load(ring.slot[0].code[c]);
    for (uint32_t s = 1; s < kKeysPerLane; ++s) {
      const __mmask16 here = V::equal(source, V::broadcast(static_cast<float>(kKeysPerLane + s)));
      const LaneArrivals& slot = ring.slot[s];
      frame = V::select(here, V::load(slot.frame), frame);
      sign = V::select(here, V::load(slot.sign), sign);
      for (int c = 0; c < kLaneComponents; ++c) code[c] = V::select(here, V::load(slot.code[c]), code[c]);
    }
    V value[kLaneComponents];
    dequantize_codes<V>(b, code, 0, b.vec3_lanes != 0, value);
    for (int c = 0; c < kLaneComponents; ++c) value[c] = value[c] * sign;
    for (uint32_t j = k; keeps && j < kKeysPerLane; ++j) {
      const __mmask16 kept = V::equal(source, V::broadcast(static_cast<float>(j)));
      frame = V::select(kept, V::load(b.key_frame[j]), frame);
      for (int c = 0; c < kLaneComponents; ++c) value[c] = V::select(kept, V::load(b.key_value[j][c]), value[c]);
    }
    _mm512_storeu_ps(b.key_frame[k], frame.v);
    for (int c = 0; c < kLaneComponents; ++c) {
      _mm256_store_ps(b.key_value[k][c], _mm512_castps512_ps256(value[c].v));
      _mm256_store_ps(b.key_value[k + 1][c], _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(value[c].v), 1)));
    }
  }
}

}  // namespace

namespace detail {

size_t evaluate_lane_pairs_avx512(const SegmentLanes* blocks, size_t count, float t, const LaneOutputs& out) {
  evaluate_blocks<PairOf<SegmentLanes>>(blocks, count & ~size_t{1}, t, out);
  return count & ~size_t{1};
}
size_t build_and_evaluate_lane_pairs_avx512(SegmentLanes* blocks, size_t count, float t, const LaneOutputs& out) {
  build_and_evaluate_blocks<PairOf<SegmentLanes>>(blocks, count & ~size_t{1}, t, out);
  return count & ~size_t{1};
}
void refill_windows_avx512(SegmentLanes& block, const KeyRing& ring, const RefillSources& sources, bool keeps) {
  refill_key_pairs(block, ring, sources, keeps);
}

}  // namespace detail

}  // namespace ks
#endif
