// The AVX2 kernels of segment_lanes.h. This file alone is compiled with
// -mavx2 (and without -mfma: fused multiply-add would round differently from
// the scalar curve). It includes nothing but the lane layout and the kernel,
// both in an anonymous namespace or plain data, so no inline function built
// for AVX2 can be picked by the linker for code that runs on older CPUs;
// segment_lanes.cpp calls it only when the CPU reports AVX2.

#include "keystream/runtime/segment_lanes.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>

namespace ks {

namespace {

// Eight lanes per instruction.
struct Avx2 {
  static constexpr uint32_t kWidth = 8;
  __m256 v;
  static Avx2 load(const float* p) { return {_mm256_load_ps(p)}; }
  static Avx2 broadcast(float x) { return {_mm256_set1_ps(x)}; }
  static Avx2 zero() { return {_mm256_setzero_ps()}; }
  static Avx2 sqrt(Avx2 a) { return {_mm256_sqrt_ps(a.v)}; }
  static __m256 less(Avx2 a, Avx2 b) { return _mm256_cmp_ps(a.v, b.v, _CMP_LT_OQ); }
  static __m256 greater(Avx2 a, Avx2 b) { return _mm256_cmp_ps(a.v, b.v, _CMP_GT_OQ); }
  static __m256 equal(Avx2 a, Avx2 b) { return _mm256_cmp_ps(a.v, b.v, _CMP_EQ_OQ); }
  /// mask ? a : b, lane by lane.
  static Avx2 select(__m256 mask, Avx2 a, Avx2 b) { return {_mm256_blendv_ps(b.v, a.v, mask)}; }
  Avx2 negated() const { return {_mm256_xor_ps(v, _mm256_set1_ps(-0.f))}; }
  void store(float* p) const { _mm256_store_ps(p, v); }
  /// Lane i's x, y, z and w to out[4 * i .. 4 * i + 3], for the eight lanes (32-byte aligned).
  static void store_transposed(Avx2 x, Avx2 y, Avx2 z, Avx2 w, float* out) {
    const __m256 xy_low = _mm256_unpacklo_ps(x.v, y.v);  // lanes 0, 1 | 4, 5
    const __m256 xy_high = _mm256_unpackhi_ps(x.v, y.v);  // lanes 2, 3 | 6, 7
    const __m256 zw_low = _mm256_unpacklo_ps(z.v, w.v);
    const __m256 zw_high = _mm256_unpackhi_ps(z.v, w.v);
    const __m256 lanes_0_4 = _mm256_shuffle_ps(xy_low, zw_low, _MM_SHUFFLE(1, 0, 1, 0));
    const __m256 lanes_1_5 = _mm256_shuffle_ps(xy_low, zw_low, _MM_SHUFFLE(3, 2, 3, 2));
    const __m256 lanes_2_6 = _mm256_shuffle_ps(xy_high, zw_high, _MM_SHUFFLE(1, 0, 1, 0));
    const __m256 lanes_3_7 = _mm256_shuffle_ps(xy_high, zw_high, _MM_SHUFFLE(3, 2, 3, 2));
    _mm256_store_ps(out, _mm256_permute2f128_ps(lanes_0_4, lanes_1_5, 0x20));
    _mm256_store_ps(out + 8, _mm256_permute2f128_ps(lanes_2_6, lanes_3_7, 0x20));
    _mm256_store_ps(out + 16, _mm256_permute2f128_ps(lanes_0_4, lanes_1_5, 0x31));
    _mm256_store_ps(out + 24, _mm256_permute2f128_ps(lanes_2_6, lanes_3_7, 0x31));
  }
  friend Avx2 operator+(Avx2 a, Avx2 b) { return {_mm256_add_ps(a.v, b.v)}; }
  friend Avx2 operator-(Avx2 a, Avx2 b) { return {_mm256_sub_ps(a.v, b.v)}; }
  friend Avx2 operator*(Avx2 a, Avx2 b) { return {_mm256_mul_ps(a.v, b.v)}; }
  friend Avx2 operator/(Avx2 a, Avx2 b) { return {_mm256_div_ps(a.v, b.v)}; }
};

#include "keystream/runtime/segment_lanes_kernel.h"

}  // namespace

namespace detail {

void evaluate_lanes_avx2(const SegmentLanes* blocks, size_t count, float t, const LaneOutputs& out) {
  evaluate_blocks<Avx2>(blocks, count, t, out);
}
void build_and_evaluate_lanes_avx2(SegmentLanes* blocks, size_t count, float t, const LaneOutputs& out) {
  build_and_evaluate_blocks<Avx2>(blocks, count, t, out);
}
void build_coefficients_avx2(SegmentLanes& block) {
  build_block<Avx2>(block);
}
void shift_in_staged_keys_avx2(SegmentLanes& block) {
  shift_in_arrivals<Avx2>(block);
}
void refill_windows_avx2(SegmentLanes& block, const KeyRing& ring, const RefillSources& sources, bool keeps) {
  refill_block<Avx2>(block, ring, sources, keeps);
}

}  // namespace detail

}  // namespace ks
#endif
