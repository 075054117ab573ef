#include "keystream/runtime/segment_lanes.h"

#include <atomic>

#include "keystream/runtime/curve.h"

#if defined(__x86_64__) || defined(_M_X64)
#define KS_X86_64 1
#include <emmintrin.h>
#endif

namespace ks {

namespace {

#if KS_X86_64
// SSE2, which every x86-64 CPU has: four lanes per instruction.
struct Sse2 {
  static constexpr uint32_t kWidth = 4;
  __m128 v;
  static Sse2 load(const float* p) { return {_mm_load_ps(p)}; }
  static Sse2 broadcast(float x) { return {_mm_set1_ps(x)}; }
  static Sse2 zero() { return {_mm_setzero_ps()}; }
  static Sse2 sqrt(Sse2 a) { return {_mm_sqrt_ps(a.v)}; }
  static __m128 less(Sse2 a, Sse2 b) { return _mm_cmplt_ps(a.v, b.v); }
  static __m128 greater(Sse2 a, Sse2 b) { return _mm_cmpgt_ps(a.v, b.v); }
  static __m128 equal(Sse2 a, Sse2 b) { return _mm_cmpeq_ps(a.v, b.v); }
  /// mask ? a : b, lane by lane.
  static Sse2 select(__m128 mask, Sse2 a, Sse2 b) {
    return {_mm_or_ps(_mm_and_ps(mask, a.v), _mm_andnot_ps(mask, b.v))};
  }
  Sse2 negated() const { return {_mm_xor_ps(v, _mm_set1_ps(-0.f))}; }
  void store(float* p) const { _mm_store_ps(p, v); }
  /// Lane i's x, y, z and w to out[4 * i .. 4 * i + 3], for the four lanes (16-byte aligned).
  static void store_transposed(Sse2 x, Sse2 y, Sse2 z, Sse2 w, float* out) {
    _MM_TRANSPOSE4_PS(x.v, y.v, z.v, w.v);
    _mm_store_ps(out, x.v);
    _mm_store_ps(out + 4, y.v);
    _mm_store_ps(out + 8, z.v);
    _mm_store_ps(out + 12, w.v);
  }
  friend Sse2 operator+(Sse2 a, Sse2 b) { return {_mm_add_ps(a.v, b.v)}; }
  friend Sse2 operator-(Sse2 a, Sse2 b) { return {_mm_sub_ps(a.v, b.v)}; }
  friend Sse2 operator*(Sse2 a, Sse2 b) { return {_mm_mul_ps(a.v, b.v)}; }
  friend Sse2 operator/(Sse2 a, Sse2 b) { return {_mm_div_ps(a.v, b.v)}; }
};

#include "keystream/runtime/segment_lanes_kernel.h"
#endif

// Whether lane `lane` of `b` holds a rotation (not a vec3).
bool lane_is_rotation(const SegmentLanes& b, uint32_t lane) {
  return ((b.vec3_lanes >> lane) & 1u) == 0;
}

// The reference: evaluate_coefficients lane by lane.
void evaluate_scalar(const SegmentLanes* blocks, size_t count, float t, const LaneOutputs& out) {
  for (size_t i = 0; i < count; ++i) {
    const SegmentLanes& b = blocks[i];
    for (uint32_t lane = 0; lane < kLanesPerBlock; ++lane) {
      const bool scalar = ((b.scalar_lanes >> lane) & 1u) != 0;
      if (b.output[lane] >= (scalar ? out.scalar_bytes : out.pose_bytes)) continue;
      SegmentCoefficients s;
      s.start = b.start[lane];
      s.span = b.span[lane];
      for (int c = 0; c < kLaneComponents; ++c) {
        s.p[c] = b.p[c][lane];
        s.q[c] = b.q[c][lane];
        s.difference[c] = b.difference[c][lane];
        s.tangent_p[c] = b.tangent_p[c][lane];
        s.tangent_q[c] = b.tangent_q[c][lane];
      }
      float value[4];
      evaluate_coefficients(s, t, kLaneComponents, value);
      // A vec3's lane is not normalised and a bone's writes no fourth float.
      const bool rotation = lane_is_rotation(b, lane);
      if (rotation) normalize_rotation(value);
      unsigned char* base = scalar ? out.scalars : out.pose;
      std::memcpy(base + b.output[lane], value, (rotation || scalar ? 4 : 3) * sizeof(float));
    }
  }
}

// The key staged in lane `lane` of `a`, as dequantize_key makes it from the
// dequantization of `b`'s lane (the reference for the kernels).
CurveKey dequantize_lane(const SegmentLanes& b, const LaneArrivals& a, uint32_t lane) {
  CurveKey key{};
  key.frame = a.frame[lane];
  if (a.values) {
    for (int c = 0; c < kLaneComponents; ++c) key.value[c] = a.code[c][lane] * a.sign[lane];
    return key;
  }
  int32_t codes[4] = {0, 0, 0, 0};
  for (int c = 0; c < kLaneComponents; ++c) codes[c] = static_cast<int32_t>(a.code[c][lane]);
  dequantize_lane_key(b, lane, codes, a.sign[lane] < 0.f, key.value);
  return key;
}

// The reference for staged keys: each lane shifted by one key and its
// dequantized key written last, lane by lane.
void shift_in_staged_keys_scalar(SegmentLanes& b) {
  const std::span<SegmentLanes> block(&b, 1);
  for (uint32_t lane = 0; lane < kLanesPerBlock; ++lane) {
    if (!(b.arrivals.arrived[lane] > 0.f)) continue;
    const CurveKey key = dequantize_lane(b, b.arrivals, lane);
    shift_lane_keys(block, lane, 1);
    set_lane_key(block, lane, kKeysPerLane - 1, key);
  }
}

// The reference for refill_windows, lane by lane.
void refill_scalar(SegmentLanes& b, const KeyRing& ring, const detail::RefillSources& sources) {
  const std::span<SegmentLanes> block(&b, 1);
  for (uint32_t lane = 0; lane < kLanesPerBlock; ++lane) {
    CurveKey keys[kKeysPerLane];
    for (uint32_t k = 0; k < kKeysPerLane; ++k) {
      const uint32_t source = static_cast<uint32_t>(sources[k][lane]);
      keys[k] = source < kKeysPerLane ? lane_key(std::span<const SegmentLanes>(block), lane, source)
                                      : dequantize_lane(b, ring.slot[source - kKeysPerLane], lane);
    }
    for (uint32_t k = 0; k < kKeysPerLane; ++k) set_lane_key(block, lane, k, keys[k]);
  }
}

void shift_in_arrivals_scalar(SegmentLanes& b) {
  if (b.arrivals.any) {
    shift_in_staged_keys_scalar(b);
    clear_arrivals(b.arrivals);
  }
}

// The reference: segment_coefficients lane by lane.
void build_scalar(SegmentLanes& b) {
  const std::span<SegmentLanes> block(&b, 1);
  shift_in_arrivals_scalar(b);
  for (uint32_t lane = 0; lane < kLanesPerBlock; ++lane) {
    CurveKey keys[kKeysPerLane];
    for (uint32_t i = 0; i < kKeysPerLane; ++i) {
      keys[i] = lane_key(std::span<const SegmentLanes>(block), lane, i);
    }
    const SegmentCoefficients s =
        segment_coefficients(keys[0], keys[1], keys[2], keys[3], kLaneComponents,
                             lane_interpolation(b, lane), lane_is_rotation(b, lane));
    b.start[lane] = s.start;
    b.span[lane] = s.span;
    for (int c = 0; c < kLaneComponents; ++c) {
      b.p[c][lane] = s.p[c];
      b.q[c][lane] = s.q[c];
      b.difference[c][lane] = s.difference[c];
      b.tangent_p[c][lane] = s.tangent_p[c];
      b.tangent_q[c][lane] = s.tangent_q[c];
    }
  }
  b.stale = false;
}

SimdLevel detect_best_level() {
#if KS_X86_64 && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  // AVX-512VL too: the seek kernel masks its 256-bit operations.
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl")) return SimdLevel::kAvx512;
  return __builtin_cpu_supports("avx2") ? SimdLevel::kAvx2 : SimdLevel::kSse2;
#elif KS_X86_64
  return SimdLevel::kSse2;
#else
  return SimdLevel::kScalar;
#endif
}

const SimdLevel g_best_level = detect_best_level();
std::atomic<SimdLevel> g_level{g_best_level};

}  // namespace

void dequantize_lane_key(const SegmentLanes& block, uint32_t lane, const int32_t (&codes)[4], bool negated,
                         float (&value)[4]) {
  const LaneDequantization& d = block.dequantization;
  TrackQuantization q;
  q.step = d.step[lane];
  const bool rotation = lane_is_rotation(block, lane);
  if (rotation) {
    q.coded_mask = 0xF;
    q.rotation = d.full[lane] > 0.f ? RotationCoding::kFull : RotationCoding::kRelative;
    for (int c = 0; c < 4; ++c) q.reference[c] = d.reference[c][lane];
  } else {
    for (int c = 0; c < 4; ++c) {
      if (d.coded[c][lane] > 0.f) q.coded_mask = static_cast<uint8_t>(q.coded_mask | (1u << c));
      q.constant[c] = d.constant[c][lane];
    }
  }
  // A scalar lane dequantizes as a vec3 with a fourth component (a bone
  // vec3's is uncoded and 0).
  dequantize_key(rotation ? TrackKind::kRotation : TrackKind::kScalar, q, codes, value);
  if (negated) {
    for (float& v : value) v = -v;
  }
}

void clear_lanes(std::span<SegmentLanes> blocks) {
  for (SegmentLanes& b : blocks) {
    b = {};
    for (uint32_t lane = 0; lane < kLanesPerBlock; ++lane) {
      b.span[lane] = std::numeric_limits<float>::infinity();
      b.output[lane] = kNoOutput;
      // Until set, a lane holds a rotation coded in full.
      b.dequantization.full[lane] = 1.f;
      b.dequantization.rotation[lane] = 1.f;
      for (int c = 0; c < 4; ++c) b.dequantization.coded[c][lane] = 1.f;
    }
  }
}

// The kernels of the level set_simd_level chose, from here on.
void evaluate_lanes(std::span<const SegmentLanes> blocks, float t, const LaneOutputs& out) {
  switch (g_level.load(std::memory_order_relaxed)) {
#if KS_X86_64
    case SimdLevel::kAvx512:
      if (blocks.size() >= 2) {
        // Pairs of blocks, then the odd one out with AVX2.
        const size_t paired = detail::evaluate_lane_pairs_avx512(blocks.data(), blocks.size(), t, out);
        return detail::evaluate_lanes_avx2(blocks.data() + paired, blocks.size() - paired, t, out);
      }
      // A group of one block (most small clips' groups) goes straight to
      // AVX2, as that level's tail call: the extra call cost them 2-5%.
      [[fallthrough]];
    case SimdLevel::kAvx2:
      return detail::evaluate_lanes_avx2(blocks.data(), blocks.size(), t, out);
    case SimdLevel::kSse2: return evaluate_blocks<Sse2>(blocks.data(), blocks.size(), t, out);
#endif
    default: return evaluate_scalar(blocks.data(), blocks.size(), t, out);
  }
}

void build_and_evaluate_lanes(std::span<SegmentLanes> blocks, float t, const LaneOutputs& out) {
  switch (g_level.load(std::memory_order_relaxed)) {
#if KS_X86_64
    case SimdLevel::kAvx512:
      if (blocks.size() >= 2) {
        const size_t paired =
            detail::build_and_evaluate_lane_pairs_avx512(blocks.data(), blocks.size(), t, out);
        return detail::build_and_evaluate_lanes_avx2(blocks.data() + paired, blocks.size() - paired, t, out);
      }
      [[fallthrough]];  // as evaluate_lanes does
    case SimdLevel::kAvx2:
      return detail::build_and_evaluate_lanes_avx2(blocks.data(), blocks.size(), t, out);
    case SimdLevel::kSse2: return build_and_evaluate_blocks<Sse2>(blocks.data(), blocks.size(), t, out);
#endif
    default:
      for (SegmentLanes& b : blocks) {
        if (needs_build(b)) build_scalar(b);
      }
      return evaluate_scalar(blocks.data(), blocks.size(), t, out);
  }
}

void build_coefficients(SegmentLanes& block) {
  switch (g_level.load(std::memory_order_relaxed)) {
#if KS_X86_64
    case SimdLevel::kAvx512:
    case SimdLevel::kAvx2:
      return detail::build_coefficients_avx2(block);
    case SimdLevel::kSse2: return build_block<Sse2>(block);
#endif
    default: return build_scalar(block);
  }
}

void build_stale_coefficients(std::span<SegmentLanes> blocks) {
  for (SegmentLanes& b : blocks) {
    if (needs_build(b)) build_coefficients(b);
  }
}

void shift_in_staged_keys(SegmentLanes& block) {
  switch (g_level.load(std::memory_order_relaxed)) {
#if KS_X86_64
    case SimdLevel::kAvx512:
    case SimdLevel::kAvx2:
      return detail::shift_in_staged_keys_avx2(block);
    case SimdLevel::kSse2: return shift_in_arrivals<Sse2>(block);
#endif
    default: return shift_in_arrivals_scalar(block);
  }
}

void refill_windows(SegmentLanes& block, const KeyRing& ring, const uint32_t (&counts)[kLanesPerBlock]) {
  // Key k of a lane that read n keys is key n + k of its window followed by
  // the keys read: its own while that is below kKeysPerLane, else the one
  // read into ring slot (n + k) % kKeysPerLane.
  // By table: the places depend on min(n, 4 + n % 4) alone.
  static constexpr float kSources[2 * kKeysPerLane][kKeysPerLane] = {
      {0, 1, 2, 3}, {1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}, {4, 5, 6, 7}, {5, 6, 7, 4}, {6, 7, 4, 5}, {7, 4, 5, 6},
  };
  alignas(32) detail::RefillSources sources;
  bool keeps = false;
  for (uint32_t lane = 0; lane < kLanesPerBlock; ++lane) {
    const uint32_t n = counts[lane];
    keeps = keeps || n < kKeysPerLane;
    const float(&places)[kKeysPerLane] = kSources[n < kKeysPerLane ? n : kKeysPerLane + n % kKeysPerLane];
    for (uint32_t k = 0; k < kKeysPerLane; ++k) sources[k][lane] = places[k];
  }
  switch (g_level.load(std::memory_order_relaxed)) {
#if KS_X86_64
    case SimdLevel::kAvx512: return detail::refill_windows_avx512(block, ring, sources, keeps);
    case SimdLevel::kAvx2:
      return detail::refill_windows_avx2(block, ring, sources, keeps);
    case SimdLevel::kSse2: return refill_block<Sse2>(block, ring, sources, keeps);
#endif
    default: return refill_scalar(block, ring, sources);
  }
}

const char* to_string(SimdLevel level) {
  switch (level) {
    case SimdLevel::kScalar: return "scalar";
    case SimdLevel::kSse2: return "SSE2";
    case SimdLevel::kAvx2: return "AVX2";
    case SimdLevel::kAvx512: return "AVX-512";
  }
  return "?";
}

bool simd_level_named(std::string_view name, SimdLevel& level) {
  static constexpr struct {
    std::string_view name;
    SimdLevel level;
  } kLevels[] = {{"scalar", SimdLevel::kScalar},
                 {"sse2", SimdLevel::kSse2},
                 {"avx2", SimdLevel::kAvx2},
                 {"avx512", SimdLevel::kAvx512}};
  for (const auto& l : kLevels) {
    if (l.name == name) {
      level = l.level;
      return true;
    }
  }
  return false;
}

SimdLevel best_simd_level() { return g_best_level; }
SimdLevel simd_level() { return g_level.load(std::memory_order_relaxed); }
void set_simd_level(SimdLevel level) {
  g_level.store(static_cast<uint8_t>(level) <= static_cast<uint8_t>(g_best_level) ? level : g_best_level,
                std::memory_order_relaxed);
}

}  // namespace ks
