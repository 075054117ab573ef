// The cost model of --jump-interval auto (jump_interval.h) against what the
// packer writes and the player reads: its jump frame bytes are the packed
// stream's, its keys read forward are the player's, and the interval auto
// picks is within the byte budget and is the one packed.

#include "keystream/codec/jump_interval.h"

#include <gtest/gtest.h>

#include <vector>

#include "keystream/codec/key_cost.h"
#include "keystream/codec/pack.h"
#include "keystream/runtime/player.h"
#include "keystream/runtime/stream_view.h"
#include "tests/runtime/stream_test_support.h"

namespace ks {
namespace {

uint32_t get_u32_of(const StreamView& view, uint32_t offset) { return test::get_u32(view.bytes(), offset); }

std::vector<KeyCoding> codings_of(const FittedClip& clip) {
  std::vector<KeyCoding> codings(clip.tracks.size());
  for (size_t t = 0; t < clip.tracks.size(); ++t) {
    if (clip.tracks[t].coding == TrackCoding::kAnimated) codings[t] = choose_key_coding(clip.tracks[t]);
  }
  return codings;
}

// Stream keys needed at or before each frame: where forward play's cursor is.
std::vector<uint32_t> cursor_by_frame(const StreamView& view) {
  Player player(view);
  std::vector<uint32_t> cursor;
  for (uint32_t f = 0; f <= view.last_frame(); ++f) {
    player.seek_frame(static_cast<float>(f));
    cursor.push_back(player.cursor_key_index());
  }
  return cursor;
}

TEST(JumpIntervalCost, PredictsThePackedJumpFramesAndTheKeysASeekReads) {
  int checked = 0;
  for (uint32_t seed = 1; seed <= 30; ++seed) {
    const FittedClip clip = test::make_random_fitted_clip(seed, 5, 120);
    const std::vector<KeyCoding> codings = codings_of(clip);
    for (const uint32_t interval : {1u, 3u, 8u, 20u}) {
      SCOPED_TRACE(::testing::Message() << clip.name << ", every " << interval << " frames");
      const std::vector<uint8_t> bytes =
          test::pack_or_fail(clip, static_cast<float>(interval) / clip.sample_rate_hz);
      const Result<StreamView> view = StreamView::open(bytes);
      ASSERT_TRUE(view.ok()) << view.error();
      ASSERT_EQ(view.value().jump_interval_frames(), interval);
      const JumpIntervalCost cost = jump_interval_cost(clip, codings, interval);
      EXPECT_EQ(cost.interval_frames, interval);
      EXPECT_EQ(cost.jump_frame_bytes, view.value().jump_frame_bytes());
      // A seek to f restores the last jump frame at or before f (frame 0:
      // a restart) and reads the stream keys from there to f.
      const std::vector<uint32_t> cursor = cursor_by_frame(view.value());
      double forward = 0.0;
      for (uint32_t f = 0; f < clip.frame_count; ++f) {
        const uint32_t jump = std::min<uint32_t>(f / interval, static_cast<uint32_t>(view.value().jump_frames().size()));
        forward += cursor[f] - (jump == 0 ? 0u : view.value().jump_frames()[jump - 1].stream_keys_read);
      }
      EXPECT_DOUBLE_EQ(cost.seek_keys_forward, forward / clip.frame_count);
      ++checked;
    }
  }
  EXPECT_EQ(checked, 120);
}

TEST(JumpIntervalCost, NoJumpFramesCostNoBytesAndASeekReadsFromFrameZero) {
  const FittedClip clip = test::make_random_fitted_clip(7, 4, 90);
  const JumpIntervalCost none = jump_interval_cost(clip, codings_of(clip), 0);
  EXPECT_EQ(none.jump_frame_bytes, 0u);
  const std::vector<uint8_t> bytes = test::pack_or_fail(clip, 0.f);
  const Result<StreamView> view = StreamView::open(bytes);
  ASSERT_TRUE(view.ok());
  const std::vector<uint32_t> cursor = cursor_by_frame(view.value());
  double forward = 0.0;
  for (const uint32_t c : cursor) forward += c;
  EXPECT_DOUBLE_EQ(none.seek_keys_forward, forward / clip.frame_count);
}

TEST(JumpIntervalAuto, PacksTheChosenIntervalWithinTheByteBudget) {
  // Random clips (small: most fit no jump frame in the budget) and the
  // fitted wave clip at lengths where jump frames pay.
  std::vector<FittedClip> clips;
  for (uint32_t seed = 1; seed <= 30; ++seed) clips.push_back(test::make_random_fitted_clip(seed, 6, 400));
  for (const uint32_t frames : {200u, 900u, 3000u}) {
    const test::RandomClip wave = test::make_wave_clip(frames);
    clips.push_back(test::fit_or_fail(wave.skeleton, wave.clip));
  }
  int with_jump_frames = 0;
  for (const FittedClip& clip : clips) {
    SCOPED_TRACE(::testing::Message() << clip.name << ", " << clip.frame_count << " frames");
    PackSettings settings;
    settings.auto_jump_interval = true;
    settings.jump_interval_s = 123.f;  // ignored
    const Result<std::vector<uint8_t>> bytes = pack(clip, settings);
    ASSERT_TRUE(bytes.ok()) << bytes.error();
    const Result<StreamView> view = StreamView::open(bytes.value(), "auto", StreamCheck::kFull);
    ASSERT_TRUE(view.ok()) << view.error();
    const StreamView& v = view.value();
    // The budget is a share of the stream without jump frames or metadata.
    const uint64_t metadata = v.bytes().size() - get_u32_of(v, header_offset::kMetadataOffset);
    const uint64_t other = v.bytes().size() - v.jump_frame_bytes() - metadata;
    EXPECT_LE(static_cast<double>(v.jump_frame_bytes()), kJumpFrameByteBudget * static_cast<double>(other));
    const JumpIntervalCost chosen = choose_jump_interval(clip, codings_of(clip), other);
    EXPECT_EQ(v.jump_interval_frames(), chosen.interval_frames);
    EXPECT_EQ(v.jump_frame_bytes(), chosen.jump_frame_bytes);
    // A shorter interval would break the budget or buy little: its keys
    // read forward are within the stopping share of the restore cost
    // already, or the next interval down costs more bytes than the budget.
    if (chosen.interval_frames > 1) {
      uint32_t streamed = 0;
      for (const StreamTrack& t : v.tracks()) streamed += t.key_count > kInitialKeysPerTrack ? 1 : 0;
      const JumpIntervalCost shorter = jump_interval_cost(clip, codings_of(clip), chosen.interval_frames / 2);
      EXPECT_TRUE(chosen.seek_keys_forward <= kStopAtRestoreShare * kRestoreCostPerStreamedTrack * streamed ||
                  static_cast<double>(shorter.jump_frame_bytes) > kJumpFrameByteBudget * static_cast<double>(other));
    }
    with_jump_frames += v.jump_interval_frames() > 0 ? 1 : 0;
  }
  EXPECT_GT(with_jump_frames, 0);
}

}  // namespace
}  // namespace ks
