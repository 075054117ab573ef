// Tests for core/io/bvh_import.h: real CMU clips checked against their own text,
// synthetic clips with known answers, and hostile input that must be refused cleanly.
#include "keystream/io/bvh_import.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace ks {
namespace {

const std::filesystem::path kClips = KS_CLIPS_DIR;
const std::filesystem::path kCgspeed = kClips / "cmu_cgspeed_01_01.bvh";
const std::filesystem::path kCc4 = kClips / "cmu_cc4_001_14.bvh";
const std::filesystem::path kBoxingToes = std::filesystem::path(KS_ASSIMP_MODELS_DIR) / "BVH" / "Boxing_Toes.bvh";
constexpr double kPi = 3.14159265358979323846;
constexpr double kCgspeedUnit = (1.0 / 0.45) * 2.54 / 100.0;  // 0.056444 m

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

ImportSettings unit_scale(float metres_per_unit) {
  ImportSettings s;
  s.bvh_unit_scale_m = metres_per_unit;
  return s;
}

// ---------------------------------------------------------------------------
// Reference math in double, written independently of the importer: rotation
// matrices composed in the listed order, converted to a quaternion.

struct Mat3 {
  double m[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
};

Mat3 operator*(const Mat3& a, const Mat3& b) {
  Mat3 r;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      r.m[i][j] = a.m[i][0] * b.m[0][j] + a.m[i][1] * b.m[1][j] + a.m[i][2] * b.m[2][j];
    }
  }
  return r;
}

// Rotation by `degrees` about axis 'X', 'Y' or 'Z', acting on column vectors.
Mat3 axis_matrix(char axis, double degrees) {
  const double a = degrees * kPi / 180.0, c = std::cos(a), s = std::sin(a);
  Mat3 r;
  if (axis == 'X') r = {{{1, 0, 0}, {0, c, -s}, {0, s, c}}};
  if (axis == 'Y') r = {{{c, 0, s}, {0, 1, 0}, {-s, 0, c}}};
  if (axis == 'Z') r = {{{c, -s, 0}, {s, c, 0}, {0, 0, 1}}};
  return r;
}

// Product of the axis rotations in the listed order, e.g. "ZYX" = Rz * Ry * Rx.
Mat3 euler_matrix(const std::string& order, const std::vector<double>& degrees) {
  Mat3 r;
  for (size_t i = 0; i < order.size(); ++i) r = r * axis_matrix(order[i], degrees[i]);
  return r;
}

struct QuatD {
  double x, y, z, w;
};

// Shepperd's method: stable for every rotation.
QuatD matrix_to_quat(const Mat3& r) {
  const auto& m = r.m;
  const double trace = m[0][0] + m[1][1] + m[2][2];
  if (trace > 0) {
    const double s = 2 * std::sqrt(1 + trace);
    return {(m[2][1] - m[1][2]) / s, (m[0][2] - m[2][0]) / s, (m[1][0] - m[0][1]) / s, s / 4};
  }
  if (m[0][0] > m[1][1] && m[0][0] > m[2][2]) {
    const double s = 2 * std::sqrt(1 + m[0][0] - m[1][1] - m[2][2]);
    return {s / 4, (m[0][1] + m[1][0]) / s, (m[0][2] + m[2][0]) / s, (m[2][1] - m[1][2]) / s};
  }
  if (m[1][1] > m[2][2]) {
    const double s = 2 * std::sqrt(1 + m[1][1] - m[0][0] - m[2][2]);
    return {(m[0][1] + m[1][0]) / s, s / 4, (m[1][2] + m[2][1]) / s, (m[0][2] - m[2][0]) / s};
  }
  const double s = 2 * std::sqrt(1 + m[2][2] - m[0][0] - m[1][1]);
  return {(m[0][2] + m[2][0]) / s, (m[1][2] + m[2][1]) / s, s / 4, (m[1][0] - m[0][1]) / s};
}

// q and -q are the same rotation: compare component-wise after aligning signs.
::testing::AssertionResult same_rotation(Quat actual, QuatD expected, double tolerance = 1e-5) {
  const double d = actual.x * expected.x + actual.y * expected.y + actual.z * expected.z + actual.w * expected.w;
  const double sign = d < 0 ? -1.0 : 1.0;
  const double err = std::max({std::fabs(actual.x - sign * expected.x), std::fabs(actual.y - sign * expected.y),
                               std::fabs(actual.z - sign * expected.z), std::fabs(actual.w - sign * expected.w)});
  if (err <= tolerance) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "rotation (" << actual.x << ", " << actual.y << ", " << actual.z << ", "
                                       << actual.w << ") differs from (" << expected.x << ", " << expected.y << ", "
                                       << expected.z << ", " << expected.w << ") by " << err;
}

::testing::AssertionResult near_vec(Vec3 actual, double x, double y, double z, double tolerance = 1e-5) {
  const double err = std::max({std::fabs(actual.x - x), std::fabs(actual.y - y), std::fabs(actual.z - z)});
  if (err <= tolerance) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "(" << actual.x << ", " << actual.y << ", " << actual.z << ") differs from ("
                                       << x << ", " << y << ", " << z << ") by " << err;
}

// ---------------------------------------------------------------------------
// Reading the real files independently of the importer.

// The numbers of motion frame `k`: the k-th non-blank line after "Frame Time".
std::vector<double> motion_frame(const std::string& text, size_t k) {
  std::istringstream in(text.substr(text.find("Frame Time")));
  std::string line;
  std::getline(in, line);
  size_t index = 0;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::vector<double> values;
    double v = 0;
    while (words >> v) values.push_back(v);
    if (values.empty()) continue;
    if (index++ == k) return values;
  }
  return {};
}

// Every CHANNELS line of the file, normalised to single spaces.
std::vector<std::string> channel_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string word, joined;
    while (words >> word) joined += (joined.empty() ? "" : " ") + word;
    if (joined.rfind("CHANNELS", 0) == 0) lines.push_back(joined);
  }
  return lines;
}

size_t count_of(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t p = text.find(needle); p != std::string::npos; p = text.find(needle, p + 1)) ++n;
  return n;
}

// Largest vertical extent (y-up) of joints and end sites in model space.
float height(const ImportedClip& c, const std::vector<Transform>& local) {
  const std::vector<Transform> model = local_to_model(c.skeleton, local);
  float lo = 1e30f, hi = -1e30f;
  for (const Transform& t : model) {
    lo = std::min(lo, t.translation.y);
    hi = std::max(hi, t.translation.y);
  }
  for (const EndSite& e : c.skeleton.end_sites) {
    const float y = transform_point(model[static_cast<size_t>(e.parent)], e.offset).y;
    lo = std::min(lo, y);
    hi = std::max(hi, y);
  }
  return hi - lo;
}

// Median over the clip's frames of the standing height: robust to crouches and raised arms.
float median_height(const ImportedClip& c) {
  std::vector<float> heights;
  for (uint32_t f = 0; f < c.clip.frame_count; f += 7) heights.push_back(height(c, c.clip.pose_at(f)));
  std::sort(heights.begin(), heights.end());
  return heights[heights.size() / 2];
}

// ---------------------------------------------------------------------------
// Real clips

struct RealClip {
  std::filesystem::path path;
  size_t bones;
  uint32_t frames;
  double rate_hz;
  double frame_time_s;
  double take_s;  // frames x frame time, as the MANIFEST states it
  double unit;
};

class RealClipTest : public ::testing::TestWithParam<RealClip> {};

TEST_P(RealClipTest, CountsRateAndMetadata) {
  const RealClip& expected = GetParam();
  const Result<ImportedClip> r = import_bvh(expected.path, {});
  ASSERT_TRUE(r.ok()) << r.error();
  const ImportedClip& c = r.value();
  EXPECT_EQ(c.skeleton.bone_count(), expected.bones);
  EXPECT_EQ(c.clip.frame_count, expected.frames);
  EXPECT_NEAR(c.clip.sample_rate_hz, expected.rate_hz, 1e-3);
  EXPECT_NEAR(c.clip.frame_count / c.clip.sample_rate_hz, expected.take_s, 0.01);
  // duration_s() runs from the first frame to the last: one frame time less.
  EXPECT_NEAR(c.clip.duration_s(), (expected.frames - 1) * expected.frame_time_s, 1e-3);
  EXPECT_EQ(c.source, expected.path);
  EXPECT_EQ(c.clip.name, expected.path.stem().string());
  EXPECT_EQ(c.animation_names, std::vector<std::string>{c.clip.name});
  EXPECT_EQ(c.animation_index, 0);
  EXPECT_FALSE(c.mesh.has_value());
  EXPECT_TRUE(c.skeleton.inverse_bind.empty());
  EXPECT_TRUE(c.warnings.empty()) << c.warnings.front();
  EXPECT_EQ(c.skeleton.end_sites.size(), count_of(read_text(expected.path), "End Site"));
  EXPECT_TRUE(c.skeleton.validate().ok());
  EXPECT_TRUE(c.clip.validate(c.skeleton).ok());
}

TEST_P(RealClipTest, AutomaticUnitGivesHumanHeight) {
  const RealClip& expected = GetParam();
  const Result<ImportedClip> r = import_bvh(expected.path, {});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_NEAR(r.value().unit_scale_m, expected.unit, 1e-6);
  const float h = median_height(r.value());
  EXPECT_GT(h, 1.4f);
  EXPECT_LT(h, 2.1f);
}

TEST_P(RealClipTest, SampledValuesMatchTheFile) {
  const RealClip& expected = GetParam();
  const std::string text = read_text(expected.path);
  // Layout the expectations rely on: the root has 6 channels, every other
  // joint 3, all rotations in ZYX order (as the MANIFEST states).
  const std::vector<std::string> channels = channel_lines(text);
  ASSERT_EQ(channels.size(), expected.bones);
  EXPECT_EQ(channels[0], "CHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation");
  for (size_t i = 1; i < channels.size(); ++i) EXPECT_EQ(channels[i], "CHANNELS 3 Zrotation Yrotation Xrotation");

  const Result<ImportedClip> r = import_bvh(expected.path, unit_scale(static_cast<float>(expected.unit)));
  ASSERT_TRUE(r.ok()) << r.error();
  const ImportedClip& c = r.value();
  for (uint32_t frame : {0u, 1u, 2u, expected.frames / 3, expected.frames / 2, expected.frames - 1}) {
    SCOPED_TRACE("frame " + std::to_string(frame));
    const std::vector<double> v = motion_frame(text, frame);
    ASSERT_EQ(v.size(), 6 + 3 * (expected.bones - 1));
    const double unit = static_cast<float>(expected.unit);
    EXPECT_TRUE(near_vec(c.clip.bones[0].translations[frame], v[0] * unit, v[1] * unit, v[2] * unit));
    for (size_t bone : {size_t{0}, size_t{1}, size_t{3}, expected.bones / 2, expected.bones - 1}) {
      SCOPED_TRACE("bone " + c.skeleton.bone_names[bone]);
      const size_t column = bone == 0 ? 3 : 6 + 3 * (bone - 1);
      const QuatD q = matrix_to_quat(euler_matrix("ZYX", {v[column], v[column + 1], v[column + 2]}));
      EXPECT_TRUE(same_rotation(c.clip.bones[bone].rotations[frame], q));
      if (bone != 0) {  // no position channels: the translation is the OFFSET
        const Vec3 rest = c.skeleton.rest_pose[bone].translation;
        EXPECT_TRUE(near_vec(c.clip.bones[bone].translations[frame], rest.x, rest.y, rest.z, 0.0));
      }
      EXPECT_TRUE(near_vec(c.clip.bones[bone].scales[frame], 1, 1, 1, 0.0));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Cmu, RealClipTest,
                         ::testing::Values(RealClip{kCgspeed, 31, 2752, 120.0, 0.0083333, 22.93, kCgspeedUnit},
                                           RealClip{kCc4, 100, 1169, 59.999, 0.016667, 19.48, 0.01}),
                         [](const auto& p) { return p.index == 0 ? "Cgspeed" : "Cc4"; });

TEST(BvhImport, CgspeedEndSiteAndRestPose) {
  const Result<ImportedClip> r = import_bvh(kCgspeed, {});
  ASSERT_TRUE(r.ok()) << r.error();
  const Skeleton& s = r.value().skeleton;
  // The first End Site hangs from LeftToeBase with OFFSET 0.00000 -0.00000 1.18966.
  ASSERT_FALSE(s.end_sites.empty());
  ASSERT_EQ(s.bone_names[static_cast<size_t>(s.end_sites[0].parent)], "LeftToeBase");
  EXPECT_TRUE(near_vec(s.end_sites[0].offset, 0, 0, 1.18966 * kCgspeedUnit));
  // LeftUpLeg: OFFSET 1.36306 -1.79463 0.83929, identity rotation, unit scale.
  const int32_t up_leg = s.find_bone("LeftUpLeg");
  ASSERT_EQ(up_leg, 2);
  EXPECT_EQ(s.parents[2], 1);
  const Transform& rest = s.rest_pose[2];
  EXPECT_TRUE(near_vec(rest.translation, 1.36306 * kCgspeedUnit, -1.79463 * kCgspeedUnit, 0.83929 * kCgspeedUnit));
  EXPECT_TRUE(same_rotation(rest.rotation, {0, 0, 0, 1}, 0.0));
  EXPECT_TRUE(near_vec(rest.scale, 1, 1, 1, 0.0));
}

TEST(BvhImport, BoxingToesFrameCountMismatchIsAWarning) {
  const Result<ImportedClip> r = import_bvh(kBoxingToes, {});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.value().clip.frame_count, 3070u);
  ASSERT_EQ(r.value().warnings.size(), 1u);
  const std::string& w = r.value().warnings[0];
  EXPECT_NE(w.find(kBoxingToes.string()), std::string::npos) << w;
  EXPECT_NE(w.find("3069"), std::string::npos) << w;
  EXPECT_NE(w.find("using 3070"), std::string::npos) << w;
}

// ---------------------------------------------------------------------------
// Synthetic clips

// A BVH with one ROOT carrying `channels`, then one motion line per frame.
std::string one_joint(const std::string& channels, const std::vector<std::string>& frames,
                      const std::string& offset = "0 0 0") {
  std::istringstream names(channels);
  std::string name;
  size_t n = 0;
  while (names >> name) ++n;
  std::string text = "HIERARCHY\nROOT Hips\n{\n  OFFSET " + offset + "\n  CHANNELS " + std::to_string(n) + " " +
                     channels +
                     "\n  End Site\n  {\n    OFFSET 0 10 0\n  }\n}\nMOTION\nFrames: " + std::to_string(frames.size()) +
                     "\nFrame Time: 0.1\n";
  for (const std::string& f : frames) text += f + "\n";
  return text;
}

Result<ImportedClip> import_text(const std::string& text, const ImportSettings& settings = unit_scale(1.f)) {
  return import_bvh_text(text, "test.bvh", settings);
}

struct OrderCase {
  const char* channels;  // three rotation channel names
  const char* order;     // their axes, in the listed order
};

class ChannelOrderTest : public ::testing::TestWithParam<OrderCase> {};

TEST_P(ChannelOrderTest, RotationIsTheProductInListedOrder) {
  const std::vector<double> angles = {30, -45, 70};
  const Result<ImportedClip> r = import_text(one_joint(GetParam().channels, {"0 0 0", "30 -45 70"}));
  ASSERT_TRUE(r.ok()) << r.error();
  const Mat3 m = euler_matrix(GetParam().order, angles);
  const Quat q = r.value().clip.bones[0].rotations[1];
  EXPECT_TRUE(same_rotation(q, matrix_to_quat(m)));
  // The same rotation applied to vectors, as column vectors: R v.
  for (int axis = 0; axis < 3; ++axis) {
    const Vec3 v{axis == 0 ? 1.f : 0.f, axis == 1 ? 1.f : 0.f, axis == 2 ? 1.f : 0.f};
    EXPECT_TRUE(near_vec(rotate(q, v), m.m[0][axis], m.m[1][axis], m.m[2][axis]));
  }
  EXPECT_TRUE(same_rotation(r.value().clip.bones[0].rotations[0], {0, 0, 0, 1}));
}

INSTANTIATE_TEST_SUITE_P(AllSix, ChannelOrderTest,
                         ::testing::Values(OrderCase{"Xrotation Yrotation Zrotation", "XYZ"},
                                           OrderCase{"Xrotation Zrotation Yrotation", "XZY"},
                                           OrderCase{"Yrotation Xrotation Zrotation", "YXZ"},
                                           OrderCase{"Yrotation Zrotation Xrotation", "YZX"},
                                           OrderCase{"Zrotation Xrotation Yrotation", "ZXY"},
                                           OrderCase{"Zrotation Yrotation Xrotation", "ZYX"}),
                         [](const auto& p) { return std::string(p.param.order); });

TEST(BvhImport, NinetyDegreesAboutEachAxis) {
  const double h = std::sqrt(0.5);
  const Result<ImportedClip> r =
      import_text(one_joint("Xrotation Yrotation Zrotation", {"90 0 0", "0 90 0", "0 0 90"}));
  ASSERT_TRUE(r.ok()) << r.error();
  const std::vector<Quat>& q = r.value().clip.bones[0].rotations;
  EXPECT_TRUE(same_rotation(q[0], {h, 0, 0, h}));
  EXPECT_TRUE(same_rotation(q[1], {0, h, 0, h}));
  EXPECT_TRUE(same_rotation(q[2], {0, 0, h, h}));
  EXPECT_TRUE(near_vec(rotate(q[0], {0, 1, 0}), 0, 0, 1));  // right-handed: X turns y into z
  EXPECT_TRUE(near_vec(rotate(q[1], {0, 0, 1}), 1, 0, 0));  // Y turns z into x
  EXPECT_TRUE(near_vec(rotate(q[2], {1, 0, 0}), 0, 1, 0));  // Z turns x into y
}

TEST(BvhImport, ListedOrderDecidesWhichRotationActsFirst) {
  // Rz(90) Rx(90) y: Rx takes y to z, Rz keeps z. Rx(90) Rz(90) y: Rz takes y to -x, Rx keeps x.
  const Result<ImportedClip> zx = import_text(one_joint("Zrotation Xrotation", {"90 90", "90 90"}));
  const Result<ImportedClip> xz = import_text(one_joint("Xrotation Zrotation", {"90 90", "90 90"}));
  ASSERT_TRUE(zx.ok() && xz.ok()) << zx.error() << xz.error();
  EXPECT_TRUE(near_vec(rotate(zx.value().clip.bones[0].rotations[0], {0, 1, 0}), 0, 0, 1));
  EXPECT_TRUE(near_vec(rotate(xz.value().clip.bones[0].rotations[0], {0, 1, 0}), -1, 0, 0));
}

TEST(BvhImport, PositionChannelsInAnyOrderReplaceTheOffset) {
  const Result<ImportedClip> r = import_text(one_joint("Zposition Xposition Yposition Xrotation Yrotation Zrotation",
                                                       {"3 1 2 0 0 0", "6 4 5 0 0 90"}, "10 20 30"));
  ASSERT_TRUE(r.ok()) << r.error();
  const BoneTracks& t = r.value().clip.bones[0];
  EXPECT_TRUE(near_vec(t.translations[0], 1, 2, 3));
  EXPECT_TRUE(near_vec(t.translations[1], 4, 5, 6));
  EXPECT_TRUE(same_rotation(t.rotations[1], {0, 0, std::sqrt(0.5), std::sqrt(0.5)}));
  EXPECT_TRUE(near_vec(r.value().skeleton.rest_pose[0].translation, 10, 20, 30));
}

TEST(BvhImport, PartialPositionChannelsKeepTheOtherOffsetAxes) {
  const Result<ImportedClip> r = import_text(one_joint("Yposition", {"9", "-9"}, "5 6 7"));
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_TRUE(near_vec(r.value().clip.bones[0].translations[0], 5, 9, 7));
  EXPECT_TRUE(near_vec(r.value().clip.bones[0].translations[1], 5, -9, 7));
}

TEST(BvhImport, ThreeChannelRootTranslatesByItsOffset) {
  const Result<ImportedClip> r =
      import_text(one_joint("Zrotation Xrotation Yrotation", {"0 0 0", "10 20 30"}, "1 2 3"), unit_scale(0.01f));
  ASSERT_TRUE(r.ok()) << r.error();
  for (const Vec3& t : r.value().clip.bones[0].translations) EXPECT_TRUE(near_vec(t, 0.01, 0.02, 0.03));
}

constexpr const char* kThreeJoints = R"(HIERARCHY
ROOT Hips
{
  OFFSET 0 100 0
  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
  JOINT Spine
  {
    OFFSET 0 10 0
    CHANNELS 6 Xposition Yposition Zposition Yrotation Xrotation Zrotation
    JOINT Head
    {
      OFFSET 0 20 0
      CHANNELS 3 Xrotation Yrotation Zrotation
      End Site
      {
        OFFSET 0 15 0
      }
    }
  }
  JOINT Leg
  {
    OFFSET 10 -5 0
    End Site
    {
      OFFSET 0 -90 2
    }
  }
}
MOTION
Frames: 2
Frame Time: 0.04
1 2 3 10 20 30 4 5 6 40 50 60 70 80 90
-1 -2 -3 0 0 0 0 0 0 0 0 0 0 0 0
)";

TEST(BvhImport, ColumnsGoToTheirJoints) {
  const Result<ImportedClip> r = import_text(kThreeJoints, unit_scale(0.01f));
  ASSERT_TRUE(r.ok()) << r.error();
  const ImportedClip& c = r.value();
  ASSERT_EQ(c.skeleton.bone_names, (std::vector<std::string>{"Hips", "Spine", "Head", "Leg"}));
  EXPECT_EQ(c.skeleton.parents, (std::vector<int32_t>{-1, 0, 1, 0}));
  EXPECT_NEAR(c.clip.sample_rate_hz, 25.f, 1e-4);
  const auto& b = c.clip.bones;
  EXPECT_TRUE(near_vec(b[0].translations[0], 0.01, 0.02, 0.03));
  EXPECT_TRUE(same_rotation(b[0].rotations[0], matrix_to_quat(euler_matrix("ZXY", {10, 20, 30}))));
  EXPECT_TRUE(near_vec(b[1].translations[0], 0.04, 0.05, 0.06));  // 6-channel joint below the root
  EXPECT_TRUE(same_rotation(b[1].rotations[0], matrix_to_quat(euler_matrix("YXZ", {40, 50, 60}))));
  EXPECT_TRUE(near_vec(b[2].translations[0], 0, 0.2, 0));
  EXPECT_TRUE(same_rotation(b[2].rotations[0], matrix_to_quat(euler_matrix("XYZ", {70, 80, 90}))));
  EXPECT_TRUE(near_vec(b[3].translations[1], 0.1, -0.05, 0));  // no channels: rest every frame
  EXPECT_TRUE(same_rotation(b[3].rotations[1], {0, 0, 0, 1}));
  EXPECT_TRUE(near_vec(b[0].translations[1], -0.01, -0.02, -0.03));
}

TEST(BvhImport, EndSitesAreScaledAndHangFromTheirBone) {
  const Result<ImportedClip> r = import_text(kThreeJoints, unit_scale(0.01f));
  ASSERT_TRUE(r.ok()) << r.error();
  const std::vector<EndSite>& sites = r.value().skeleton.end_sites;
  ASSERT_EQ(sites.size(), 2u);
  EXPECT_EQ(sites[0].parent, 2);
  EXPECT_TRUE(near_vec(sites[0].offset, 0, 0.15, 0));
  EXPECT_EQ(sites[1].parent, 3);
  EXPECT_TRUE(near_vec(sites[1].offset, 0, -0.9, 0.02));
}

TEST(BvhImport, ExplicitUnitScaleIsHonoured) {
  const Result<ImportedClip> r = import_text(kThreeJoints, unit_scale(0.5f));
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_FLOAT_EQ(r.value().unit_scale_m, 0.5f);
  EXPECT_TRUE(near_vec(r.value().skeleton.rest_pose[0].translation, 0, 50, 0));
  EXPECT_TRUE(near_vec(r.value().clip.bones[0].translations[0], 0.5, 1, 1.5));
  EXPECT_TRUE(near_vec(r.value().skeleton.end_sites[0].offset, 0, 7.5, 0));
}

TEST(BvhImport, RefusesABadUnitScaleSetting) {
  for (float bad : {-1.f, std::nanf(""), std::numeric_limits<float>::infinity()}) {
    const Result<ImportedClip> r = import_text(kThreeJoints, unit_scale(bad));
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().find("test.bvh: BVH unit scale"), std::string::npos) << r.error();
  }
}

TEST(BvhImport, AutomaticUnitScalePicksTheUnitClosestToHumanHeight) {
  struct Case {
    const char* tip;  // End Site offset under a root at the origin, file units
    float unit;
  };
  for (const Case& c : {Case{"0 1.75 0", 1.f}, Case{"0 175 0", 0.01f}, Case{"0 1750 0", 0.001f},
                        Case{"0 69 0", 0.0254f}, Case{"0 31 0", static_cast<float>(kCgspeedUnit)},
                        Case{"160 0 0", 0.01f}, Case{"0 0 -2", 1.f}, Case{"0 0 0", 0.01f}}) {
    SCOPED_TRACE(c.tip);
    std::string text = one_joint("Xrotation", {"0", "0"});
    text.replace(text.find("OFFSET 0 10 0"), 13, std::string("OFFSET ") + c.tip);
    const Result<ImportedClip> r = import_text(text, {});
    ASSERT_TRUE(r.ok()) << r.error();
    EXPECT_FLOAT_EQ(r.value().unit_scale_m, c.unit);
    EXPECT_TRUE(r.value().warnings.empty());  // an automatic choice is not a warning
  }
}

TEST(BvhImport, SampleRateSettingDoesNotResampleBvh) {
  ImportSettings s = unit_scale(1.f);
  s.sample_rate_hz = 30.f;
  const Result<ImportedClip> r = import_text(kThreeJoints, s);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_NEAR(r.value().clip.sample_rate_hz, 25.f, 1e-4);
  EXPECT_EQ(r.value().clip.frame_count, 2u);
}

TEST(BvhImport, TextImportNamesTheClipAfterTheSourceName) {
  const Result<ImportedClip> r = import_bvh_text(kThreeJoints, "dir/walk.bvh", {});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_TRUE(r.value().source.empty());
  EXPECT_EQ(r.value().clip.name, "walk");
  EXPECT_EQ(r.value().animation_names, std::vector<std::string>{"walk"});
}

TEST(BvhImport, RepeatedJointNamesAreMadeUnique) {
  const std::string text = R"(HIERARCHY
ROOT Arm
{
  OFFSET 0 0 0
  CHANNELS 1 Xrotation
  JOINT Arm
  {
    OFFSET 0 1 0
  }
  JOINT Arm_2
  {
    OFFSET 0 2 0
  }
  JOINT Arm
  {
    OFFSET 0 3 0
  }
}
MOTION
Frames: 2
Frame Time: 0.1
0
1
)";
  const Result<ImportedClip> r = import_text(text);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.value().skeleton.bone_names, (std::vector<std::string>{"Arm", "Arm_3", "Arm_2", "Arm_4"}));
  ASSERT_EQ(r.value().warnings.size(), 2u);
  EXPECT_NE(r.value().warnings[0].find("test.bvh: line 6"), std::string::npos) << r.value().warnings[0];
  EXPECT_NE(r.value().warnings[0].find("'Arm_3'"), std::string::npos) << r.value().warnings[0];
}

TEST(BvhImport, ManyRepeatedNamesGetOneSummaryWarning) {
  std::string text = "HIERARCHY\nROOT B\n{\nOFFSET 0 0 0\nCHANNELS 1 Xrotation\n";
  for (int i = 0; i < 30; ++i) text += "JOINT B\n{\nOFFSET 0 1 0\n}\n";
  text += "}\nMOTION\nFrames: 2\nFrame Time: 0.1\n0\n0\n";
  const Result<ImportedClip> r = import_text(text);
  ASSERT_TRUE(r.ok()) << r.error();
  const std::vector<std::string>& names = r.value().skeleton.bone_names;
  EXPECT_EQ(names[1], "B_2");
  EXPECT_EQ(names[30], "B_31");
  ASSERT_EQ(r.value().warnings.size(), 11u);
  EXPECT_NE(r.value().warnings[10].find("20 more repeated joint names"), std::string::npos) << r.value().warnings[10];
}

TEST(BvhImport, JointNamesMayHoldSpacesAndGluedBraces) {
  const std::string text =
      "HIERARCHY\nROOT Left Hip{\nOFFSET 0 0 0\nCHANNELS 1 Xrotation}\nMOTION\nFrames: 2\n"
      "Frame Time: 0.1\n0\n0\n";
  const Result<ImportedClip> r = import_text(text);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.value().skeleton.bone_names[0], "Left Hip");
}

TEST(BvhImport, DeclaredFramesBeyondTheDataUseTheData) {
  std::string text = one_joint("Xrotation", {"1", "2", "3"});
  text.replace(text.find("Frames: 3"), 9, "Frames: 5");
  const Result<ImportedClip> r = import_text(text);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.value().clip.frame_count, 3u);
  ASSERT_EQ(r.value().warnings.size(), 1u);
  EXPECT_NE(r.value().warnings[0].find("test.bvh: the header declares 5 frames"), std::string::npos);
  EXPECT_NE(r.value().warnings[0].find("using 3"), std::string::npos);
}

TEST(BvhImport, ExtraFramesBeyondTheHeaderAreKept) {
  std::string text = one_joint("Xrotation", {"1", "2", "3", "4"});
  text.replace(text.find("Frames: 4"), 9, "Frames: 2");
  const Result<ImportedClip> r = import_text(text);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.value().clip.frame_count, 4u);
  ASSERT_EQ(r.value().warnings.size(), 1u);
  EXPECT_NE(r.value().warnings[0].find("declares 2 frames"), std::string::npos);
  EXPECT_NE(r.value().warnings[0].find("using 4"), std::string::npos);
}

TEST(BvhImport, AbsurdDeclaredFrameCountDoesNotAllocate) {
  std::string text = one_joint("Xrotation", {"1", "2"});
  text.replace(text.find("Frames: 2"), 9, "Frames: 1000000000000");
  const Result<ImportedClip> r = import_text(text);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.value().clip.frame_count, 2u);
  ASSERT_EQ(r.value().warnings.size(), 1u);
  EXPECT_NE(r.value().warnings[0].find("1000000000000"), std::string::npos);
}

TEST(BvhImport, IncompleteLastLineIsDropped) {
  std::string text = one_joint("Xrotation Yrotation Zrotation", {"1 2 3", "4 5 6", "7 8"});
  const Result<ImportedClip> r = import_text(text);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.value().clip.frame_count, 2u);
  ASSERT_EQ(r.value().warnings.size(), 2u);
  EXPECT_NE(r.value().warnings[0].find("dropped an incomplete last frame (2 of 3 values)"), std::string::npos);
  EXPECT_NE(r.value().warnings[1].find("declares 3 frames"), std::string::npos);
}

TEST(BvhImport, SingleFrameBecomesAStaticTwoFrameClip) {
  const Result<ImportedClip> r = import_text(one_joint("Xposition Yposition Zposition", {"1 2 3"}));
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.value().clip.frame_count, 2u);
  EXPECT_TRUE(near_vec(r.value().clip.bones[0].translations[1], 1, 2, 3));
  ASSERT_EQ(r.value().warnings.size(), 1u);
  EXPECT_NE(r.value().warnings[0].find("single frame"), std::string::npos);
}

TEST(BvhImport, SkeletonWithoutChannelsTakesTheDeclaredFrames) {
  std::string text = "HIERARCHY\nROOT A\n{\nOFFSET 1 2 3\n}\nMOTION\nFrames: 3\nFrame Time: 0.5\n\n";
  const Result<ImportedClip> r = import_text(text);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.value().clip.frame_count, 3u);
  EXPECT_TRUE(near_vec(r.value().clip.bones[0].translations[2], 1, 2, 3));
}

TEST(BvhImport, ToleratesLineEndingsTabsAndTrailingBlanks) {
  const std::string unix_text = one_joint("Xposition Yposition Zrotation", {"1 2 3", "4 5 6"});
  std::string crlf, cr;
  for (char ch : unix_text)
    crlf += ch == '\n' ? std::string("\t \r\n") : ch == ' ' ? std::string("\t") : std::string(1, ch);
  for (char ch : unix_text) cr += ch == '\n' ? '\r' : ch;
  for (const std::string& text : {crlf + "\r\n\r\n  \r\n", cr + "\r\r", "\xEF\xBB\xBF" + unix_text + "\n\n\t\n"}) {
    const Result<ImportedClip> r = import_text(text);
    ASSERT_TRUE(r.ok()) << r.error();
    EXPECT_EQ(r.value().clip.frame_count, 2u);
    EXPECT_TRUE(r.value().warnings.empty()) << r.value().warnings.front();
    EXPECT_TRUE(near_vec(r.value().clip.bones[0].translations[1], 4, 5, 0));
  }
}

TEST(BvhImport, AcceptsCommonNumberForms) {
  std::string text = one_joint("Xposition Yposition Zposition", {"+1.5 1e-3 -0.00000", "1E2 -.5 .25", "+0 2. -1e+1"});
  text.replace(text.find("Frame Time: 0.1"), 15, "Frame Time: .0083333");
  const Result<ImportedClip> r = import_text(text);
  ASSERT_TRUE(r.ok()) << r.error();
  const std::vector<Vec3>& t = r.value().clip.bones[0].translations;
  EXPECT_TRUE(near_vec(t[0], 1.5, 0.001, 0));
  EXPECT_TRUE(near_vec(t[1], 100, -0.5, 0.25));
  EXPECT_TRUE(near_vec(t[2], 0, 2, -10));
  EXPECT_NEAR(r.value().clip.sample_rate_hz, 120.0005, 1e-3);
}

TEST(BvhImport, SpinningRootStaysInOneHemisphere) {
  // 0, 25, 50 ... 1000 degrees about Y, written wrapped to (-180, 180] as BVH
  // exporters do: the quaternions straight from the angles flip sign at wraps.
  std::vector<std::string> frames;
  std::vector<double> angles;
  for (int f = 0; f <= 40; ++f) {
    double a = std::fmod(25.0 * f, 360.0);
    if (a > 180) a -= 360;
    angles.push_back(a);
    frames.push_back("0 " + std::to_string(a) + " 0");
  }
  bool raw_flips = false;
  for (size_t f = 1; f < angles.size(); ++f) {
    raw_flips |= std::cos(angles[f - 1] * kPi / 360) * std::cos(angles[f] * kPi / 360) +
                     std::sin(angles[f - 1] * kPi / 360) * std::sin(angles[f] * kPi / 360) <
                 0;
  }
  ASSERT_TRUE(raw_flips) << "the test needs angles whose direct quaternions change hemisphere";

  const Result<ImportedClip> r = import_text(one_joint("Xrotation Yrotation Zrotation", frames));
  ASSERT_TRUE(r.ok()) << r.error();
  const std::vector<Quat>& q = r.value().clip.bones[0].rotations;
  ASSERT_EQ(q.size(), angles.size());
  for (size_t f = 0; f < q.size(); ++f) {
    EXPECT_TRUE(same_rotation(q[f], matrix_to_quat(axis_matrix('Y', angles[f]))));
    if (f > 0) {
      EXPECT_GE(dot(q[f - 1], q[f]), 0.f) << "frame " << f;
    }
  }
  EXPECT_TRUE(r.value().clip.validate(r.value().skeleton).ok());
}

// ---------------------------------------------------------------------------
// Input the importer must refuse

struct BadCase {
  const char* name;
  std::string text;
  const char* phrase;  // the error must contain it
  bool names_line = true;
};

const std::string kHead = "HIERARCHY\nROOT Hips\n{\n";
const std::string kBody = "OFFSET 0 0 0\nCHANNELS 3 Xrotation Yrotation Zrotation\n";
const std::string kGoodHierarchy = kHead + kBody + "}\n";
const std::string kMotionHead = "MOTION\nFrames: 2\nFrame Time: 0.1\n";
const std::string kGoodMotion = kMotionHead + "0 0 0\n1 1 1\n";

std::string with_frame_time(const std::string& value) {
  return kGoodHierarchy + "MOTION\nFrames: 2\nFrame Time: " + value + "\n0 0 0\n1 1 1\n";
}
std::string with_frames(const std::string& value) {
  return kGoodHierarchy + "MOTION\nFrames: " + value + "\nFrame Time: 0.1\n0 0 0\n1 1 1\n";
}
std::string with_channels(const std::string& line) {
  return kHead + "OFFSET 0 0 0\n" + line + "\n}\n" + kGoodMotion;
}
std::string with_offset(const std::string& line) {
  return kHead + line + "\nCHANNELS 3 Xrotation Yrotation Zrotation\n}\n" + kGoodMotion;
}

std::vector<BadCase> bad_cases() {
  return {
      {"Empty", "", "the file is empty"},
      {"OnlyWhitespace", " \n\t\r\n", "the file is empty"},
      {"MissingHierarchy", "ROOT Hips\n{\n" + kBody + "}\n" + kGoodMotion, "expected HIERARCHY"},
      {"MissingRoot", "HIERARCHY\n" + kGoodMotion, "no ROOT"},
      {"OnlyHierarchyKeyword", "HIERARCHY\n", "no ROOT"},
      {"RootWithoutName", "HIERARCHY\nROOT\n{\n" + kBody + "}\n" + kGoodMotion, "missing its joint name"},
      {"RootWithoutBrace", "HIERARCHY\nROOT Hips\n" + kBody + "}\n" + kGoodMotion, "expected '{'"},
      {"JointOutsideRoot", "HIERARCHY\nJOINT A\n{\n" + kBody + "}\n" + kGoodMotion, "outside a ROOT"},
      {"UnclosedBeforeMotion", kHead + kBody + kGoodMotion, "unbalanced braces"},
      {"UnclosedAtEnd", kHead + kBody, "unbalanced braces"},
      {"ExtraClosingBrace", kGoodHierarchy + "}\n" + kGoodMotion, "unbalanced braces"},
      {"MissingOffset", kHead + "CHANNELS 3 Xrotation Yrotation Zrotation\n}\n" + kGoodMotion, "has no OFFSET"},
      {"EndSiteWithoutOffset", kHead + kBody + "End Site\n{\n}\n}\n" + kGoodMotion, "End Site has no OFFSET"},
      {"EndWithoutSite", kHead + kBody + "End\n{\nOFFSET 0 0 0\n}\n}\n" + kGoodMotion, "expected 'Site'"},
      {"ChannelsInEndSite", kHead + kBody + "End Site\n{\nOFFSET 0 0 0\nCHANNELS 1 Xrotation\n}\n}\n" + kGoodMotion,
       "unexpected 'CHANNELS' in End Site"},
      {"UnknownKeyword", kHead + kBody + "ROTATE 1 2 3\n}\n" + kGoodMotion, "unexpected 'ROTATE'"},
      {"SecondOffset", kHead + kBody + "OFFSET 1 1 1\n}\n" + kGoodMotion, "second OFFSET"},
      {"SecondChannels", kHead + kBody + "CHANNELS 1 Xrotation\n}\n" + kGoodMotion, "second CHANNELS"},
      {"ShortOffset", with_offset("OFFSET 1 2"), "OFFSET needs 3 numbers, found 2"},
      {"LongOffset", with_offset("OFFSET 1 2 3 4"), "OFFSET needs 3 numbers, found 4"},
      {"WordInOffset", with_offset("OFFSET 1 abc 3"), "'abc' is not a number"},
      {"CommaDecimalInOffset", with_offset("OFFSET 1,5 0 0"), "'1,5' is not a number"},
      {"NanInOffset", with_offset("OFFSET nan 0 0"), "'nan' is not a finite number"},
      {"InfInOffset", with_offset("OFFSET 0 -inf 0"), "'-inf' is not a finite number"},
      {"OverflowInOffset", with_offset("OFFSET 0 0 1e999"), "'1e999' is not a finite number"},
      {"OffsetBeyondFloat", with_offset("OFFSET 1e300 0 0"), "not finite", false},
      {"ChannelsListFewer", with_channels("CHANNELS 3 Xrotation Yrotation"), "CHANNELS says 3 but lists 2"},
      {"ChannelsListMore", with_channels("CHANNELS 2 Xrotation Yrotation Zrotation"), "CHANNELS says 2 but lists 3"},
      {"UnknownChannel", with_channels("CHANNELS 3 Xrotation Yrotation Wrotation"), "unknown channel 'Wrotation'"},
      {"RepeatedChannel", with_channels("CHANNELS 3 Xrotation Yrotation Xrotation"), "'Xrotation' is listed twice"},
      {"SevenChannels", with_channels("CHANNELS 7 Xrotation"), "more than 6"},
      {"HugeChannelCount", with_channels("CHANNELS 4000000000 Xrotation"), "more than 6"},
      {"HugerChannelCount", with_channels("CHANNELS 99999999999999999999999 X"), "not a non-negative integer"},
      {"NegativeChannelCount", with_channels("CHANNELS -3 Xrotation Yrotation Zrotation"),
       "not a non-negative integer"},
      {"MissingChannelCount", with_channels("CHANNELS"), "missing its channel count"},
      {"MissingMotion", kGoodHierarchy, "missing MOTION"},
      {"WordsAfterMotion", kGoodHierarchy + "MOTION please\nFrames: 2\nFrame Time: 0.1\n0 0 0\n0 0 0\n",
       "after MOTION"},
      {"MissingFrames", kGoodHierarchy + "MOTION\n", "expected 'Frames:'"},
      {"FrameTimeBeforeFrames", kGoodHierarchy + "MOTION\nFrame Time: 0.1\nFrames: 2\n", "expected 'Frames:'"},
      {"NegativeFrames", with_frames("-2"), "Frames '-2' is not a non-negative integer"},
      {"FractionalFrames", with_frames("2.5"), "not a non-negative integer"},
      {"EmptyFrames", with_frames(""), "not a non-negative integer"},
      {"WordFrames", with_frames("many"), "not a non-negative integer"},
      {"MissingFrameTime", kGoodHierarchy + "MOTION\nFrames: 2\n", "expected 'Frame Time:'"},
      {"FrameRateInsteadOfTime", kGoodHierarchy + "MOTION\nFrames: 2\nFrame Rate: 30\n0 0 0\n0 0 0\n",
       "expected 'Frame Time:'"},
      {"ZeroFrameTime", with_frame_time("0"), "Frame Time '0' is not a positive number"},
      {"NegativeFrameTime", with_frame_time("-0.1"), "Frame Time '-0.1'"},
      {"NanFrameTime", with_frame_time("nan"), "Frame Time 'nan'"},
      {"InfFrameTime", with_frame_time("inf"), "Frame Time 'inf'"},
      {"WordFrameTime", with_frame_time("fast"), "Frame Time 'fast'"},
      {"TinyFrameTime", with_frame_time("1e-320"), "Frame Time '1e-320'"},
      {"HugeFrameTime", with_frame_time("1e300"), "Frame Time '1e300'"},
      {"NoFrameLines", kGoodHierarchy + kMotionHead, "no complete frames"},
      {"ZeroFramesDeclared", kGoodHierarchy + "MOTION\nFrames: 0\nFrame Time: 0.1\n\n", "no complete frames"},
      {"OnlyAnIncompleteLine", kGoodHierarchy + kMotionHead + "1 2\n", "no complete frames"},
      {"WordInMotion", kGoodHierarchy + kMotionHead + "0 0 0\n0 x 0\n", "'x' is not a number"},
      {"NanInMotion", kGoodHierarchy + kMotionHead + "0 0 0\n0 NaN 0\n", "'NaN' is not a finite number"},
      {"InfInMotion", kGoodHierarchy + kMotionHead + "0 0 0\n0 0 infinity\n", "'infinity' is not a finite number"},
      {"TooManyValues", kGoodHierarchy + kMotionHead + "0 0 0 0\n0 0 0\n", "frame has 4 values, expected 3"},
      {"ShortLineInTheMiddle", kGoodHierarchy + kMotionHead + "0 0 0\n0 0\n0 0 0\n", "frame has 2 values, expected 3"},
      {"StaticSkeletonTooManyFrames", kHead + "OFFSET 0 0 0\n}\nMOTION\nFrames: 70000\nFrame Time: 0.1\n",
       "too many frames"},
      {"StaticSkeletonWithNumbers", kHead + "OFFSET 0 0 0\n}\nMOTION\nFrames: 2\nFrame Time: 0.1\n1\n1\n",
       "frame has 1 values, expected 0"},
  };
}

class MalformedBvhTest : public ::testing::TestWithParam<BadCase> {};

TEST_P(MalformedBvhTest, IsRefusedWithAClearMessage) {
  const Result<ImportedClip> r = import_bvh_text(GetParam().text, "bad.bvh", {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().rfind(GetParam().names_line ? "bad.bvh: line " : "bad.bvh: ", 0), 0u) << r.error();
  EXPECT_NE(r.error().find(GetParam().phrase), std::string::npos) << r.error();
}

INSTANTIATE_TEST_SUITE_P(Corpus, MalformedBvhTest, ::testing::ValuesIn(bad_cases()),
                         [](const auto& p) { return std::string(p.param.name); });

TEST(BvhImport, ErrorNamesTheOffendingLine) {
  const Result<ImportedClip> r = import_bvh_text(kGoodHierarchy + kMotionHead + "0 0 0\n0 x 0\n", "bad.bvh", {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "bad.bvh: line 11: 'x' is not a number");
}

TEST(BvhImport, UnreadableFileNamesThePathAndTheReason) {
  const std::filesystem::path missing = std::filesystem::path(KS_CLIPS_DIR) / "no_such_clip.bvh";
  const Result<ImportedClip> r = import_bvh(missing, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), missing.string() + ": cannot open: No such file or directory");

  const Result<ImportedClip> dir = import_bvh(KS_CLIPS_DIR, {});
  ASSERT_FALSE(dir.ok());
  EXPECT_EQ(dir.error().rfind(std::string(KS_CLIPS_DIR) + ": cannot", 0), 0u) << dir.error();
}

// A ROOT with one channel and `children` channel-less joints, nested or side by side.
std::string many_joints(size_t children, bool nested, size_t frames) {
  std::string text = "HIERARCHY\nROOT R\n{\nOFFSET 0 0 0\nCHANNELS 1 Xrotation\n";
  for (size_t i = 0; i < children; ++i) {
    text += "JOINT J" + std::to_string(i) + "\n{\nOFFSET 0 1 0\n";
    if (!nested) text += "}\n";
  }
  if (nested) text.append(children, '}');
  text += "}\nMOTION\nFrames: " + std::to_string(frames) + "\nFrame Time: 0.01\n";
  for (size_t f = 0; f < frames; ++f) text += "0\n";
  return text;
}

TEST(BvhImport, JointCountLimit) {
  const Result<ImportedClip> ok = import_text(many_joints(65534, false, 2));
  ASSERT_TRUE(ok.ok()) << ok.error();
  EXPECT_EQ(ok.value().skeleton.bone_count(), 65535u);
  const Result<ImportedClip> r = import_text(many_joints(65535, false, 2));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("too many joints (at most 65535)"), std::string::npos) << r.error();
}

TEST(BvhImport, NestingDepthLimitInsteadOfStackOverflow) {
  const Result<ImportedClip> ok = import_text(many_joints(999, true, 2));  // 1000 levels with the root
  ASSERT_TRUE(ok.ok()) << ok.error();
  EXPECT_EQ(ok.value().skeleton.parents.back(), 998);
  for (size_t depth : {size_t{1000}, size_t{200000}}) {
    const Result<ImportedClip> r = import_text(many_joints(depth, true, 2));
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().find("nested deeper than 1000 levels"), std::string::npos) << r.error();
  }
}

TEST(BvhImport, FrameCountLimit) {
  const Result<ImportedClip> ok = import_text(many_joints(0, false, 65535));
  ASSERT_TRUE(ok.ok()) << ok.error();
  EXPECT_EQ(ok.value().clip.frame_count, 65535u);
  const Result<ImportedClip> r = import_text(many_joints(0, false, 65536));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("test.bvh: line 65545: too many frames"), std::string::npos) << r.error();
}

TEST(BvhImport, ClipTooLargeIsRefusedBeforeAllocating) {
  // 1100 bones x 65535 frames would need about 3 GB of tracks.
  const Result<ImportedClip> r = import_text(many_joints(1099, false, 65535));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("clip too large: 1100 bones x 65535 frames"), std::string::npos) << r.error();
}

// ---------------------------------------------------------------------------
// Damaged input never crashes (the sanitizer build runs these under ASan and UBSan).

// Every outcome must be a valid clip or an error naming the source.
void expect_clean_outcome(const std::string& text, const std::string& what) {
  const Result<ImportedClip> r = import_bvh_text(text, "fuzz.bvh", {});
  if (r.ok()) {
    EXPECT_TRUE(r.value().skeleton.validate().ok()) << what;
    EXPECT_TRUE(r.value().clip.validate(r.value().skeleton).ok()) << what;
  } else {
    EXPECT_EQ(r.error().rfind("fuzz.bvh: ", 0), 0u) << what << ": " << r.error();
  }
}

TEST(BvhImportFuzz, EveryPrefixOfAValidFile) {
  const std::string text = kThreeJoints;
  size_t accepted = 0;
  for (size_t n = 0; n <= text.size(); ++n) {
    expect_clean_outcome(text.substr(0, n), "prefix " + std::to_string(n));
    accepted += import_bvh_text(text.substr(0, n), "fuzz.bvh", {}).ok() ? 1 : 0;
  }
  // Only cuts inside or after the second frame leave two complete frames.
  EXPECT_GT(accepted, 0u);
  EXPECT_LT(accepted, text.size() / 4);
  EXPECT_TRUE(import_bvh_text(text, "fuzz.bvh", {}).ok());
}

TEST(BvhImportFuzz, RandomMutations) {
  const std::string original = kThreeJoints;
  const std::string alphabet = "0123456789.-+eE{}\n\r\t :xXYZposition\xff";
  const std::vector<std::string> words = {"ROOT",       "JOINT",  "End Site", "{",   "}", "OFFSET",
                                          "CHANNELS 6", "MOTION", "1e308",    "nan", "-", "99999999999"};
  std::mt19937 rng(20240611);
  size_t accepted = 0;
  for (int i = 0; i < 600; ++i) {
    std::string text = original;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits && !text.empty(); ++e) {
      const size_t at = rng() % text.size();
      switch (rng() % 5) {
        case 0: text[at] = alphabet[rng() % alphabet.size()]; break;
        case 1: text.insert(at, 1, static_cast<char>(rng() % 256)); break;
        case 2: text.erase(at, 1 + rng() % 8); break;
        case 3: text.insert(at, words[rng() % words.size()]); break;
        default: text.insert(at, text.substr(rng() % text.size(), rng() % 64)); break;
      }
    }
    expect_clean_outcome(text, "mutation " + std::to_string(i));
    accepted += import_bvh_text(text, "fuzz.bvh", {}).ok() ? 1 : 0;
  }
  EXPECT_GT(accepted, 0u);
  EXPECT_LT(accepted, 600u);
}

TEST(BvhImportFuzz, RealFilesCutShort) {
  const std::string text = read_text(kCgspeed);
  const size_t motion = text.find("MOTION");
  ASSERT_NE(motion, std::string::npos);
  for (size_t cut : {size_t{1}, size_t{100}, size_t{2000}, motion - 3, motion + 10}) {
    const Result<ImportedClip> r = import_bvh_text(text.substr(0, cut), "cut.bvh", {});
    EXPECT_FALSE(r.ok()) << "cut at " << cut;
  }
  for (size_t cut : {text.size() / 2, text.size() / 2 + 7, text.size() - 40}) {
    const Result<ImportedClip> r = import_bvh_text(text.substr(0, cut), "cut.bvh", {});
    ASSERT_TRUE(r.ok()) << "cut at " << cut << ": " << r.error();
    EXPECT_LT(r.value().clip.frame_count, 2752u);
    EXPECT_GT(r.value().clip.frame_count, 1000u);
    EXPECT_FALSE(r.value().warnings.empty());
  }
}

}  // namespace
}  // namespace ks

namespace ks {
namespace {

// A binary file's bytes never reach the message raw: invalid UTF-8 and
// control bytes are escaped (\xHH), well-formed UTF-8 (a name in any script) stays.
TEST(BvhImport, ErrorMessagesQuoteOnlyPrintableText) {
  const std::string binary = std::string("\x8b\xff\x01y\xc3", 5) + "\n";
  const Result<ImportedClip> r = import_bvh_text(binary, "noise.bvh", {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("found '\\x8b\\xff\\x01y\\xc3'"), std::string::npos) << r.error();
  const Result<ImportedClip> named = import_bvh_text("HIERARCHIE\xc3\xa9\n", "accent.bvh", {});
  ASSERT_FALSE(named.ok());
  EXPECT_NE(named.error().find("found 'HIERARCHIE\xc3\xa9'"), std::string::npos) << named.error();
}

}  // namespace
}  // namespace ks
