// The AVX2 kernels of segment_lanes.h. This file alone is compiled with
// -mavx2 (and without -mfma: fused multiply-add would round differently from
// the scalar curve). It includes nothing but the lane layout and the kernel,
// both in an anonymous namespace or plain data, so no inline function built
// for AVX2 can be picked by the linker for code that runs on older CPUs;
// segment_lanes.cpp calls it only when the CPU reports AVX2.

#include "core/runtime/segment_lanes.h"

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
  friend Avx2 operator+(Avx2 a, Avx2 b) { return {_mm256_add_ps(a.v, b.v)}; }
  friend Avx2 operator-(Avx2 a, Avx2 b) { return {_mm256_sub_ps(a.v, b.v)}; }
  friend Avx2 operator*(Avx2 a, Avx2 b) { return {_mm256_mul_ps(a.v, b.v)}; }
  friend Avx2 operator/(Avx2 a, Avx2 b) { return {_mm256_div_ps(a.v, b.v)}; }
};

#include "core/runtime/segment_lanes_kernel.h"

}  // namespace

namespace detail {

void evaluate_lanes_avx2(const RotationLanes* blocks, size_t count, float t, unsigned char* pose) {
  evaluate_blocks<Avx2, 4>(blocks, count, t, pose);
}
void evaluate_lanes_avx2(const Vec3Lanes* blocks, size_t count, float t, unsigned char* pose) {
  evaluate_blocks<Avx2, 3>(blocks, count, t, pose);
}
void build_coefficients_avx2(RotationLanes& block) { build_block<Avx2, 4>(block); }
void build_coefficients_avx2(Vec3Lanes& block) { build_block<Avx2, 3>(block); }
void shift_in_staged_keys_avx2(RotationLanes& block) { shift_in_arrivals<Avx2, 4>(block); }
void shift_in_staged_keys_avx2(Vec3Lanes& block) { shift_in_arrivals<Avx2, 3>(block); }

}  // namespace detail

}  // namespace ks
#endif
