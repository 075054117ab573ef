// Morph-target weights channels imported as scalar tracks
// (core/io/gltf_morph_weights.h, through import_gltf).

#include <gtest/gtest.h>
#include <tiny_gltf.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <string>

#include "keystream/io/gltf_import.h"
#include "tests/io/morph_test_files.h"
#include "tests/refused_mentioning.h"
#include "tests/temp_dir.h"

namespace ks {
namespace {

using test::kMorphNode;
using test::kMorphTargets;
using test::MorphFileExpectation;
using test::MorphFileOptions;
using test::refused_mentioning;
using test::TempDir;

const std::filesystem::path kMorphCube = std::filesystem::path(KS_ASSIMP_MODELS_DIR) /
                                         "glTF2/glTF-Sample-Models/AnimatedMorphCube-glTF/AnimatedMorphCube.gltf";

ImportedClip import_ok(const std::filesystem::path& path, const ImportSettings& settings = {}) {
  Result<ImportedClip> result = import_gltf(path, settings);
  EXPECT_TRUE(result.ok()) << result.error();
  if (!result) return {};
  return std::move(result.value());
}

bool warned(const ImportedClip& clip, const std::string& part) {
  for (const std::string& warning : clip.warnings) {
    if (warning.find(part) != std::string::npos) return true;
  }
  return false;
}

// The skinned morph file with `options`, after `edit` breaks or changes it.
template <class Edit>
std::filesystem::path write_edited(const TempDir& dir, const MorphFileOptions& options, Edit edit) {
  MorphFileExpectation expected;
  test::GltfDocument doc = test::make_skinned_morph_document(options, expected);
  edit(doc, expected);
  const std::filesystem::path path = dir / "morph.gltf";
  std::ofstream(path, std::ios::binary) << doc.text();
  return path;
}

// Every frame of every track against the expectation, plus what each track drives.
void expect_tracks(const ImportedClip& c, const MorphFileExpectation& expected) {
  EXPECT_FLOAT_EQ(c.clip.sample_rate_hz, expected.sample_rate_hz);
  ASSERT_EQ(c.clip.frame_count, expected.frame_count);
  ASSERT_EQ(c.clip.scalars.size(), static_cast<size_t>(kMorphTargets));
  for (size_t t = 0; t < c.clip.scalars.size(); ++t) {
    const ScalarTrack& track = c.clip.scalars[t];
    EXPECT_EQ(track.name, expected.track_names[t]);
    EXPECT_EQ(track.components, 1u);
    EXPECT_EQ(track.target, ScalarTarget::kMorphWeight);
    EXPECT_EQ(track.node, "face");
    EXPECT_EQ(track.target_index, t);
    ASSERT_EQ(track.values.size(), c.clip.frame_count);
    for (uint32_t f = 0; f < c.clip.frame_count; ++f) {
      EXPECT_NEAR(track.values[f], expected.weights[f][t], 1e-5) << track.name << " frame " << f;
    }
  }
}

// Element `element` of FLOAT accessor `accessor` of `doc` becomes `value`.
void set_float(test::GltfDocument& doc, int accessor, size_t element, float value) {
  const nlohmann::json& view =
      doc.buffer.views[doc.buffer.accessors[static_cast<size_t>(accessor)]["bufferView"].get<size_t>()];
  std::memcpy(doc.buffer.bytes.data() + view["byteOffset"].get<size_t>() + element * sizeof value, &value,
              sizeof value);
}

// A weight at `frame` of target `target`.
float weight(const ImportedClip& c, int target, uint32_t frame) {
  return c.clip.scalars[static_cast<size_t>(target)].values[frame];
}

// ---------------------------------------------------------------------------
// AnimatedMorphCube: weights are its only animation

TEST(GltfMorphImport, AnimatedMorphCubeImportsItsWeightsAtTheirKeys) {
  if (!std::filesystem::exists(kMorphCube)) GTEST_SKIP() << kMorphCube << " is not installed (scripts/setup)";
  const ImportedClip c = import_ok(kMorphCube);
  ASSERT_EQ(c.clip.scalars.size(), 2u);
  // This copy of the sample has no extras.targetNames: its targets go by index.
  EXPECT_EQ(c.clip.scalars[0].name, "AnimatedMorphCube/0");
  EXPECT_EQ(c.clip.scalars[1].name, "AnimatedMorphCube/1");
  EXPECT_EQ(c.skeleton.bone_count(), 1u);  // no skin: the node hierarchy
  EXPECT_FALSE(warned(c, "ignored"));

  // The file's keys, read past the importer.
  tinygltf::TinyGLTF loader;
  tinygltf::Model model;
  std::string error, warning;
  ASSERT_TRUE(loader.LoadASCIIFromFile(&model, &error, &warning, kMorphCube.string())) << error;
  const tinygltf::AnimationSampler& sampler = model.animations[0].samplers[0];
  const auto floats = [&](int index) {
    const tinygltf::Accessor& accessor = model.accessors[static_cast<size_t>(index)];
    const tinygltf::BufferView& view = model.bufferViews[static_cast<size_t>(accessor.bufferView)];
    std::vector<float> out(accessor.count);
    std::memcpy(out.data(), model.buffers[0].data.data() + view.byteOffset + accessor.byteOffset,
                out.size() * sizeof(float));
    return out;
  };
  const std::vector<float> times = floats(sampler.input);
  const std::vector<float> values = floats(sampler.output);
  ASSERT_EQ(values.size(), times.size() * 2);

  // The weights keys alone set the rate and the frames: one frame per key.
  const double rate = c.clip.sample_rate_hz;
  EXPECT_EQ(c.clip.frame_count, static_cast<uint32_t>(std::lround((times.back() - times.front()) * rate)) + 1);
  EXPECT_DOUBLE_EQ(c.source_start_s, times.front());
  for (size_t k = 0; k < times.size(); ++k) {
    const double frame = (times[k] - times.front()) * rate;
    ASSERT_NEAR(frame, std::round(frame), 1e-3) << "key " << k << " is not on a frame at " << rate << " Hz";
    const auto f = static_cast<uint32_t>(std::lround(frame));
    for (int t = 0; t < 2; ++t) {
      EXPECT_NEAR(weight(c, t, f), values[k * 2 + static_cast<size_t>(t)], 1e-6) << "key " << k << " target " << t;
    }
  }
  // Weights of 0 to 1, as the file's; one of its keys is -1.5e-7, float noise it holds itself.
  for (const ScalarTrack& track : c.clip.scalars) {
    for (const float v : track.values) {
      EXPECT_GE(v, -1e-6f);
      EXPECT_LE(v, 1.f);
    }
  }
}

// ---------------------------------------------------------------------------
// A skinned character: joint rotations and weights in one animation

TEST(GltfMorphImport, LinearWeightsInterpolateComponentWiseBesideTheJoints) {
  TempDir dir;
  const MorphFileExpectation expected = test::write_skinned_morph_file(dir / "linear.gltf");
  const ImportedClip c = import_ok(dir / "linear.gltf");
  expect_tracks(c, expected);
  ASSERT_EQ(expected.key_frames, (std::vector<uint32_t>{1, 3, 5}));
  // Held before the first key (0.1 s); the keys themselves; midpoints halfway.
  EXPECT_FLOAT_EQ(weight(c, 0, 0), 0.f);
  EXPECT_FLOAT_EQ(weight(c, 1, 0), 0.5f);
  EXPECT_NEAR(weight(c, 0, 3), 1.f, 1e-6);
  EXPECT_NEAR(weight(c, 1, 5), 1.f, 1e-6);
  EXPECT_NEAR(weight(c, 0, 2), 0.5f, 1e-6);  // (0 + 1) / 2
  EXPECT_NEAR(weight(c, 2, 4), 0.5f, 1e-6);  // (0.6 + 0.4) / 2
  EXPECT_NEAR(weight(c, 1, 4), 0.5f, 1e-6);  // (0 + 1) / 2

  // The bones are still those of the skin, and still move.
  EXPECT_EQ(c.skeleton.bone_names, (std::vector<std::string>{"rig", "lower", "upper"}));
  const Quat last = c.clip.bones[1].rotations[4];  // 0.4 s: 0.8 rad about X
  EXPECT_NEAR(2.0 * std::acos(std::fabs(static_cast<double>(last.w))), 0.8, 1e-5);
  EXPECT_NEAR(c.clip.bones[1].rotations[5].w, last.w, 1e-6);  // held after its last key
  EXPECT_FALSE(warned(c, "ignored"));
  EXPECT_TRUE(c.clip.validate(c.skeleton).ok());
}

TEST(GltfMorphImport, StepWeightsJumpAtTheirKeys) {
  TempDir dir;
  MorphFileOptions options;
  options.interpolation = "STEP";
  const MorphFileExpectation expected = test::write_skinned_morph_file(dir / "step.gltf", options);
  const ImportedClip c = import_ok(dir / "step.gltf");
  expect_tracks(c, expected);
  ASSERT_EQ(expected.key_frames, (std::vector<uint32_t>{3, 9, 15}));
  // The value holds up to the frame before the next key, and jumps on it.
  EXPECT_FLOAT_EQ(weight(c, 0, 6), 0.f);  // midpoint of keys 0 and 1
  EXPECT_FLOAT_EQ(weight(c, 0, 8), 0.f);
  EXPECT_FLOAT_EQ(weight(c, 0, 9), 1.f);
  EXPECT_FLOAT_EQ(weight(c, 1, 12), 0.f);  // midpoint of keys 1 and 2
  EXPECT_FLOAT_EQ(weight(c, 1, 15), 1.f);
}

TEST(GltfMorphImport, CubicSplineWeightsFollowTheirTangents) {
  TempDir dir;
  MorphFileOptions options;
  options.interpolation = "CUBICSPLINE";
  const MorphFileExpectation expected = test::write_skinned_morph_file(dir / "cubic.gltf", options);
  const ImportedClip c = import_ok(dir / "cubic.gltf");
  expect_tracks(c, expected);
  // At a key, its value; halfway, (v0 + v1) / 2 + dt (out0 - in1) / 8.
  EXPECT_NEAR(weight(c, 0, 9), 1.f, 1e-6);
  EXPECT_NEAR(weight(c, 2, 15), 0.4f, 1e-6);
  EXPECT_NEAR(weight(c, 0, 6), 0.5 + 0.2 * (1.0 - -1.0) / 8.0, 1e-6);
  EXPECT_NEAR(weight(c, 2, 12), 0.5 + 0.2 * (-1.0 - -0.5) / 8.0, 1e-6);
}

TEST(GltfMorphImport, NormalisedShortWeightsAreDecodedToMinusOneToOne) {
  TempDir dir;
  MorphFileOptions options;
  options.interpolation = "CUBICSPLINE";  // its tangents are negative too
  options.normalized_shorts = true;
  const MorphFileExpectation expected = test::write_skinned_morph_file(dir / "shorts.gltf", options);
  const ImportedClip c = import_ok(dir / "shorts.gltf");
  expect_tracks(c, expected);
  EXPECT_FLOAT_EQ(weight(c, 1, 15), 1.f);
}

TEST(GltfMorphImport, WeightKeysChooseTheRateAsBoneKeysDo) {
  TempDir dir;
  const auto path = write_edited(dir, {}, [](test::GltfDocument& doc, MorphFileExpectation&) {
    // Weight keys at 0.05, 0.3 and 0.5 s beside rotation keys every 0.1 s: every key lands at 20 Hz.
    set_float(doc, doc.json["animations"][0]["samplers"][2]["input"].get<int>(), 0, 0.05f);
  });
  const ImportedClip c = import_ok(path);
  EXPECT_FLOAT_EQ(c.clip.sample_rate_hz, 20.f);
  ASSERT_EQ(c.clip.frame_count, 11u);
  EXPECT_FLOAT_EQ(weight(c, 1, 0), 0.5f);   // held before the first key
  EXPECT_FLOAT_EQ(weight(c, 1, 1), 0.5f);   // the first key
  EXPECT_NEAR(weight(c, 1, 6), 0.f, 1e-6);  // the second, at 0.3 s
  EXPECT_FALSE(warned(c, "between frames"));
}

// ---------------------------------------------------------------------------
// Names

TEST(GltfMorphImport, TargetsWithoutNamesGoByIndex) {
  TempDir dir;
  MorphFileOptions options;
  options.target_names = false;
  const MorphFileExpectation expected = test::write_skinned_morph_file(dir / "unnamed.gltf", options);
  const ImportedClip c = import_ok(dir / "unnamed.gltf");
  expect_tracks(c, expected);
  EXPECT_EQ(c.clip.scalars[2].name, "face/2");
}

TEST(GltfMorphImport, AnUnnamedNodeGoesByItsIndex) {
  TempDir dir;
  const auto path = write_edited(
      dir, {}, [](test::GltfDocument& doc, MorphFileExpectation&) { doc.json["nodes"][kMorphNode].erase("name"); });
  const ImportedClip c = import_ok(path);
  ASSERT_EQ(c.clip.scalars.size(), 3u);
  EXPECT_EQ(c.clip.scalars[0].name, "node 3/smile");
  EXPECT_EQ(c.clip.scalars[0].node, "node 3");
}

TEST(GltfMorphImport, TargetNamesThatDoNotFitAreNotTrusted) {
  TempDir dir;
  const auto path = write_edited(dir, {}, [](test::GltfDocument& doc, MorphFileExpectation&) {
    doc.json["meshes"][0]["extras"]["targetNames"] = {"smile", "blink"};  // three targets
  });
  const ImportedClip c = import_ok(path);
  ASSERT_EQ(c.clip.scalars.size(), 3u);
  EXPECT_EQ(c.clip.scalars[0].name, "face/0");
  EXPECT_TRUE(warned(c, "targetNames")) << "no warning names extras.targetNames";
}

TEST(GltfMorphImport, NamesThatCollideGetANumberAndAWarning) {
  TempDir dir;
  const auto path = write_edited(dir, {}, [](test::GltfDocument& doc, MorphFileExpectation&) {
    // A second node named "face" drawing the same mesh, its weights animated by the same sampler.
    doc.json["nodes"].push_back({{"name", "face"}, {"mesh", 0}});
    doc.json["scenes"][0]["nodes"].push_back(4);
    doc.json["animations"][0]["channels"].push_back({{"sampler", 2}, {"target", {{"node", 4}, {"path", "weights"}}}});
  });
  const ImportedClip c = import_ok(path);
  ASSERT_EQ(c.clip.scalars.size(), 6u);
  EXPECT_EQ(c.clip.scalars[0].name, "face/smile");
  EXPECT_EQ(c.clip.scalars[3].name, "face/smile#2");
  EXPECT_EQ(c.clip.scalars[5].name, "face/frown#2");
  EXPECT_EQ(c.clip.scalars[5].node, "face");
  EXPECT_EQ(c.clip.scalars[5].target_index, 2u);
  EXPECT_EQ(c.clip.scalars[5].values, c.clip.scalars[2].values);
  EXPECT_TRUE(warned(c, "'face/smile' is 'face/smile#2'"));
}

// ---------------------------------------------------------------------------
// Channels present or absent

TEST(GltfMorphImport, ANodeWhoseWeightsNoChannelAnimatesGetsNoTrack) {
  TempDir dir;
  const auto path = write_edited(
      dir, {}, [](test::GltfDocument& doc, MorphFileExpectation&) { doc.json["animations"][0]["channels"].erase(2); });
  const ImportedClip c = import_ok(path);
  EXPECT_TRUE(c.clip.scalars.empty());
  EXPECT_EQ(c.clip.frame_count, 5u);  // the rotations alone: 0 to 0.4 s at 10 Hz
}

TEST(GltfMorphImport, ASecondWeightsChannelOnANodeReplacesTheFirstWithAWarning) {
  TempDir dir;
  MorphFileOptions step;
  step.interpolation = "STEP";
  MorphFileExpectation step_expected;
  test::make_skinned_morph_document(step, step_expected);
  const auto path = write_edited(dir, {}, [](test::GltfDocument& doc, MorphFileExpectation&) {
    // The same keys again through a STEP sampler, on the same node.
    nlohmann::json& animation = doc.json["animations"][0];
    nlohmann::json again = animation["samplers"][2];
    again["interpolation"] = "STEP";
    animation["samplers"].push_back(again);
    animation["channels"].push_back({{"sampler", 3}, {"target", {{"node", kMorphNode}, {"path", "weights"}}}});
  });
  const ImportedClip c = import_ok(path);
  expect_tracks(c, step_expected);  // the STEP channel's weights alone
  EXPECT_TRUE(warned(c, "channel 3 animates the same property as channel 2; the later one is used"));
}

// ---------------------------------------------------------------------------
// What is refused, and the message that says why

TEST(GltfMorphImport, RefusesAnOutputAccessorOfTheWrongCount) {
  TempDir dir;
  const auto path = write_edited(dir, {}, [](test::GltfDocument& doc, MorphFileExpectation& expected) {
    doc.buffer.accessors[static_cast<size_t>(expected.weights_output_accessor)]["count"] = 8;  // 9 = 3 keys x 3 targets
  });
  EXPECT_TRUE(refused_mentioning(
      import_gltf(path, {}),
      {path.string(), "animation 0 channel 2", "8 weight values for 3 keys", "3 morph targets", "9 values expected"}));
}

TEST(GltfMorphImport, RefusesACubicSplineOutputWithoutItsTangents) {
  TempDir dir;
  MorphFileOptions options;
  options.interpolation = "CUBICSPLINE";
  const auto path = write_edited(dir, options, [](test::GltfDocument& doc, MorphFileExpectation& expected) {
    doc.buffer.accessors[static_cast<size_t>(expected.weights_output_accessor)]["count"] = 9;  // LINEAR's count
  });
  EXPECT_TRUE(refused_mentioning(import_gltf(path, {}), {"channel 2", "27 values expected", "CUBICSPLINE has 3"}));
}

TEST(GltfMorphImport, RefusesWeightsOnANodeWithoutAMesh) {
  TempDir dir;
  const auto path = write_edited(dir, {}, [](test::GltfDocument& doc, MorphFileExpectation&) {
    doc.json["animations"][0]["channels"][2]["target"]["node"] = 1;
  });
  EXPECT_TRUE(
      refused_mentioning(import_gltf(path, {}), {path.string(), "channel 2", "node 1 'lower'", "which has no mesh"}));
}

TEST(GltfMorphImport, RefusesWeightsOnAMeshWithoutTargets) {
  TempDir dir;
  const auto path = write_edited(dir, {}, [](test::GltfDocument& doc, MorphFileExpectation&) {
    doc.json["meshes"][0]["primitives"][0].erase("targets");
    doc.json["meshes"][0].erase("weights");
  });
  EXPECT_TRUE(refused_mentioning(import_gltf(path, {}),
                                 {"channel 2", "node 3 'face'", "mesh 0 'face_mesh' has no morph targets"}));
}

TEST(GltfMorphImport, RefusesPrimitivesThatDisagreeOnTheirTargets) {
  TempDir dir;
  const auto path = write_edited(dir, {}, [](test::GltfDocument& doc, MorphFileExpectation&) {
    nlohmann::json second = doc.json["meshes"][0]["primitives"][0];
    second["targets"].erase(2);
    doc.json["meshes"][0]["primitives"].push_back(second);
  });
  // The mesh reader, which checks every mesh before the animation is read, refuses it first.
  EXPECT_TRUE(refused_mentioning(import_gltf(path, {}), {"mesh 0 'face_mesh'", "primitive 1 has 2 morph targets"}));
}

TEST(GltfMorphImport, RefusesANonFiniteWeight) {
  TempDir dir;
  const auto path = write_edited(dir, {}, [](test::GltfDocument& doc, MorphFileExpectation& expected) {
    set_float(doc, expected.weights_output_accessor, 4, std::numeric_limits<float>::quiet_NaN());  // key 1, target 1
  });
  EXPECT_TRUE(refused_mentioning(import_gltf(path, {}), {"channel 2 output", "element 4 is not a finite number"}));
}

TEST(GltfMorphImport, RefusesTangentsThatCarryAWeightPastTheRangeOfAFloat) {
  TempDir dir;
  MorphFileOptions options;
  options.interpolation = "CUBICSPLINE";
  const auto path = write_edited(dir, options, [](test::GltfDocument& doc, MorphFileExpectation& expected) {
    // Key k's target 0 is at 9k (in-tangent), 9k + 3 (value), 9k + 6 (out-tangent).
    const int output = expected.weights_output_accessor;
    set_float(doc, output, 3, std::numeric_limits<float>::max());
    set_float(doc, output, 12, std::numeric_limits<float>::max());
    set_float(doc, output, 6, 3e38f);
  });
  EXPECT_TRUE(refused_mentioning(import_gltf(path, {}), {"'talk' scalar track 'face/smile'", "range of a float"}));
}

TEST(GltfMorphImport, RefusesAccessorIndicesOutOfRange) {
  TempDir dir;
  const auto output = write_edited(dir, {}, [](test::GltfDocument& doc, MorphFileExpectation&) {
    doc.json["animations"][0]["samplers"][2]["output"] = 999;
  });
  EXPECT_TRUE(refused_mentioning(import_gltf(output, {}), {"channel 2 output", "accessor 999 does not exist"}));
  const auto input = write_edited(dir, {}, [](test::GltfDocument& doc, MorphFileExpectation&) {
    doc.json["animations"][0]["samplers"][2]["input"] = 999;
  });
  EXPECT_TRUE(refused_mentioning(import_gltf(input, {}), {"channel 2 input", "accessor 999 does not exist"}));
}

TEST(GltfMorphImport, RefusesIntegerWeightsThatAreNotNormalised) {
  TempDir dir;
  MorphFileOptions options;
  options.normalized_shorts = true;
  const auto path = write_edited(dir, options, [](test::GltfDocument& doc, MorphFileExpectation& expected) {
    doc.buffer.accessors[static_cast<size_t>(expected.weights_output_accessor)].erase("normalized");
  });
  EXPECT_TRUE(refused_mentioning(import_gltf(path, {}), {"channel 2 output", "not normalised"}));
}

TEST(GltfMorphImport, TheClipSizeLimitCountsEveryWeight) {
  TempDir dir;
  test::write_skinned_morph_file(dir / "limit.gltf");
  ImportSettings settings;
  settings.max_bone_frames = 3 * 6;  // the 3 bones' 6 frames fit; the 3 weights' do not
  EXPECT_TRUE(refused_mentioning(import_gltf(dir / "limit.gltf", settings),
                                 {"(3 bones + 3 scalar components) x 6 frames is 36 bone-frames"}));
  settings.max_bone_frames = 6 * 6;
  EXPECT_TRUE(import_gltf(dir / "limit.gltf", settings).ok());
}

}  // namespace
}  // namespace ks
