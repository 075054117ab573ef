// object_space_errors: the per-pose figure measure() and the studio share.
// measure() as a whole is exercised on real clips by the fit and player tests.

#include "core/offline/measure.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace ks {
namespace {

constexpr float kDegToRad = 0.017453292519943295f;

TEST(ObjectSpaceErrors, MatchAHandComputation) {
  std::vector<Transform> source(3), decoded(3);
  source[0].translation = {1.f, 2.f, 3.f};
  decoded[0] = source[0];
  // Turned 90 degrees about Z and 10 cm along Z: at r = 0.5 the X vertex
  // moves to (0, r, 0.1), sqrt(2 r^2 + 0.01) away; the Z vertex only 0.1.
  decoded[1].rotation = quat_from_axis_angle({0.f, 0.f, 1.f}, 90.f * kDegToRad);
  decoded[1].translation = {0.f, 0.f, 0.1f};
  // Scaled by 1.1: every vertex moves 0.1 r.
  decoded[2].scale = {1.1f, 1.1f, 1.1f};
  std::vector<float> errors(3, -1.f);
  object_space_errors(source, decoded, 0.5f, errors);
  EXPECT_EQ(errors[0], 0.f);
  EXPECT_NEAR(errors[1], std::sqrt(0.51f), 1e-6f);
  EXPECT_NEAR(errors[2], 0.05f, 1e-6f);
  // Identical poses have no error at any distance.
  object_space_errors(decoded, decoded, 2.f, errors);
  for (float e : errors) EXPECT_EQ(e, 0.f);
}

}  // namespace
}  // namespace ks
