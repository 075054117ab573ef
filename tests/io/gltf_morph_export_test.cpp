// Scalar tracks in the glTF export (core/io/gltf_export.h,
// gltf_export_animation.h): morph weights go back as `weights` channels that
// re-import as the tracks they came from, user curves under extras, and a
// track the export cannot place is a warning naming it.

#include <gtest/gtest.h>
#include <tiny_gltf.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <string>
#include <tuple>
#include <vector>

#include "keystream/codec/fit.h"
#include "keystream/codec/pack.h"
#include "keystream/io/file_io.h"
#include "keystream/io/gltf_export.h"
#include "keystream/io/import.h"
#include "keystream/io/stream_file.h"
#include "keystream/runtime/player.h"
#include "keystream/runtime/stream_view.h"
#include "tests/io/morph_test_files.h"
#include "tests/temp_dir.h"

namespace ks {
namespace {

namespace fs = std::filesystem;
using test::kMorphNode;
using test::kMorphTargets;
using test::MorphFileExpectation;
using test::MorphFileOptions;
using test::TempDir;

const fs::path kMorphCube =
    fs::path(KS_ASSIMP_MODELS_DIR) / "glTF2/glTF-Sample-Models/AnimatedMorphCube-glTF/AnimatedMorphCube.gltf";

ImportedClip import_ok(const fs::path& path) {
  Result<ImportedClip> result = import_clip(path);
  EXPECT_TRUE(result.ok()) << result.error();
  return result.ok() ? std::move(result.value()) : ImportedClip{};
}

// A stream of `imported` (default fit and pack settings) and what it decodes to.
struct Decoded {
  std::vector<uint8_t> bytes;
  StreamView view;
  DecodedStream stream;
};

// The bones as decode_stream gives them; the scalar tracks as the player
// decodes them at every frame, named and targeted from the metadata
// (decode_stream, core/io/stream_file.h, leaves them out).
void decode_scalars(const StreamView& view, RawClip& clip) {
  Player player(view);
  std::vector<Transform> pose(view.bone_count());
  std::vector<float> values(player.scalar_value_count());
  const std::span<const StreamTrack> tracks = view.scalar_tracks();
  clip.scalars.assign(tracks.size(), {});
  for (size_t s = 0; s < tracks.size(); ++s) {
    const StreamScalarInfo& info = view.metadata().scalars.at(s);
    ScalarTrack& track = clip.scalars[s];
    track.name = info.name;
    track.components = tracks[s].components;
    track.target = static_cast<ScalarTarget>(info.target);
    track.node = info.node;
    track.target_index = info.target_index;
  }
  for (uint32_t f = 0; f < clip.frame_count; ++f) {
    player.sample_frame(static_cast<float>(f), pose, values);
    for (size_t s = 0; s < tracks.size(); ++s) {
      const float* first = values.data() + player.scalar_value_offset(static_cast<uint32_t>(s));
      clip.scalars[s].values.insert(clip.scalars[s].values.end(), first, first + clip.scalars[s].components);
    }
  }
}

std::unique_ptr<Decoded> fit_pack_decode(const ImportedClip& imported) {
  auto decoded = std::make_unique<Decoded>();
  Result<FittedClip> fitted = fit_clip(imported.skeleton, imported.clip, FitSettings{});
  EXPECT_TRUE(fitted.ok()) << fitted.error();
  if (!fitted) return nullptr;
  Result<std::vector<uint8_t>> bytes = pack(fitted.value(), PackSettings{});
  EXPECT_TRUE(bytes.ok()) << bytes.error();
  if (!bytes) return nullptr;
  decoded->bytes = std::move(bytes.value());
  Result<StreamView> view = StreamView::open(decoded->bytes, "morph", StreamCheck::kFull);
  EXPECT_TRUE(view.ok()) << view.error();
  if (!view) return nullptr;
  decoded->view = std::move(view.value());
  decoded->stream = decode_stream(decoded->view);
  decode_scalars(decoded->view, decoded->stream.clip);
  return decoded;
}

// The export, with its warnings; empty bytes when refused.
struct Exported {
  std::vector<uint8_t> glb;
  std::vector<std::string> warnings;
};

Exported export_ok(const Skeleton& skeleton, const RawClip& clip, const std::optional<fs::path>& source) {
  Exported out;
  Result<std::vector<uint8_t>> glb = export_gltf(skeleton, clip, source, false, &out.warnings);
  EXPECT_TRUE(glb.ok()) << glb.error();
  if (glb) out.glb = std::move(glb.value());
  return out;
}

ImportedClip reimport(const std::vector<uint8_t>& glb, const TempDir& dir) {
  const fs::path path = dir.path() / "exported.glb";
  EXPECT_TRUE(write_file_atomically(path, std::span<const unsigned char>(glb)).ok());
  return import_ok(path);
}

tinygltf::Model load_glb(const std::vector<uint8_t>& glb) {
  tinygltf::TinyGLTF loader;
  tinygltf::Model model;
  std::string error, warning;
  EXPECT_TRUE(loader.LoadBinaryFromMemory(&model, &error, &warning, glb.data(), static_cast<unsigned>(glb.size())))
      << error;
  return model;
}

std::vector<float> floats(const tinygltf::Model& model, int index) {
  const tinygltf::Accessor& accessor = model.accessors.at(static_cast<size_t>(index));
  const tinygltf::BufferView& view = model.bufferViews.at(static_cast<size_t>(accessor.bufferView));
  std::vector<float> out(accessor.count * static_cast<size_t>(tinygltf::GetNumComponentsInType(accessor.type)));
  std::memcpy(out.data(), model.buffers[0].data.data() + view.byteOffset + accessor.byteOffset,
              out.size() * sizeof(float));
  return out;
}

// The animation's weights channels, by node.
std::vector<const tinygltf::AnimationChannel*> weights_channels(const tinygltf::Model& model) {
  std::vector<const tinygltf::AnimationChannel*> out;
  for (const tinygltf::AnimationChannel& channel : model.animations.at(0).channels) {
    if (channel.target_path == "weights") out.push_back(&channel);
  }
  return out;
}

// One LINEAR weights channel on `node`, keyed at every frame with every one
// of its mesh's `targets` (which the export kept) per key; its values.
std::vector<float> expect_weights_channel(const tinygltf::Model& model, int node, uint32_t frames, size_t targets) {
  const std::vector<const tinygltf::AnimationChannel*> channels = weights_channels(model);
  EXPECT_EQ(channels.size(), 1u);
  if (channels.size() != 1) return {};
  EXPECT_EQ(channels[0]->target_node, node);
  const tinygltf::AnimationSampler& sampler =
      model.animations[0].samplers.at(static_cast<size_t>(channels[0]->sampler));
  EXPECT_EQ(sampler.interpolation, "LINEAR");
  EXPECT_EQ(model.accessors.at(static_cast<size_t>(sampler.input)).count, frames);
  const tinygltf::Accessor& output = model.accessors.at(static_cast<size_t>(sampler.output));
  EXPECT_EQ(output.type, TINYGLTF_TYPE_SCALAR);
  EXPECT_EQ(output.componentType, TINYGLTF_COMPONENT_TYPE_FLOAT);
  EXPECT_EQ(output.count, frames * targets);  // keys x targets
  const tinygltf::Mesh& mesh = model.meshes.at(static_cast<size_t>(model.nodes.at(static_cast<size_t>(node)).mesh));
  for (const tinygltf::Primitive& primitive : mesh.primitives) EXPECT_EQ(primitive.targets.size(), targets);
  const std::vector<float> values = floats(model, sampler.output);
  // min and max, when written, must be the values' own.
  if (!output.minValues.empty()) {
    EXPECT_EQ(output.minValues[0], *std::min_element(values.begin(), values.end()));
  }
  if (!output.maxValues.empty()) {
    EXPECT_EQ(output.maxValues[0], *std::max_element(values.begin(), values.end()));
  }
  return values;
}

// `back` has `original`'s scalar tracks, every frame within `precision`
// (the fit's), and `decoded`'s within float rounding (the export wrote them).
void expect_same_scalars(const RawClip& original, const RawClip& decoded, const RawClip& back, float precision) {
  ASSERT_EQ(back.frame_count, original.frame_count);
  ASSERT_EQ(back.scalars.size(), original.scalars.size());
  constexpr float kRounding = 1e-6f;  // float key times and interpolation
  for (size_t s = 0; s < original.scalars.size(); ++s) {
    const ScalarTrack& want = original.scalars[s];
    const ScalarTrack& got = back.scalars[s];
    EXPECT_EQ(got.name, want.name);
    EXPECT_EQ(got.target, ScalarTarget::kMorphWeight);
    EXPECT_EQ(got.node, want.node);
    EXPECT_EQ(got.target_index, want.target_index);
    ASSERT_EQ(got.values.size(), want.values.size());
    for (uint32_t f = 0; f < original.frame_count; ++f) {
      EXPECT_NEAR(got.values[f], want.values[f], precision + kRounding) << want.name << " frame " << f;
      EXPECT_NEAR(got.values[f], decoded.scalars[s].values[f], kRounding) << want.name << " frame " << f;
    }
  }
}

bool warned(const std::vector<std::string>& warnings, std::initializer_list<std::string_view> parts) {
  return std::any_of(warnings.begin(), warnings.end(), [&](const std::string& warning) {
    return std::all_of(parts.begin(), parts.end(),
                       [&](std::string_view part) { return warning.find(part) != std::string::npos; });
  });
}

// The skinned morph document after `edit`, written to <dir>/NAME.gltf.
template <class Edit>
fs::path write_edited(const TempDir& dir, const std::string& name, Edit edit) {
  MorphFileExpectation expected;
  test::GltfDocument doc = test::make_skinned_morph_document({}, expected);
  edit(doc.json);
  return doc.write(dir.path(), name);
}

// ---------------------------------------------------------------------------
// Round trips: import, fit, pack, decode, export onto the source, import again

TEST(GltfMorphExport, AnimatedMorphCubeRoundTripsItsWeights) {
  if (!fs::exists(kMorphCube)) GTEST_SKIP() << kMorphCube << " is not installed (scripts/setup)";
  TempDir dir;
  const ImportedClip original = import_ok(kMorphCube);
  ASSERT_EQ(original.clip.scalars.size(), 2u);
  const std::unique_ptr<Decoded> decoded = fit_pack_decode(original);
  ASSERT_NE(decoded, nullptr);
  const float precision = decoded->view.metadata().scalars.at(0).precision;
  EXPECT_FLOAT_EQ(precision, 0.0001f);

  const Exported exported = export_ok(decoded->stream.skeleton, decoded->stream.clip, kMorphCube);
  ASSERT_FALSE(exported.glb.empty());
  EXPECT_TRUE(exported.warnings.empty()) << exported.warnings.front();
  const tinygltf::Model model = load_glb(exported.glb);
  const auto node = std::find_if(model.nodes.begin(), model.nodes.end(),
                                 [](const tinygltf::Node& n) { return n.name == "AnimatedMorphCube"; });
  ASSERT_NE(node, model.nodes.end());
  expect_weights_channel(model, static_cast<int>(node - model.nodes.begin()), original.clip.frame_count, 2);

  const ImportedClip back = reimport(exported.glb, dir);
  expect_same_scalars(original.clip, decoded->stream.clip, back.clip, precision);
}

TEST(GltfMorphExport, SkinnedMorphFileRoundTripsWeightsAndBones) {
  for (const char* interpolation : {"LINEAR", "STEP", "CUBICSPLINE"}) {
    SCOPED_TRACE(interpolation);
    TempDir dir;
    MorphFileOptions options;
    options.interpolation = interpolation;
    const fs::path source = dir.path() / "morph.gltf";
    const MorphFileExpectation expected = test::write_skinned_morph_file(source, options);
    const ImportedClip original = import_ok(source);
    ASSERT_EQ(original.clip.scalars.size(), static_cast<size_t>(kMorphTargets));
    const std::unique_ptr<Decoded> decoded = fit_pack_decode(original);
    ASSERT_NE(decoded, nullptr);
    const RawClip& clip = decoded->stream.clip;

    const Exported exported = export_ok(decoded->stream.skeleton, clip, source);
    ASSERT_FALSE(exported.glb.empty());
    EXPECT_TRUE(exported.warnings.empty()) << exported.warnings.front();
    const tinygltf::Model model = load_glb(exported.glb);
    const std::vector<float> values = expect_weights_channel(model, kMorphNode, expected.frame_count, kMorphTargets);
    ASSERT_EQ(values.size(), size_t{expected.frame_count} * kMorphTargets);
    for (uint32_t f = 0; f < expected.frame_count; ++f) {
      for (size_t t = 0; t < kMorphTargets; ++t) EXPECT_EQ(values[f * kMorphTargets + t], clip.scalars[t].values[f]);
    }
    EXPECT_EQ(model.nodes.at(kMorphNode).skin, 0);
    EXPECT_EQ(model.meshes.at(0).extras.Get("targetNames").ArrayLen(), static_cast<size_t>(kMorphTargets));

    const ImportedClip back = reimport(exported.glb, dir);
    expect_same_scalars(original.clip, clip, back.clip, decoded->view.metadata().scalars.at(0).precision);
    // The bones: the decoded clip's, and the skin and mesh still bound to them.
    EXPECT_EQ(back.skeleton.bone_names, decoded->stream.skeleton.bone_names);
    EXPECT_EQ(back.skeleton.parents, decoded->stream.skeleton.parents);
    ASSERT_EQ(back.clip.bones.size(), clip.bones.size());
    for (size_t b = 0; b < clip.bones.size(); ++b) {
      for (uint32_t f = 0; f < clip.frame_count; ++f) {
        const Quat want = clip.bones[b].rotations[f];
        const Quat got = back.clip.bones[b].rotations[f];
        EXPECT_NEAR(std::fabs(dot(want, got)), 1.f, 1e-6f) << "bone " << b << " frame " << f;
        const Vec3 gap = back.clip.bones[b].translations[f] - clip.bones[b].translations[f];
        EXPECT_LE(std::max({std::fabs(gap.x), std::fabs(gap.y), std::fabs(gap.z)}), 1e-6f) << "bone " << b;
      }
    }
    ASSERT_TRUE(back.mesh.has_value());
    EXPECT_EQ(back.mesh->vertex_count(), original.mesh->vertex_count());
  }
}

// ---------------------------------------------------------------------------
// What targets without a track hold, and tracks the export cannot place

TEST(GltfMorphExport, TargetsWithoutATrackHoldTheNodesOrTheMeshsWeights) {
  TempDir dir;
  const ImportedClip original = import_ok(write_edited(dir, "morph", [](nlohmann::json&) {}));
  RawClip clip = original.clip;
  clip.scalars = {original.clip.scalars[1]};  // blink alone

  const fs::path mesh_weights = write_edited(dir, "mesh_weights", [](nlohmann::json& json) {
    json["meshes"][0]["weights"] = {0.25, 0.5, 0.75};
  });
  const fs::path node_weights = write_edited(dir, "node_weights", [](nlohmann::json& json) {
    json["meshes"][0]["weights"] = {0.25, 0.5, 0.75};
    json["nodes"][kMorphNode]["weights"] = {0.125, 0.5, 0.625};
  });
  const fs::path no_weights =
      write_edited(dir, "no_weights", [](nlohmann::json& json) { json["meshes"][0].erase("weights"); });
  for (const auto& [source, first, last] :
       {std::tuple{mesh_weights, 0.25f, 0.75f}, std::tuple{node_weights, 0.125f, 0.625f},
        std::tuple{no_weights, 0.f, 0.f}}) {
    SCOPED_TRACE(source.filename().string());
    const Exported exported = export_ok(original.skeleton, clip, source);
    EXPECT_TRUE(exported.warnings.empty()) << exported.warnings.front();
    const std::vector<float> values =
        expect_weights_channel(load_glb(exported.glb), kMorphNode, clip.frame_count, kMorphTargets);
    ASSERT_EQ(values.size(), size_t{clip.frame_count} * kMorphTargets);
    for (uint32_t f = 0; f < clip.frame_count; ++f) {
      EXPECT_EQ(values[f * kMorphTargets + 0], first);
      EXPECT_EQ(values[f * kMorphTargets + 1], clip.scalars[0].values[f]);
      EXPECT_EQ(values[f * kMorphTargets + 2], last);
    }
  }
}

TEST(GltfMorphExport, ATrackWhoseNodeWasRenamedIsAWarningNamingIt) {
  TempDir dir;
  const ImportedClip original = import_ok(write_edited(dir, "morph", [](nlohmann::json&) {}));
  const fs::path renamed =
      write_edited(dir, "renamed", [](nlohmann::json& json) { json["nodes"][kMorphNode]["name"] = "head"; });
  const Exported exported = export_ok(original.skeleton, original.clip, renamed);
  ASSERT_FALSE(exported.glb.empty());
  ASSERT_EQ(exported.warnings.size(), 1u);
  EXPECT_TRUE(warned(exported.warnings,
                     {"morph-weight track 'face/smile' and 2 more are not exported", "no node 'face'", "renamed.gltf"}))
      << exported.warnings[0];
  EXPECT_TRUE(weights_channels(load_glb(exported.glb)).empty());
  // The bones are exported all the same.
  const ImportedClip back = reimport(exported.glb, dir);
  EXPECT_EQ(back.clip.bones.size(), original.clip.bones.size());
  EXPECT_TRUE(back.clip.scalars.empty());
}

TEST(GltfMorphExport, TracksWithNoMeshOrTargetToDriveAreWarningsNamingThem) {
  TempDir dir;
  const fs::path source = write_edited(dir, "morph", [](nlohmann::json&) {});
  const ImportedClip original = import_ok(source);

  // Without a source there is no mesh at all.
  const Exported bare = export_ok(original.skeleton, original.clip, std::nullopt);
  EXPECT_TRUE(warned(bare.warnings, {"'face/smile' and 2 more are not exported", "without a source"}))
      << (bare.warnings.empty() ? "no warning" : bare.warnings[0]);

  // A target past the mesh's, a node whose mesh has no targets, one with two components.
  RawClip clip = original.clip;
  clip.scalars[0].target_index = 3;
  clip.scalars[1].node = "upper";
  clip.scalars[2].components = 2;
  clip.scalars[2].values.resize(clip.scalars[2].values.size() * 2, 0.f);
  const Exported exported = export_ok(original.skeleton, clip, source);
  EXPECT_TRUE(warned(exported.warnings, {"'face/smile' is not exported", "node 'face' has only 3 morph targets"}));
  EXPECT_TRUE(warned(exported.warnings, {"'face/blink' is not exported", "node 'upper'", "no mesh with morph"}));
  EXPECT_TRUE(warned(exported.warnings, {"'face/frown' is not exported", "one component, not 2"}));
  EXPECT_EQ(exported.warnings.size(), 3u);
  EXPECT_TRUE(weights_channels(load_glb(exported.glb)).empty());
}

TEST(GltfMorphExport, NodesSharingANameTakeItsTracksInNodeOrder) {
  TempDir dir;
  const fs::path source = write_edited(dir, "twins", [](nlohmann::json& json) {
    json["nodes"].push_back({{"name", "face"}, {"mesh", 0}});
    json["scenes"][0]["nodes"].push_back(4);
  });
  const ImportedClip original = import_ok(write_edited(dir, "morph", [](nlohmann::json&) {}));
  RawClip clip = original.clip;
  for (size_t t = 0; t < kMorphTargets; ++t) {
    ScalarTrack twin = original.clip.scalars[t];
    twin.name += "#2";
    for (float& v : twin.values) v = 1.f - v;
    clip.scalars.push_back(std::move(twin));
  }
  const Exported exported = export_ok(original.skeleton, clip, source);
  EXPECT_TRUE(warned(exported.warnings, {"2 nodes with morph targets named 'face'", "node order"}));
  const tinygltf::Model model = load_glb(exported.glb);
  const std::vector<const tinygltf::AnimationChannel*> channels = weights_channels(model);
  ASSERT_EQ(channels.size(), 2u);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(channels[static_cast<size_t>(i)]->target_node, kMorphNode + i);
    const std::vector<float> values = floats(
        model, model.animations[0].samplers.at(static_cast<size_t>(channels[static_cast<size_t>(i)]->sampler)).output);
    ASSERT_EQ(values.size(), size_t{clip.frame_count} * kMorphTargets);
    for (uint32_t f = 0; f < clip.frame_count; ++f) {
      for (size_t t = 0; t < kMorphTargets; ++t) {
        EXPECT_EQ(values[f * kMorphTargets + t], clip.scalars[static_cast<size_t>(i) * kMorphTargets + t].values[f]);
      }
    }
  }
}

// ---------------------------------------------------------------------------
// User curves

TEST(GltfMorphExport, UserCurvesGoUnderTheAnimationsExtrasAsSamplers) {
  TempDir dir;
  const fs::path source = write_edited(dir, "morph", [](nlohmann::json&) {});
  const ImportedClip original = import_ok(source);
  RawClip clip = original.clip;
  ScalarTrack& curve = clip.scalars.emplace_back();
  curve.name = "gameplay/foot_contact";
  curve.components = 2;
  for (uint32_t f = 0; f < clip.frame_count; ++f) curve.values.insert(curve.values.end(), {0.5f * f, -1.f * f});

  for (const std::optional<fs::path>& onto : {std::optional<fs::path>(source), std::optional<fs::path>()}) {
    const Exported exported = export_ok(original.skeleton, clip, onto);
    const tinygltf::Model model = load_glb(exported.glb);
    EXPECT_FALSE(warned(exported.warnings, {"foot_contact"}));
    const tinygltf::Value& curves = model.animations.at(0).extras.Get("keystream_curves");
    ASSERT_TRUE(curves.IsObject());
    ASSERT_EQ(curves.Keys(), std::vector<std::string>{"gameplay/foot_contact"});
    const tinygltf::Value& sampler = curves.Get("gameplay/foot_contact");
    ASSERT_TRUE(sampler.Get("input").IsInt() && sampler.Get("output").IsInt());
    // The same key times as the channels'.
    EXPECT_EQ(sampler.Get("input").Get<int>(), model.animations[0].samplers.at(0).input);
    const int output = sampler.Get("output").Get<int>();
    EXPECT_EQ(model.accessors.at(static_cast<size_t>(output)).type, TINYGLTF_TYPE_VEC2);
    EXPECT_EQ(model.accessors.at(static_cast<size_t>(output)).count, clip.frame_count);
    EXPECT_EQ(floats(model, output), curve.values);
  }
}

}  // namespace
}  // namespace ks

namespace ks {
namespace {

// What export writes under extras.keystream_curves, import reads back: the
// curve at every frame, bit for bit, beside the morph weights.
TEST(GltfMorphExport, UserCurvesComeBackOnImport) {
  TempDir dir;
  const fs::path source = write_edited(dir, "morph", [](nlohmann::json&) {});
  const ImportedClip original = import_ok(source);
  RawClip clip = original.clip;
  ScalarTrack& curve = clip.scalars.emplace_back();
  curve.name = "gameplay/foot_contact";
  curve.components = 2;
  for (uint32_t f = 0; f < clip.frame_count; ++f) curve.values.insert(curve.values.end(), {0.25f * f, 1.f - 0.5f * f});
  const ImportedClip back = reimport(export_ok(original.skeleton, clip, source).glb, dir);
  ASSERT_EQ(back.clip.scalars.size(), clip.scalars.size());
  const ScalarTrack& read = back.clip.scalars.back();
  EXPECT_EQ(read.name, "gameplay/foot_contact");
  EXPECT_EQ(read.target, ScalarTarget::kCurve);
  EXPECT_EQ(read.components, 2u);
  EXPECT_EQ(read.values, curve.values);
}

TEST(GltfMorphExport, BadUserCurvesAreRefusedOrIgnoredNamingThem) {
  TempDir dir;
  // A curve whose output holds another count of values than its keys.
  const fs::path miscounted = write_edited(dir, "miscounted", [](nlohmann::json& json) {
    const int input = json["animations"][0]["samplers"][0]["input"];
    json["animations"][0]["extras"]["keystream_curves"]["blink"] = {{"input", input}, {"output", 0}};
  });
  Result<ImportedClip> refused = import_clip(miscounted);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().find("curve 'blink'"), std::string::npos) << refused.error();
  // Accessor indices missing or out of range.
  const fs::path no_output = write_edited(dir, "no_output", [](nlohmann::json& json) {
    json["animations"][0]["extras"]["keystream_curves"]["blink"] = {{"input", 0}};
  });
  refused = import_clip(no_output);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().find("is not an object with accessor indices"), std::string::npos) << refused.error();
  const fs::path far = write_edited(dir, "far", [](nlohmann::json& json) {
    const int input = json["animations"][0]["samplers"][0]["input"];
    json["animations"][0]["extras"]["keystream_curves"]["blink"] = {{"input", input}, {"output", 999999}};
  });
  refused = import_clip(far);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().find("accessor 999999 does not exist"), std::string::npos) << refused.error();
  // Not an object of curves: another tool's extras, left alone with a warning.
  const fs::path other = write_edited(
      dir, "other", [](nlohmann::json& json) { json["animations"][0]["extras"]["keystream_curves"] = 5; });
  const ImportedClip ignored = import_ok(other);
  EXPECT_TRUE(std::any_of(ignored.warnings.begin(), ignored.warnings.end(), [](const std::string& w) {
    return w.find("extras.keystream_curves is not an object of curves") != std::string::npos;
  }));
}

}  // namespace
}  // namespace ks
