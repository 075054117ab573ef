#pragma once
// The player's active array as the evaluation reads it (DESIGN §8): the
// current segment of every animated track as SegmentCoefficients, laid out
// structure-of-arrays in blocks of eight tracks, rotations and vec3 tracks in
// separate blocks. Before a sample, each window that took keys rewrites its
// track's lane (set_lane); the sample evaluates whole blocks, eight tracks per AVX2 instruction or four
// per SSE2 one, and scatters the results into the pose. The kernels perform
// exactly the operations of evaluate_coefficients and normalize_rotation
// (curve.h), in the same order, without fused multiply-add, so every level
// yields the same bits as the scalar code the fitter measures with.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

#include "core/runtime/curve.h"

namespace ks {

inline constexpr uint32_t kLanesPerBlock = 8;
/// An output offset for a lane that holds no track (the last block's padding).
inline constexpr uint32_t kNoOutput = UINT32_MAX;

/// Eight tracks' segments, component by component. `output` is where each
/// lane's value goes: the byte offset of its first component in the pose (an
/// array of Transform: its bone's translation, rotation or scale).
template <int Components>
struct alignas(32) SegmentLanes {
  float start[kLanesPerBlock];
  float span[kLanesPerBlock];
  float p[Components][kLanesPerBlock];
  float q[Components][kLanesPerBlock];
  float difference[Components][kLanesPerBlock];
  float tangent_p[Components][kLanesPerBlock];
  float tangent_q[Components][kLanesPerBlock];
  uint32_t output[kLanesPerBlock];
};
using RotationLanes = SegmentLanes<4>;  // normalised after interpolation
using Vec3Lanes = SegmentLanes<3>;      // translation and scale

/// Blocks of `count` lanes, each held (span infinite, values 0) with no output.
void clear_lanes(std::span<RotationLanes> blocks);
void clear_lanes(std::span<Vec3Lanes> blocks);

/// Writes `s` into lane `lane` (0 .. kLanesPerBlock * blocks - 1). Inline:
/// the player calls it for every key that lands in a window.
template <int Components>
inline void set_lane(std::span<SegmentLanes<Components>> blocks, uint32_t lane, const SegmentCoefficients& s) {
  SegmentLanes<Components>& b = blocks[lane / kLanesPerBlock];
  const uint32_t l = lane % kLanesPerBlock;
  b.start[l] = s.start;
  b.span[l] = s.span;
  for (int c = 0; c < Components; ++c) {
    b.p[c][l] = s.p[c];
    b.q[c][l] = s.q[c];
    b.difference[c][l] = s.difference[c];
    b.tangent_p[c][l] = s.tangent_p[c];
    b.tangent_q[c][l] = s.tangent_q[c];
  }
}

/// Evaluates every lane at frame time `t` and copies each lane's components
/// to the bytes of `pose` at its output offset (rotations normalised as
/// normalize_rotation does).
void evaluate_lanes(std::span<const RotationLanes> blocks, float t, unsigned char* pose);
void evaluate_lanes(std::span<const Vec3Lanes> blocks, float t, unsigned char* pose);

/// The instruction sets the kernels come in. kScalar is the reference:
/// evaluate_coefficients lane by lane.
enum class SimdLevel : uint8_t { kScalar = 0, kSse2 = 1, kAvx2 = 2 };
const char* to_string(SimdLevel level);
/// The widest level this CPU runs (AVX2 when it has it, on x86-64).
SimdLevel best_simd_level();
/// The level evaluate_lanes uses; best_simd_level() unless set.
SimdLevel simd_level();
/// Chooses the kernels (for tests and the bench's comparison); a level the
/// CPU cannot run falls back to the best one it can. Not thread-safe with
/// concurrent sampling: call before playing.
void set_simd_level(SimdLevel level);

namespace detail {
// The kernels, per level (segment_lanes_avx2.cpp holds the AVX2 ones).
void evaluate_lanes_avx2(const RotationLanes* blocks, size_t count, float t, unsigned char* pose);
void evaluate_lanes_avx2(const Vec3Lanes* blocks, size_t count, float t, unsigned char* pose);
}  // namespace detail

}  // namespace ks
