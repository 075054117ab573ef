// The studio's refit worker (app/studio/jobs/refit_worker.h): the newest settings
// win, stale requests are dropped, results belong to the clip they fitted,
// and failures come back as results with an error; run_fit gives every bone
// its tolerance and its error at its own shell distance.

#include "app/studio/jobs/refit_worker.h"

#include <gtest/gtest.h>

#include <chrono>
#include <limits>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "keystream/io/import.h"
#include "tests/app/demo_clip.h"

namespace ks::studio {
namespace {

TEST(RefitWorker, TheNewestRequestWinsAndStaleOnesAreDropped) {
  RefitWorker worker;
  EXPECT_EQ(worker.latest(), nullptr);
  uint64_t newest = 0;
  CodecSettings settings;
  for (int i = 0; i < 20; ++i) {
    settings.fit.tolerance_m = 0.0001f + 0.00002f * static_cast<float>(i);
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
  EXPECT_EQ(worker.latest()->fitted.settings.tolerance_m, settings.fit.tolerance_m);
  EXPECT_EQ(worker.latest()->view.bone_count(), demo_clip()->skeleton.bone_count());
  EXPECT_EQ(worker.latest()->measurement.tracks.size(), 3 * demo_clip()->skeleton.bone_count());
}

// Long mocap (4,511 frames): a fit of a few tenths of a second, long enough
// to be caught running.
std::shared_ptr<const ImportedClip> long_clip() {
  static const std::shared_ptr<const ImportedClip> clip = [] {
    Result<ImportedClip> imported = import_clip(KS_ASSIMP_MODELS_DIR "/BVH/01_03.bvh");
    EXPECT_TRUE(imported.ok()) << imported.error();
    return std::make_shared<const ImportedClip>(std::move(imported.value()));
  }();
  return clip;
}

// Waits (up to a minute) until the worker's running fit has fitted a track.
bool wait_for_a_fitted_track(const RefitWorker& worker) {
  for (int i = 0; i < 60000; ++i) {
    const RefitStatus s = worker.status();
    if (s.running && s.pass_tracks_done > 0) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return false;
}

TEST(RefitWorker, ANewerRequestAbandonsALongFitAndWins) {
  RefitWorker worker(/*keep_if_done_within_s=*/0.0);  // always abandon
  CodecSettings settings;
  worker.request(long_clip(), settings);
  ASSERT_TRUE(wait_for_a_fitted_track(worker));
  const RefitStatus running = worker.status();
  EXPECT_TRUE(running.busy);
  EXPECT_EQ(running.stage, FitStage::kFitting);
  EXPECT_GE(running.pass, 1u);
  EXPECT_GT(running.pass_tracks, 0u);
  settings.fit.tolerance_m = 0.0002f;
  const uint64_t newest = worker.request(demo_clip(), settings);
  worker.wait_idle();
  EXPECT_EQ(worker.status().abandoned, 1u);
  ASSERT_NE(worker.latest(), nullptr);
  // The abandoned fit is never published: the first result is the newest's.
  EXPECT_EQ(worker.latest()->generation, newest);
  EXPECT_EQ(worker.latest()->clip, demo_clip());
  EXPECT_TRUE(worker.latest()->error.empty()) << worker.latest()->error;
  EXPECT_FALSE(worker.latest()->abandoned);
}

TEST(RefitWorker, AFitAboutToFinishIsKeptAndPublishedBeforeTheNewest) {
  RefitWorker worker(/*keep_if_done_within_s=*/std::numeric_limits<double>::infinity());  // never abandon
  CodecSettings settings;
  const uint64_t first = worker.request(long_clip(), settings);
  ASSERT_TRUE(wait_for_a_fitted_track(worker));
  settings.fit.tolerance_m = 0.0002f;
  const uint64_t newest = worker.request(demo_clip(), settings);
  // The first result arrives (stale) before the newest.
  for (int i = 0; i < 60000 && worker.latest() == nullptr; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_NE(worker.latest(), nullptr);
  EXPECT_EQ(worker.latest()->generation, first);
  worker.wait_idle();
  EXPECT_EQ(worker.latest()->generation, newest);
  EXPECT_EQ(worker.status().abandoned, 0u);
}

TEST(RunFit, AnAbandonedRunSaysSoAndStopsEarly) {
  RunProgress progress;
  progress.fit.abandon = true;
  const std::shared_ptr<const FitResult> result = run_fit(demo_clip(), CodecSettings{}, 7, 1, &progress);
  EXPECT_TRUE(result->abandoned);
  EXPECT_EQ(result->error, kFitAbandonedError);
  EXPECT_TRUE(result->stream.empty());
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

TEST(RunFit, EveryBoneHasTheFitsToleranceAndItsErrorAtItsOwnShellDistance) {
  CodecSettings settings;
  const Skeleton& skeleton = demo_clip()->skeleton;
  const std::string hand = skeleton.bone_names[skeleton.bone_count() - 1];
  settings.fit.bone_tolerances.push_back({hand, 0.00005f, 0.1f});
  const std::shared_ptr<const FitResult> result = run_fit(demo_clip(), settings, 1, 1);
  ASSERT_TRUE(result->error.empty()) << result->error;
  const size_t bones = skeleton.bone_count();
  ASSERT_EQ(result->bone_tolerance_m.size(), bones);
  ASSERT_EQ(result->bone_shell_distance_m.size(), bones);
  ASSERT_EQ(result->measurement.bone_error_m.size(), bones);
  ASSERT_EQ(result->fitted.bones.size(), bones);
  EXPECT_TRUE(result->fitted.bound_met());
  for (size_t b = 0; b < bones; ++b) {
    const bool overridden = b == bones - 1;
    EXPECT_EQ(result->bone_tolerance_m[b], overridden ? 0.00005f : settings.fit.tolerance_m) << b;
    EXPECT_EQ(result->bone_shell_distance_m[b], overridden ? 0.1f : settings.fit.shell_distance_m) << b;
    // The stream the player decodes holds what the fit measured.
    EXPECT_LE(result->measurement.bone_error_m[b], result->bone_tolerance_m[b]) << b;
    EXPECT_FLOAT_EQ(result->measurement.bone_error_m[b], result->fitted.bones[b].max_error_m) << b;
  }
}

TEST(RunFit, LocalModeStillGivesEveryBoneTheSettingsTolerance) {
  CodecSettings settings;
  settings.fit.error_mode = ErrorMode::kLocal;
  settings.fit.tolerance_m = 0.002f;
  const std::shared_ptr<const FitResult> result = run_fit(demo_clip(), settings, 1, 1);
  ASSERT_TRUE(result->error.empty()) << result->error;
  EXPECT_TRUE(result->fitted.bones.empty());
  const size_t bones = demo_clip()->skeleton.bone_count();
  EXPECT_EQ(result->bone_tolerance_m, std::vector<float>(bones, 0.002f));
  EXPECT_EQ(result->bone_shell_distance_m, std::vector<float>(bones, settings.fit.shell_distance_m));
  EXPECT_EQ(result->measurement.bone_error_m.size(), bones);
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
  b = a;
  b.fit.bone_tolerances.push_back({"hips", 0.0002f, 0.f});
  EXPECT_FALSE(a == b);
  b = a;
  b.fit.error_mode = ErrorMode::kLocal;
  EXPECT_FALSE(a == b);
}

}  // namespace
}  // namespace ks::studio
