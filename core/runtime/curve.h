#pragma once
// The curve of DESIGN §4: a cubic Hermite spline whose tangents come from the
// neighbouring keys, so keys store no derivatives. One function evaluates a
// segment from its four keys; the fitter and the player both call it, so the
// value the fitter measured is, bit for bit, the value the player produces.

#include <cmath>
#include <cstdint>
#include <limits>

namespace ks {

/// The three tracks every bone has, in the order the stream stores them,
/// then the kind of a scalar track (a morph weight or user curve of 1..4
/// floats, held as four with the unused ones 0).
enum class TrackKind : uint8_t { kTranslation = 0, kRotation = 1, kScale = 2, kScalar = 3 };

/// Components of a key of this kind: 3 for vec3 tracks, 4 for quaternions
/// and scalar tracks.
constexpr int component_count(TrackKind kind) { return kind == TrackKind::kRotation || kind == TrackKind::kScalar ? 4 : 3; }

/// How a track's curve runs between two keys (DESIGN §4). Hermite is the
/// default; a track keyed sparsely in its source (glTF LINEAR or STEP) may
/// keep the source's keys and its interpolation, which then needs fewer
/// keys than a Hermite curve through the resampled frames.
enum class Interpolation : uint8_t {
  kHermite = 0,  // cubic, tangents from the neighbouring keys
  kLinear = 1,   // straight from key to key (rotations normalised: nlerp)
  kStep = 2,     // a key's value holds until the next key's frame
};
inline constexpr uint32_t kInterpolationCount = 3;
inline const char* to_string(Interpolation interpolation) {
  switch (interpolation) {
    case Interpolation::kHermite: return "hermite";
    case Interpolation::kLinear: return "linear";
    case Interpolation::kStep: return "step";
  }
  return "unknown";
}

/// One key of a curve as the player holds it: its frame and its dequantized
/// value (a vec3 leaves value[3] unused).
struct CurveKey {
  float value[4];
  float frame;
};

/// One segment of the curve reduced to what evaluating it needs at any t:
/// everything that depends on its four keys only. The player computes it
/// once when a key arrives and evaluates it every sample, several tracks at
/// once (segment_lanes.h); evaluate_segment, which the fitter and the
/// baseline call, is the same two steps, so all three produce the same bits.
struct SegmentCoefficients {
  // No initialisers: evaluate_segment builds one per call, and the baseline
  // times that; segment_coefficients writes every field it returns.
  float start;  // frame of p
  float span;   // q.frame - p.frame; infinite for a zero-length segment, so u = 0
  float p[4];
  float q[4];
  float difference[4];  // q - p
  float tangent_p[4];   // the tangents of DESIGN §4, scaled to the segment
  float tangent_q[4];
};

/// The bend of a linear rotation segment's parameter, k(x) = x (a + x (b +
/// x c)) with x = 1 - p·q: a fit (least squares over turns of 2 to 120
/// degrees) of the cubic u + k u (u - 1/2)(u - 1) that makes nlerp turn at
/// slerp's constant speed. a is the small-turn limit, 2/3.
inline constexpr float kSlerpBend[3] = {0.666747f, 0.181166f, 0.0738857f};

/// The tangent scale of a linear rotation segment whose keys' dot product
/// is `dot`: in Hermite form the bent parameter makes both tangents
/// (1 + k/2)(q - p). The curve then follows slerp within 0.0002 degrees for
/// turns up to 40 degrees between keys (0.0016 at 60, 0.012 at 90), where
/// nlerp alone is 0.08 degrees off at 40: a glTF LINEAR rotation kept as
/// its own keys reproduces the slerp it means.
inline float slerp_tangent_scale(float dot) {
  const float clamped = dot > 0.f ? dot : 0.f;  // NaN too
  const float x = 1.f - (clamped > 1.f ? 1.f : clamped);
  const float k = x * (kSlerpBend[0] + x * (kSlerpBend[1] + x * kSlerpBend[2]));
  return 1.f + 0.5f * k;
}

/// The coefficients of the segment from key p to key q, whose outer
/// neighbours are `prev` and `next`. A neighbour at the same frame as its end
/// key (the clamped copy past either end of the track, or the other side of a
/// discontinuity) is replaced by that end key, which makes the tangent
/// one-sided. A zero-length segment holds q: at a discontinuity the
/// right-hand value holds from its frame on. Only the first `components`
/// components are written.
/// Linear: both neighbours are replaced by the end keys, so both tangents
/// are q - p and the cubic is p + u (q - p); a rotation's (`rotation`)
/// tangents are scaled by slerp_tangent_scale. Step: no difference and no
/// tangents, so the value is the nearer end's, and twice the span, so q is
/// nearer only at q's own frame (u = 1/2): p holds until q's frame.
inline SegmentCoefficients segment_coefficients(const CurveKey& prev, const CurveKey& p, const CurveKey& q,
                                                const CurveKey& next, int components,
                                                Interpolation interpolation = Interpolation::kHermite,
                                                bool rotation = false) {
  SegmentCoefficients s;
  s.start = p.frame;
  const float span = q.frame - p.frame;
  if (!(span > 0.f)) {
    // u = 0 for every finite t: the value is p[c] = q's, every difference 0.
    s.span = std::numeric_limits<float>::infinity();
    for (int c = 0; c < components; ++c) {
      s.p[c] = s.q[c] = q.value[c];
      s.difference[c] = s.tangent_p[c] = s.tangent_q[c] = 0.f;
    }
    return s;
  }
  const bool hermite = interpolation == Interpolation::kHermite;
  const bool step = interpolation == Interpolation::kStep;
  s.span = step ? span + span : span;
  const CurveKey& before = hermite && prev.frame < p.frame ? prev : p;
  const CurveKey& after = hermite && next.frame > q.frame ? next : q;
  // A linear rotation's tangents bent toward slerp; a step's difference and
  // tangents 0. Both as factors of 1 elsewhere, which leave a Hermite
  // segment's bits as they are (and the SIMD builds multiply alike).
  const float bend = rotation && interpolation == Interpolation::kLinear
                         ? slerp_tangent_scale(p.value[0] * q.value[0] + p.value[1] * q.value[1] +
                                               p.value[2] * q.value[2] + p.value[3] * q.value[3])
                         : 1.f;
  const float move = step ? 0.f : 1.f;
  // Tangent scale factors of DESIGN §4, both in 0..1 (1 for a linear segment, then bent).
  const float scale_p = span / (q.frame - before.frame) * bend * move;
  const float scale_q = span / (after.frame - p.frame) * bend * move;
  for (int c = 0; c < components; ++c) {
    s.p[c] = p.value[c];
    s.q[c] = q.value[c];
    s.difference[c] = (q.value[c] - p.value[c]) * move;
    s.tangent_p[c] = (q.value[c] - before.value[c]) * scale_p;
    s.tangent_q[c] = (after.value[c] - p.value[c]) * scale_q;
  }
  return s;
}

/// The value of segment `s` at frame time `t` (finite; p.frame <= t <=
/// q.frame). Rotations come out un-normalised; the caller normalises
/// (normalize_rotation).
inline void evaluate_coefficients(const SegmentCoefficients& s, float t, int components, float* out) {
  const float u = (t - s.start) / s.span;
  const float u2 = u * u;
  const float u3 = u2 * u;
  const float h00 = 2.f * u3 - 3.f * u2 + 1.f;
  const float h10 = u3 - 2.f * u2 + u;
  const float h01 = -2.f * u3 + 3.f * u2;
  const float h11 = u3 - u2;
  // h00 p + h01 q with h00 + h01 = 1, written as the nearer end value plus a
  // difference (p - q is exactly -(q - p)): a component equal on all four
  // keys (a vec3 component the track does not code, a held value) comes out
  // as that value bit for bit, and u = 0 and u = 1 give p and q exactly.
  const bool from_p = u < 0.5f;
  const float h_difference = from_p ? h01 : -h00;
  for (int c = 0; c < components; ++c) {
    const float base = from_p ? s.p[c] : s.q[c];
    const float delta = h_difference * s.difference[c] + h10 * s.tangent_p[c] + h11 * s.tangent_q[c];
    // -0 + 0 is +0: a held -0 stays -0.
    out[c] = delta == 0.f ? base : base + delta;
  }
}

/// The value at frame time `t` (finite; f_p <= t <= f_q) of the segment from
/// key p to key q, whose outer neighbours are `prev` and `next`
/// (segment_coefficients, then evaluate_coefficients). Rotations come out
/// un-normalised; the caller normalises (normalize_rotation).
inline void evaluate_segment(const CurveKey& prev, const CurveKey& p, const CurveKey& q,
                             const CurveKey& next, float t, int components, float* out,
                             Interpolation interpolation = Interpolation::kHermite, bool rotation = false) {
  evaluate_coefficients(segment_coefficients(prev, p, q, next, components, interpolation, rotation), t, components,
                        out);
}

/// Scales an interpolated quaternion (x, y, z, w) back to unit length; the
/// identity when it has no length (it cannot for keys of one hemisphere).
inline void normalize_rotation(float* q) {
  const float length_squared = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
  if (!(length_squared > 0.f)) {
    q[0] = q[1] = q[2] = 0.f;
    q[3] = 1.f;
    return;
  }
  const float inverse = 1.f / std::sqrt(length_squared);
  for (int c = 0; c < 4; ++c) q[c] *= inverse;
}

/// Negates `key` when it lies in the other hemisphere from `previous`
/// (negative dot product), so component-wise interpolation between them takes
/// the short way round. Quaternions only; the player and the fitter apply it
/// to each key as it joins its track, in key order.
inline void align_hemisphere(const CurveKey& previous, CurveKey& key) {
  const float d = previous.value[0] * key.value[0] + previous.value[1] * key.value[1] +
                  previous.value[2] * key.value[2] + previous.value[3] * key.value[3];
  if (d < 0.f) {
    for (int c = 0; c < 4; ++c) key.value[c] = -key.value[c];
  }
}

}  // namespace ks
