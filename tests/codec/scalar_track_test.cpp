// Scalar tracks (morph weights, user curves) through fit, pack and the
// player (DESIGN §3, §7, §8): the precision holds at every source frame of
// random tracks after quantization, seeks decode the bits play does, the
// metadata carries names and precisions, and bad settings are refused.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "keystream/codec/fit.h"
#include "keystream/codec/measure.h"
#include "keystream/codec/pack.h"
#include "keystream/runtime/player.h"
#include "keystream/runtime/stream_view.h"
#include "tests/codec/random_clip.h"

namespace ks {
namespace {

constexpr uint32_t kSeeds = 150;

struct Packed {
  FittedClip fitted;
  std::vector<uint8_t> bytes;
};

Packed fit_and_pack(const test::RandomClip& rc, const FitSettings& fit, const PackSettings& pack_settings) {
  Result<FittedClip> fitted = fit_clip(rc.skeleton, rc.clip, fit);
  EXPECT_TRUE(fitted.ok()) << fitted.error();
  if (!fitted.ok()) return {};
  Result<std::vector<uint8_t>> bytes = pack(fitted.value(), pack_settings);
  EXPECT_TRUE(bytes.ok()) << bytes.error();
  if (!bytes.ok()) return {};
  return {std::move(fitted).value(), std::move(bytes).value()};
}

TEST(ScalarTracks, PrecisionHoldsAtEveryFrameOfRandomTracks) {
  static constexpr float kPrecisions[] = {1e-4f, 1e-3f, 0.01f, 0.3f};
  for (uint32_t seed = 0; seed < kSeeds; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    test::RandomClip rc = test::make_random_clip(seed, {.max_bones = 3});
    test::TestRandom rng(seed);
    test::add_random_scalar_tracks(rc.clip, seed, rng.integer(1, 6));
    FitSettings fit;
    fit.scalar_precision = kPrecisions[rng.integer(0, 3)];
    // One track held tighter or looser than the rest.
    const float override_precision = kPrecisions[rng.integer(0, 3)];
    fit.scalar_precisions.push_back({rc.clip.scalars[0].name, override_precision});
    PackSettings pack_settings;
    pack_settings.jump_interval_s = rng.chance(0.5f) ? 0.25f : 0.f;
    pack_settings.zstd = rng.chance(0.2f);
    const Packed packed = fit_and_pack(rc, fit, pack_settings);
    ASSERT_FALSE(packed.bytes.empty());
    Result<StreamView> view = StreamView::open(packed.bytes, "random", StreamCheck::kFull);
    ASSERT_TRUE(view.ok()) << view.error();
    ASSERT_EQ(view.value().scalar_track_count(), rc.clip.scalars.size());

    Result<ClipMeasurement> m = measure(rc.skeleton, rc.clip, view.value());
    ASSERT_TRUE(m.ok()) << m.error();
    for (size_t s = 0; s < rc.clip.scalars.size(); ++s) {
      const float precision = s == 0 ? override_precision : fit.scalar_precision;
      const FittedTrack& track = packed.fitted.tracks[packed.fitted.bone_track_count() + s];
      EXPECT_EQ(track.kind, TrackKind::kScalar);
      EXPECT_EQ(packed.fitted.scalars[s].precision, precision);
      // Random motions reach a few hundred, where a float32 still resolves
      // 1e-4: the fit meets every precision, so the decoded clip must too.
      ASSERT_TRUE(track.threshold_met) << "track " << s << " floor " << track.floor;
      EXPECT_LE(m.value().scalar_tracks[s].max, precision) << "track " << s;
      // The fitter's own figure is the decoded one.
      EXPECT_NEAR(m.value().scalar_tracks[s].max, track.max_error, 1e-6f * (1.f + precision)) << "track " << s;
    }
    EXPECT_TRUE(packed.fitted.bound_met());
  }
}

TEST(ScalarTracks, SeeksDecodeWhatPlayDecodes) {
  for (uint32_t seed = 0; seed < 40; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    test::RandomClip rc = test::make_random_clip(seed, {.max_bones = 2, .min_frames = 40, .max_frames = 200});
    test::add_random_scalar_tracks(rc.clip, seed, 5);
    PackSettings pack_settings;
    pack_settings.jump_interval_s = 0.2f;
    const Packed packed = fit_and_pack(rc, FitSettings{}, pack_settings);
    Result<StreamView> view = StreamView::open(packed.bytes, "random", StreamCheck::kFull);
    ASSERT_TRUE(view.ok()) << view.error();
    // A player that keeps no key cache reads the stream and its jump frames.
    Player forward(view.value(), 0), seeking(view.value(), 0);
    const uint32_t values = forward.scalar_value_count();
    std::vector<Transform> pose(rc.skeleton.bone_count());
    std::vector<float> played(values), sought(values);
    test::TestRandom rng(seed);
    for (uint32_t f = 0; f < rc.clip.frame_count; ++f) {
      forward.sample_frame(static_cast<float>(f), pose, played);
      // Somewhere else first, then back here: a restore or a restart.
      seeking.sample_frame(static_cast<float>(rng.integer(0, rc.clip.frame_count - 1)), pose, sought);
      seeking.sample_frame(static_cast<float>(f), pose, sought);
      ASSERT_EQ(played, sought) << "frame " << f;
    }
  }
}

// sample_scalars gives the bits sample() does, played forward or sought,
// with or without a key cache, and a pose sampled after it is the pose a
// player that never sampled scalars alone gives.
TEST(ScalarTracks, SampledAloneTheyAreWhatTheFullSampleGives) {
  for (uint32_t seed = 0; seed < 40; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    test::RandomClip rc = test::make_random_clip(seed, {.min_bones = 2, .max_bones = 12, .min_frames = 40, .max_frames = 200});
    test::TestRandom rng(seed);
    test::add_random_scalar_tracks(rc.clip, seed, rng.integer(1, 12));
    PackSettings pack_settings;
    pack_settings.jump_interval_s = rng.chance(0.5f) ? 0.2f : 0.f;
    const Packed packed = fit_and_pack(rc, FitSettings{}, pack_settings);
    Result<StreamView> view = StreamView::open(packed.bytes, "random", StreamCheck::kFull);
    ASSERT_TRUE(view.ok()) << view.error();
    for (const size_t cache_bytes : {size_t{0}, Player::kDefaultKeyCacheBytes}) {
      SCOPED_TRACE("key cache " + std::to_string(cache_bytes));
      Player full(view.value(), cache_bytes), alone(view.value(), cache_bytes);
      const uint32_t values = full.scalar_value_count();
      std::vector<Transform> pose(rc.skeleton.bone_count()), other_pose(rc.skeleton.bone_count());
      std::vector<float> expected(values), got(values);
      for (uint32_t step = 0; step < 3 * rc.clip.frame_count; ++step) {
        // Mostly play forward in small steps, sometimes jump anywhere.
        const float frame = rng.chance(0.2f) ? rng.uniform(0.f, static_cast<float>(rc.clip.frame_count - 1))
                                             : static_cast<float>(step / 3) + rng.unit();
        full.sample_frame(frame, pose, expected);
        if (rng.chance(0.7f)) {
          alone.sample_frame_scalars(frame, got);
          ASSERT_EQ(expected, got) << "frame " << frame;
        } else {
          alone.sample_frame(frame, other_pose, got);
          ASSERT_EQ(expected, got) << "frame " << frame;
          for (size_t b = 0; b < pose.size(); ++b) {
            ASSERT_EQ(0, std::memcmp(&pose[b], &other_pose[b], sizeof(Transform))) << "frame " << frame << " bone " << b;
          }
        }
      }
    }
  }
}

TEST(ScalarTracks, ValuesArePackedPerTrackInOrder) {
  test::RandomClip rc = test::make_random_clip(7, {.max_bones = 1, .min_frames = 10, .max_frames = 10});
  for (uint32_t components = 1; components <= 4; ++components) {
    ScalarTrack track;
    track.name = "c" + std::to_string(components);
    track.components = components;
    for (uint32_t f = 0; f < rc.clip.frame_count; ++f) {
      // Exact in a float and constant: decoded bit for bit.
      for (uint32_t c = 0; c < components; ++c) track.values.push_back(static_cast<float>(10 * components + c));
    }
    rc.clip.scalars.push_back(track);
  }
  const Packed packed = fit_and_pack(rc, FitSettings{}, PackSettings{});
  Result<StreamView> view = StreamView::open(packed.bytes);
  ASSERT_TRUE(view.ok()) << view.error();
  Player player(view.value());
  ASSERT_EQ(player.scalar_value_count(), 1u + 2u + 3u + 4u);
  std::vector<Transform> pose(1);
  std::vector<float> values(player.scalar_value_count(), -1.f);
  player.sample(0.f, pose, values);
  EXPECT_EQ(values, (std::vector<float>{10, 20, 21, 30, 31, 32, 40, 41, 42, 43}));
  EXPECT_EQ(player.scalar_value_offset(2), 3u);
}

TEST(ScalarTracks, MetadataNamesEveryTrackAndItsPrecision) {
  test::RandomClip rc = test::make_random_clip(3, {.max_bones = 2});
  test::add_random_scalar_tracks(rc.clip, 3, 3);
  rc.clip.scalars[1].target = ScalarTarget::kMorphWeight;
  rc.clip.scalars[1].node = "Head";
  rc.clip.scalars[1].target_index = 7;
  FitSettings fit;
  fit.scalar_precision = 0.002f;
  fit.scalar_precisions = {{"curve2", 0.05f}};
  const Packed packed = fit_and_pack(rc, fit, PackSettings{});
  Result<StreamView> view = StreamView::open(packed.bytes);
  ASSERT_TRUE(view.ok()) << view.error();
  const StreamMetadata& meta = view.value().metadata();
  EXPECT_EQ(meta.scalar_precision, 0.002f);
  ASSERT_EQ(meta.scalars.size(), 3u);
  EXPECT_EQ(meta.scalars[0].name, "curve0");
  EXPECT_EQ(meta.scalars[0].precision, 0.002f);
  EXPECT_EQ(meta.scalars[2].precision, 0.05f);
  EXPECT_EQ(meta.scalars[1].target, static_cast<uint8_t>(ScalarTarget::kMorphWeight));
  EXPECT_EQ(meta.scalars[1].node, "Head");
  EXPECT_EQ(meta.scalars[1].target_index, 7u);
  EXPECT_EQ(meta.additive_base, AdditiveBase::kNone);
  EXPECT_FALSE(view.value().additive());
}

TEST(ScalarTracks, AWeightAtRestCostsNoKeys) {
  test::RandomClip rc = test::make_random_clip(5, {.max_bones = 1});
  ScalarTrack rest;
  rest.name = "Face/blink";
  rest.values.assign(rc.clip.frame_count, 0.f);
  rc.clip.scalars.push_back(rest);
  Result<FittedClip> fitted = fit_clip(rc.skeleton, rc.clip, FitSettings{});
  ASSERT_TRUE(fitted.ok()) << fitted.error();
  EXPECT_EQ(fitted.value().tracks.back().coding, TrackCoding::kIdentity);
}

TEST(ScalarTracks, BadSettingsAndClipsAreRefusedByName) {
  test::RandomClip rc = test::make_random_clip(9, {.max_bones = 1});
  test::add_random_scalar_tracks(rc.clip, 9, 2);
  FitSettings fit;
  fit.scalar_precisions = {{"no such curve", 0.01f}};
  Result<FittedClip> unknown = fit_clip(rc.skeleton, rc.clip, fit);
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().find("\"no such curve\", which is not one of its scalar tracks"), std::string::npos)
      << unknown.error();
  fit.scalar_precisions = {{"curve0", 0.f}};
  EXPECT_FALSE(fit_clip(rc.skeleton, rc.clip, fit).ok());
  fit.scalar_precisions.clear();
  fit.scalar_precision = std::nanf("");
  EXPECT_FALSE(fit_clip(rc.skeleton, rc.clip, fit).ok());

  RawClip bad = rc.clip;
  bad.scalars[1].name = bad.scalars[0].name;
  Status duplicate = bad.validate(rc.skeleton);
  ASSERT_FALSE(duplicate);
  EXPECT_NE(duplicate.error().find("has the name of an earlier scalar track"), std::string::npos) << duplicate.error();
  bad = rc.clip;
  bad.scalars[0].values.pop_back();
  EXPECT_FALSE(bad.validate(rc.skeleton));
  bad = rc.clip;
  bad.scalars[0].values[0] = std::nanf("");
  Status nan = bad.validate(rc.skeleton);
  ASSERT_FALSE(nan);
  EXPECT_NE(nan.error().find("scalar track 0 'curve0' at frame 0 is not finite"), std::string::npos) << nan.error();
  bad = rc.clip;
  bad.scalars[0].components = 5;
  EXPECT_FALSE(bad.validate(rc.skeleton));
}

TEST(ScalarTracks, AStreamWhoseScalarTracksDoNotMatchTheClipIsNotMeasured) {
  test::RandomClip rc = test::make_random_clip(11, {.max_bones = 1});
  test::add_random_scalar_tracks(rc.clip, 11, 2);
  const Packed packed = fit_and_pack(rc, FitSettings{}, PackSettings{});
  Result<StreamView> view = StreamView::open(packed.bytes);
  ASSERT_TRUE(view.ok()) << view.error();
  RawClip fewer = rc.clip;
  fewer.scalars.pop_back();
  Result<ClipMeasurement> m = measure(rc.skeleton, fewer, view.value());
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().find("the stream has 2 scalar tracks"), std::string::npos) << m.error();
}

}  // namespace
}  // namespace ks
