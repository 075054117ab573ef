// The studio's refit worker (app/studio/refit_worker.h): the newest settings
// win, stale requests are dropped, results belong to the clip they fitted,
// and failures come back as results with an error.

#include "app/studio/refit_worker.h"

#include <gtest/gtest.h>

#include <memory>

#include "core/offline/import.h"
#include "tests/app/demo_clip.h"

namespace ks::studio {
namespace {

TEST(RefitWorker, TheNewestRequestWinsAndStaleOnesAreDropped) {
  RefitWorker worker;
  EXPECT_EQ(worker.latest(), nullptr);
  uint64_t newest = 0;
  CodecSettings settings;
  for (int i = 0; i < 20; ++i) {
    settings.fit.rotation_error_deg = 0.05f + 0.01f * static_cast<float>(i);
    newest = worker.request(demo_clip(), settings);
  }
  worker.wait_idle();
  EXPECT_FALSE(worker.busy());
  ASSERT_NE(worker.latest(), nullptr);
  EXPECT_EQ(worker.latest()->generation, newest);
  EXPECT_EQ(worker.newest_generation(), newest);
  EXPECT_TRUE(worker.latest()->settings == settings);
  EXPECT_EQ(worker.latest()->clip, demo_clip());
  EXPECT_TRUE(worker.latest()->error.empty()) << worker.latest()->error;
  EXPECT_EQ(worker.latest()->fitted.settings.rotation_error_deg, settings.fit.rotation_error_deg);
  EXPECT_EQ(worker.latest()->view.bone_count(), demo_clip()->skeleton.bone_count());
  EXPECT_EQ(worker.latest()->measurement.tracks.size(), 3 * demo_clip()->skeleton.bone_count());
}

TEST(RefitWorker, AFailedFitIsAResultWithItsError) {
  RefitWorker worker;
  CodecSettings settings;
  settings.fit.rotation_error_deg = -1.f;
  worker.request(demo_clip(), settings);
  worker.wait_idle();
  ASSERT_NE(worker.latest(), nullptr);
  EXPECT_NE(worker.latest()->error.find("fit settings"), std::string::npos) << worker.latest()->error;
  settings.fit.rotation_error_deg = 0.1f;
  settings.pack.jump_interval_s = -1.f;
  worker.request(demo_clip(), settings);
  worker.wait_idle();
  EXPECT_NE(worker.latest()->error.find("pack settings"), std::string::npos) << worker.latest()->error;
}

TEST(RefitWorker, StopsCleanlyWithWorkPending) {
  auto worker = std::make_unique<RefitWorker>();
  for (int i = 0; i < 3; ++i) worker->request(demo_clip(), CodecSettings{});
  worker.reset();  // joins the thread; a pending request is dropped, a running one finishes
  SUCCEED();
}

TEST(CodecSettings, CompareEveryField) {
  CodecSettings a, b;
  EXPECT_TRUE(a == b);
  b.pack.zstd = true;
  EXPECT_FALSE(a == b);
  b = a;
  b.fit.tolerance_m = 0.0002f;
  EXPECT_FALSE(a == b);
  b = a;
  b.fit.split_rule = SplitRule::kMidpoint;
  EXPECT_FALSE(a == b);
}

}  // namespace
}  // namespace ks::studio
