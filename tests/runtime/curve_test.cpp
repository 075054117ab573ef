#include "keystream/runtime/curve.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace ks {
namespace {

constexpr float kUnwritten = -12345.f;  // marks output components the call must not touch

// A key whose components are linear functions of one scalar d: (d, -2d + 1, 0.5d - 3, 4d).
// The curve is linear in its key values and its tangents are differences, so
// every component must follow the scalar curve through the same map.
CurveKey key(float frame, float d) {
  return CurveKey{{d, -2.f * d + 1.f, 0.5f * d - 3.f, 4.f * d}, frame};
}

// The scalar curve value mapped to each component, as key() maps key values.
void expect_components(const float* out, float expected, int components) {
  EXPECT_FLOAT_EQ(out[0], expected);
  EXPECT_FLOAT_EQ(out[1], -2.f * expected + 1.f);
  EXPECT_FLOAT_EQ(out[2], 0.5f * expected - 3.f);
  if (components == 4) {
    EXPECT_FLOAT_EQ(out[3], 4.f * expected);
  }
}

float evaluate(const CurveKey& prev, const CurveKey& p, const CurveKey& q, const CurveKey& next, float t,
               int components = 3) {
  float out[4] = {kUnwritten, kUnwritten, kUnwritten, kUnwritten};
  evaluate_segment(prev, p, q, next, t, components, out);
  if (components == 3) {
    EXPECT_EQ(out[3], kUnwritten) << "a vec3 evaluation wrote the fourth component";
  }
  return out[0];
}

// --- evaluate_segment against the formulas of DESIGN §4 ---------------------
//
// The keys below: prev (f 0, D 0), p (f 2, D 1), q (f 4, D 3), next (f 8, D 4).
//   m_p = (D_q - D_prev) (f_q - f_p) / (f_q - f_prev) = 3 * 2/4 = 1.5
//   m_q = (D_next - D_p) (f_q - f_p) / (f_next - f_p) = 3 * 2/6 = 1
// Every value and weight below is exact in binary floating point.

TEST(EvaluateSegment, MatchesHandComputedHermiteAtTheMiddle) {
  // u = 0.5: h00 = 0.5, h10 = 0.125, h01 = 0.5, h11 = -0.125
  // 0.5*1 + 0.125*1.5 + 0.5*3 - 0.125*1 = 2.0625
  for (const int components : {3, 4}) {
    SCOPED_TRACE(components);
    float out[4] = {kUnwritten, kUnwritten, kUnwritten, kUnwritten};
    evaluate_segment(key(0, 0), key(2, 1), key(4, 3), key(8, 4), 3.f, components, out);
    expect_components(out, 2.0625f, components);
  }
}

TEST(EvaluateSegment, MatchesHandComputedHermiteAtAQuarter) {
  // u = 0.25: h00 = 0.84375, h10 = 0.140625, h01 = 0.15625, h11 = -0.046875
  // 0.84375*1 + 0.140625*1.5 + 0.15625*3 - 0.046875*1 = 1.4765625
  EXPECT_FLOAT_EQ(evaluate(key(0, 0), key(2, 1), key(4, 3), key(8, 4), 2.5f), 1.4765625f);
  // u = 0.75: h00 = 0.15625, h10 = 0.046875, h01 = 0.84375, h11 = -0.140625
  // 0.15625*1 + 0.046875*1.5 + 0.84375*3 - 0.140625*1 = 2.6171875
  EXPECT_FLOAT_EQ(evaluate(key(0, 0), key(2, 1), key(4, 3), key(8, 4), 3.5f), 2.6171875f);
}

TEST(EvaluateSegment, ScalesTangentsByTheFrameSpacing) {
  // Unequal spacing on both sides: prev (f 10, D 2), p (f 11, D 5), q (f 14, D -1), next (f 15, D 0).
  //   m_p = (-1 - 2) * 3/4 = -2.25,  m_q = (0 - 5) * 3/4 = -3.75
  // u = 1/3 is not exact, so compare with the formula evaluated in double.
  const double u = 1.0 / 3.0;
  const double h00 = 2 * u * u * u - 3 * u * u + 1, h10 = u * u * u - 2 * u * u + u;
  const double h01 = -2 * u * u * u + 3 * u * u, h11 = u * u * u - u * u;
  const double expected = h00 * 5 + h10 * -2.25 + h01 * -1 + h11 * -3.75;
  EXPECT_NEAR(evaluate(key(10, 2), key(11, 5), key(14, -1), key(15, 0), 12.f), expected, 1e-5);
}

TEST(EvaluateSegment, StartOfSegmentGivesTheFirstKeyExactly) {
  const CurveKey prev{{0.31f, -7.5f, 1e-3f, 0.2f}, 3.f};
  const CurveKey p{{0.1f, 0.7f, -0.33f, 0.9f}, 5.f};
  const CurveKey q{{-4.2f, 13.f, 0.0625f, -0.4f}, 9.f};
  const CurveKey next{{100.f, -100.f, 3.f, 0.5f}, 16.f};
  float out[4];
  evaluate_segment(prev, p, q, next, p.frame, 4, out);
  for (int c = 0; c < 4; ++c) EXPECT_EQ(out[c], p.value[c]) << "component " << c;
}

TEST(EvaluateSegment, EndOfSegmentGivesTheSecondKeyExactly) {
  const CurveKey prev{{0.31f, -7.5f, 1e-3f, 0.2f}, 3.f};
  const CurveKey p{{0.1f, 0.7f, -0.33f, 0.9f}, 5.f};
  const CurveKey q{{-4.2f, 13.f, 0.0625f, -0.4f}, 9.f};
  const CurveKey next{{100.f, -100.f, 3.f, 0.5f}, 16.f};
  float out[4];
  evaluate_segment(prev, p, q, next, q.frame, 4, out);
  for (int c = 0; c < 4; ++c) EXPECT_EQ(out[c], q.value[c]) << "component " << c;
}

TEST(EvaluateSegment, ClampedFirstKeyGivesAOneSidedTangent) {
  // The track's first segment: prev is the end key itself (same frame).
  //   m_p = (D_q - D_p) = 2,  m_q = (4 - 1) * 2/6 = 1
  // u = 0.5: 0.5*1 + 0.125*2 + 0.5*3 - 0.125*1 = 2.125
  EXPECT_FLOAT_EQ(evaluate(key(0, 1), key(0, 1), key(2, 3), key(6, 4), 1.f), 2.125f);
}

TEST(EvaluateSegment, ClampedLastKeyGivesAOneSidedTangent) {
  // The track's last segment: next is the end key itself.
  //   m_p = (3 - 0) * 2/4 = 1.5,  m_q = (D_q - D_p) = 2
  // u = 0.5: 0.5*1 + 0.125*1.5 + 0.5*3 - 0.125*2 = 1.9375
  EXPECT_FLOAT_EQ(evaluate(key(0, 0), key(2, 1), key(4, 3), key(4, 3), 3.f), 1.9375f);
}

TEST(EvaluateSegment, TwoKeyTrackIsAStraightLine) {
  // Both tangents one-sided, both equal to q - p: the Hermite curve is linear.
  const CurveKey p = key(0, -1.5f);
  const CurveKey q = key(8, 2.5f);
  for (int f = 0; f <= 8; ++f) {
    SCOPED_TRACE(f);
    EXPECT_NEAR(evaluate(p, p, q, q, static_cast<float>(f)), -1.5f + 0.5f * static_cast<float>(f), 1e-6f);
  }
}

TEST(EvaluateSegment, NeighbourAtADiscontinuityGivesAOneSidedTangent) {
  // prev at p's frame is the left key of a discontinuity: its value (here
  // wildly different) must not enter the tangent, which becomes q - p.
  const float with_jump = evaluate(key(2, 100.f), key(2, 1), key(4, 3), key(8, 4), 3.f);
  EXPECT_FLOAT_EQ(with_jump, 2.125f);  // as ClampedFirstKey: 0.5 + 0.25 + 1.5 - 0.125
  EXPECT_EQ(with_jump, evaluate(key(2, 1), key(2, 1), key(4, 3), key(8, 4), 3.f));

  // next at q's frame is the right key of a discontinuity.
  const float before_jump = evaluate(key(0, 0), key(2, 1), key(4, 3), key(4, -50.f), 3.f);
  EXPECT_FLOAT_EQ(before_jump, 1.9375f);  // as ClampedLastKey
  EXPECT_EQ(before_jump, evaluate(key(0, 0), key(2, 1), key(4, 3), key(4, 3), 3.f));
}

TEST(EvaluateSegment, ZeroLengthSegmentGivesTheSecondKey) {
  // The two keys of a discontinuity: the right-hand value holds from its frame.
  const CurveKey left{{1.f, 2.f, 3.f, 4.f}, 7.f};
  const CurveKey right{{-5.f, 0.25f, 9.f, -0.5f}, 7.f};
  for (const int components : {3, 4}) {
    SCOPED_TRACE(components);
    float out[4] = {kUnwritten, kUnwritten, kUnwritten, kUnwritten};
    evaluate_segment(key(3, 0), left, right, key(12, 1), 7.f, components, out);
    for (int c = 0; c < components; ++c) EXPECT_EQ(out[c], right.value[c]) << "component " << c;
    if (components == 3) {
      EXPECT_EQ(out[3], kUnwritten);
    }
  }
}

TEST(EvaluateSegment, SegmentThroughEqualKeysIsFlat) {
  // A constant track stays constant between keys whatever the spacing.
  const CurveKey k{{0.3f, -0.2f, 0.9f, 0.1f}, 0.f};
  CurveKey a = k, b = k, c = k, d = k;
  a.frame = 0.f;
  b.frame = 1.f;
  c.frame = 10.f;
  d.frame = 40.f;
  for (float t = 1.f; t <= 10.f; t += 0.5f) {
    float out[4];
    evaluate_segment(a, b, c, d, t, 4, out);
    for (int i = 0; i < 4; ++i) EXPECT_NEAR(out[i], k.value[i], 1e-6f) << "t " << t << " component " << i;
  }
}

// --- normalize_rotation -------------------------------------------------------

TEST(NormalizeRotation, ScalesToUnitLength) {
  float q[4] = {0.f, 0.f, 0.f, 2.f};
  normalize_rotation(q);
  EXPECT_EQ(q[0], 0.f);
  EXPECT_EQ(q[1], 0.f);
  EXPECT_EQ(q[2], 0.f);
  EXPECT_EQ(q[3], 1.f);

  float r[4] = {1.f, -1.f, 1.f, 1.f};  // length 2
  normalize_rotation(r);
  EXPECT_FLOAT_EQ(r[0], 0.5f);
  EXPECT_FLOAT_EQ(r[1], -0.5f);
  EXPECT_FLOAT_EQ(r[2], 0.5f);
  EXPECT_FLOAT_EQ(r[3], 0.5f);

  float s[4] = {0.03f, -0.4f, 0.2f, 0.7f};
  normalize_rotation(s);
  EXPECT_NEAR(s[0] * s[0] + s[1] * s[1] + s[2] * s[2] + s[3] * s[3], 1.f, 1e-6f);
  EXPECT_GT(s[3], 0.f);  // direction kept, sign included
}

TEST(NormalizeRotation, ZeroOrNotANumberBecomesIdentity) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (const float fill : {0.f, nan}) {
    SCOPED_TRACE(fill);
    float q[4] = {fill, fill, fill, fill};
    normalize_rotation(q);
    EXPECT_EQ(q[0], 0.f);
    EXPECT_EQ(q[1], 0.f);
    EXPECT_EQ(q[2], 0.f);
    EXPECT_EQ(q[3], 1.f);
  }
}

// --- align_hemisphere -----------------------------------------------------------

TEST(AlignHemisphere, NegatesAKeyInTheOtherHemisphere) {
  const CurveKey previous{{0.f, 0.f, 0.6f, 0.8f}, 3.f};
  CurveKey k{{0.1f, 0.f, -0.7f, -0.7f}, 9.f};  // dot -0.98
  align_hemisphere(previous, k);
  EXPECT_EQ(k.value[0], -0.1f);
  EXPECT_EQ(k.value[1], -0.f);
  EXPECT_EQ(k.value[2], 0.7f);
  EXPECT_EQ(k.value[3], 0.7f);
  EXPECT_EQ(k.frame, 9.f);  // only the value changes
}

TEST(AlignHemisphere, KeepsAKeyInTheSameHemisphereOrOnItsBoundary) {
  const CurveKey previous{{0.f, 0.f, 0.6f, 0.8f}, 3.f};
  for (const CurveKey original : {CurveKey{{0.1f, 0.f, 0.7f, 0.7f}, 9.f},     // dot 0.98
                                  CurveKey{{0.f, 1.f, 0.f, 0.f}, 9.f},        // dot 0: either side will do
                                  CurveKey{{0.f, 0.f, 0.8f, -0.6f}, 9.f}}) {  // dot 0 again
    CurveKey k = original;
    align_hemisphere(previous, k);
    for (int c = 0; c < 4; ++c) EXPECT_EQ(k.value[c], original.value[c]) << "component " << c;
  }
}

// --- linear and step segments ----------------------------------------------

TEST(EvaluateSegment, LinearIgnoresTheNeighboursAndRunsStraight) {
  // p (f 2, D 1) to q (f 4, D 3): 1 + 2u whatever the neighbours are.
  for (const float t : {2.f, 2.5f, 3.f, 3.5f, 4.f}) {
    float out[4] = {kUnwritten, kUnwritten, kUnwritten, kUnwritten};
    evaluate_segment(key(0, 0), key(2, 1), key(4, 3), key(8, 4), t, 4, out, Interpolation::kLinear);
    expect_components(out, 1.f + (t - 2.f), 4);
  }
  // The ends exactly, as a Hermite segment gives them.
  float out[4];
  evaluate_segment(key(0, 9), key(2, 1), key(4, 3), key(5, -7), 2.f, 4, out, Interpolation::kLinear);
  EXPECT_EQ(out[0], 1.f);
  evaluate_segment(key(0, 9), key(2, 1), key(4, 3), key(5, -7), 4.f, 4, out, Interpolation::kLinear);
  EXPECT_EQ(out[0], 3.f);
}

TEST(EvaluateSegment, StepHoldsTheFirstKeyUntilTheSecondKeysFrame) {
  for (const float t : {2.f, 2.001f, 3.f, 3.999f}) {
    float out[4] = {kUnwritten, kUnwritten, kUnwritten, kUnwritten};
    evaluate_segment(key(0, 0), key(2, 1), key(4, 3), key(8, 4), t, 4, out, Interpolation::kStep);
    for (int c = 0; c < 4; ++c) EXPECT_EQ(out[c], key(2, 1).value[c]) << "t " << t;
  }
  // At q's frame (the last frame of a track, where no later segment starts): q.
  float out[4] = {kUnwritten, kUnwritten, kUnwritten, kUnwritten};
  evaluate_segment(key(0, 0), key(2, 1), key(4, 3), key(8, 4), 4.f, 4, out, Interpolation::kStep);
  for (int c = 0; c < 4; ++c) EXPECT_EQ(out[c], key(4, 3).value[c]);
}

TEST(EvaluateSegment, ZeroLengthSegmentGivesTheSecondKeyWhateverTheInterpolation) {
  for (const Interpolation interpolation : {Interpolation::kLinear, Interpolation::kStep}) {
    float out[4];
    evaluate_segment(key(0, 0), key(2, 1), key(2, 3), key(8, 4), 2.f, 4, out, interpolation);
    EXPECT_EQ(out[0], 3.f) << to_string(interpolation);
  }
}

TEST(AlignHemisphere, MakesAChainOfKeysContinuous) {
  // q and -q alternate, as smallest-three codes can make them; aligning each
  // key with the one before leaves every dot product non-negative.
  CurveKey chain[6];
  for (int i = 0; i < 6; ++i) {
    const float angle = 0.4f * static_cast<float>(i);
    const float sign = i % 2 ? -1.f : 1.f;
    chain[i] = CurveKey{{0.f, sign * std::sin(angle), 0.f, sign * std::cos(angle)}, static_cast<float>(i)};
  }
  for (int i = 1; i < 6; ++i) align_hemisphere(chain[i - 1], chain[i]);
  for (int i = 1; i < 6; ++i) {
    const float d = chain[i - 1].value[1] * chain[i].value[1] + chain[i - 1].value[3] * chain[i].value[3];
    EXPECT_GT(d, 0.f) << "keys " << i - 1 << " and " << i;
  }
}

}  // namespace
}  // namespace ks
