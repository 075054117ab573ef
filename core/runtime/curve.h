#pragma once
// The curve of DESIGN §4: a cubic Hermite spline whose tangents come from the
// neighbouring keys, so keys store no derivatives. One function evaluates a
// segment from its four keys; the fitter and the player both call it, so the
// value the fitter measured is, bit for bit, the value the player produces.

#include <cmath>
#include <cstdint>

namespace ks {

/// The three tracks every bone has; the stream stores them in this order.
enum class TrackKind : uint8_t { kTranslation = 0, kRotation = 1, kScale = 2 };

/// Components of a key of this kind: 3 for vec3 tracks, 4 for quaternions.
constexpr int component_count(TrackKind kind) { return kind == TrackKind::kRotation ? 4 : 3; }

/// One key of a curve as the player holds it: its frame and its dequantized
/// value (a vec3 leaves value[3] unused).
struct CurveKey {
  float value[4];
  float frame;
};

/// The value at frame time `t` (f_p <= t <= f_q) of the segment from key p to
/// key q, whose outer neighbours are `prev` and `next`. A neighbour at the
/// same frame as its end key (the clamped copy past either end of the track,
/// or the other side of a discontinuity) is replaced by that end key, which
/// makes the tangent one-sided. A zero-length segment yields q: at a
/// discontinuity the right-hand value holds from its frame on. Rotations come
/// out un-normalised; the caller normalises (normalize_rotation).
inline void evaluate_segment(const CurveKey& prev, const CurveKey& p, const CurveKey& q,
                             const CurveKey& next, float t, int components, float* out) {
  const float span = q.frame - p.frame;
  if (!(span > 0.f)) {
    for (int c = 0; c < components; ++c) out[c] = q.value[c];
    return;
  }
  const CurveKey& before = prev.frame < p.frame ? prev : p;
  const CurveKey& after = next.frame > q.frame ? next : q;
  // Tangent scale factors of DESIGN §4, both in 0..1.
  const float scale_p = span / (q.frame - before.frame);
  const float scale_q = span / (after.frame - p.frame);
  const float u = (t - p.frame) / span;
  const float u2 = u * u;
  const float u3 = u2 * u;
  const float h00 = 2.f * u3 - 3.f * u2 + 1.f;
  const float h10 = u3 - 2.f * u2 + u;
  const float h01 = -2.f * u3 + 3.f * u2;
  const float h11 = u3 - u2;
  // h00 p + h01 q with h00 + h01 = 1, written as the nearer end key plus a
  // difference: a component equal on all four keys (a vec3 component the
  // track does not code, a held value) comes out as that value bit for bit,
  // and u = 0 and u = 1 give p and q exactly.
  const bool from_p = u < 0.5f;
  const CurveKey& base = from_p ? p : q;
  const CurveKey& other = from_p ? q : p;
  const float h_other = from_p ? h01 : h00;
  for (int c = 0; c < components; ++c) {
    const float tangent_p = (q.value[c] - before.value[c]) * scale_p;
    const float tangent_q = (after.value[c] - p.value[c]) * scale_q;
    const float delta = h_other * (other.value[c] - base.value[c]) + h10 * tangent_p + h11 * tangent_q;
    // -0 + 0 is +0: a held -0 stays -0.
    out[c] = delta == 0.f ? base.value[c] : base.value[c] + delta;
  }
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
