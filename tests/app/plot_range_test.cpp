// A plot axis's range under pan and zoom (app/studio/plots/plot_range.h): the
// minimum span, and the clip's frames as limits that zooming out and
// panning never pass.

#include "app/studio/plots/plot_range.h"

#include <gtest/gtest.h>

#include <cmath>

namespace ks::studio {
namespace {

const AxisLimits kClip{0.0, 100.0};  // frames 0..100

TEST(SetAxisRange, InsideTheLimitsIsTakenAsIs) {
  double lo = 0, hi = 1;
  set_axis_range(lo, hi, 10.0, 30.0, 2.0, kClip);
  EXPECT_EQ(lo, 10.0);
  EXPECT_EQ(hi, 30.0);
}

TEST(SetAxisRange, NarrowerThanTheMinimumWidensAboutItsMiddle) {
  double lo = 0, hi = 1;
  set_axis_range(lo, hi, 50.0, 50.5, 2.0, kClip);
  EXPECT_DOUBLE_EQ(lo, 49.25);
  EXPECT_DOUBLE_EQ(hi, 51.25);
}

TEST(SetAxisRange, WiderThanTheLimitsBecomesThem) {
  double lo = 0, hi = 1;
  set_axis_range(lo, hi, -160.0, 220.0, 2.0, kClip);
  EXPECT_EQ(lo, 0.0);
  EXPECT_EQ(hi, 100.0);
}

TEST(SetAxisRange, StickingOutShiftsBackKeepingItsSpan) {
  double lo = 0, hi = 1;
  set_axis_range(lo, hi, -5.0, 15.0, 2.0, kClip);
  EXPECT_EQ(lo, 0.0);
  EXPECT_EQ(hi, 20.0);
  set_axis_range(lo, hi, 95.0, 110.0, 2.0, kClip);
  EXPECT_EQ(lo, 85.0);
  EXPECT_EQ(hi, 100.0);
}

TEST(SetAxisRange, NonFiniteIsIgnoredAndNoLimitsMeansNone) {
  double lo = 3, hi = 4;
  set_axis_range(lo, hi, NAN, 10.0, 2.0, kClip);
  set_axis_range(lo, hi, 0.0, INFINITY, 2.0, kClip);
  EXPECT_EQ(lo, 3.0);
  EXPECT_EQ(hi, 4.0);
  set_axis_range(lo, hi, -1e6, 1e6, 2.0, AxisLimits{});
  EXPECT_EQ(lo, -1e6);
  EXPECT_EQ(hi, 1e6);
  // A one-frame clip: limits narrower than the minimum span are no limits.
  set_axis_range(lo, hi, -1.0, 1.0, 2.0, AxisLimits{0.0, 0.0});
  EXPECT_EQ(lo, -1.0);
  EXPECT_EQ(hi, 1.0);
}

TEST(ZoomAxis, OutStopsAtTheClipAndInKeepsTheAnchor) {
  double lo = 40, hi = 60;
  for (int notch = 0; notch < 50; ++notch) zoom_axis(lo, hi, 55.0, 1.2, 2.0, kClip);
  EXPECT_EQ(lo, 0.0);
  EXPECT_EQ(hi, 100.0);
  zoom_axis(lo, hi, 25.0, 0.5, 2.0, kClip);  // in, about frame 25: it stays where it was on screen
  EXPECT_DOUBLE_EQ(lo, 12.5);
  EXPECT_DOUBLE_EQ(hi, 62.5);
  for (int notch = 0; notch < 100; ++notch) zoom_axis(lo, hi, 25.0, 0.5, 2.0, kClip);
  EXPECT_NEAR(hi - lo, 2.0, 1e-9);  // never closer than the minimum span
  EXPECT_NEAR(0.5 * (lo + hi), 25.0, 1.0);
}

}  // namespace
}  // namespace ks::studio
