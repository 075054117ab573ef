// The Timeline panel's math (app/studio/panels/timeline_math.h): frames to pixels
// and back, scrub snapping, the jump frame a seek resumes from (checked
// against the player), label spacing, and the key histogram's bins.

#include "app/studio/panels/timeline_math.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include "app/studio/jobs/fit_job.h"
#include "keystream/io/import.h"
#include "keystream/runtime/player.h"

namespace ks::studio {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

bool is_1_2_5(uint32_t step) {
  while (step >= 10 && step % 10 == 0) step /= 10;
  return step == 1 || step == 2 || step == 5;
}

// The 1-2-5 step before `step`.
uint32_t previous_1_2_5(uint32_t step) {
  uint32_t magnitude = 1;
  while (step / magnitude >= 10) magnitude *= 10;
  const uint32_t mantissa = step / magnitude;
  return mantissa == 5 ? 2 * magnitude : mantissa == 2 ? magnitude : magnitude / 2;
}

TEST(FrameAxis, MapsFramesToPixelsAndBack) {
  const FrameAxis axis{100.f, 500.f, 200};
  EXPECT_FLOAT_EQ(frame_to_x(axis, 0.f), 100.f);
  EXPECT_FLOAT_EQ(frame_to_x(axis, 100.f), 300.f);
  EXPECT_FLOAT_EQ(frame_to_x(axis, 200.f), 500.f);
  EXPECT_FLOAT_EQ(frame_to_x(axis, 12.5f), 125.f);
  for (float frame = 0.f; frame <= 200.f; frame += 0.25f) {
    EXPECT_NEAR(x_to_frame(axis, frame_to_x(axis, frame)), frame, 1e-3f) << frame;
  }
}

TEST(FrameAxis, ClampsXOutsideTheBarToTheEnds) {
  const FrameAxis axis{100.f, 500.f, 200};
  EXPECT_EQ(x_to_frame(axis, 20.f), 0.f);
  EXPECT_EQ(x_to_frame(axis, 99.f), 0.f);
  EXPECT_EQ(x_to_frame(axis, 501.f), 200.f);
  EXPECT_EQ(x_to_frame(axis, 1e9f), 200.f);
  EXPECT_EQ(x_to_frame(axis, kNaN), 0.f);
}

TEST(FrameAxis, AOneFrameClipIsAllAtFrameZero) {
  const FrameAxis axis{10.f, 90.f, 0};
  EXPECT_EQ(frame_to_x(axis, 0.f), 10.f);
  EXPECT_EQ(x_to_frame(axis, 50.f), 0.f);
  EXPECT_EQ(x_to_frame(axis, 90.f), 0.f);
  // A degenerate bar (no width) maps everything to frame 0 rather than dividing by zero.
  EXPECT_EQ(x_to_frame(FrameAxis{10.f, 10.f, 50}, 10.f), 0.f);
}

TEST(SnapToFrame, RoundsHalvesUpAndClampsToTheClip) {
  EXPECT_EQ(snap_to_frame(7.f, 100), 7.f);
  EXPECT_EQ(snap_to_frame(2.49f, 100), 2.f);
  EXPECT_EQ(snap_to_frame(2.5f, 100), 3.f);
  EXPECT_EQ(snap_to_frame(3.5f, 100), 4.f);  // not to even
  EXPECT_EQ(snap_to_frame(-3.f, 100), 0.f);
  EXPECT_EQ(snap_to_frame(99.7f, 100), 100.f);
  EXPECT_EQ(snap_to_frame(1000.f, 100), 100.f);
  EXPECT_EQ(snap_to_frame(kNaN, 100), 0.f);
  EXPECT_EQ(snap_to_frame(0.4f, 0), 0.f);
}

std::vector<JumpFrame> jumps_at(std::initializer_list<uint32_t> frames) {
  std::vector<JumpFrame> jumps;
  for (uint32_t frame : frames) jumps.push_back(JumpFrame{frame, 0, 0});
  return jumps;
}

TEST(JumpFrameAtOrBefore, PicksTheLastJumpFrameNotAfterTheTime) {
  const std::vector<JumpFrame> jumps = jumps_at({30, 60, 90});
  auto frame_of = [&](float t) -> int64_t {
    const JumpFrame* jump = jump_frame_at_or_before(jumps, t);
    return jump == nullptr ? -1 : int64_t{jump->frame};
  };
  EXPECT_EQ(frame_of(0.f), -1);
  EXPECT_EQ(frame_of(29.9f), -1);
  EXPECT_EQ(frame_of(30.f), 30);
  EXPECT_EQ(frame_of(30.5f), 30);
  EXPECT_EQ(frame_of(59.99f), 30);
  EXPECT_EQ(frame_of(60.f), 60);
  EXPECT_EQ(frame_of(89.f), 60);
  EXPECT_EQ(frame_of(90.f), 90);
  EXPECT_EQ(frame_of(5000.f), 90);
}

TEST(JumpFrameAtOrBefore, NoneBeforeTheClipNoneForNaNNoneWithoutJumpFrames) {
  const std::vector<JumpFrame> jumps = jumps_at({30, 60});
  EXPECT_EQ(jump_frame_at_or_before(jumps, -1.f), nullptr);
  EXPECT_EQ(jump_frame_at_or_before(jumps, kNaN), nullptr);
  EXPECT_EQ(jump_frame_at_or_before({}, 45.f), nullptr);
}

// The readout names the jump frame a seek resumed from: it must be the one the
// player restores. A player at the last frame seeking back to frame f restarts
// exactly when there is no jump frame at or before f, and otherwise reads
// only the saved windows plus the stream keys after the jump frame.
TEST(JumpFrameAtOrBefore, AgreesWithThePlayersSeeks) {
  Result<ImportedClip> imported = import_clip(KS_ASSETS_DIR "/demo_walk.glb");
  ASSERT_TRUE(imported.ok()) << imported.error();
  CodecSettings settings;
  settings.pack.auto_jump_interval = false;
  settings.pack.jump_interval_s = 0.25f;
  const std::shared_ptr<const FitResult> result =
      run_fit(std::make_shared<const ImportedClip>(std::move(imported.value())), settings, 1, 1);
  ASSERT_TRUE(result->error.empty()) << result->error;
  const StreamView& view = result->view;
  ASSERT_GE(view.jump_frames().size(), 2u);
  const uint64_t most_saved_keys = uint64_t{kWindowSize} * view.streamed_track_count();
  std::vector<Transform> pose(view.bone_count());
  int seeks = 0, restarts = 0;
  for (uint32_t f = 0; f < view.last_frame(); ++f) {
    Player player(view, 0);  // reading the stream: the demo's keys fit the key cache
    player.sample_frame(static_cast<float>(view.last_frame()), pose);
    player.reset_counters();
    player.sample_frame(static_cast<float>(f), pose);
    const PlayerCounters& c = player.counters();
    if (c.restarts + c.jump_frames_used == 0) continue;  // no key became due between f and the end
    ++seeks;
    const JumpFrame* jump = jump_frame_at_or_before(view.jump_frames(), static_cast<float>(f));
    if (jump == nullptr) {
      ++restarts;
      EXPECT_EQ(c.restarts, 1u) << "frame " << f;
      continue;
    }
    EXPECT_EQ(c.jump_frames_used, 1u) << "frame " << f;
    ASSERT_GE(player.cursor_key_index(), jump->stream_keys_read) << "frame " << f;
    const uint64_t stream_keys = player.cursor_key_index() - jump->stream_keys_read;
    EXPECT_GE(c.keys_read, stream_keys) << "frame " << f;
    EXPECT_LE(c.keys_read - stream_keys, most_saved_keys) << "frame " << f;
  }
  EXPECT_GT(seeks, static_cast<int>(view.last_frame() / 2));
  EXPECT_EQ(restarts, static_cast<int>(view.jump_interval_frames()));  // frames 0 .. interval-1
}

TEST(FrameLabelStep, IsTheSmallestStepWhoseLabelsFit) {
  EXPECT_EQ(frame_label_step(FrameAxis{0.f, 1000.f, 1000}, 1.f), 1u);
  EXPECT_EQ(frame_label_step(FrameAxis{0.f, 1000.f, 1000}, 2.f), 2u);
  EXPECT_EQ(frame_label_step(FrameAxis{0.f, 1000.f, 1000}, 3.f), 5u);
  EXPECT_EQ(frame_label_step(FrameAxis{0.f, 1000.f, 1000}, 40.f), 50u);
  EXPECT_EQ(frame_label_step(FrameAxis{0.f, 1000.f, 1000}, 50.f), 50u);
  EXPECT_EQ(frame_label_step(FrameAxis{0.f, 1000.f, 1000}, 51.f), 100u);
  EXPECT_EQ(frame_label_step(FrameAxis{0.f, 100.f, 100000}, 50.f), 50000u);
  EXPECT_EQ(frame_label_step(FrameAxis{0.f, 10.f, 1000}, 1000.f), 1000u);  // never past the first that spans the clip
  EXPECT_EQ(frame_label_step(FrameAxis{0.f, 10.f, 7}, 1000.f), 10u);
  EXPECT_EQ(frame_label_step(FrameAxis{0.f, 500.f, 0}, 40.f), 1u);
}

TEST(FrameLabelStep, EveryStepIsOneTwoFiveAndTheStepBeforeItWouldCrowd) {
  for (uint32_t last : {1u, 7u, 59u, 135u, 1000u, 7201u, 65535u, 4000000u}) {
    for (float width : {50.f, 333.f, 900.f, 2560.f}) {
      for (float spacing : {20.f, 47.f, 90.f}) {
        const FrameAxis axis{12.f, 12.f + width, last};
        const uint32_t step = frame_label_step(axis, spacing);
        const double px_per_frame = static_cast<double>(width) / last;
        SCOPED_TRACE(testing::Message() << "last " << last << ", width " << width << ", spacing " << spacing);
        EXPECT_TRUE(is_1_2_5(step)) << step;
        EXPECT_TRUE(step * px_per_frame >= spacing || step >= last) << step;
        if (step > 1) {
          const uint32_t smaller = previous_1_2_5(step);
          EXPECT_TRUE(smaller * px_per_frame < spacing && smaller < last) << step;
        }
      }
    }
  }
}

TEST(FrameMinorStep, DividesEachLabelStepEvenly) {
  EXPECT_EQ(frame_minor_step(1), 0u);
  EXPECT_EQ(frame_minor_step(2), 1u);
  EXPECT_EQ(frame_minor_step(5), 1u);
  EXPECT_EQ(frame_minor_step(10), 2u);
  EXPECT_EQ(frame_minor_step(20), 5u);
  EXPECT_EQ(frame_minor_step(50), 10u);
  EXPECT_EQ(frame_minor_step(100), 20u);
  EXPECT_EQ(frame_minor_step(200), 50u);
  EXPECT_EQ(frame_minor_step(5000), 1000u);
  EXPECT_EQ(frame_minor_step(3), 0u);
}

TEST(KeyBins, OneBinPerFewPixelsAtMostOnePerFrame) {
  EXPECT_EQ(key_bin_count(300.f, 3.f, 1000), 100u);
  EXPECT_EQ(key_bin_count(301.f, 3.f, 1000), 100u);
  EXPECT_EQ(key_bin_count(300.f, 3.f, 50), 50u);
  EXPECT_EQ(key_bin_count(2.f, 3.f, 50), 1u);
  EXPECT_EQ(key_bin_count(0.f, 3.f, 50), 1u);
  EXPECT_EQ(key_bin_count(300.f, 3.f, 0), 1u);
  EXPECT_EQ(key_bin_count(kNaN, 3.f, 50), 1u);
}

TEST(KeyBins, EveryFrameIsInTheBinThatSpansIt) {
  for (uint32_t frames = 1; frames <= 60; ++frames) {
    for (size_t bins = 1; bins <= frames; ++bins) {
      SCOPED_TRACE(testing::Message() << frames << " frames, " << bins << " bins");
      EXPECT_EQ(bin_first_frame(0, frames, bins), 0u);
      EXPECT_EQ(bin_first_frame(bins, frames, bins), frames);
      for (size_t b = 0; b < bins; ++b) {
        EXPECT_LT(bin_first_frame(b, frames, bins), bin_first_frame(b + 1, frames, bins)) << "bin " << b << " is empty";
      }
      for (uint32_t f = 0; f < frames; ++f) {
        const size_t b = key_bin_of_frame(f, frames, bins);
        ASSERT_LT(b, bins);
        EXPECT_LE(bin_first_frame(b, frames, bins), f);
        EXPECT_LT(f, bin_first_frame(b + 1, frames, bins));
      }
      EXPECT_EQ(key_bin_of_frame(frames + 10, frames, bins), bins - 1);
    }
  }
}

TEST(BinKeyFrames, CountsEveryKeyOfEveryTrackInItsBin) {
  std::vector<FittedTrack> tracks(3);
  for (uint16_t frame : {0, 0, 1, 9}) tracks[0].keys.push_back(FittedKey{frame, {}, {}, {}});
  for (uint16_t frame : {0, 5, 5, 9}) tracks[1].keys.push_back(FittedKey{frame, {}, {}, {}});
  tracks[2].keys.push_back(FittedKey{0, {}, {}, {}});
  std::vector<uint32_t> bins(5, 77u);  // old counts are overwritten
  bin_key_frames(tracks, 10, bins);
  EXPECT_EQ(bins, (std::vector<uint32_t>{5, 0, 2, 0, 2}));
  std::vector<uint32_t> per_frame(10);
  bin_key_frames(tracks, 10, per_frame);
  EXPECT_EQ(per_frame, (std::vector<uint32_t>{4, 1, 0, 0, 0, 2, 0, 0, 0, 2}));
  std::vector<uint32_t> none(4, 5u);
  bin_key_frames({}, 10, none);
  EXPECT_EQ(none, (std::vector<uint32_t>(4, 0u)));
}

TEST(HistogramFullScale, LeavesTheEndBinsOutUnlessTheyAreAllThereIs) {
  EXPECT_EQ(histogram_full_scale(std::vector<uint32_t>{100, 3, 7, 2, 90}), 7u);
  EXPECT_EQ(histogram_full_scale(std::vector<uint32_t>{1, 3, 7, 2, 1}), 7u);
  EXPECT_EQ(histogram_full_scale(std::vector<uint32_t>{100, 0, 0, 90}), 100u);
  EXPECT_EQ(histogram_full_scale(std::vector<uint32_t>{5, 9}), 9u);
  EXPECT_EQ(histogram_full_scale(std::vector<uint32_t>{4}), 4u);
  EXPECT_EQ(histogram_full_scale(std::vector<uint32_t>{0, 0, 0}), 0u);
  EXPECT_EQ(histogram_full_scale({}), 0u);
}

}  // namespace
}  // namespace ks::studio
