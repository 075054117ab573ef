#pragma once
// The player's active array as the evaluation reads it (DESIGN §8): for every
// animated track, its window of four dequantized keys and the coefficients
// of its current segment (the second key to the third), laid out
// structure-of-arrays in blocks of eight tracks, rotations and vec3 tracks in
// separate blocks. Before a sample, each window that took keys shifts them
// into its lane (set_lane_key), and every block with a changed lane rebuilds
// its coefficients eight lanes at a time (build_coefficients); the sample
// evaluates whole blocks, eight tracks per AVX2 instruction or four per SSE2
// one, and scatters the results into the pose. The kernels perform exactly
// the operations of segment_coefficients, evaluate_coefficients and
// normalize_rotation (curve.h), in the same order, without fused
// multiply-add, so every level yields the same bits as the scalar code the
// fitter measures with.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

#include "core/runtime/curve.h"

namespace ks {

inline constexpr uint32_t kLanesPerBlock = 8;
/// Keys in a lane's window: a segment's two end keys and their outer
/// neighbours (DESIGN §4).
inline constexpr uint32_t kKeysPerLane = 4;
/// An output offset for a lane that holds no track (the last block's padding).
inline constexpr uint32_t kNoOutput = UINT32_MAX;

/// Eight tracks' windows and segments, component by component. The
/// coefficients follow from the keys (build_coefficients). `output` is where
/// each lane's value goes: the byte offset of its first component in the pose
/// (an array of Transform: its bone's translation, rotation or scale).
template <int Components>
struct alignas(32) SegmentLanes {
  float key_frame[kKeysPerLane][kLanesPerBlock];
  float key_value[kKeysPerLane][Components][kLanesPerBlock];
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

/// Blocks whose lanes all hold 0 (every key 0 at frame 0, so the span is
/// infinite) with no output.
void clear_lanes(std::span<RotationLanes> blocks);
void clear_lanes(std::span<Vec3Lanes> blocks);

/// Drops the `count` oldest keys of lane `lane` (1 .. kKeysPerLane): the
/// others move to the front, making room for as many new keys at the back.
template <int Components>
inline void shift_lane_keys(std::span<SegmentLanes<Components>> blocks, uint32_t lane, uint32_t count) {
  SegmentLanes<Components>& b = blocks[lane / kLanesPerBlock];
  const uint32_t l = lane % kLanesPerBlock;
  for (uint32_t i = 0; i + count < kKeysPerLane; ++i) {
    b.key_frame[i][l] = b.key_frame[i + count][l];
    for (int c = 0; c < Components; ++c) b.key_value[i][c][l] = b.key_value[i + count][c][l];
  }
}

/// Writes key `position` (0 .. kKeysPerLane - 1) of lane `lane`. The lane's
/// coefficients keep the old segment until its block is rebuilt.
template <int Components>
inline void set_lane_key(std::span<SegmentLanes<Components>> blocks, uint32_t lane, uint32_t position,
                         const CurveKey& key) {
  SegmentLanes<Components>& b = blocks[lane / kLanesPerBlock];
  const uint32_t l = lane % kLanesPerBlock;
  b.key_frame[position][l] = key.frame;
  for (int c = 0; c < Components; ++c) b.key_value[position][c][l] = key.value[c];
}

/// Key `position` of lane `lane` (components past Components are 0).
template <int Components>
inline CurveKey lane_key(std::span<const SegmentLanes<Components>> blocks, uint32_t lane, uint32_t position) {
  const SegmentLanes<Components>& b = blocks[lane / kLanesPerBlock];
  const uint32_t l = lane % kLanesPerBlock;
  CurveKey key{};
  key.frame = b.key_frame[position][l];
  for (int c = 0; c < Components; ++c) key.value[c] = b.key_value[position][c][l];
  return key;
}

/// Rebuilds every lane's coefficients from its keys: segment_coefficients
/// of keys 0..3, eight lanes at a time.
void build_coefficients(RotationLanes& block);
void build_coefficients(Vec3Lanes& block);

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
/// The level evaluate_lanes and build_coefficients use; best_simd_level()
/// unless set.
SimdLevel simd_level();
/// Chooses the kernels (for tests and the bench's comparison); a level the
/// CPU cannot run falls back to the best one it can. Not thread-safe with
/// concurrent sampling: call before playing.
void set_simd_level(SimdLevel level);

namespace detail {
// The kernels, per level (segment_lanes_avx2.cpp holds the AVX2 ones).
void evaluate_lanes_avx2(const RotationLanes* blocks, size_t count, float t, unsigned char* pose);
void evaluate_lanes_avx2(const Vec3Lanes* blocks, size_t count, float t, unsigned char* pose);
void build_coefficients_avx2(RotationLanes& block);
void build_coefficients_avx2(Vec3Lanes& block);
}  // namespace detail

}  // namespace ks
