#pragma once
// The player's active array as the evaluation reads it (DESIGN §8): for every
// animated track, its window of four dequantized keys and the coefficients
// of its current segment (the second key to the third), laid out
// structure-of-arrays in blocks of eight tracks of any kind (rotations,
// translations and scales side by side). Keys read for a window are staged
// in its lane (stage_lane_key) or put in it (refill_windows, set_lane_key),
// and its block marked stale; the sample evaluates whole blocks, sixteen
// tracks (two blocks) per AVX-512 instruction, eight per AVX2 one or four
// per SSE2 one, first building the coefficients of each stale block
// (shifting in its staged keys) from the registers it then evaluates
// (build_and_evaluate_lanes), and scatters the results into the pose. The
// kernels perform exactly the operations of segment_coefficients,
// evaluate_coefficients and normalize_rotation (curve.h), in the same
// order, without fused multiply-add, so every level yields the same bits as
// the scalar code the fitter measures with.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>

#include "keystream/runtime/curve.h"
#include "keystream/runtime/quantization.h"

namespace ks {

inline constexpr uint32_t kLanesPerBlock = 8;
/// Keys in a lane's window: a segment's two end keys and their outer
/// neighbours (DESIGN §4).
inline constexpr uint32_t kKeysPerLane = 4;
/// An output offset for a lane that holds no track (the last block's padding).
inline constexpr uint32_t kNoOutput = UINT32_MAX;

/// Components of a lane's values: a rotation's four. Rotations and vec3
/// tracks (translations and scales) share blocks: a block costs about as
/// much to build and evaluate whatever its lanes hold, and in blocks of
/// their own cgspeed's one animated translation took a block and a pass
/// over the blocks of its own (its play took 21% more time than with the
/// translation among the rotations, its seeks 16%).
/// A vec3's lane leaves its fourth component 0 and is not normalised.
inline constexpr int kLaneComponents = 4;

/// How each lane's codes become values (dequantize_key, quantization.h),
/// per lane, so a block's staged keys dequantize eight at a time.
struct LaneDequantization {
  float step[kLanesPerBlock];
  float reference[4][kLanesPerBlock];  // relative coding's R
  float full[kLanesPerBlock];          // 1: coded as is (RotationCoding::kFull, or a vec3), 0: relative
  float coded[4][kLanesPerBlock];      // 1: component coded, 0: `constant` (a vec3's; a rotation's are all coded)
  float constant[4][kLanesPerBlock];
  float rotation[kLanesPerBlock];  // 1: a rotation, normalised after interpolation; 0: a vec3 (three components)
};

/// How each lane's segment runs between its keys (Interpolation, curve.h),
/// as masks the kernels select with: a Hermite lane has 0 in both.
struct LaneInterpolation {
  float keyed[kLanesPerBlock];  // 1: linear or step, tangents from the segment's own ends
  float held[kLanesPerBlock];   // 1: step, p held until q's frame
};

/// Keys staged in a block, at most one per lane, still as codes (or, from a
/// key cache, as values): in play at the clip's rate or slower, the one key
/// that arrived in each window since the last sample, dequantized and
/// shifted in for the whole block at once when its coefficients are built.
struct alignas(32) LaneArrivals {
  float code[4][kLanesPerBlock];  // codes as floats (exact: |code| < 2^24), or values (`values`)
  float frame[kLanesPerBlock];
  float sign[kLanesPerBlock];     // -1 for a negated key, else 1
  float arrived[kLanesPerBlock];  // 1: the lane has a staged key
  bool any = false;
  /// `code` holds the staged keys' values, dequantized (and negated) once
  /// already, and every `sign` is 1: a player with a key cache stages keys
  /// from it (stage_values). Set for every block of a player or none (the
  /// AVX-512 kernels read two blocks' staged keys as the first block's
  /// says); clear_arrivals keeps it.
  bool values = false;
};

/// Makes `a` take staged keys as values (LaneArrivals::values).
inline void stage_values(LaneArrivals& a) {
  a.values = true;
  for (float& sign : a.sign) sign = 1.f;
}

/// The keys a block's lanes read in one go (a seek's read forward, a restore,
/// play faster than the keys), still as codes: the i-th key a lane reads goes
/// to slot[i % kKeysPerLane], so each lane's last four are there when it is
/// done, and refill_windows dequantizes those alone. A seek on long mocap
/// reads about twenty keys per lane; dequantizing and shifting in each one
/// was a third of its time.
struct KeyRing {
  LaneArrivals slot[kKeysPerLane];
};

/// Where evaluated lanes go: a bone's lane to the pose (an array of
/// Transform), a scalar track's (SegmentLanes::scalar_lanes) to the scalar
/// values (four floats per scalar track). Offsets at or past either's bytes
/// are not written: a pose shorter than the skeleton gets the bones it has.
inline constexpr uint32_t kScalarSlotFloats = 4;
struct LaneOutputs {
  unsigned char* pose = nullptr;
  size_t pose_bytes = 0;
  unsigned char* scalars = nullptr;
  size_t scalar_bytes = 0;
};

/// Eight tracks' windows and segments, component by component. The
/// coefficients follow from the keys (build_coefficients). `output` is where
/// each lane's value goes: the byte offset of its first component in the pose
/// (an array of Transform: its bone's translation, rotation or scale), or for
/// a scalar track in the scalar values (LaneOutputs).
struct alignas(32) SegmentLanes {
  float key_frame[kKeysPerLane][kLanesPerBlock];
  float key_value[kKeysPerLane][kLaneComponents][kLanesPerBlock];
  float start[kLanesPerBlock];
  float span[kLanesPerBlock];
  float p[kLaneComponents][kLanesPerBlock];
  float q[kLaneComponents][kLanesPerBlock];
  float difference[kLaneComponents][kLanesPerBlock];
  float tangent_p[kLaneComponents][kLanesPerBlock];
  float tangent_q[kLaneComponents][kLanesPerBlock];
  uint32_t output[kLanesPerBlock];
  alignas(32) LaneDequantization dequantization;
  alignas(32) LaneInterpolation interpolation;
  alignas(32) LaneArrivals arrivals;
  /// Lanes that hold a vec3 or a scalar track (bit l: lane l): not
  /// normalised, uncoded components constant. Without any, the kernels
  /// skip a vec3's dequantization and outputs.
  uint32_t vec3_lanes = 0;
  /// Of those, the scalar tracks' lanes: they write four floats, where a
  /// bone's vec3 writes three (the rest of its Transform follows).
  uint32_t scalar_lanes = 0;
  /// Lanes whose track is linear or step (LaneInterpolation), and of those
  /// the step ones: without any, the kernels build every lane as Hermite.
  uint32_t keyed_lanes = 0;
  uint32_t held_lanes = 0;
  /// The keys changed since the coefficients were built (set by whoever
  /// changes them without building: build_and_evaluate_lanes builds the
  /// block then, fused with its evaluation).
  bool stale = false;
};

/// Whether the coefficients of `b` must be built before it is evaluated:
/// its keys changed, or keys are staged in it.
inline bool needs_build(const SegmentLanes& b) {
  return b.stale || b.arrivals.any;
}

/// Blocks whose lanes all hold 0 (every key 0 at frame 0, so the span is
/// infinite) with no output.
void clear_lanes(std::span<SegmentLanes> blocks);

/// Drops the `count` oldest keys of lane `lane` (1 .. kKeysPerLane): the
/// others move to the front, making room for as many new keys at the back.
inline void shift_lane_keys(std::span<SegmentLanes> blocks, uint32_t lane, uint32_t count) {
  SegmentLanes& b = blocks[lane / kLanesPerBlock];
  const uint32_t l = lane % kLanesPerBlock;
  for (uint32_t i = 0; i + count < kKeysPerLane; ++i) {
    b.key_frame[i][l] = b.key_frame[i + count][l];
    for (int c = 0; c < kLaneComponents; ++c) b.key_value[i][c][l] = b.key_value[i + count][c][l];
  }
}

/// Writes key `position` (0 .. kKeysPerLane - 1) of lane `lane`. The lane's
/// coefficients keep the old segment until its block is rebuilt.
inline void set_lane_key(std::span<SegmentLanes> blocks, uint32_t lane, uint32_t position, const CurveKey& key) {
  SegmentLanes& b = blocks[lane / kLanesPerBlock];
  const uint32_t l = lane % kLanesPerBlock;
  b.key_frame[position][l] = key.frame;
  for (int c = 0; c < kLaneComponents; ++c) b.key_value[position][c][l] = key.value[c];
}

/// Sets how lane `lane` dequantizes the keys staged in it: as a track of
/// kind `kind` quantized as `q`.
inline void set_lane_dequantization(std::span<SegmentLanes> blocks, uint32_t lane, const TrackQuantization& q,
                                    TrackKind kind) {
  SegmentLanes& b = blocks[lane / kLanesPerBlock];
  LaneDequantization& d = b.dequantization;
  const uint32_t l = lane % kLanesPerBlock;
  const bool rotation = kind == TrackKind::kRotation;
  const int components = component_count(kind);
  d.step[l] = q.step;
  for (int c = 0; c < 4; ++c) {
    d.reference[c][l] = rotation ? q.reference[c] : (c == 3 ? 1.f : 0.f);
    d.coded[c][l] = rotation || (c < components && q.coded(c)) ? 1.f : 0.f;
    d.constant[c][l] = rotation || c >= components ? 0.f : q.constant[c];
  }
  d.full[l] = !rotation || q.rotation == RotationCoding::kFull ? 1.f : 0.f;
  d.rotation[l] = rotation ? 1.f : 0.f;
  b.vec3_lanes = rotation ? b.vec3_lanes & ~(1u << l) : b.vec3_lanes | (1u << l);
  b.scalar_lanes = kind == TrackKind::kScalar ? b.scalar_lanes | (1u << l) : b.scalar_lanes & ~(1u << l);
}

/// Sets how lane `lane`'s segments run between its keys.
inline void set_lane_interpolation(std::span<SegmentLanes> blocks, uint32_t lane, Interpolation interpolation) {
  SegmentLanes& b = blocks[lane / kLanesPerBlock];
  const uint32_t l = lane % kLanesPerBlock;
  const bool keyed = interpolation != Interpolation::kHermite;
  b.interpolation.keyed[l] = keyed ? 1.f : 0.f;
  b.interpolation.held[l] = interpolation == Interpolation::kStep ? 1.f : 0.f;
  const bool held = interpolation == Interpolation::kStep;
  b.keyed_lanes = keyed ? b.keyed_lanes | (1u << l) : b.keyed_lanes & ~(1u << l);
  b.held_lanes = held ? b.held_lanes | (1u << l) : b.held_lanes & ~(1u << l);
}

/// The interpolation lane `lane` of `block` was set to.
inline Interpolation lane_interpolation(const SegmentLanes& block, uint32_t lane) {
  if (!(block.interpolation.keyed[lane] > 0.f)) return Interpolation::kHermite;
  return block.interpolation.held[lane] > 0.f ? Interpolation::kStep : Interpolation::kLinear;
}

/// Stages the key (`codes`, `frame`, negated or not) as the next of lane
/// `lane`: the next build_coefficients of its block shifts the lane's keys
/// one place toward the front and writes it, dequantized, as key 3. At most
/// one key per lane per build (a window that took more brings its lane up
/// to date with shift_lane_keys and set_lane_key instead).
inline void stage_lane_key(std::span<SegmentLanes> blocks, uint32_t lane, const int32_t codes[4], uint32_t frame,
                           bool negated) {
  LaneArrivals& a = blocks[lane / kLanesPerBlock].arrivals;
  const uint32_t l = lane % kLanesPerBlock;
  for (int c = 0; c < kLaneComponents; ++c) a.code[c][l] = static_cast<float>(codes[c]);
  a.frame[l] = static_cast<float>(frame);
  a.sign[l] = negated ? -1.f : 1.f;
  a.arrived[l] = 1.f;
  a.any = true;
}

/// Marks the staged keys shifted in.
inline void clear_arrivals(LaneArrivals& a) {
  std::memset(a.arrived, 0, sizeof a.arrived);
  a.any = false;
}

/// Key `position` of lane `lane` (components past kLaneComponents are 0).
inline CurveKey lane_key(std::span<const SegmentLanes> blocks, uint32_t lane, uint32_t position) {
  const SegmentLanes& b = blocks[lane / kLanesPerBlock];
  const uint32_t l = lane % kLanesPerBlock;
  CurveKey key{};
  key.frame = b.key_frame[position][l];
  for (int c = 0; c < kLaneComponents; ++c) key.value[c] = b.key_value[position][c][l];
  return key;
}

/// The value lane `lane` of `block` holds for a key of codes `codes` (one
/// per component, as the lane readers stage them), negated or not: the bits
/// the kernels dequantize a staged key to (dequantize_key with the lane's
/// dequantization, then the sign).
void dequantize_lane_key(const SegmentLanes& block, uint32_t lane, const int32_t (&codes)[4], bool negated,
                         float (&value)[4]);

/// Shifts in the keys staged in the block (stage_lane_key), then rebuilds
/// every lane's coefficients from its keys: segment_coefficients of keys
/// 0..3, eight lanes at a time.
void build_coefficients(SegmentLanes& block);

/// Shifts in the keys staged in the block now, dequantized eight lanes at a
/// time, and clears them: lets a window that took several keys (after a
/// seek) stage them one round at a time, each round's keys shifted in
/// before the next are staged. build_coefficients does this for the last.
void shift_in_staged_keys(SegmentLanes& block);

/// Moves each lane's window `counts[lane]` keys forward at once: its last
/// four keys are then those it read into `ring` (KeyRing), the newest last,
/// preceded by its own newest keys where it read fewer than four (a lane
/// that read none keeps its window). The keys taken from the ring are
/// dequantized as shift_in_staged_keys does, so the windows hold the same
/// bits as after shifting every key in. The block's own staged keys are
/// neither read nor cleared; the coefficients are left to build_coefficients.
void refill_windows(SegmentLanes& block, const KeyRing& ring, const uint32_t (&counts)[kLanesPerBlock]);

/// Evaluates every lane at frame time `t` and copies each lane's components
/// to `out` at its output offset (rotations normalised as
/// normalize_rotation does).
void evaluate_lanes(std::span<const SegmentLanes> blocks, float t, const LaneOutputs& out);
/// The same for lanes of bones alone, into a pose of `pose_bytes`.
inline void evaluate_lanes(std::span<const SegmentLanes> blocks, float t, unsigned char* pose, size_t pose_bytes) {
  evaluate_lanes(blocks, t, LaneOutputs{pose, pose_bytes, nullptr, 0});
}

/// evaluate_lanes, with build_coefficients first for every block that
/// needs_build. Play changes most blocks' keys at every frame: building
/// them here, and evaluating from the registers the coefficients are built
/// in, saves a pass over them (a build per pair of blocks at AVX-512 when
/// either needs it).
void build_and_evaluate_lanes(std::span<SegmentLanes> blocks, float t, const LaneOutputs& out);
inline void build_and_evaluate_lanes(std::span<SegmentLanes> blocks, float t, unsigned char* pose, size_t pose_bytes) {
  build_and_evaluate_lanes(blocks, t, LaneOutputs{pose, pose_bytes, nullptr, 0});
}
/// build_coefficients for every block that needs_build (to compare states).
void build_stale_coefficients(std::span<SegmentLanes> blocks);

/// The instruction sets the kernels come in. kScalar is the reference:
/// evaluate_coefficients lane by lane.
/// kAvx512 (AVX-512F and VL) evaluates and builds two blocks per
/// instruction, refills two keys of each window per instruction, and reads
/// a seek's rounds with one register per cursor row; its other kernels are
/// AVX2's.
enum class SimdLevel : uint8_t { kScalar = 0, kSse2 = 1, kAvx2 = 2, kAvx512 = 3 };
const char* to_string(SimdLevel level);
/// The level a command-line or configuration name stands for: "scalar",
/// "sse2", "avx2" or "avx512"; false for any other name.
bool simd_level_named(std::string_view name, SimdLevel& level);
/// Those names, for a message: "scalar, sse2, avx2 or avx512".
inline constexpr const char* kSimdLevelNames = "scalar, sse2, avx2 or avx512";
/// The widest level this CPU runs (AVX-512 or AVX2 when it has them, on x86-64).
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
void evaluate_lanes_avx2(const SegmentLanes* blocks, size_t count, float t, const LaneOutputs& out);
void build_coefficients_avx2(SegmentLanes& block);
void build_and_evaluate_lanes_avx2(SegmentLanes* blocks, size_t count, float t, const LaneOutputs& out);
void shift_in_staged_keys_avx2(SegmentLanes& block);
/// Where refill_windows takes key k of each lane from: 0..3 the lane's own
/// key at that place, kKeysPerLane + s ring slot s. `keeps`: some lane
/// keeps a key of its own.
using RefillSources = float[kKeysPerLane][kLanesPerBlock];
void refill_windows_avx2(SegmentLanes& block, const KeyRing& ring, const RefillSources& sources, bool keeps);
/// refill_windows_avx2 with two keys of each lane's window per instruction.
void refill_windows_avx512(SegmentLanes& block, const KeyRing& ring, const RefillSources& sources, bool keeps);
/// Evaluates the first `count` blocks rounded down to pairs
/// (segment_lanes_avx512.cpp); returns how many that is.
size_t evaluate_lane_pairs_avx512(const SegmentLanes* blocks, size_t count, float t, const LaneOutputs& out);
/// build_and_evaluate_lanes for the first `count` blocks rounded down to
/// pairs; returns how many that is.
size_t build_and_evaluate_lane_pairs_avx512(SegmentLanes* blocks, size_t count, float t, const LaneOutputs& out);
}  // namespace detail

}  // namespace ks
