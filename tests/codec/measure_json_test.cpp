// measurement_json: the figures named, with bones against their tolerances.

#include "keystream/codec/measure_json.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <vector>

namespace ks {
namespace {

TEST(MeasurementJson, NamesEveryBoneAndCountsThoseOver) {
  Skeleton skeleton;
  skeleton.bone_names = {"hips", "spine"};
  skeleton.parents = {-1, 0};
  skeleton.rest_pose.resize(2);
  ClipMeasurement m;
  m.sizes.raw_bytes = 800;
  m.sizes.compressed_bytes = 100;
  m.max_track_error[1] = 0.5f;
  m.distances_m = {0.03f};
  m.max_object_error = {2e-4f};
  m.p99_object_error = {1e-4f};
  m.bone_error_m = {5e-5f, 2e-4f};
  m.bone_worst_frame = {3, 7};
  m.bone_worst_frame_time = {3.f, 7.f};
  const std::vector<float> tolerances = {1e-4f, 1e-4f};
  const nlohmann::json j = nlohmann::json::parse(measurement_json(m, skeleton, tolerances));
  EXPECT_EQ(j["compressed_bytes"], 100);
  EXPECT_DOUBLE_EQ(j["ratio"].get<double>(), 8.0);
  EXPECT_FLOAT_EQ(j["max_rotation_error_deg"].get<float>(), 0.5f);
  ASSERT_EQ(j["object_space_error"].size(), 1u);
  EXPECT_FLOAT_EQ(j["object_space_error"][0]["max_m"].get<float>(), 2e-4f);
  ASSERT_EQ(j["bone_errors"].size(), 2u);
  EXPECT_EQ(j["bone_errors"][1]["bone"], "spine");
  EXPECT_EQ(j["bone_errors"][1]["worst_frame"], 7);
  EXPECT_EQ(j["bones_over"], 1);
}

TEST(MeasurementJson, LeavesOutTolerancesItIsNotGiven) {
  Skeleton skeleton;
  skeleton.bone_names = {"root"};
  ClipMeasurement m;
  m.bone_error_m = {1e-3f};
  m.bone_worst_frame = {0};
  m.bone_worst_frame_time = {0.f};
  const nlohmann::json j = nlohmann::json::parse(measurement_json(m, skeleton));
  EXPECT_FALSE(j["bone_errors"][0].contains("tolerance_m"));
  EXPECT_EQ(j["bones_over"], 0);
}

}  // namespace
}  // namespace ks
