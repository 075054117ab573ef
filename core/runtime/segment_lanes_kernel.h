#pragma once
// The SIMD kernel of segment_lanes.h, written once over a vector type V that
// wraps one instruction set's registers (V::kWidth floats) and compiled once
// per level: segment_lanes.cpp for SSE2, segment_lanes_avx2.cpp with -mavx2,
// segment_lanes_avx512.cpp with -mavx512f (two blocks per vector).
// Each operation is the one segment_coefficients, evaluate_coefficients and
// normalize_rotation (curve.h) perform, in the same order, so every level
// gives their bits.
// Include it inside an anonymous namespace only: each level's instantiation
// must stay in its own translation unit, compiled for its own instruction set.

// Blocks evaluated per call: a V wider than a block (AVX-512's sixteen lanes)
// loads the same field of `b` and of the blocks after it in one vector.
template <class V>
inline constexpr uint32_t kBlocksPerVector = V::kWidth > kLanesPerBlock ? V::kWidth / kLanesPerBlock : 1;

// One segment's coefficients for V::kWidth lanes, in registers: a block's
// fields (SegmentLanes) from `start` to `tangent_q`.
template <class V>
struct SegmentRegisters {
  V start, span;
  V p[kLaneComponents], q[kLaneComponents], difference[kLaneComponents], tangent_p[kLaneComponents],
      tangent_q[kLaneComponents];
  V rotation;  // 1 in a rotation's lanes (normalised), 0 in a vec3's (loaded where a block holds one)
};

// Whether `b` or one of the kBlocksPerVector - 1 blocks after it holds a
// vec3 (SegmentLanes::vec3_lanes): only then do the kernels tell a vec3's
// lanes from a rotation's.
template <class V, class Lanes>
inline bool any_vec3(const Lanes& b) {
  uint32_t vec3s = 0;
  for (uint32_t i = 0; i < kBlocksPerVector<V>; ++i) vec3s |= (&b)[i].vec3_lanes;
  return vec3s != 0;
}

// What the linear and step lanes of `b` and the kBlocksPerVector - 1 blocks
// after it ask of a build (SegmentLanes::keyed_lanes): nothing in a block
// of Hermite lanes alone.
struct KeyedLanes {
  bool keyed = false;    // some lane is linear or step: its neighbours are its ends
  bool held = false;     // some lane is step
  bool bent = false;     // some lane is a linear rotation, bent toward slerp
};
template <class V, class Lanes>
inline KeyedLanes keyed_lanes(const Lanes& b) {
  KeyedLanes k;
  for (uint32_t i = 0; i < kBlocksPerVector<V>; ++i) {
    const Lanes& block = (&b)[i];
    k.keyed = k.keyed || block.keyed_lanes != 0;
    k.held = k.held || block.held_lanes != 0;
    k.bent = k.bent || (block.keyed_lanes & ~block.held_lanes & ~block.vec3_lanes) != 0;
  }
  return k;
}

template <class V, class Lanes>
[[gnu::always_inline]] inline void load_segment(const Lanes& b, uint32_t lane, bool mixed, SegmentRegisters<V>& s) {
  s.rotation = mixed ? V::load(b.dequantization.rotation + lane) : V::zero();
  s.start = V::load(b.start + lane);
  s.span = V::load(b.span + lane);
  for (int c = 0; c < kLaneComponents; ++c) {
    s.p[c] = V::load(b.p[c] + lane);
    s.q[c] = V::load(b.q[c] + lane);
    s.difference[c] = V::load(b.difference[c] + lane);
    s.tangent_p[c] = V::load(b.tangent_p[c] + lane);
    s.tangent_q[c] = V::load(b.tangent_q[c] + lane);
  }
}

// evaluate_coefficients (and normalize_rotation for rotations) of `s` at
// frame time `t`, into `values` (each lane's components side by side; the
// fourth of a vec3 is 0). `mixed`: some lanes hold a vec3 (s.rotation).
template <class V>
[[gnu::always_inline]] inline void evaluate_segment(const SegmentRegisters<V>& s, const V time, bool mixed,
                                                    float (*values)[4]) {
  const V half = V::broadcast(0.5f);
  const V one = V::broadcast(1.f);
  const V two = V::broadcast(2.f);
  const V three = V::broadcast(3.f);
  const V minus_two = V::broadcast(-2.f);
  const V u = (time - s.start) / s.span;
  const V u2 = u * u;
  const V u3 = u2 * u;
  const V h00 = two * u3 - three * u2 + one;
  const V h10 = u3 - two * u2 + u;
  const V h01 = minus_two * u3 + three * u2;
  const V h11 = u3 - u2;
  const auto from_p = V::less(u, half);
  const V h_difference = V::select(from_p, h01, h00.negated());
  V out[kLaneComponents];
  for (int c = 0; c < kLaneComponents; ++c) {
    const V base = V::select(from_p, s.p[c], s.q[c]);
    const V delta = h_difference * s.difference[c] + h10 * s.tangent_p[c] + h11 * s.tangent_q[c];
    out[c] = V::select(V::equal(delta, V::zero()), base, base + delta);
  }
  // normalize_rotation in a rotation's lanes: the identity where the
  // length is 0 (or NaN). A vec3's lanes keep their values.
  const V length_squared = out[0] * out[0] + out[1] * out[1] + out[2] * out[2] + out[3] * out[3];
  const auto has_length = V::greater(length_squared, V::zero());
  const V inverse = one / V::sqrt(length_squared);
  V normalized[4];
  for (int c = 0; c < 3; ++c) normalized[c] = V::select(has_length, out[c] * inverse, V::zero());
  normalized[3] = V::select(has_length, out[3] * inverse, one);
  if (mixed) {
    const auto rotation = V::greater(s.rotation, V::zero());
    for (int c = 0; c < 4; ++c) normalized[c] = V::select(rotation, normalized[c], out[c]);
  }
  V::store_transposed(normalized[0], normalized[1], normalized[2], normalized[3], values[0]);
}

// The values of codes `code` (as floats) in lanes lane.. of `b`, with
// dequantize_key's operations in its order (quantization.h). Always
// inlined: GCC calls it otherwise, passing the vectors through memory,
// which cost a restart of a one-track clip 10% more instructions.
// `mixed`: some lanes hold a vec3 (SegmentLanes::vec3_lanes).
template <class V, class Lanes>
[[gnu::always_inline]] inline void dequantize_codes(const Lanes& b, const V (&code)[4], uint32_t lane, bool mixed,
                                                    V (&value)[kLaneComponents]) {
  const V zero = V::zero();
  const auto& d = b.dequantization;
  const V step = V::load(d.step + lane);
  const V one = V::broadcast(1.f);
  V full[4];
  for (int c = 0; c < 4; ++c) full[c] = code[c] * step;
  // Relative coding: w from unit length (dropped_component), then R * key
  // (multiply_quaternions).
  const V x = one - (full[0] * full[0] + full[1] * full[1] + full[2] * full[2]);
  const V w = V::sqrt(V::select(V::greater(x, zero), x, zero));
  V q[4];
  for (int c = 0; c < 4; ++c) q[c] = V::load(d.reference[c] + lane);
  const V relative[4] = {
      q[3] * full[0] + q[0] * w + q[1] * full[2] - q[2] * full[1],
      q[3] * full[1] - q[0] * full[2] + q[1] * w + q[2] * full[0],
      q[3] * full[2] + q[0] * full[1] - q[1] * full[0] + q[2] * w,
      q[3] * w - q[0] * full[0] - q[1] * full[1] - q[2] * full[2],
  };
  // Coded as is: a full rotation, or a vec3 (its uncoded components constant).
  const auto is_full = V::greater(V::load(d.full + lane), zero);
  if (mixed) {
    for (int c = 0; c < 4; ++c) {
      full[c] = V::select(V::greater(V::load(d.coded[c] + lane), zero), full[c], V::load(d.constant[c] + lane));
    }
  }
  for (int c = 0; c < 4; ++c) value[c] = V::select(is_full, full[c], relative[c]);
}

// The window of lanes lane.. of `b`, in registers, with the key staged in
// each lane that has one shifted in: keys 1..3 move to 0..2, and the staged
// key, dequantized, becomes key 3. Every lane is computed and the arrived
// ones selected.
template <class V, class Lanes>
[[gnu::always_inline]] inline void load_shifted_window(const Lanes& b, uint32_t lane, bool mixed,
                                                       V (&frame)[kKeysPerLane],
                                                       V (&value)[kKeysPerLane][kLaneComponents]) {
  const LaneArrivals& a = b.arrivals;
  const auto arrived = V::greater(V::load(a.arrived + lane), V::zero());
#pragma GCC unroll 4
  for (uint32_t i = 0; i + 1 < kKeysPerLane; ++i) {
    frame[i] = V::select(arrived, V::load(b.key_frame[i + 1] + lane), V::load(b.key_frame[i] + lane));
    for (int c = 0; c < kLaneComponents; ++c) {
      value[i][c] = V::select(arrived, V::load(b.key_value[i + 1][c] + lane), V::load(b.key_value[i][c] + lane));
    }
  }
  V code[4];
  for (int c = 0; c < 4; ++c) code[c] = V::load(a.code[c] + lane);
  V staged[kLaneComponents];
  if (a.values) {
    for (int c = 0; c < kLaneComponents; ++c) staged[c] = code[c];
  } else {
    dequantize_codes<V>(b, code, lane, mixed, staged);
  }
  const V sign = V::load(a.sign + lane);
  const uint32_t last = kKeysPerLane - 1;
  frame[last] = V::select(arrived, V::load(a.frame + lane), V::load(b.key_frame[last] + lane));
  for (int c = 0; c < kLaneComponents; ++c) {
    value[last][c] = V::select(arrived, staged[c] * sign, V::load(b.key_value[last][c] + lane));
  }
}

// Writes a window held in registers back to lanes lane.. of `b`.
template <class V, class Lanes>
[[gnu::always_inline]] inline void store_window(Lanes& b, uint32_t lane, const V (&frame)[kKeysPerLane],
                                                const V (&value)[kKeysPerLane][kLaneComponents]) {
#pragma GCC unroll 4
  for (uint32_t i = 0; i < kKeysPerLane; ++i) {
    frame[i].store(b.key_frame[i] + lane);
    for (int c = 0; c < kLaneComponents; ++c) value[i][c].store(b.key_value[i][c] + lane);
  }
}

// Shifts the key staged in each lane of `b` that has one into it
// (load_shifted_window).
template <class V, class Lanes>
inline void shift_in_staged(Lanes& b) {
  for (uint32_t lane = 0; lane < kLanesPerBlock; lane += V::kWidth) {
    V frame[kKeysPerLane];
    V value[kKeysPerLane][kLaneComponents];
    load_shifted_window<V>(b, lane, any_vec3<V>(b), frame, value);
    store_window<V>(b, lane, frame, value);
  }
}

// refill_windows (segment_lanes.h): key k of each lane from `sources`' place
// for it, a key of its own window (k and later places only, so writing the
// places in order reads no place already written) or a ring slot,
// dequantized as shift_in_staged does. Without `keeps`, no lane keeps a key
// of its own (a restore, a long seek) and none is looked at.
template <class V, class Lanes>
inline void refill_block(Lanes& b, const KeyRing& ring, const float (&sources)[kKeysPerLane][kLanesPerBlock],
                         bool keeps) {
  for (uint32_t lane = 0; lane < kLanesPerBlock; lane += V::kWidth) {
    // Unrolled (GCC leaves these loops at -O2, with the keys' vectors in
    // memory): the places' indices become constants.
#pragma GCC unroll 4
    for (uint32_t k = 0; k < kKeysPerLane; ++k) {
      const V source = V::load(sources[k] + lane);
      V code[4], frame = V::load(ring.slot[0].frame + lane), sign = V::load(ring.slot[0].sign + lane);
      for (int c = 0; c < 4; ++c) code[c] = V::load(ring.slot[0].code[c] + lane);
      for (uint32_t s = 1; s < kKeysPerLane; ++s) {
        const auto here = V::equal(source, V::broadcast(static_cast<float>(kKeysPerLane + s)));
        const LaneArrivals& slot = ring.slot[s];
        frame = V::select(here, V::load(slot.frame + lane), frame);
        sign = V::select(here, V::load(slot.sign + lane), sign);
        for (int c = 0; c < kLaneComponents; ++c) code[c] = V::select(here, V::load(slot.code[c] + lane), code[c]);
      }
      V value[kLaneComponents];
      dequantize_codes<V>(b, code, lane, b.vec3_lanes != 0, value);
      for (int c = 0; c < kLaneComponents; ++c) value[c] = value[c] * sign;
      for (uint32_t j = k; keeps && j < kKeysPerLane; ++j) {
        const auto kept = V::equal(source, V::broadcast(static_cast<float>(j)));
        frame = V::select(kept, V::load(b.key_frame[j] + lane), frame);
        for (int c = 0; c < kLaneComponents; ++c)
          value[c] = V::select(kept, V::load(b.key_value[j][c] + lane), value[c]);
      }
      frame.store(b.key_frame[k] + lane);
      for (int c = 0; c < kLaneComponents; ++c) value[c].store(b.key_value[k][c] + lane);
    }
  }
}

// The staged keys shifted in and cleared, if there are any.
template <class V, class Lanes>
inline void shift_in_arrivals(Lanes& b) {
  if (b.arrivals.any) {
    shift_in_staged<V>(b);
    clear_arrivals(b.arrivals);
  }
}

// segment_coefficients(key 0, key 1, key 2, key 3) for lanes lane.. of `b`,
// after shifting in the staged keys if `staged`: in one pass, the shifted
// window written back from the registers the coefficients are computed
// from (a shift, then a build reading the keys again, was part of the 3%
// more instructions cgspeed's play took before). The coefficients are
// stored and left in `s`, for an evaluation that follows.
// Where the segment has no length the scalar code returns early; here both
// results are computed and the held one selected (the tangent scales divide
// by zero there, harmlessly: those lanes take zeros). `Keyed`: some lanes
// are linear or step (LaneInterpolation), and `keyed` says what they need;
// without, the build is Hermite's alone (a flag tested in it cost the
// demo's all-Hermite play 8% more instructions in its AVX2 builds).
template <class V, bool Keyed, class Lanes>
[[gnu::always_inline]] inline void build_segment(Lanes& b, uint32_t lane, bool staged, bool mixed,
                                                 const KeyedLanes& keyed, SegmentRegisters<V>& s) {
  const V zero = V::zero();
  V frame[kKeysPerLane];
  V value[kKeysPerLane][kLaneComponents];
  if (staged) {
    load_shifted_window<V>(b, lane, mixed, frame, value);
    store_window<V>(b, lane, frame, value);
  } else {
#pragma GCC unroll 4
    for (uint32_t i = 0; i < kKeysPerLane; ++i) {
      frame[i] = V::load(b.key_frame[i] + lane);
      for (int c = 0; c < kLaneComponents; ++c) value[i][c] = V::load(b.key_value[i][c] + lane);
    }
  }
  V f0 = frame[0], f3 = frame[3];
  const V f1 = frame[1], f2 = frame[2];
  if constexpr (Keyed) {
    // A linear or step lane's neighbours sit at its ends' frames, so the
    // ends replace them (segment_coefficients).
    const auto linear = V::greater(V::load(b.interpolation.keyed + lane), zero);
    f0 = V::select(linear, f1, f0);
    f3 = V::select(linear, f2, f3);
  }
  const V span = f2 - f1;
  const auto has_span = V::greater(span, zero);
  // A neighbour at its end key's frame is replaced by that end key.
  const auto before_is_prev = V::less(f0, f1);
  const auto after_is_next = V::greater(f3, f2);
  V scale_p = span / (f2 - V::select(before_is_prev, f0, f1));
  V scale_q = span / (V::select(after_is_next, f3, f2) - f1);
  s.rotation = mixed ? V::load(b.dequantization.rotation + lane) : V::zero();
  s.start = f1;
  s.span = V::select(has_span, span, V::broadcast(std::numeric_limits<float>::infinity()));
  // segment_coefficients' factors: 0 in a step lane, which holds p (twice
  // the span: q is the nearer end at its own frame only); a linear
  // rotation's tangents bent toward slerp (slerp_tangent_scale); 1 in the
  // other lanes, where they leave the bits as they are.
  V move = V::broadcast(1.f);
  if (Keyed && keyed.held) {
    const V held = V::load(b.interpolation.held + lane);
    move = V::broadcast(1.f) - held;
    s.span = V::select(V::greater(held, zero), s.span + s.span, s.span);
  }
  if (Keyed && keyed.bent) {
    const V one = V::broadcast(1.f);
    const V dot = value[1][0] * value[2][0] + value[1][1] * value[2][1] + value[1][2] * value[2][2] +
                  value[1][3] * value[2][3];
    const V clamped = V::select(V::greater(dot, zero), dot, zero);
    const V x = one - V::select(V::greater(clamped, one), one, clamped);
    const V k = x * (V::broadcast(kSlerpBend[0]) + x * (V::broadcast(kSlerpBend[1]) + x * V::broadcast(kSlerpBend[2])));
    // 1 in a linear lane (keyed, not held), times 1 in a rotation's.
    V linear_rotation = V::load(b.interpolation.keyed + lane) - V::load(b.interpolation.held + lane);
    if (mixed) linear_rotation = linear_rotation * s.rotation;
    const V bend = V::select(V::greater(linear_rotation, zero), one + V::broadcast(0.5f) * k, one);
    scale_p = scale_p * bend;
    scale_q = scale_q * bend;
  }
  if (Keyed && keyed.held) {
    scale_p = scale_p * move;
    scale_q = scale_q * move;
  }
  s.start.store(b.start + lane);
  s.span.store(b.span + lane);
  for (int c = 0; c < kLaneComponents; ++c) {
    const V v0 = value[0][c], v1 = value[1][c], v2 = value[2][c], v3 = value[3][c];
    const V before = V::select(before_is_prev, v0, v1);
    const V after = V::select(after_is_next, v3, v2);
    V difference = v2 - v1;
    if (Keyed && keyed.held) difference = difference * move;
    s.p[c] = V::select(has_span, v1, v2);
    s.q[c] = v2;
    s.difference[c] = V::select(has_span, difference, zero);
    s.tangent_p[c] = V::select(has_span, (v2 - before) * scale_p, zero);
    s.tangent_q[c] = V::select(has_span, (after - v1) * scale_q, zero);
    s.p[c].store(b.p[c] + lane);
    s.q[c].store(b.q[c] + lane);
    s.difference[c].store(b.difference[c] + lane);
    s.tangent_p[c].store(b.tangent_p[c] + lane);
    s.tangent_q[c].store(b.tangent_q[c] + lane);
  }
}

// Whether any of `b` and the kBlocksPerVector - 1 blocks after it has keys
// staged.
template <class V, class Lanes>
inline bool any_staged(const Lanes& b) {
  bool staged = false;
  for (uint32_t i = 0; i < kBlocksPerVector<V>; ++i) staged = staged || (&b)[i].arrivals.any;
  return staged;
}

// Marks `b` and the kBlocksPerVector - 1 blocks after it built: no key
// staged, coefficients up to date.
template <class V, class Lanes>
inline void mark_built(Lanes& b, bool staged) {
  for (uint32_t i = 0; i < kBlocksPerVector<V>; ++i) {
    if (staged) clear_arrivals((&b)[i].arrivals);
    (&b)[i].stale = false;
  }
}

// build_segment for every lane of `b` and, with a V wider than a block
// (AVX-512), of the kBlocksPerVector - 1 blocks after it: a block without
// staged keys has none arrived, so the shift keeps its windows.
template <class V, class Lanes>
inline void build_block(Lanes& b) {
  const bool staged = any_staged<V>(b);
  const bool mixed = any_vec3<V>(b);
  const KeyedLanes keyed = keyed_lanes<V>(b);
  for (uint32_t lane = 0; lane < kLanesPerBlock; lane += V::kWidth) {
    SegmentRegisters<V> s;
    if (keyed.keyed) {
      build_segment<V, true>(b, lane, staged, mixed, keyed, s);
    } else {
      build_segment<V, false>(b, lane, staged, mixed, keyed, s);
    }
  }
  mark_built<V>(b, staged);
}

// Evaluates `b` and, for a V wider than a block, the kBlocksPerVector - 1
// blocks after it in the same array, at frame time `t`, into `pose`. With
// `Build`, builds them first (build_block), evaluating the coefficients
// from the registers they are built in.
template <class V, bool Build, class Lanes>
inline void evaluate_block(Lanes& b, float t, const LaneOutputs& out) {
  constexpr uint32_t kLanes = kBlocksPerVector<V> * kLanesPerBlock;
  alignas(64) float values[kLanes][4];
  const V time = V::broadcast(t);
  bool staged = false;
  KeyedLanes keyed;
  if constexpr (Build) {
    staged = any_staged<V>(b);
    keyed = keyed_lanes<V>(b);
  }
  const bool mixed = any_vec3<V>(b);
  for (uint32_t lane = 0; lane < kLanesPerBlock; lane += V::kWidth) {
    SegmentRegisters<V> s;
    if constexpr (Build) {
      if (keyed.keyed) {
        build_segment<V, true>(b, lane, staged, mixed, keyed, s);
      } else {
        build_segment<V, false>(b, lane, staged, mixed, keyed, s);
      }
    } else {
      load_segment<V>(b, lane, mixed, s);
    }
    evaluate_segment<V>(s, time, mixed, values + lane);
  }
  if constexpr (Build) mark_built<V>(b, staged);
  // In locals: a store through `pose` may alias `out`, which would make the
  // compiler load them again after every lane's copy.
  unsigned char* const pose = out.pose;
  const size_t pose_bytes = out.pose_bytes;
  // Padding lanes (kNoOutput) and bones past a short pose write nothing. A
  // bone's vec3 writes three floats: fixed-size copies (a copy of either
  // size was a call to memcpy per lane, Fox's play 12% slower).
  for (uint32_t lane = 0; lane < kLanes; ++lane) {
    const Lanes& block = (&b)[lane / kLanesPerBlock];
    const uint32_t at = block.output[lane % kLanesPerBlock];
    const uint32_t bit = 1u << (lane % kLanesPerBlock);
    if (!mixed || (block.vec3_lanes & bit) == 0) {
      if (at < pose_bytes) std::memcpy(pose + at, values[lane], 4 * sizeof(float));
    } else if ((block.scalar_lanes & bit) == 0) {
      if (at < pose_bytes) std::memcpy(pose + at, values[lane], 3 * sizeof(float));
    } else if (at < out.scalar_bytes) {
      std::memcpy(out.scalars + at, values[lane], 4 * sizeof(float));
    }
  }
}

// `count` must be a multiple of kBlocksPerVector<V>.
template <class V, class Lanes>
inline void evaluate_blocks(const Lanes* blocks, size_t count, float t, const LaneOutputs& out) {
  for (size_t i = 0; i < count; i += kBlocksPerVector<V>) {
    evaluate_block<V, false>(blocks[i], t, out);
  }
}

// evaluate_blocks, building first (fused: evaluate_block's `Build`) each
// block, or vector of blocks, of which one needs it (needs_build).
template <class V, class Lanes>
inline void build_and_evaluate_blocks(Lanes* blocks, size_t count, float t, const LaneOutputs& out) {
  for (size_t i = 0; i < count; i += kBlocksPerVector<V>) {
    bool build = false;
    for (uint32_t j = 0; j < kBlocksPerVector<V>; ++j) build = build || needs_build(blocks[i + j]);
    if (build) {
      evaluate_block<V, true>(blocks[i], t, out);
    } else {
      evaluate_block<V, false>(blocks[i], t, out);
    }
  }
}
