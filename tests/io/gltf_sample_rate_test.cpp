// The resampling rate (gltf_sample_rate.h): a frame on every key time where
// a rate within reason gives one, the keys a rate still misses kept as key
// poses (issue 16: Fox's Run was resampled at 30 Hz, off its own keys).

#include "keystream/io/gltf_sample_rate.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "keystream/io/gltf_import.h"
#include "tests/io/gltf_test_files.h"
#include "tests/temp_dir.h"

namespace ks {
namespace {

const std::filesystem::path kClips = KS_CLIPS_DIR;

// The skinned test document with its "upper" joint turning about Z to
// `degrees` at `times` (seconds), with `interpolation`.
std::filesystem::path write_turn(const std::filesystem::path& dir, const std::vector<float>& times,
                                 const std::vector<float>& degrees, const std::string& interpolation) {
  test::GltfDocument doc = test::make_skinned_document();
  std::vector<float> rotations;
  for (const float d : degrees) {
    const float half = 0.5f * d * 3.14159265f / 180.f;
    rotations.insert(rotations.end(), {0.f, 0.f, std::sin(half), std::cos(half)});
  }
  doc.json["animations"][0]["samplers"][0]["input"] = doc.buffer.add_floats(times, "SCALAR", 1);
  doc.json["animations"][0]["samplers"][0]["output"] = doc.buffer.add_floats(rotations, "VEC4", 4);
  doc.json["animations"][0]["samplers"][0]["interpolation"] = interpolation;
  return doc.write(dir, "turn");
}

ImportedClip import_ok(const std::filesystem::path& path, const ImportSettings& settings = {}) {
  Result<ImportedClip> r = import_gltf(path, settings);
  EXPECT_TRUE(r.ok()) << r.error();
  return r ? std::move(r.value()) : ImportedClip{};
}

// Fox's Run: keys every 1/24 s to 16/24 s, a 0.2 s gap, then every 1/24 s
// again (from 20.8/24 s): no 24 Hz frame lands on the second run of keys.
std::vector<float> fox_run_times() {
  std::vector<float> times;
  for (int k = 0; k <= 16; ++k) times.push_back(static_cast<float>(k) / 24.f);
  for (int k = 0; k < 8; ++k) times.push_back(16.f / 24.f + 0.2f + static_cast<float>(k) / 24.f);
  return times;
}

std::vector<float> degrees_for(const std::vector<float>& times) {
  std::vector<float> degrees;
  for (size_t k = 0; k < times.size(); ++k) degrees.push_back(k % 2 ? 40.f : 0.f);
  return degrees;
}

TEST(GltfSampleRate, OnFrameAllowsFloatRoundingOfKeyTimes) {
  EXPECT_TRUE(gltf::on_frame(static_cast<float>(7.0 / 24.0), 0.0, 24.0));
  EXPECT_TRUE(gltf::on_frame(static_cast<float>(1000.0 + 7.0 / 24.0), 0.0, 24.0));  // ulp 61 us, 1.5e-3 frames
  EXPECT_FALSE(gltf::on_frame(0.5123, 0.0, 30.0));
  EXPECT_FALSE(gltf::on_frame(0.5 + 0.01 / 24.0, 0.0, 24.0));  // 0.01 frames off
  EXPECT_EQ(gltf::frame_count_at(82.00008 / 24.0, 24.0), 83.0);
}

TEST(GltfSampleRate, AGapOfNoWholeNumberOfKeyStepsLandsEveryKeyAtACommonMultiple) {
  test::TempDir dir;
  const std::vector<float> times = fox_run_times();
  const ImportedClip c = import_ok(write_turn(dir.path(), times, degrees_for(times), "LINEAR"));
  EXPECT_FLOAT_EQ(c.clip.sample_rate_hz, 120.f);  // 1/24 s and 0.2 s are both whole 1/120 s
  EXPECT_TRUE(c.clip.key_poses.empty());
  EXPECT_TRUE(c.warnings.empty()) << c.warnings.front();
  for (const float t : times) EXPECT_TRUE(gltf::on_frame(t, 0.0, c.clip.sample_rate_hz)) << t;
}

TEST(GltfSampleRate, FoxRunLandsEveryKeyAt120Hz) {
  ImportSettings settings;
  settings.animation_name = "Run";
  const ImportedClip c = import_ok(kClips / "Fox.glb", settings);
  EXPECT_FLOAT_EQ(c.clip.sample_rate_hz, 120.f);
  EXPECT_EQ(c.clip.frame_count, 140u);  // 1.15833 s
  EXPECT_TRUE(c.clip.key_poses.empty());
}

TEST(GltfSampleRate, UnevenKeysOnA24HzGridStayAt24HzAndStepDoublesIt) {
  test::TempDir dir;
  // interpolation_test.gltf's Step Scale: 9, 11, 9 and 10 steps of 1/24 s.
  const std::vector<float> times = {1 / 24.f, 10 / 24.f, 21 / 24.f, 30 / 24.f, 40 / 24.f};
  EXPECT_FLOAT_EQ(import_ok(write_turn(dir.path(), times, degrees_for(times), "LINEAR")).clip.sample_rate_hz, 24.f);
  // A STEP jump needs frames of its own: the multiple reaching 30 Hz.
  const ImportedClip step = import_ok(write_turn(dir.path(), times, degrees_for(times), "STEP"));
  EXPECT_FLOAT_EQ(step.clip.sample_rate_hz, 48.f);
  EXPECT_TRUE(step.clip.key_poses.empty());
}

TEST(GltfSampleRate, OneStrayKeyKeepsTheRateOfTheRestAndBecomesAKeyPose) {
  test::TempDir dir;
  std::vector<float> times;
  for (int k = 0; k <= 24; ++k) times.push_back(static_cast<float>(k) / 24.f);
  times.insert(times.begin() + 13, 0.5123f);  // between 12/24 and 13/24 s
  const ImportedClip c = import_ok(write_turn(dir.path(), times, degrees_for(times), "LINEAR"));
  EXPECT_FLOAT_EQ(c.clip.sample_rate_hz, 24.f);
  ASSERT_EQ(c.clip.key_poses.size(), 1u);
  EXPECT_NEAR(c.clip.key_poses[0].frame_time, 0.5123f * 24.f, 1e-4f);
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_NE(c.warnings[0].find("1 key times fall between frames at 24 Hz"), std::string::npos) << c.warnings[0];
}

TEST(GltfSampleRate, ARateTheSizeLimitRefusesIsPassedOverForTheOneThatLandsMost) {
  test::TempDir dir;
  const std::vector<float> times = fox_run_times();
  ImportSettings settings;
  settings.max_bone_frames = 3 * 100;  // 3 bones: 120 Hz (140 frames) is refused, 24 Hz (29) is not
  const ImportedClip c = import_ok(write_turn(dir.path(), times, degrees_for(times), "LINEAR"), settings);
  EXPECT_FLOAT_EQ(c.clip.sample_rate_hz, 24.f);  // lands the 17 keys before the gap, 30 Hz 7
  EXPECT_EQ(c.clip.key_poses.size(), 8u);
}

TEST(GltfSampleRate, KeysNoRateLandsFallBackTo30Hz) {
  test::TempDir dir;
  const ImportedClip c =
      import_ok(write_turn(dir.path(), {0.f, 0.3137f, 0.5123f, 0.7071f, 1.f}, {0.f, 30.f, 90.f, 30.f, 0.f}, "LINEAR"));
  EXPECT_FLOAT_EQ(c.clip.sample_rate_hz, 30.f);
  EXPECT_EQ(c.clip.key_poses.size(), 3u);
}

TEST(GltfSampleRate, AStepKeyBetweenFramesJumpsAtTheNextFrameWithAWarning) {
  test::TempDir dir;
  ImportSettings settings;
  settings.sample_rate_hz = 10.f;  // the keys at 0.25 s fall between frames 2 and 3
  const std::filesystem::path path = write_turn(dir.path(), {0.f, 0.25f, 0.5f}, {0.f, 40.f, 0.f}, "STEP");
  const ImportedClip c = import_ok(path, settings);
  const size_t upper = static_cast<size_t>(c.skeleton.find_bone("upper"));
  EXPECT_NEAR(angle_between_deg(c.clip.bones[upper].rotations[2], Quat{}), 0.f, 1e-4f);
  EXPECT_NEAR(angle_between_deg(c.clip.bones[upper].rotations[3], Quat{}), 40.f, 1e-3f);
  EXPECT_TRUE(c.clip.key_poses.empty());  // a jump between frames is not a pose a curve can pass through
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_NE(c.warnings[0].find("1 STEP key times fall between frames at 10 Hz"), std::string::npos) << c.warnings[0];
  EXPECT_NE(c.warnings[0].find("up to 50 ms late"), std::string::npos) << c.warnings[0];
}

TEST(GltfSampleRate, AKeyPoseHoldsAStepChannelAtTheFrameBefore) {
  test::TempDir dir;
  test::GltfDocument doc = test::make_skinned_document();
  // "upper" turns LINEAR with a key at 0.25 s; "lower" STEPs to 40 degrees at 0.22 s.
  const float s = std::sin(0.5f * 40.f * 3.14159265f / 180.f), c = std::cos(0.5f * 40.f * 3.14159265f / 180.f);
  const int linear_times = doc.buffer.add_floats({0.f, 0.25f, 0.5f}, "SCALAR", 1);
  const int linear_values = doc.buffer.add_floats({0, 0, 0, 1, 0, 0, s, c, 0, 0, 0, 1}, "VEC4", 4);
  const int step_times = doc.buffer.add_floats({0.f, 0.22f}, "SCALAR", 1);
  const int step_values = doc.buffer.add_floats({0, 0, 0, 1, 0, 0, s, c}, "VEC4", 4);
  doc.json["animations"][0]["samplers"] = {{{"input", linear_times}, {"output", linear_values}},
                                           {{"input", step_times}, {"output", step_values}, {"interpolation", "STEP"}}};
  doc.json["animations"][0]["channels"].push_back({{"sampler", 1}, {"target", {{"node", 1}, {"path", "rotation"}}}});
  ImportSettings settings;
  settings.sample_rate_hz = 10.f;
  const ImportedClip imported = import_ok(doc.write(dir.path(), "mixed"), settings);
  ASSERT_EQ(imported.clip.key_poses.size(), 1u);
  const SourceKeyPose& key = imported.clip.key_poses[0];
  EXPECT_FLOAT_EQ(key.frame_time, 2.5f);
  const auto degrees = [&](const char* bone) {
    return angle_between_deg(key.pose[static_cast<size_t>(imported.skeleton.find_bone(bone))].rotation, Quat{});
  };
  EXPECT_NEAR(degrees("upper"), 40.f, 1e-3f);  // the LINEAR key itself
  EXPECT_NEAR(degrees("lower"), 0.f, 1e-4f);   // frame 2's value: its jump is at frame 3, as in the frames
}

}  // namespace
}  // namespace ks
