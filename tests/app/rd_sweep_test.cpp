// The R–D panel's sweep (app/studio/jobs/rd_sweep.h): every tolerance fitted
// through the whole pipeline, smaller streams for larger tolerances, the
// promise kept at each point, the same sweep not run twice, and a new
// request replacing a running sweep.

#include "app/studio/jobs/rd_sweep.h"

#include <gtest/gtest.h>

#include <iterator>

#include "tests/app/demo_clip.h"

namespace ks::studio {
namespace {

// The demo's whole sweep at the default settings, from a worker of its own.
std::optional<RdSweep> demo_sweep() {
  RdSweepWorker worker;
  worker.request({demo_clip(), CodecSettings{}});
  worker.wait_idle();
  return worker.latest();
}

TEST(RdSweep, FitsEveryToleranceAndKeepsEachPromise) {
  const std::optional<RdSweep> sweep = demo_sweep();
  ASSERT_TRUE(sweep.has_value());
  ASSERT_TRUE(sweep->error.empty()) << sweep->error;
  ASSERT_TRUE(sweep->done());
  ASSERT_EQ(sweep->points.size(), std::size(kSweepTolerances_m));
  for (size_t i = 0; i < sweep->points.size(); ++i) {
    const RdPoint& p = sweep->points[i];
    SCOPED_TRACE(p.tolerance_m);
    EXPECT_EQ(p.tolerance_m, kSweepTolerances_m[i]);
    EXPECT_GT(p.stream_bytes, 0u);
    EXPECT_GT(p.key_count, 0u);
    EXPECT_GT(p.seek_keys, 0.0);
    // Within the tolerance, unless a bone's floor stops it (counted).
    if (p.bones_over == 0) {
      EXPECT_LE(p.max_error_m, p.tolerance_m);
    }
    if (i > 0) {
      // A looser tolerance never costs more keys here, and the error grows with it.
      EXPECT_LE(p.key_count, sweep->points[i - 1].key_count);
      EXPECT_GE(p.max_error_m, sweep->points[i - 1].max_error_m);
    }
  }
  EXPECT_LT(sweep->points.back().stream_bytes, sweep->points.front().stream_bytes);
}

TEST(RdSweep, APointIsWhatTheSameFitGives) {
  const std::optional<RdSweep> sweep = demo_sweep();
  ASSERT_TRUE(sweep.has_value());
  CodecSettings settings;
  settings.fit.tolerance_m = kSweepTolerances_m[3];
  const std::shared_ptr<const FitResult> fit = run_fit(demo_clip(), settings, 1, 1);
  ASSERT_TRUE(fit->error.empty()) << fit->error;
  const RdPoint direct = rd_point(*fit);
  const RdPoint& swept = sweep->points[3];
  EXPECT_EQ(swept.stream_bytes, direct.stream_bytes);
  EXPECT_EQ(swept.key_count, direct.key_count);
  EXPECT_EQ(swept.max_error_m, direct.max_error_m);
  EXPECT_EQ(swept.seek_keys, direct.seek_keys);
  EXPECT_EQ(direct.stream_bytes, fit->stream.size());
}

TEST(RdSweep, TheToleranceAloneDoesNotStartAnotherSweepButOtherSettingsDo) {
  RdSweepWorker worker;
  CodecSettings settings;
  worker.request({demo_clip(), settings});
  worker.wait_idle();
  settings.fit.tolerance_m = 0.0003f;  // the panel's click: the sweep stays
  worker.request({demo_clip(), settings});
  EXPECT_FALSE(worker.busy());
  settings.fit.shell_distance_m = 0.1f;  // another d: a new sweep
  worker.request({demo_clip(), settings});
  worker.wait_idle();
  const std::optional<RdSweep> sweep = worker.latest();
  ASSERT_TRUE(sweep.has_value());
  EXPECT_EQ(sweep->settings.fit.shell_distance_m, 0.1f);
  EXPECT_EQ(sweep->points.size(), std::size(kSweepTolerances_m));
}

TEST(RdSweep, SeekCostCountsTheKeysAPlayerReads) {
  const std::shared_ptr<const FitResult> fit = run_fit(demo_clip(), CodecSettings{}, 1, 1);
  ASSERT_TRUE(fit->error.empty()) << fit->error;
  const double keys = mean_seek_keys(fit->view);
  EXPECT_GT(keys, 0.0);
  // No seek reads more than every key of the stream plus a restored window per track.
  EXPECT_LE(keys, static_cast<double>(fit->view.total_key_count() + 4 * fit->view.tracks().size()));
}

}  // namespace
}  // namespace ks::studio
