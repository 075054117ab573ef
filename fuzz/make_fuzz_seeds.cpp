// make_fuzz_seeds: writes the stream seed corpus of stream_fuzzer
// (fuzz/corpus/stream, see fuzz/README.md): the demo clip's "idle" animation
// and a tiny synthetic clip, fitted and packed with a few settings, so the
// fuzzer starts from streams that open and mutates every section of them;
// and the glTF seeds of gltf_fuzzer (gltf_seeds.h, fuzz/corpus/gltf). Rerun
// it (scripts/fuzz --refresh-seeds) when the stream format changes.
//
//   make_fuzz_seeds <output folder>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "fuzz/gltf_seeds.h"
#include "keystream/codec/fit.h"
#include "keystream/codec/pack.h"
#include "keystream/io/file_io.h"
#include "keystream/io/import.h"
#include "keystream/runtime/stream_view.h"

namespace {

using namespace ks;

// Seeds stay small so that mutations land often in every section: the idle
// animation cropped to this many frames (about 1.6 s at 30 Hz).
constexpr uint32_t kDemoFrames = 48;

struct Seed {
  const char* name;
  ErrorMode mode = ErrorMode::kLocal;   // local: the thresholds below; object space: the tolerance
  float translation_error_m = 0.0005f;  // local mode: metres
  float rotation_error_deg = 0.1f;      // local mode: degrees
  float tolerance_m = 0.0001f;          // object space: metres at the shell distance
  float jump_interval_s = 0.f;          // seconds; 0 = no jump frames
  bool hand_override = false;           // object space: a tighter tolerance on one bone (metadata)
  bool zstd = false;                    // key stream in zstd blocks
  RestTracks rest_tracks = RestTracks::kKeep;  // kSkip: tracks at the skeleton's rest value coded rest
  NameStorage names = NameStorage::kFull;      // kHash: the bones' name hashes in the metadata
};

// Coarse thresholds keep the key count, and so the seed, small; one seed at
// the default thresholds fills the key stream. The variants cover no jump
// frames, dense and sparse jump frames, object-space fits with and without
// a bone override (metadata), and zstd blocks (one block without jump
// frames, several with).
const Seed kDemoSeeds[] = {
    {.name = "demo_idle_coarse_nojump", .translation_error_m = 0.005f, .rotation_error_deg = 2.f},
    {.name = "demo_idle_coarse_jump250ms",
     .translation_error_m = 0.005f,
     .rotation_error_deg = 2.f,
     .jump_interval_s = 0.25f},
    {.name = "demo_idle_medium_jump1s",
     .translation_error_m = 0.002f,
     .rotation_error_deg = 1.f,
     .jump_interval_s = 1.f},
    {.name = "demo_idle_fine_jump500ms", .jump_interval_s = 0.5f},
    {.name = "demo_idle_object_1mm_jump100ms", .mode = ErrorMode::kObjectSpace, .tolerance_m = 0.001f,
     .jump_interval_s = 0.1f},
    {.name = "demo_idle_object_override_jump500ms", .mode = ErrorMode::kObjectSpace, .tolerance_m = 0.002f,
     .jump_interval_s = 0.5f, .hand_override = true},
    {.name = "demo_idle_zstd_nojump", .translation_error_m = 0.002f, .rotation_error_deg = 1.f, .zstd = true},
    {.name = "demo_idle_zstd_jump250ms",
     .translation_error_m = 0.002f,
     .rotation_error_deg = 1.f,
     .jump_interval_s = 0.25f,
     .zstd = true},
};
const Seed kSyntheticSeeds[] = {
    {.name = "synthetic_3bones_nojump"},
    {.name = "synthetic_3bones_jump100ms", .jump_interval_s = 0.1f},
    {.name = "synthetic_3bones_coarse_jump200ms",
     .translation_error_m = 0.01f,
     .rotation_error_deg = 5.f,
     .jump_interval_s = 0.2f},
    {.name = "synthetic_3bones_object_jump200ms", .mode = ErrorMode::kObjectSpace, .jump_interval_s = 0.2f,
     .hand_override = true},
    {.name = "synthetic_3bones_zstd_jump200ms", .jump_interval_s = 0.2f, .zstd = true},
};

// Of the keyed synthetic clip (key_synthetic): linear and step tracks.
const Seed kKeyedSeeds[] = {
    {.name = "synthetic_keyed_object_jump100ms", .mode = ErrorMode::kObjectSpace, .jump_interval_s = 0.1f},
    {.name = "synthetic_keyed_local_nojump"},
};

// Of the keyed synthetic clip on rest_skeleton(): rest tracks (format
// version 11), their values in the metadata; one with the bones' name
// hashes after them (`--names hash`) instead of the names.
const Seed kRestSeeds[] = {
    {.name = "synthetic_rest_local_jump100ms", .jump_interval_s = 0.1f, .rest_tracks = RestTracks::kSkip},
    {.name = "synthetic_rest_object_zstd_jump200ms",
     .mode = ErrorMode::kObjectSpace,
     .jump_interval_s = 0.2f,
     .zstd = true,
     .rest_tracks = RestTracks::kSkip},
    {.name = "synthetic_rest_hash_names_jump100ms",
     .jump_interval_s = 0.1f,
     .rest_tracks = RestTracks::kSkip,
     .names = NameStorage::kHash},
};

// Three bones (a root and two children), 20 frames at 30 Hz: a moving root,
// a spinning child with a step (a discontinuity), a constant scale off 1;
// and scalar tracks: a morph weight rising and falling, a two-component
// curve with a step, a weight at rest, a constant four-component curve.
void make_synthetic(Skeleton& skeleton, RawClip& clip) {
  skeleton.bone_names = {"root", "arm", "leg"};
  skeleton.parents = {-1, 0, 0};
  skeleton.rest_pose.assign(3, Transform{});
  clip.name = "synthetic";
  clip.sample_rate_hz = 30.f;
  clip.frame_count = 20;
  clip.bones.resize(3);
  for (uint32_t f = 0; f < clip.frame_count; ++f) {
    const float x = static_cast<float>(f) / static_cast<float>(clip.frame_count - 1);
    BoneTracks& root = clip.bones[0];
    root.translations.push_back({0.5f * x, 0.1f * std::sin(6.f * x), 0.f});
    root.rotations.push_back(quat_from_axis_angle({0.f, 1.f, 0.f}, 1.5f * x));
    root.scales.push_back({1.f, 1.f, 1.f});
    BoneTracks& arm = clip.bones[1];
    arm.translations.push_back({0.f, 0.3f, f < 12 ? 0.f : 0.05f});
    arm.rotations.push_back(quat_from_axis_angle({1.f, 0.f, 0.f}, 5.f * x));
    arm.scales.push_back({1.f, 1.f, 1.f});
    BoneTracks& leg = clip.bones[2];
    leg.translations.push_back({0.1f, -0.4f, 0.f});
    leg.rotations.push_back(quat_from_axis_angle({0.f, 0.f, 1.f}, 0.3f * std::sin(9.f * x)));
    leg.scales.push_back({1.25f, 1.25f, 1.25f});
  }
  for (BoneTracks& bone : clip.bones) make_rotations_continuous(bone.rotations);
  const auto track = [](const char* name, uint32_t components, uint32_t morph_target) {
    ScalarTrack t;
    t.name = name;
    t.components = components;
    if (morph_target != UINT32_MAX) {
      t.target = ScalarTarget::kMorphWeight;
      t.node = "face";
      t.target_index = morph_target;
    }
    return t;
  };
  ScalarTrack smile = track("face/smile", 1, 2);
  ScalarTrack uv = track("uv_scroll", 2, UINT32_MAX);
  ScalarTrack blink = track("face/blink", 1, 0);
  ScalarTrack tint = track("tint", 4, UINT32_MAX);
  for (uint32_t f = 0; f < clip.frame_count; ++f) {
    const float x = static_cast<float>(f) / static_cast<float>(clip.frame_count - 1);
    smile.values.push_back(std::sin(3.14159265f * x));
    uv.values.insert(uv.values.end(), {2.f * x, f < 9 ? 0.f : 0.5f});
    blink.values.push_back(0.f);
    tint.values.insert(tint.values.end(), {0.25f, 0.5f, 0.75f, 1.f});
  }
  clip.scalars = {smile, uv, blink, tint};
}

// The synthetic clip keyed as glTF LINEAR and STEP channels are (format
// version 10's linear and step tracks): the root's translation straight
// between keys every 4 frames, the arm's rotation slerped between keys every
// 3 frames, the leg's rotation and the smile weight held between keys.
void key_synthetic(RawClip& clip) {
  const uint32_t last = clip.frame_count - 1;
  const auto frames_every = [last](uint32_t step) {
    std::vector<uint32_t> frames;
    for (uint32_t f = 0; f < last; f += step) frames.push_back(f);
    frames.push_back(last);
    return frames;
  };
  const auto lerp = [](float a, float b, float s) { return a + s * (b - a); };
  SourceKeys& root = clip.bones[0].source_keys[0];
  root = {Interpolation::kLinear, frames_every(4)};
  SourceKeys& arm = clip.bones[1].source_keys[1];
  arm = {Interpolation::kLinear, frames_every(3)};
  SourceKeys& leg = clip.bones[2].source_keys[1];
  leg = {Interpolation::kStep, frames_every(5)};
  clip.scalars[0].source_keys = {Interpolation::kStep, frames_every(6)};
  for (size_t k = 0; k + 1 < root.frames.size(); ++k) {
    const uint32_t from = root.frames[k], to = root.frames[k + 1];
    for (uint32_t f = from + 1; f < to; ++f) {
      const float s = static_cast<float>(f - from) / static_cast<float>(to - from);
      const Vec3 a = clip.bones[0].translations[from], b = clip.bones[0].translations[to];
      clip.bones[0].translations[f] = {lerp(a.x, b.x, s), lerp(a.y, b.y, s), lerp(a.z, b.z, s)};
    }
  }
  for (size_t k = 0; k + 1 < arm.frames.size(); ++k) {
    const uint32_t from = arm.frames[k], to = arm.frames[k + 1];
    const Quat a = clip.bones[1].rotations[from], b = clip.bones[1].rotations[to];
    const float angle = std::acos(std::min(1.f, dot(a, b)));
    for (uint32_t f = from + 1; f < to && angle > 1e-4f; ++f) {
      const float s = static_cast<float>(f - from) / static_cast<float>(to - from);
      const float wa = std::sin((1.f - s) * angle) / std::sin(angle), wb = std::sin(s * angle) / std::sin(angle);
      clip.bones[1].rotations[f] = normalize(Quat{wa * a.x + wb * b.x, wa * a.y + wb * b.y, wa * a.z + wb * b.z,
                                                  wa * a.w + wb * b.w});
    }
  }
  for (size_t k = 0; k + 1 < leg.frames.size(); ++k) {
    for (uint32_t f = leg.frames[k] + 1; f < leg.frames[k + 1]; ++f) {
      clip.bones[2].rotations[f] = clip.bones[2].rotations[leg.frames[k]];
    }
  }
  const std::vector<uint32_t>& smile = clip.scalars[0].source_keys.frames;
  for (size_t k = 0; k + 1 < smile.size(); ++k) {
    for (uint32_t f = smile[k] + 1; f < smile[k + 1]; ++f) clip.scalars[0].values[f] = clip.scalars[0].values[smile[k]];
  }
}

// The synthetic skeleton with the rest pose its clip holds where it holds
// still: the root's scale (1, which the identity takes first), the arm's
// translation before its step, the leg's translation and scale, and a leg
// rotation the clip never holds. With RestTracks::kSkip the leg's
// translation and scale become rest tracks.
Skeleton rest_skeleton(const Skeleton& skeleton) {
  Skeleton rest = skeleton;
  rest.rest_pose[1].translation = {0.f, 0.3f, 0.f};
  rest.rest_pose[2] = Transform{{0.1f, -0.4f, 0.f}, quat_from_axis_angle({0.f, 0.f, 1.f}, 0.2f), {1.25f, 1.25f, 1.25f}};
  return rest;
}

void crop(RawClip& clip, uint32_t frames) {
  if (clip.frame_count <= frames) return;
  clip.frame_count = frames;
  for (BoneTracks& bone : clip.bones) {
    bone.translations.resize(frames);
    bone.rotations.resize(frames);
    bone.scales.resize(frames);
    for (SourceKeys& keys : bone.source_keys) keys = {};  // keys past the cut: sampled again
  }
  for (ScalarTrack& track : clip.scalars) {
    track.values.resize(size_t{frames} * track.components);
    track.source_keys = {};
  }
}

// Fits, packs, checks that the stream opens, and writes it; false on any error.
bool write_seed(const Skeleton& skeleton, const RawClip& clip, const Seed& seed, const char* source_name,
                const std::filesystem::path& folder) {
  FitSettings fit;
  fit.error_mode = seed.mode;
  fit.translation_error_m = seed.translation_error_m;
  fit.rotation_error_deg = seed.rotation_error_deg;
  fit.tolerance_m = seed.tolerance_m;
  fit.rest_tracks = seed.rest_tracks;
  // The last bone, whatever the clip: a tighter tolerance further out.
  if (seed.hand_override) fit.bone_tolerances = {BoneTolerance{skeleton.bone_names.back(), seed.tolerance_m / 4.f, 0.1f}};
  const Result<FittedClip> fitted = fit_clip(skeleton, clip, fit);
  if (!fitted) {
    std::fprintf(stderr, "make_fuzz_seeds: %s: %s\n", seed.name, fitted.error().c_str());
    return false;
  }
  PackSettings pack_settings;
  pack_settings.jump_interval_s = seed.jump_interval_s;
  pack_settings.zstd = seed.zstd;
  pack_settings.source_name = source_name;
  pack_settings.names = seed.names;
  const Result<std::vector<uint8_t>> stream = pack(fitted.value(), pack_settings);
  if (!stream) {
    std::fprintf(stderr, "make_fuzz_seeds: %s: %s\n", seed.name, stream.error().c_str());
    return false;
  }
  // A seed the loader refuses would only teach the fuzzer the first check.
  const Result<StreamView> view = StreamView::open(stream.value(), seed.name);
  if (!view) {
    std::fprintf(stderr, "make_fuzz_seeds: %s\n", view.error().c_str());
    return false;
  }
  // A seed meant to hold rest tracks must hold some.
  const auto is_rest = [](const StreamTrack& track) { return track.coding == TrackCoding::kRest; };
  const std::span<const StreamTrack> tracks = view.value().tracks();
  if (seed.rest_tracks == RestTracks::kSkip && std::none_of(tracks.begin(), tracks.end(), is_rest)) {
    std::fprintf(stderr, "make_fuzz_seeds: %s: no track holds its rest value\n", seed.name);
    return false;
  }
  // A seed meant to hold name hashes must hold them.
  if (seed.names == NameStorage::kHash && view.value().metadata().bone_name_hashes.empty()) {
    std::fprintf(stderr, "make_fuzz_seeds: %s: no bone name hashes\n", seed.name);
    return false;
  }
  const std::filesystem::path path = folder / (std::string(seed.name) + ".ks");
  if (const Status s = write_file_atomically(path, stream.value()); !s) {
    std::fprintf(stderr, "make_fuzz_seeds: %s\n", s.error().c_str());
    return false;
  }
  std::printf("%s: %zu bytes\n", path.string().c_str(), stream.value().size());
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_fuzz_seeds <output folder>\n");
    return 2;
  }
  const std::filesystem::path folder = argv[1];
  std::error_code ec;  // a folder that cannot be made shows up as a write error naming the path
  std::filesystem::create_directories(folder, ec);

  // The demo clip's idle animation, cropped.
  ImportSettings import_settings;
  import_settings.animation_name = "idle";
  Result<ImportedClip> demo = import_clip(KS_DEMO_CLIP, import_settings);
  if (!demo) {
    std::fprintf(stderr, "make_fuzz_seeds: %s\n", demo.error().c_str());
    return 1;
  }
  crop(demo.value().clip, kDemoFrames);
  bool ok = true;
  const ImportedClip& idle = demo.value();
  for (const Seed& seed : kDemoSeeds) ok = write_seed(idle.skeleton, idle.clip, seed, "demo_walk.glb", folder) && ok;

  // The synthetic clip.
  Skeleton skeleton;
  RawClip clip;
  make_synthetic(skeleton, clip);
  for (const Seed& seed : kSyntheticSeeds) ok = write_seed(skeleton, clip, seed, "", folder) && ok;
  key_synthetic(clip);
  for (const Seed& seed : kKeyedSeeds) ok = write_seed(skeleton, clip, seed, "", folder) && ok;
  for (const Seed& seed : kRestSeeds) ok = write_seed(rest_skeleton(skeleton), clip, seed, "", folder) && ok;
  ok = fuzz::write_gltf_seeds(folder) && ok;
  return ok ? 0 : 1;
}
