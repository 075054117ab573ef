// The viewport's morph weights (app/studio/viewport/morph_weights.h): targets bound to
// the tracks naming their node and index, weights between frames as the
// bones are, the decoded weights of a fit within its precision of the
// source's, and only the targets whose weight is not 0 active.

#include "app/studio/viewport/morph_weights.h"

#include <gtest/gtest.h>

#include <limits>
#include <memory>
#include <vector>

#include "app/studio/jobs/fit_job.h"
#include "keystream/io/import.h"
#include "keystream/runtime/player.h"
#include "tests/io/morph_test_files.h"
#include "tests/temp_dir.h"

namespace ks::studio {
namespace {

MorphTarget target(const char* node, uint32_t index, float default_weight = 0.f) {
  MorphTarget t;
  t.node = node;
  t.target_index = index;
  t.default_weight = default_weight;
  return t;
}

ScalarTrack weight_track(const char* node, uint32_t index, std::vector<float> values) {
  ScalarTrack track;
  track.name = std::string(node) + "/" + std::to_string(index);
  track.target = ScalarTarget::kMorphWeight;
  track.node = node;
  track.target_index = index;
  track.values = std::move(values);
  return track;
}

TEST(MorphWeights, EachTargetIsBoundToTheFirstTrackNamingItsNodeAndIndex) {
  const std::vector<MorphTarget> targets = {target("face", 0), target("face", 1), target("hand", 0), target("face", 2)};
  std::vector<ScalarTrack> tracks = {weight_track("face", 1, {}), weight_track("hand", 0, {}),
                                     weight_track("face", 1, {}), weight_track("face", 0, {})};
  tracks.push_back(weight_track("face", 2, {}));
  tracks.back().target = ScalarTarget::kCurve;  // a user curve that happens to name the node drives nothing
  const std::vector<int32_t> bound = bind_morph_tracks(targets, morph_track_keys(tracks));
  EXPECT_EQ(bound, (std::vector<int32_t>{3, 0, 1, -1}));

  // The stream's metadata binds the same way.
  std::vector<StreamScalarInfo> stored(2);
  stored[0] = {"a", 0.f, 1, "hand", 0};
  stored[1] = {"b", 0.f, 1, "face", 2};
  EXPECT_EQ(bind_morph_tracks(targets, morph_track_keys(stored)), (std::vector<int32_t>{-1, -1, 0, 1}));
}

TEST(MorphWeights, SourceWeightsInterpolateBetweenFramesAndClampToTheClip) {
  RawClip clip;
  clip.frame_count = 3;
  clip.scalars = {weight_track("face", 0, {0.f, 1.f, 0.5f})};
  const std::vector<MorphTarget> targets = {target("face", 0), target("face", 1, 0.25f)};
  const std::vector<int32_t> bound = {0, -1};
  std::vector<float> weights(2);
  const auto at = [&](float frame_time) {
    source_morph_weights(targets, clip, bound, frame_time, weights);
    return weights[0];
  };
  EXPECT_EQ(at(0.f), 0.f);
  EXPECT_EQ(at(1.f), 1.f);  // a whole frame is its value exactly
  EXPECT_FLOAT_EQ(at(0.25f), 0.25f);
  EXPECT_FLOAT_EQ(at(1.5f), 0.75f);
  EXPECT_EQ(at(7.f), 0.5f);
  EXPECT_EQ(at(-1.f), 0.f);
  EXPECT_EQ(at(std::numeric_limits<float>::quiet_NaN()), 0.f);
  EXPECT_EQ(weights[1], 0.25f);  // no track: the default weight
}

TEST(MorphWeights, DecodedWeightsAreEachTracksFirstValueElseTheDefault) {
  const std::vector<MorphTarget> targets = {target("face", 0, 0.5f), target("face", 1, 0.5f), target("face", 2, 0.5f)};
  const std::vector<float> values = {9.f, 9.f, 9.f, 0.75f, 0.125f};  // a float3 user curve, then two weights
  const std::vector<uint32_t> offsets = {0, 3, 4};
  std::vector<float> weights(3);
  decoded_morph_weights(targets, values, offsets, std::vector<int32_t>{2, 1, -1}, weights);
  EXPECT_EQ(weights, (std::vector<float>{0.125f, 0.75f, 0.5f}));
  // A track the player does not have (another stream) leaves the default.
  decoded_morph_weights(targets, values, offsets, std::vector<int32_t>{7, 1, -1}, weights);
  EXPECT_EQ(weights[0], 0.5f);
}

TEST(MorphWeights, OnlyTargetsWhoseWeightIsNotZeroAreActive) {
  std::vector<ActiveMorph> active;
  active_morphs(std::vector<float>{0.f, 0.5f, -0.f, -1.f, std::numeric_limits<float>::quiet_NaN()}, active);
  ASSERT_EQ(active.size(), 2u);
  EXPECT_EQ(active[0].target, 1u);
  EXPECT_EQ(active[0].weight, 0.5f);
  EXPECT_EQ(active[1].target, 3u);
  active_morphs(std::vector<float>{0.f, 0.f}, active);
  EXPECT_TRUE(active.empty());  // a mesh at rest costs the shader nothing
}

// The skinned morph file fitted as the studio fits it: at every frame the
// player's weights are the source's within the fit's scalar precision, so
// the two views draw the same shape. (Between frames the source is
// interpolated linearly, as its bones are, and the decoded curve is the
// fitted one: they may part by more, as the bones may.)
TEST(MorphWeights, TheDecodedWeightsOfAFitMatchTheSourcesWithinItsPrecision) {
  const test::TempDir dir;
  const std::filesystem::path path = dir / "morph.gltf";
  test::write_skinned_morph_file(path);
  Result<ImportedClip> imported = import_clip(path);
  ASSERT_TRUE(imported.ok()) << imported.error();
  const auto clip = std::make_shared<const ImportedClip>(std::move(imported.value()));
  const std::vector<MorphTarget>& targets = clip->mesh->morph_targets;
  ASSERT_EQ(targets.size(), 3u);
  const CodecSettings settings;
  const std::shared_ptr<const FitResult> result = run_fit(clip, settings, 1, 1);
  ASSERT_TRUE(result->error.empty()) << result->error;
  const std::vector<int32_t> source_bound = bind_morph_tracks(targets, morph_track_keys(clip->clip.scalars));
  const std::vector<int32_t> decoded_bound =
      bind_morph_tracks(targets, morph_track_keys(result->view.metadata().scalars));
  EXPECT_EQ(source_bound, (std::vector<int32_t>{0, 1, 2}));
  EXPECT_EQ(decoded_bound, source_bound);

  Player player(result->view);
  std::vector<Transform> pose(result->view.bone_count());
  std::vector<float> values(player.scalar_value_count());
  std::vector<uint32_t> offsets(result->view.scalar_track_count());
  for (uint32_t s = 0; s < offsets.size(); ++s) offsets[s] = player.scalar_value_offset(s);
  std::vector<float> source(3), decoded(3);
  const float precision = settings.fit.scalar_precision;
  for (uint32_t f = 0; f < clip->clip.frame_count; ++f) {
    const float frame_time = static_cast<float>(f);
    player.sample_frame(frame_time, pose, values);
    source_morph_weights(targets, clip->clip, source_bound, frame_time, source);
    decoded_morph_weights(targets, values, offsets, decoded_bound, decoded);
    for (size_t t = 0; t < 3; ++t) {
      EXPECT_NEAR(decoded[t], source[t], precision + 1e-6f) << "target " << t << " at frame " << f;
    }
  }
}

}  // namespace
}  // namespace ks::studio
