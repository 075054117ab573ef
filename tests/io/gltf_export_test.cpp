#include "keystream/io/gltf_export.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "keystream/io/file_io.h"
#include "keystream/io/import.h"
#include "tests/io/gltf_test_files.h"
#include "tests/temp_dir.h"

namespace ks {
namespace {

namespace fs = std::filesystem;

const fs::path kClips = KS_CLIPS_DIR;
const fs::path kDemo = fs::path(KS_ASSETS_DIR) / "demo_walk.glb";

using ScratchDir = test::TempDir;

ImportedClip import_ok(const fs::path& path, int animation_index = 0) {
  ImportSettings settings;
  settings.animation_index = animation_index;
  Result<ImportedClip> result = import_clip(path, settings);
  EXPECT_TRUE(result.ok()) << result.error();
  return result.ok() ? std::move(result.value()) : ImportedClip{};
}

// Exports, writes the bytes to <dir>/exported.glb and imports that file.
ImportedClip export_and_reimport(const Skeleton& skeleton, const RawClip& clip, const std::optional<fs::path>& source,
                                 const fs::path& dir) {
  Result<std::vector<uint8_t>> glb = export_gltf(skeleton, clip, source);
  EXPECT_TRUE(glb.ok()) << glb.error();
  if (!glb) return {};
  const fs::path path = dir / "exported.glb";
  EXPECT_TRUE(write_file_atomically(path, std::span<const unsigned char>(glb.value())).ok());
  return import_ok(path);
}

// The rate export promises: the clip's, or the whole number within 0.1% of it.
float promised_rate(float rate_hz) {
  const float whole = std::round(rate_hz);
  return std::fabs(rate_hz - whole) < 1e-3f * rate_hz ? whole : rate_hz;
}

// How far, as a fraction of a frame, frame f's key time moves when stored as
// a float (seconds): the importer samples at the exact time f / rate, so it
// blends that much of the neighbouring key in. Up to 1e-4 at 20 s and 120 Hz.
double key_time_slack(uint32_t f, double rate_hz) {
  const double exact = f / rate_hz;
  return std::fabs(static_cast<double>(static_cast<float>(exact)) - exact) * rate_hz;
}

// Largest component change from frame f to either neighbour.
template <class T>
float neighbour_change(const std::vector<T>& values, uint32_t f, float (*component_gap)(const T&, const T&)) {
  float change = 0.f;
  if (f > 0) change = std::max(change, component_gap(values[f], values[f - 1]));
  if (f + 1 < values.size()) change = std::max(change, component_gap(values[f], values[f + 1]));
  return change;
}
float vec3_gap(const Vec3& a, const Vec3& b) {
  return std::max({std::fabs(a.x - b.x), std::fabs(a.y - b.y), std::fabs(a.z - b.z)});
}
// Quaternions up to sign.
float quat_gap(const Quat& a, const Quat& b_any_sign) {
  const Quat b = dot(a, b_any_sign) < 0.f ? -b_any_sign : b_any_sign;
  return std::max({std::fabs(a.x - b.x), std::fabs(a.y - b.y), std::fabs(a.z - b.z), std::fabs(a.w - b.w)});
}
// Length of the 4D arc between unit quaternions, up to sign: slerp moves
// along it, so it bounds how far a fraction of a step moves any component.
float quat_arc(const Quat& a, const Quat& b_any_sign) {
  const Quat b = dot(a, b_any_sign) < 0.f ? -b_any_sign : b_any_sign;
  return 2.f * std::asin(std::min(1.f, length(Quat{a.x - b.x, a.y - b.y, a.z - b.z, a.w - b.w}) / 2.f));
}

// Same bones (names, parents), rate, frame count and pose at every frame:
// translations and scales within 1e-5, quaternions within 1e-5 up to sign,
// plus what float key times account for (key_time_slack times the change to
// the neighbouring frame).
void expect_same_clip(const Skeleton& skeleton, const RawClip& clip, const ImportedClip& back) {
  EXPECT_EQ(back.skeleton.bone_names, skeleton.bone_names);
  EXPECT_EQ(back.skeleton.parents, skeleton.parents);
  const float rate_hz = promised_rate(clip.sample_rate_hz);
  EXPECT_FLOAT_EQ(back.clip.sample_rate_hz, rate_hz);
  ASSERT_EQ(back.clip.frame_count, clip.frame_count);
  ASSERT_EQ(back.clip.bones.size(), clip.bones.size());
  constexpr float kTolerance = 1e-5f;
  float worst_excess = 0.f;  // error beyond the allowance
  std::string worst_at;
  for (size_t b = 0; b < clip.bones.size(); ++b) {
    const BoneTracks& want = clip.bones[b];
    const BoneTracks& got = back.clip.bones[b];
    for (uint32_t f = 0; f < clip.frame_count; ++f) {
      const float slack = static_cast<float>(key_time_slack(f, rate_hz));
      auto check = [&](float error, float change, const char* track) {
        const float excess = error - (kTolerance + slack * change);
        if (excess > worst_excess) {
          worst_excess = excess;
          worst_at = std::string(track) + " of " + skeleton.bone_names[b] + " at frame " + std::to_string(f) +
                     ": error " + std::to_string(error) + ", neighbour change " + std::to_string(change);
        }
      };
      check(vec3_gap(got.translations[f], want.translations[f]), neighbour_change(want.translations, f, vec3_gap),
            "translation");
      check(vec3_gap(got.scales[f], want.scales[f]), neighbour_change(want.scales, f, vec3_gap), "scale");
      check(quat_gap(got.rotations[f], want.rotations[f]), neighbour_change(want.rotations, f, quat_arc), "rotation");
    }
  }
  EXPECT_EQ(worst_excess, 0.f) << worst_at;
}

// The JSON chunk of a .glb.
nlohmann::json glb_json(const std::vector<uint8_t>& glb) {
  uint32_t length = 0;
  if (glb.size() < 20 || std::memcmp(glb.data(), "glTF", 4) != 0) return {};
  std::memcpy(&length, glb.data() + 12, 4);
  if (length > glb.size() - 20) return {};
  return nlohmann::json::parse(glb.begin() + 20, glb.begin() + 20 + length, nullptr, false);
}

// One buffer, no uri (the BIN chunk); every image in a buffer view, unless
// its file was missing from the source (then it keeps its uri).
void expect_self_contained(const nlohmann::json& document, const fs::path& source) {
  ASSERT_TRUE(document.is_object());
  ASSERT_EQ(document["buffers"].size(), 1u);
  EXPECT_FALSE(document["buffers"][0].contains("uri"));
  for (const nlohmann::json& image : document.value("images", nlohmann::json::array())) {
    if (image.contains("uri")) {
      EXPECT_FALSE(fs::exists(source.parent_path() / image["uri"].get<std::string>())) << image.dump();
    } else {
      EXPECT_TRUE(image.contains("bufferView") && image.contains("mimeType")) << image.dump();
    }
  }
}

// A two-bone clip with motion on every track.
void make_clip(float rate_hz, uint32_t frames, Skeleton& skeleton, RawClip& clip) {
  skeleton = {};
  skeleton.bone_names = {"root", "arm"};
  skeleton.parents = {-1, 0};
  skeleton.rest_pose.resize(2);
  skeleton.rest_pose[1].translation = {0.f, 1.f, 0.f};
  clip = {};
  clip.name = "synthetic";
  clip.sample_rate_hz = rate_hz;
  clip.frame_count = frames;
  clip.bones.resize(2);
  for (uint32_t f = 0; f < frames; ++f) {
    const float x = static_cast<float>(f);
    for (size_t b = 0; b < 2; ++b) {
      const float half = 0.025f * x * static_cast<float>(b + 1);
      clip.bones[b].translations.push_back({0.01f * x, std::sin(0.1f * x), static_cast<float>(b)});
      clip.bones[b].rotations.push_back(normalize(Quat{0.f, std::sin(half), 0.2f, std::cos(half)}));
      clip.bones[b].scales.push_back({1.f + 0.1f * std::sin(0.2f * x), 1.f, 1.f});
    }
  }
  for (BoneTracks& tracks : clip.bones) make_rotations_continuous(tracks.rotations);
}

// ---------------------------------------------------------------------------
// Round trips

TEST(GltfExport, DemoClipRoundTripsWithoutASource) {
  ScratchDir dir;
  const ImportedClip demo = import_ok(kDemo);
  const ImportedClip back = export_and_reimport(demo.skeleton, demo.clip, std::nullopt, dir.path());
  expect_same_clip(demo.skeleton, demo.clip, back);
  EXPECT_FALSE(back.mesh.has_value());
  EXPECT_EQ(back.animation_names, std::vector<std::string>{demo.clip.name});
}

TEST(GltfExport, DemoClipRoundTripsOntoItsSourceWithTheMesh) {
  ScratchDir dir;
  const ImportedClip demo = import_ok(kDemo);
  ASSERT_TRUE(demo.mesh.has_value());
  const ImportedClip back = export_and_reimport(demo.skeleton, demo.clip, kDemo, dir.path());
  expect_same_clip(demo.skeleton, demo.clip, back);
  ASSERT_TRUE(back.mesh.has_value());
  EXPECT_EQ(back.mesh->vertex_count(), demo.mesh->vertex_count());
  EXPECT_EQ(back.mesh->indices, demo.mesh->indices);
  EXPECT_EQ(back.skeleton.skin_joints, demo.skeleton.skin_joints);
  // Both source animations are replaced by the one exported.
  EXPECT_EQ(back.animation_names, std::vector<std::string>{demo.clip.name});
}

// The old animations' data is dropped: every accessor and buffer view left is used.
TEST(GltfExport, OntoASourceKeepsOnlyDataInUseInOneEmbeddedBuffer) {
  const ImportedClip demo = import_ok(kDemo);
  Result<std::vector<uint8_t>> glb = export_gltf(demo.skeleton, demo.clip, kDemo);
  ASSERT_TRUE(glb.ok()) << glb.error();
  const nlohmann::json document = glb_json(glb.value());
  expect_self_contained(document, kDemo);
  std::set<int> accessors, views;
  for (const nlohmann::json& mesh : document["meshes"]) {
    for (const nlohmann::json& primitive : mesh["primitives"]) {
      for (const auto& [semantic, accessor] : primitive["attributes"].items()) accessors.insert(accessor.get<int>());
      if (primitive.contains("indices")) accessors.insert(primitive["indices"].get<int>());
    }
  }
  for (const nlohmann::json& skin : document["skins"]) accessors.insert(skin.value("inverseBindMatrices", -1));
  for (const nlohmann::json& sampler : document["animations"][0]["samplers"]) {
    accessors.insert(sampler["input"].get<int>());
    accessors.insert(sampler["output"].get<int>());
  }
  accessors.erase(-1);
  EXPECT_EQ(accessors.size(), document["accessors"].size());
  for (const nlohmann::json& accessor : document["accessors"]) views.insert(accessor.value("bufferView", -1));
  for (const nlohmann::json& image : document.value("images", nlohmann::json::array()))
    views.insert(image["bufferView"].get<int>());
  views.erase(-1);
  EXPECT_EQ(views.size(), document["bufferViews"].size());
}

// Every animation of every shared clip: glTF with and without its source, BVH without.
TEST(GltfExport, EverySharedClipRoundTrips) {
  if (!fs::is_directory(kClips)) GTEST_SKIP() << "no shared clips at " << kClips;
  ScratchDir dir;
  std::vector<fs::path> files;
  for (const fs::directory_entry& entry : fs::directory_iterator(kClips)) {
    if (is_importable(entry.path())) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) GTEST_SKIP() << "no clips in " << kClips;
  for (const fs::path& file : files) {
    const bool gltf = file.extension() != ".bvh";
    const size_t animations = gltf ? import_ok(file).animation_names.size() : 1;
    for (size_t a = 0; a < animations; ++a) {
      SCOPED_TRACE(file.filename().string() + " animation " + std::to_string(a));
      const ImportedClip original = import_ok(file, static_cast<int>(a));
      expect_same_clip(original.skeleton, original.clip,
                       export_and_reimport(original.skeleton, original.clip, std::nullopt, dir.path()));
      if (!gltf) continue;
      const ImportedClip onto_source = export_and_reimport(original.skeleton, original.clip, file, dir.path());
      expect_same_clip(original.skeleton, original.clip, onto_source);
      EXPECT_EQ(onto_source.mesh.has_value(), original.mesh.has_value());
      if (onto_source.mesh && original.mesh) {
        EXPECT_EQ(onto_source.mesh->indices, original.mesh->indices);
      }
      Result<std::vector<uint8_t>> glb = export_gltf(original.skeleton, original.clip, file);
      ASSERT_TRUE(glb.ok()) << glb.error();
      expect_self_contained(glb_json(glb.value()), file);
    }
  }
}

// Float key times must re-import at the clip's rate and frame count, also
// for BVH frame times (0.016667 s, 0.0083333 s) that are near whole rates.
TEST(GltfExport, SampleRatesAndFrameCountsSurviveFloatKeyTimes) {
  ScratchDir dir;
  const struct {
    float rate_hz;
    uint32_t frames;
  } cases[] = {{30.f, 2},
               {24.f, 100},
               {29.97f, 300},
               {20.6896552f, 25},
               {7.5f, 10},
               {1.f / 0.016667f, 1169},
               {1.f / 0.0083333f, 2752},
               {120.f, 3000},
               {120.f, 6000},  // 50 s: float key times late in the clip are off by microseconds
               {60.f, 5000},
               {1000.f, 500},
               {60.f, 1200}};
  for (const auto& c : cases) {
    SCOPED_TRACE(std::to_string(c.rate_hz) + " Hz, " + std::to_string(c.frames) + " frames");
    Skeleton skeleton;
    RawClip clip;
    make_clip(c.rate_hz, c.frames, skeleton, clip);
    expect_same_clip(skeleton, clip, export_and_reimport(skeleton, clip, std::nullopt, dir.path()));
  }
}

// Unnamed and same-named source nodes get the importer's names ("node_<i>",
// "<name>_2"); export must match bones to nodes by those names.
TEST(GltfExport, MatchesUnnamedAndDuplicateNodesByTheImportersNames) {
  ScratchDir dir;
  test::GltfDocument doc = test::make_skinned_document();
  doc.json["nodes"][0].erase("name");
  doc.json["nodes"][1]["name"] = "joint";
  doc.json["nodes"][2]["name"] = "joint";
  const fs::path source = doc.write(dir.path(), "unnamed");
  const ImportedClip original = import_ok(source);
  ASSERT_EQ(original.skeleton.bone_names, (std::vector<std::string>{"node_0", "joint", "joint_2"}));
  expect_same_clip(original.skeleton, original.clip,
                   export_and_reimport(original.skeleton, original.clip, source, dir.path()));
  expect_same_clip(original.skeleton, original.clip,
                   export_and_reimport(original.skeleton, original.clip, std::nullopt, dir.path()));
}

// ---------------------------------------------------------------------------
// Refusals

TEST(GltfExport, RefusesASourceMissingABoneNamingTheBoneAndTheFile) {
  ImportedClip demo = import_ok(kDemo);
  demo.skeleton.bone_names[3] = "tail_tip";
  Result<std::vector<uint8_t>> glb = export_gltf(demo.skeleton, demo.clip, kDemo);
  ASSERT_FALSE(glb.ok());
  EXPECT_NE(glb.error().find("'tail_tip'"), std::string::npos) << glb.error();
  EXPECT_NE(glb.error().find("demo_walk.glb"), std::string::npos) << glb.error();
}

// A stream's bone names are untrusted bytes: the message quotes them printable, never as a terminal escape sequence.
TEST(GltfExport, RefusesASourceMissingABoneQuotingItsNamePrintable) {
  ImportedClip demo = import_ok(kDemo);
  demo.skeleton.bone_names[3] = "\x1b]0;title\x07" + std::string(5000, 'b');
  Result<std::vector<uint8_t>> glb = export_gltf(demo.skeleton, demo.clip, kDemo);
  ASSERT_FALSE(glb.ok());
  EXPECT_EQ(glb.error().find_first_of("\x1b\x07"), std::string::npos) << glb.error();
  EXPECT_LT(glb.error().size(), 1000u);
  EXPECT_NE(glb.error().find("demo_walk.glb"), std::string::npos) << glb.error();
}

TEST(GltfExport, RefusesASourceWhoseHierarchyDiffersNamingTheBone) {
  ImportedClip demo = import_ok(kDemo);
  const auto moved = std::find_if(demo.skeleton.parents.begin(), demo.skeleton.parents.end(),
                                  [](int32_t parent) { return parent > 0; });
  ASSERT_NE(moved, demo.skeleton.parents.end());
  *moved = 0;
  const std::string& bone = demo.skeleton.bone_names[static_cast<size_t>(moved - demo.skeleton.parents.begin())];
  Result<std::vector<uint8_t>> glb = export_gltf(demo.skeleton, demo.clip, kDemo);
  ASSERT_FALSE(glb.ok());
  EXPECT_NE(glb.error().find("'" + bone + "'"), std::string::npos) << glb.error();
  EXPECT_NE(glb.error().find("demo_walk.glb"), std::string::npos) << glb.error();
}

TEST(GltfExport, RefusesABadSourcePathNamingTheFile) {
  ScratchDir dir;
  const ImportedClip demo = import_ok(kDemo);
  std::ofstream(dir.path() / "garbage.glb") << "not a glTF file";
  std::ofstream(dir.path() / "walk.bvh") << "HIERARCHY\n";
  // Nesting that would overflow a parser's stack is refused before parsing.
  std::ofstream(dir.path() / "deep.gltf") << "{\"extras\":" << std::string(20000, '[') << std::string(20000, ']')
                                          << "}";
  for (const char* name : {"missing.glb", "missing.gltf", "garbage.glb", "walk.bvh", "walk.fbx", "deep.gltf"}) {
    SCOPED_TRACE(name);
    Result<std::vector<uint8_t>> glb = export_gltf(demo.skeleton, demo.clip, dir.path() / name);
    ASSERT_FALSE(glb.ok());
    EXPECT_NE(glb.error().find(name), std::string::npos) << glb.error();
  }
  Result<std::vector<uint8_t>> deep = export_gltf(demo.skeleton, demo.clip, dir.path() / "deep.gltf");
  EXPECT_NE(deep.error().find("nests deeper than"), std::string::npos) << deep.error();
  Result<std::vector<uint8_t>> bvh = export_gltf(demo.skeleton, demo.clip, dir.path() / "walk.bvh");
  EXPECT_NE(bvh.error().find("BVH"), std::string::npos) << bvh.error();
}

TEST(GltfExport, RefusesAnInvalidClipOrSkeleton) {
  Skeleton skeleton;
  RawClip clip;
  make_clip(30.f, 10, skeleton, clip);
  ASSERT_TRUE(export_gltf(skeleton, clip).ok());
  auto refused = [](const Skeleton& s, const RawClip& c) {
    Result<std::vector<uint8_t>> glb = export_gltf(s, c);
    EXPECT_FALSE(glb.ok());
    EXPECT_FALSE(glb.error().empty());
  };
  {
    RawClip bad = clip;
    bad.frame_count = 11;  // tracks hold 10
    refused(skeleton, bad);
  }
  {
    RawClip bad = clip;
    bad.bones[1].translations[4].y = std::numeric_limits<float>::quiet_NaN();
    refused(skeleton, bad);
  }
  {
    RawClip bad = clip;
    bad.sample_rate_hz = 0.f;
    refused(skeleton, bad);
  }
  {
    RawClip bad = clip;
    bad.bones.pop_back();
    refused(skeleton, bad);
  }
  {
    RawClip bad = clip;
    bad.bones[0].rotations[2] = Quat{0.f, 0.f, 0.f, 2.f};
    refused(skeleton, bad);
  }
  {
    Skeleton bad = skeleton;
    bad.bone_names[1] = "root";  // names must be unique
    refused(bad, clip);
  }
  {
    Skeleton bad = skeleton;
    bad.parents[0] = 1;  // parents before children
    refused(bad, clip);
  }
}

// JSON must be UTF-8; a Latin-1 name is an error, not an exception.
TEST(GltfExport, RefusesANameThatIsNotUtf8WithoutThrowing) {
  Skeleton skeleton;
  RawClip clip;
  make_clip(30.f, 4, skeleton, clip);
  skeleton.bone_names[1] = "bra\xE7o";
  Result<std::vector<uint8_t>> glb = export_gltf(skeleton, clip);
  EXPECT_FALSE(glb.ok());
}

}  // namespace
}  // namespace ks
