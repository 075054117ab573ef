#include "keystream/runtime/transform.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace ks {
namespace {

constexpr float kPi = 3.14159265358979f;
constexpr float kHalfPi = 0.5f * kPi;
const Vec3 kX{1.f, 0.f, 0.f};
const Vec3 kY{0.f, 1.f, 0.f};
const Vec3 kZ{0.f, 0.f, 1.f};

void expect_near(Vec3 actual, Vec3 expected, float tolerance = 1e-6f) {
  EXPECT_NEAR(actual.x, expected.x, tolerance);
  EXPECT_NEAR(actual.y, expected.y, tolerance);
  EXPECT_NEAR(actual.z, expected.z, tolerance);
}

void expect_near(Quat actual, Quat expected, float tolerance = 1e-6f) {
  EXPECT_NEAR(actual.x, expected.x, tolerance);
  EXPECT_NEAR(actual.y, expected.y, tolerance);
  EXPECT_NEAR(actual.z, expected.z, tolerance);
  EXPECT_NEAR(actual.w, expected.w, tolerance);
}

void expect_near(const Mat4& actual, const Mat4& expected, float tolerance) {
  for (int i = 0; i < 16; ++i) EXPECT_NEAR(actual.m[i], expected.m[i], tolerance) << "element " << i;
}

// The point p transformed by a matrix, as a column vector (x, y, z, 1).
Vec3 apply(const Mat4& a, Vec3 p) {
  return {a.m[0] * p.x + a.m[4] * p.y + a.m[8] * p.z + a.m[12],
          a.m[1] * p.x + a.m[5] * p.y + a.m[9] * p.z + a.m[13],
          a.m[2] * p.x + a.m[6] * p.y + a.m[10] * p.z + a.m[14]};
}

// Random transforms with bounded values, so float error stays near 1e-6.
class RandomTransforms {
 public:
  Vec3 vec(float lo, float hi) {
    std::uniform_real_distribution<float> d(lo, hi);
    return {d(m_rng), d(m_rng), d(m_rng)};
  }
  Quat rotation() {
    std::uniform_real_distribution<float> d(-1.f, 1.f);
    return normalize(Quat{d(m_rng), d(m_rng), d(m_rng), d(m_rng)});
  }
  Transform uniform_scale() {
    std::uniform_real_distribution<float> scale(0.5f, 1.5f);
    const float s = scale(m_rng);
    return {vec(-1.f, 1.f), rotation(), {s, s, s}};
  }
  Transform any_scale() { return {vec(-1.f, 1.f), rotation(), vec(0.5f, 1.5f)}; }

 private:
  std::mt19937 m_rng{20240611u};
};

TEST(Quat, DefaultIsIdentity) {
  expect_near(rotate(Quat{}, {1.f, 2.f, 3.f}), {1.f, 2.f, 3.f});
}

TEST(Quat, RotateByQuarterTurnsAboutEachAxis) {
  expect_near(rotate(quat_from_axis_angle(kX, kHalfPi), kY), kZ);
  expect_near(rotate(quat_from_axis_angle(kY, kHalfPi), kZ), kX);
  expect_near(rotate(quat_from_axis_angle(kZ, kHalfPi), kX), kY);
  expect_near(rotate(quat_from_axis_angle(kY, kPi), kX), {-1.f, 0.f, 0.f});
}

TEST(Quat, RotateKeepsLength) {
  RandomTransforms random;
  for (int i = 0; i < 100; ++i) {
    const Vec3 v = random.vec(-3.f, 3.f);
    EXPECT_NEAR(length(rotate(random.rotation(), v)), length(v), 1e-5f);
  }
}

TEST(Quat, ProductAppliesRightOperandFirst) {
  const Quat about_x = quat_from_axis_angle(kX, kHalfPi);
  const Quat about_y = quat_from_axis_angle(kY, kHalfPi);
  // Y goes to Z about X, then Z goes to X about Y.
  expect_near(rotate(about_y * about_x, kY), kX);
  // Y is unchanged about Y, then goes to Z about X.
  expect_near(rotate(about_x * about_y, kY), kZ);
}

TEST(Quat, ProductMatchesRotatingTwice) {
  RandomTransforms random;
  for (int i = 0; i < 100; ++i) {
    const Quat a = random.rotation();
    const Quat b = random.rotation();
    const Vec3 v = random.vec(-1.f, 1.f);
    expect_near(rotate(a * b, v), rotate(a, rotate(b, v)), 1e-5f);
  }
}

TEST(Quat, ProductOfHalfTurnsAboutSameAxisAddsAngles) {
  const Quat thirty = quat_from_axis_angle(kZ, kPi / 6.f);
  const Quat sixty = quat_from_axis_angle(kZ, kPi / 3.f);
  expect_near(thirty * sixty, quat_from_axis_angle(kZ, kHalfPi));
}

TEST(Quat, ConjugateIsInverseOfUnitQuaternion) {
  RandomTransforms random;
  for (int i = 0; i < 100; ++i) {
    const Quat q = random.rotation();
    const Quat identity = q * conjugate(q);
    expect_near(identity, Quat{}, 1e-6f);
    expect_near(conjugate(q) * q, Quat{}, 1e-6f);
    const Vec3 v = random.vec(-1.f, 1.f);
    expect_near(rotate(conjugate(q), rotate(q, v)), v, 1e-5f);
  }
}

TEST(Quat, NormalizeScalesToUnitLength) {
  const Quat q = normalize(Quat{1.f, 2.f, 2.f, 4.f});  // length 5
  expect_near(q, {0.2f, 0.4f, 0.4f, 0.8f});
  EXPECT_NEAR(length(normalize(Quat{0.f, 0.f, 0.f, -3.f})), 1.f, 1e-6f);
  EXPECT_FLOAT_EQ(normalize(Quat{0.f, 0.f, 0.f, -3.f}).w, -1.f);  // keeps the sign it was given
}

TEST(Quat, NormalizeOfZeroIsIdentity) {
  const Quat q = normalize(Quat{0.f, 0.f, 0.f, 0.f});
  EXPECT_EQ(q.x, 0.f);
  EXPECT_EQ(q.y, 0.f);
  EXPECT_EQ(q.z, 0.f);
  EXPECT_EQ(q.w, 1.f);
}

TEST(Quat, AngleBetweenKnownRotations) {
  const Quat identity;
  EXPECT_NEAR(angle_between_deg(identity, quat_from_axis_angle(kX, kHalfPi)), 90.f, 1e-3f);
  EXPECT_NEAR(angle_between_deg(identity, quat_from_axis_angle(kZ, kPi)), 180.f, 1e-3f);
  EXPECT_NEAR(angle_between_deg(quat_from_axis_angle(kY, kPi / 6.f), quat_from_axis_angle(kY, kPi / 2.f)), 60.f,
              1e-3f);
  // The angle is the same whichever way round.
  const Quat a = quat_from_axis_angle(kX, 0.3f);
  const Quat b = quat_from_axis_angle(kZ, -1.1f);
  EXPECT_NEAR(angle_between_deg(a, b), angle_between_deg(b, a), 1e-4f);
}

TEST(Quat, AngleBetweenOppositeSignsIsZero) {
  EXPECT_EQ(angle_between_deg(Quat{}, Quat{0.f, 0.f, 0.f, -1.f}), 0.f);
  RandomTransforms random;
  for (int i = 0; i < 100; ++i) {
    const Quat q = random.rotation();
    const Quat r = random.rotation();
    EXPECT_EQ(angle_between_deg(q, -q), angle_between_deg(q, q));
    EXPECT_LT(angle_between_deg(q, -q), 1e-3f);  // float rounding only
    EXPECT_EQ(angle_between_deg(q, -r), angle_between_deg(q, r));
  }
  // A 3-quarter turn is a quarter turn the other way round.
  EXPECT_NEAR(angle_between_deg(Quat{}, quat_from_axis_angle(kX, 3.f * kHalfPi)), 90.f, 1e-3f);
}

// Error measurement compares against tolerances of the order of 0.1 degree,
// so the angle must be resolved well below that for any unit quaternions.
TEST(Quat, AngleBetweenResolvesSmallAngles) {
  RandomTransforms random;
  for (const float degrees : {0.f, 0.01f, 0.05f, 0.1f, 0.5f}) {
    for (int i = 0; i < 200; ++i) {
      const Quat q = random.rotation();
      const Vec3 axis = random.vec(-1.f, 1.f);
      const Quat turn = quat_from_axis_angle(axis * (1.f / length(axis)), degrees * kPi / 180.f);
      ASSERT_NEAR(angle_between_deg(q, turn * q), degrees, 0.01f)
          << "q = (" << q.x << ", " << q.y << ", " << q.z << ", " << q.w << ")";
    }
  }
}

TEST(Transform, TransformPointAppliesScaleThenRotationThenTranslation) {
  const Transform t{{10.f, 0.f, 0.f}, quat_from_axis_angle(kZ, kHalfPi), {2.f, 3.f, 4.f}};
  // (1, 1, 1) scales to (2, 3, 4), turns to (-3, 2, 4), moves to (7, 2, 4).
  expect_near(transform_point(t, {1.f, 1.f, 1.f}), {7.f, 2.f, 4.f}, 1e-5f);
}

TEST(Transform, ToMatrixMatchesTransformPoint) {
  RandomTransforms random;
  for (int i = 0; i < 100; ++i) {
    const Transform t = random.any_scale();
    const Vec3 p = random.vec(-2.f, 2.f);
    expect_near(apply(to_matrix(t), p), transform_point(t, p), 1e-5f);
  }
}

TEST(Transform, ToMatrixOfIdentityIsIdentity) {
  expect_near(to_matrix(Transform{}), Mat4{}, 0.f);
}

TEST(Transform, MatrixProductAppliesRightOperandFirst) {
  const Transform move{{1.f, 0.f, 0.f}, {}, {1.f, 1.f, 1.f}};
  const Transform turn{{}, quat_from_axis_angle(kZ, kHalfPi), {1.f, 1.f, 1.f}};
  // Move, then turn: (1, 0, 0) -> (0, 1, 0). Turn, then move: -> (1, 0, 0).
  expect_near(apply(to_matrix(turn) * to_matrix(move), {}), {0.f, 1.f, 0.f}, 1e-6f);
  expect_near(apply(to_matrix(move) * to_matrix(turn), {}), {1.f, 0.f, 0.f}, 1e-6f);
}

TEST(Transform, CombineMatchesMatrixProductForUniformScale) {
  RandomTransforms random;
  for (int i = 0; i < 200; ++i) {
    const Transform parent = random.uniform_scale();
    const Transform child = random.uniform_scale();
    expect_near(to_matrix(combine(parent, child)), to_matrix(parent) * to_matrix(child), 1e-5f);
  }
}

TEST(Transform, CombineMatchesTransformingTwice) {
  RandomTransforms random;
  for (int i = 0; i < 100; ++i) {
    const Transform parent = random.uniform_scale();
    const Transform child = random.any_scale();
    const Vec3 p = random.vec(-1.f, 1.f);
    expect_near(transform_point(combine(parent, child), p), transform_point(parent, transform_point(child, p)),
                1e-5f);
  }
}

TEST(Transform, CombineMultipliesScalesComponentWise) {
  const Transform parent{{}, {}, {2.f, 3.f, 4.f}};
  const Transform child{{1.f, 1.f, 1.f}, {}, {0.5f, 2.f, 1.f}};
  const Transform model = combine(parent, child);
  expect_near(model.scale, {1.f, 6.f, 4.f});
  expect_near(model.translation, {2.f, 3.f, 4.f});
}

}  // namespace
}  // namespace ks
