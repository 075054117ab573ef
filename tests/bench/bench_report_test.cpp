// What `keystream bench` prints: a bone-only clip's rate–distortion table
// reads as it did before scalar tracks (no scalar columns), a clip with
// scalar tracks gets their count, the bone and scalar shares of its bytes
// and its worst scalar error against its precision, in Markdown and JSON;
// the sampling table says which rows sample the scalar tracks.

#include "bench/bench_report.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace ks::bench {
namespace {

// What `print` writes, as a string.
template <class Print>
std::string printed(const BenchReport& report, Print print) {
  char* text = nullptr;
  size_t size = 0;
  std::FILE* out = open_memstream(&text, &size);
  EXPECT_NE(out, nullptr);
  if (out == nullptr) return "";
  print(report, out);
  std::fclose(out);
  std::string result(text, size);
  std::free(text);
  return result;
}

// The lines of `text` that start with "|" after the heading that starts with `heading`.
std::vector<std::string> table_after(const std::string& text, const std::string& heading) {
  std::vector<std::string> rows;
  std::istringstream lines(text.substr(std::min(text.find(heading), text.size())));
  std::string line;
  bool in_table = false;
  while (std::getline(lines, line)) {
    if (!line.empty() && line[0] == '|') {
      in_table = true;
      rows.push_back(line);
    } else if (in_table) {
      break;
    }
  }
  return rows;
}

size_t cells(const std::string& row) {
  return static_cast<size_t>(std::count(row.begin(), row.end(), '|')) - 1;
}

RateDistortionPoint point(size_t scalar_tracks) {
  RateDistortionPoint p;
  p.label = "0.1 mm at 3 cm";
  p.tolerance_m = 1e-4f;
  p.shell_distance_m = 0.03f;
  p.stream_bytes = 1000;
  p.metadata_bytes = 200;
  p.key_count = 100;
  if (scalar_tracks > 0) {
    p.scalar_tracks = scalar_tracks;
    p.scalar_bytes = 300;  // bones: 1000 - 200 - 300 = 500
    p.max_scalar_error = 9e-5f;
    p.worst_scalar = "face/smile";
    p.worst_scalar_error = 9e-5f;
    p.worst_scalar_precision = 1e-4f;
    p.worst_scalar_frame = 12;
  }
  return p;
}

ClipRateDistortion clip(const std::string& name, uint32_t scalar_tracks) {
  ClipRateDistortion c;
  c.clip = name;
  c.bones = 3;
  c.scalar_tracks = scalar_tracks;
  c.frames = 6;
  c.sample_rate_hz = 10.f;
  c.points = {point(scalar_tracks)};
  c.at_tolerance = c.points.front();
  return c;
}

constexpr const char* kBoneHeader =
    "| tolerance | bytes | bytes w/o metadata | zstd bytes | keys | bits/key | ratio | max 3 cm mm | p99 3 cm mm | "
    "max 1 m mm | p99 1 m mm | over | floor mm | fixed-width keys / Rice |";

TEST(BenchReportRateDistortion, ABoneOnlyClipHasNoScalarColumns) {
  BenchReport report;
  report.rate_distortion = {clip("walk.bvh", 0)};
  const std::string text = printed(report, print_rate_distortion);
  EXPECT_EQ(text.find("scalar"), std::string::npos) << text;
  EXPECT_NE(text.find("### walk.bvh: 3 bones, 6 frames at 10 Hz"), std::string::npos) << text;
  const std::vector<std::string> rows = table_after(text, "### walk.bvh");
  ASSERT_EQ(rows.size(), 4u);  // header, rule, the point, the bold line
  EXPECT_EQ(rows[0], kBoneHeader);
  for (const std::string& row : rows) EXPECT_EQ(cells(row), 14u) << row;
}

TEST(BenchReportRateDistortion, AClipWithScalarTracksSplitsItsBytesAndShowsItsWorstScalarError) {
  BenchReport report;
  report.rate_distortion = {clip("walk.bvh", 0), clip("face.gltf", 3)};
  const std::string text = printed(report, print_rate_distortion);
  // The columns are explained once, as some clip has them.
  EXPECT_NE(text.find("A clip with scalar tracks (morph-target weights, user curves) has four more columns"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("### face.gltf: 3 bones, 3 scalar tracks, 6 frames at 10 Hz"), std::string::npos) << text;
  // The bone-only clip beside it is unchanged.
  const std::vector<std::string> bone_rows = table_after(text, "### walk.bvh");
  ASSERT_EQ(bone_rows.size(), 4u);
  EXPECT_EQ(bone_rows[0], kBoneHeader);

  const std::vector<std::string> rows = table_after(text, "### face.gltf");
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0],
            std::string(kBoneHeader) + " scalar tracks | bone bytes | scalar bytes | worst scalar error / precision |");
  for (const std::string& row : rows) EXPECT_EQ(cells(row), 18u) << row;
  const std::string cells_of_point = " 3 | 500 (50.0%) | 300 (30.0%) | 9e-05 / 0.0001 |";
  EXPECT_EQ(rows[2].substr(rows[2].size() - cells_of_point.size()), cells_of_point) << rows[2];
  EXPECT_EQ(text.find("VIOLATION", text.find("###")), std::string::npos) << text;  // the intro names it
}

TEST(BenchReportRateDistortion, AScalarTrackOverItsPrecisionIsNotedAndAViolationWithoutAFloor) {
  BenchReport report;
  report.rate_distortion = {clip("face.gltf", 3)};
  RateDistortionPoint& p = report.rate_distortion[0].points[0];
  p.scalars_over = 1;
  p.worst_scalar_error = 2e-4f;
  p.max_scalar_error = 2e-4f;
  // Over at a floor the fit reported: noted, no violation.
  std::string text = printed(report, print_rate_distortion);
  EXPECT_NE(text.find("| 0.0002 / 0.0001, 1 over |"), std::string::npos) << text;
  EXPECT_NE(text.find("- 0.1 mm at 3 cm: 1 of 3 scalar tracks over their precision, at a floor; worst face/smile "
                      "0.0002 > 0.0001 at frame 12"),
            std::string::npos)
      << text;
  EXPECT_EQ(violations(report), 0u);
  EXPECT_EQ(text.find("VIOLATION", text.find("###")), std::string::npos) << text;  // the intro names it

  // Over where the fit believed it within: a violation, counted and named.
  p.scalars_over_without_floor = 1;
  EXPECT_EQ(violations(report), 1u);
  text = printed(report, print_rate_distortion);
  EXPECT_NE(text.find("| 0.0002 / 0.0001, 1 over **VIOLATION** |"), std::string::npos) << text;
  EXPECT_NE(text.find("- VIOLATION at 0.1 mm at 3 cm: 1 of 3 scalar tracks over their precision, 1 with no floor "
                      "reported"),
            std::string::npos)
      << text;
  // The bones' "over" column stays the bones'.
  EXPECT_NE(text.find("| 0 | - | 1.000 |"), std::string::npos) << text;
}

TEST(BenchReportJson, ScalarFieldsAreZeroForABoneOnlyClipAndFilledForAClipWithScalarTracks) {
  BenchReport report;
  report.rate_distortion = {clip("walk.bvh", 0), clip("face.gltf", 3)};
  const nlohmann::json j = nlohmann::json::parse(report_json(report));
  const nlohmann::json& bones_only = j["rate_distortion"][0];
  EXPECT_EQ(bones_only["scalar_tracks"], 0);
  const nlohmann::json& b = bones_only["points"][0];
  EXPECT_EQ(b["scalar_tracks"], 0);
  EXPECT_EQ(b["scalar_bytes"], 0);
  EXPECT_EQ(b["bone_bytes"], 800);  // the stream without its metadata
  EXPECT_EQ(b["scalar_share_of_stream"], 0.0);
  EXPECT_TRUE(b["worst_scalar"].is_null());

  const nlohmann::json& face = j["rate_distortion"][1];
  EXPECT_EQ(face["scalar_tracks"], 3);
  const nlohmann::json& f = face["at_tolerance"];
  EXPECT_EQ(f["scalar_tracks"], 3);
  EXPECT_EQ(f["scalar_bytes"], 300);
  EXPECT_EQ(f["bone_bytes"], 500);
  EXPECT_DOUBLE_EQ(f["bone_share_of_stream"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(f["scalar_share_of_stream"].get<double>(), 0.3);
  EXPECT_EQ(f["scalars_over"], 0);
  EXPECT_EQ(f["worst_scalar"]["track"], "face/smile");
  EXPECT_FLOAT_EQ(f["worst_scalar"]["precision"].get<float>(), 1e-4f);
  EXPECT_EQ(f["worst_scalar"]["frame"], 12);
}

ClipTimings timings(const std::string& name, uint32_t scalar_tracks) {
  ClipTimings t;
  t.name = name;
  t.bones = 3;
  t.frames = 6;
  t.sample_rate_hz = 10.f;
  t.keys = 40;
  t.scalar_tracks = scalar_tracks;
  t.scalar_values = scalar_tracks;
  SamplingRow row;
  row.measure = "sequential at the clip's 10 Hz";
  row.scalars = scalar_tracks > 0;
  t.rows.push_back(row);
  if (scalar_tracks > 0) {
    SamplingRow bones = row;
    bones.measure += std::string(", ") + kBonesOnly;
    bones.scalars = false;
    t.rows.push_back(bones);
    SamplingRow curves = row;
    curves.measure += std::string(", ") + kCurvesOnly;
    curves.curves_only = true;
    t.rows.push_back(curves);
  }
  return t;
}

TEST(BenchReportSampling, OnlyAClipWithScalarTracksSaysWhichRowsSampleThem) {
  BenchReport report;
  report.timings = {timings("walk.bvh", 0), timings("face.gltf", 3)};
  const std::string text = printed(report, print_sampling);
  EXPECT_NE(text.find("### walk.bvh: 3 bones, 6 frames at 10 Hz, 40 keys"), std::string::npos) << text;
  EXPECT_NE(text.find("### face.gltf: 3 bones, 3 scalar tracks, 6 frames at 10 Hz, 40 keys"), std::string::npos)
      << text;
  const size_t face = text.find("### face.gltf");
  const size_t note = text.find("Every row samples the 3 scalar tracks too (3 floats a pose");
  ASSERT_NE(note, std::string::npos) << text;
  EXPECT_GT(note, face);  // under the clip that has them, not the bone-only one
  EXPECT_NE(text.find("| sequential at the clip's 10 Hz, bones only | warm |"), std::string::npos) << text;
  EXPECT_NE(text.find("| sequential at the clip's 10 Hz, curves only | warm |"), std::string::npos) << text;
  EXPECT_NE(text.find("the \"curves only\" rows: the curves alone (Player::sample_scalars)"), std::string::npos) << text;

  const nlohmann::json j = nlohmann::json::parse(report_json(report));
  EXPECT_EQ(j["timings"][0]["scalar_tracks"], 0);
  EXPECT_EQ(j["timings"][0]["rows"][0]["scalars"], false);
  EXPECT_EQ(j["timings"][1]["scalar_values"], 3);
  EXPECT_EQ(j["timings"][1]["rows"][0]["scalars"], true);
  EXPECT_EQ(j["timings"][1]["rows"][1]["scalars"], false);
  EXPECT_EQ(j["timings"][1]["rows"][2]["curves_only"], true);
  EXPECT_EQ(j["timings"][1]["rows"][0]["curves_only"], false);
}

}  // namespace
}  // namespace ks::bench
