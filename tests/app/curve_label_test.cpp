// What the studio says of a fitted track's curve (app/studio/plots/curve_label.h):
// none for a track without one, Hermite through a sampled source, and how
// many of a keyed source's keys a linear or step track kept.

#include "app/studio/plots/curve_label.h"

#include <gtest/gtest.h>

#include <vector>

namespace ks::studio {
namespace {

// An animated track of `interpolation` with keys at `frames`.
FittedTrack track_of(Interpolation interpolation, const std::vector<uint16_t>& frames) {
  FittedTrack t;
  t.kind = TrackKind::kRotation;
  t.coding = TrackCoding::kAnimated;
  t.interpolation = interpolation;
  for (uint16_t f : frames) t.keys.push_back(FittedKey{f, {}, {}, {}});
  return t;
}

SourceKeys keyed(Interpolation interpolation, const std::vector<uint32_t>& frames) {
  return SourceKeys{interpolation, frames};
}

TEST(CurveLabel, NoneForAConstantOrIdentityTrack) {
  FittedTrack t;
  t.coding = TrackCoding::kConstant;
  EXPECT_EQ(curve_label(t, keyed(Interpolation::kLinear, {0, 5, 10})), "");
  t.coding = TrackCoding::kIdentity;
  EXPECT_EQ(curve_label(t, SourceKeys{}), "");
}

TEST(CurveLabel, HermiteThroughASampledSourceCountsItsKeys) {
  EXPECT_EQ(curve_label(track_of(Interpolation::kHermite, {0, 3, 7, 9}), SourceKeys{}), "Hermite, 4 keys");
  // A source with fewer than two keys is not keyed: nothing to keep.
  EXPECT_EQ(curve_label(track_of(Interpolation::kHermite, {0, 9}), keyed(Interpolation::kLinear, {0})),
            "Hermite, 2 keys");
}

TEST(CurveLabel, HermiteOverAKeyedSourceSaysWhatTheSourceHas) {
  const SourceKeys source = keyed(Interpolation::kLinear, {0, 4, 8, 12});
  EXPECT_EQ(curve_label(track_of(Interpolation::kHermite, {0, 2, 4, 6, 9, 12}), source),
            "Hermite, 6 keys; the source has 4 linear keys");
}

TEST(CurveLabel, LinearCountsTheSourceKeysItKept) {
  const SourceKeys source = keyed(Interpolation::kLinear, {0, 4, 8, 12, 16});
  EXPECT_EQ(curve_label(track_of(Interpolation::kLinear, {0, 8, 16}), source),
            "linear through 3 of the source's 5 keys");
}

TEST(CurveLabel, StepThroughEveryKeySaysAll) {
  const SourceKeys source = keyed(Interpolation::kStep, {0, 2, 9});
  EXPECT_EQ(curve_label(track_of(Interpolation::kStep, {0, 2, 9}), source), "step through all 3 source keys");
}

TEST(CurveLabel, KeysBetweenTheSourcesAreCountedApart) {
  // A segment split at its worst frame (6) and a discontinuity's second key (at 8).
  const SourceKeys source = keyed(Interpolation::kLinear, {0, 4, 8, 12});
  EXPECT_EQ(curve_label(track_of(Interpolation::kLinear, {0, 6, 8, 8, 12}), source),
            "linear through 3 of the source's 4 keys and 2 more");
}

TEST(SourceKeyUse, SumsToTheTracksKeys) {
  const SourceKeys source = keyed(Interpolation::kLinear, {0, 4, 8, 12});
  const SourceKeyUse use = source_key_use(track_of(Interpolation::kLinear, {0, 1, 4, 4, 11, 12}), source);
  EXPECT_EQ(use.source_keys, 4u);
  EXPECT_EQ(use.kept, 3u);
  EXPECT_EQ(use.added, 3u);
  EXPECT_EQ(use.kept + use.added, 6u);
  // A sampled source: nothing counted.
  const SourceKeyUse none = source_key_use(track_of(Interpolation::kHermite, {0, 4}), SourceKeys{});
  EXPECT_EQ(none.source_keys + none.kept + none.added, 0u);
}

TEST(TrackSourceKeys, ABonesKindOrAScalarTracks) {
  RawClip clip;
  clip.bones.resize(2);
  clip.bones[1].source_keys[static_cast<size_t>(TrackKind::kRotation)] = keyed(Interpolation::kStep, {0, 3});
  clip.scalars.resize(1);
  clip.scalars[0].source_keys = keyed(Interpolation::kLinear, {0, 1, 2});
  EXPECT_EQ(track_source_keys(clip, 1, TrackKind::kRotation).interpolation, Interpolation::kStep);
  EXPECT_FALSE(track_source_keys(clip, 1, TrackKind::kTranslation).keyed());
  EXPECT_FALSE(track_source_keys(clip, 0, TrackKind::kRotation).keyed());
  EXPECT_EQ(track_source_keys(clip, 0, TrackKind::kScalar).frames.size(), 3u);
}

TEST(CurveName, NamesEachInterpolation) {
  EXPECT_STREQ(curve_name(Interpolation::kHermite), "Hermite");
  EXPECT_STREQ(curve_name(Interpolation::kLinear), "linear");
  EXPECT_STREQ(curve_name(Interpolation::kStep), "step");
}

}  // namespace
}  // namespace ks::studio
