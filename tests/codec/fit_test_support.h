#pragma once
// Helpers shared by the fit tests: small clips, fitting that fails the test
// on a refusal, the shipped clips, and the object-space promise of DESIGN §5
// checked on the decoded stream.

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <string>
#include <vector>

#include "keystream/codec/fit.h"
#include "keystream/codec/measure.h"
#include "keystream/codec/pack.h"
#include "keystream/io/import.h"
#include "keystream/runtime/stream_view.h"

namespace ks::test {

struct Sampled {
  Skeleton skeleton;
  RawClip clip;
};

inline Vec3 unit_axis(Vec3 v) {
  return v * (1.f / length(v));
}

// The per-kind local thresholds of version 1 (ErrorMode::kLocal).
inline FitSettings local_settings() {
  FitSettings settings;
  settings.error_mode = ErrorMode::kLocal;
  return settings;
}

inline FittedClip fit_or_fail(const Sampled& s, const FitSettings& settings = local_settings(), unsigned threads = 1) {
  Result<FittedClip> fitted = fit_clip(s.skeleton, s.clip, settings, threads);
  EXPECT_TRUE(fitted.ok()) << fitted.error();
  return fitted.ok() ? std::move(fitted.value()) : FittedClip{};
}

// The object-space promise of DESIGN §5, checked on what an engine gets:
// `fitted` packed, decoded by the Player at every source frame, and
// measured with each bone's own shell distance. Every bone the fit says met
// its tolerance is within it; the fit's figures are the measured ones; a
// missed bone comes with a floor. Returns the measured per-bone errors.
inline std::vector<float> expect_object_space_promise(const Skeleton& skeleton, const RawClip& clip,
                                                      const FittedClip& fitted) {
  EXPECT_EQ(fitted.settings.error_mode, ErrorMode::kObjectSpace);
  EXPECT_GE(fitted.rounds, 1u);
  const size_t bones = skeleton.bone_count();
  EXPECT_EQ(fitted.bones.size(), bones);
  if (fitted.bones.size() != bones) return {};
  PackSettings pack_settings;
  pack_settings.jump_interval_s = 0.25f;
  const Result<std::vector<uint8_t>> bytes = pack(fitted, pack_settings);
  EXPECT_TRUE(bytes.ok()) << bytes.error();
  if (!bytes.ok()) return {};
  const Result<StreamView> view = StreamView::open(bytes.value());
  EXPECT_TRUE(view.ok()) << view.error();
  if (!view.ok()) return {};
  MeasureSettings settings;
  for (const BoneFit& bone : fitted.bones) settings.bone_shell_distance_m.push_back(bone.shell_distance_m);
  const Result<ClipMeasurement> measured = measure(skeleton, clip, view.value(), settings);
  EXPECT_TRUE(measured.ok()) << measured.error();
  if (!measured.ok()) return {};
  const ClipMeasurement& m = measured.value();
  EXPECT_EQ(m.bone_error_m.size(), bones);
  EXPECT_EQ(m.bone_worst_frame.size(), bones);
  for (size_t b = 0; b < bones && b < m.bone_error_m.size(); ++b) {
    const BoneFit& fit = fitted.bones[b];
    SCOPED_TRACE(::testing::Message() << "bone " << b << " (" << skeleton.bone_names[b] << "), tolerance "
                                      << fit.tolerance_m << " m at " << fit.shell_distance_m << " m, fit says "
                                      << fit.max_error_m << " m at frame " << fit.worst_frame << ", measured "
                                      << m.bone_error_m[b] << " m at frame " << m.bone_worst_frame[b]);
    if (fit.met()) {
      EXPECT_LE(m.bone_error_m[b], fit.tolerance_m);
    } else {
      EXPECT_GT(fit.floor_m, 0.f) << "a missed tolerance without a floor to explain it";
    }
    // The fit measured what the player decodes (float sums may differ in the last bits).
    EXPECT_NEAR(m.bone_error_m[b], fit.max_error_m, 1e-3f * fit.tolerance_m + 1e-9f);
  }
  return m.bone_error_m;
}

// The shared clips (KS_CLIPS_DIR) and the demo clip.
inline std::vector<std::filesystem::path> shipped_clip_files() {
  std::vector<std::filesystem::path> files;
  std::error_code error;
  for (const std::filesystem::directory_entry& entry : std::filesystem::directory_iterator(KS_CLIPS_DIR, error)) {
    const std::string ext = entry.path().extension().string();
    if (ext == ".glb" || ext == ".gltf" || ext == ".bvh") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  files.push_back(std::filesystem::path(KS_ASSETS_DIR) / "demo_walk.glb");
  return files;
}

// A test name for a clip file: its file name with every other character as '_'.
inline std::string clip_test_name(const ::testing::TestParamInfo<std::filesystem::path>& info) {
  std::string name = info.param.filename().string();
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

// Every animation of `file`; a failure when one does not import.
inline std::vector<ImportedClip> import_every_animation(const std::filesystem::path& file) {
  std::vector<ImportedClip> clips;
  Result<ImportedClip> first = import_clip(file);
  EXPECT_TRUE(first.ok()) << first.error();
  if (!first.ok()) return clips;
  const size_t count = first.value().animation_names.size();
  clips.push_back(std::move(first.value()));
  for (size_t a = 1; a < count; ++a) {
    ImportSettings settings;
    settings.animation_index = static_cast<int>(a);
    Result<ImportedClip> next = import_clip(file, settings);
    EXPECT_TRUE(next.ok()) << next.error();
    if (next.ok()) clips.push_back(std::move(next.value()));
  }
  return clips;
}

}  // namespace ks::test
