// Tests for core/io/import_sandbox.h and imported_clip_wire.h: whatever the
// child does (crash, overflow its stack, allocate without end, spin, hang,
// throw), the caller gets an error naming the file and carries on; what the
// child imports (morph targets and scalar tracks too) arrives intact; a cut
// or forged message is refused.
#include "keystream/io/import_sandbox.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "keystream/io/assimp_import.h"
#include "keystream/io/import.h"
#include "keystream/io/imported_clip_wire.h"
#include "tests/io/morph_test_files.h"
#include "tests/refused_mentioning.h"
#include "tests/temp_dir.h"

namespace ks {
namespace {

const std::filesystem::path kDemo = std::filesystem::path(KS_ASSETS_DIR) / "demo_walk.glb";
const std::filesystem::path kFile = "some/take.fbx";

SandboxLimits small_limits() {
  SandboxLimits limits;
  limits.memory_bytes = uint64_t{256} << 20;
  limits.cpu_seconds = 5;
  limits.wall_seconds = 20;
  return limits;
}

Result<ImportedClip> run(const std::function<Result<ImportedClip>()>& import, SandboxLimits limits = small_limits()) {
  return import_in_child(import, "FBX", kFile, limits);
}

// Recursion without end that the compiler can neither see nor turn into a
// loop: through a volatile pointer, each frame keeping a buffer.
int deep(int n);
int (*volatile g_deeper)(int) = deep;
int deep(int n) {
  volatile char frame[1024];
  frame[0] = static_cast<char>(n);
  return g_deeper(n + 1) + frame[0];
}

TEST(ImportSandbox, AClipComesBackAsTheChildImportedIt) {
  const Result<ImportedClip> direct = import_clip(kDemo);
  ASSERT_TRUE(direct.ok()) << direct.error();
  const Result<ImportedClip> contained = run([] { return import_clip(kDemo); });
  ASSERT_TRUE(contained.ok()) << contained.error();
  const ImportedClip& a = direct.value();
  const ImportedClip& b = contained.value();
  EXPECT_EQ(a.skeleton.bone_names, b.skeleton.bone_names);
  EXPECT_EQ(a.skeleton.parents, b.skeleton.parents);
  ASSERT_EQ(a.clip.bones.size(), b.clip.bones.size());
  EXPECT_EQ(a.clip.frame_count, b.clip.frame_count);
  for (size_t i = 0; i < a.clip.bones.size(); ++i) {
    ASSERT_EQ(a.clip.bones[i].rotations.size(), b.clip.bones[i].rotations.size());
    EXPECT_EQ(0, std::memcmp(a.clip.bones[i].rotations.data(), b.clip.bones[i].rotations.data(),
                             a.clip.bones[i].rotations.size() * sizeof(Quat)));
  }
  ASSERT_TRUE(a.mesh.has_value() && b.mesh.has_value());
  EXPECT_EQ(a.mesh->indices, b.mesh->indices);
  EXPECT_EQ(a.mesh->positions.size(), b.mesh->positions.size());
  EXPECT_EQ(a.animation_names, b.animation_names);
  EXPECT_EQ(a.warnings, b.warnings);
  EXPECT_TRUE(check_imported(b).ok());
}

TEST(ImportSandbox, TheChildsErrorIsTheCallersError) {
  EXPECT_TRUE(test::refused_mentioning(run([] { return Result<ImportedClip>(Error{"x.fbx: no bones here"}); }),
                                       {"x.fbx: no bones here"}));
}

TEST(ImportSandbox, ACrashIsAnErrorNamingTheFileAndTheSignal) {
  EXPECT_TRUE(test::refused_mentioning(run([]() -> Result<ImportedClip> {
                                         raise(SIGSEGV);
                                         return Error{"not reached"};
                                       }),
                                       {"some/take.fbx: the FBX reader failed on this file (SIGSEGV); the file is "
                                        "probably malformed"}));
  EXPECT_TRUE(test::refused_mentioning(run([]() -> Result<ImportedClip> { std::abort(); }), {"(SIGABRT)"}));
}

TEST(ImportSandbox, AStackOverflowIsAnError) {
  const Result<ImportedClip> r = run([]() -> Result<ImportedClip> { return Error{std::to_string(deep(0))}; });
  // SIGSEGV, or the sanitizer's own report and exit under ASan.
  EXPECT_TRUE(test::refused_mentioning(r, {"some/take.fbx: the FBX reader failed on this file ("}));
}

TEST(ImportSandbox, RunawayMemoryIsStoppedAtTheLimit) {
  SandboxLimits limits = small_limits();
  limits.memory_bytes = uint64_t{64} << 20;
  const Result<ImportedClip> r = run(
      []() -> Result<ImportedClip> {
        std::vector<std::vector<char>> hog;
        for (int i = 0; i < 4096; ++i) hog.emplace_back(size_t{1} << 20, static_cast<char>(i));  // touched: 4 GiB
        return Error{"not stopped"};
      },
      limits);
  EXPECT_TRUE(test::refused_mentioning(r, {"some/take.fbx: the FBX reader", "64 MiB", "probably malformed"}));
}

TEST(ImportSandbox, ASpinningReaderIsStoppedByTheCpuLimit) {
  SandboxLimits limits = small_limits();
  limits.cpu_seconds = 1;
  const Result<ImportedClip> r = run(
      []() -> Result<ImportedClip> {
        volatile uint64_t n = 0;
        while (true) n = n + 1;
      },
      limits);
  EXPECT_TRUE(test::refused_mentioning(r, {"some/take.fbx: the FBX reader ran for more than 1 s of CPU time"}));
}

TEST(ImportSandbox, AReaderThatWaitsIsStoppedByTheWallClock) {
  SandboxLimits limits = small_limits();
  limits.wall_seconds = 1;
  const Result<ImportedClip> r = run(
      []() -> Result<ImportedClip> {
        pause();
        return Error{"not reached"};
      },
      limits);
  EXPECT_TRUE(test::refused_mentioning(r, {"some/take.fbx: the FBX reader took more than 1 s"}));
}

TEST(ImportSandbox, AnExceptionIsAnError) {
  EXPECT_TRUE(test::refused_mentioning(
      run([]() -> Result<ImportedClip> { throw std::runtime_error("boom"); }), {"the reader threw: boom"}));
}

const std::filesystem::path kFbx = std::filesystem::path(KS_ASSIMP_MODELS_DIR) / "FBX" / "huesitos.fbx";

TEST(ImportSandbox, TheBuildsImportWorkerIsFound) {
  const std::filesystem::path worker = import_worker_path();
  ASSERT_FALSE(worker.empty());
  EXPECT_EQ(worker.filename(), kImportWorkerName);
}

TEST(ImportSandbox, ThreadsOfTheCallerCanEachImportThroughTheWorker) {
  if (!std::filesystem::exists(kFbx)) GTEST_SKIP() << kFbx << " is missing (scripts/setup installs it)";
  const Result<ImportedClip> here = import_assimp_here(kFbx, {});
  ASSERT_TRUE(here.ok()) << here.error();
  std::vector<std::thread> threads;
  std::vector<int> same(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      const Result<ImportedClip> r = import_clip(kFbx);
      same[t] = r.ok() && r.value().skeleton.bone_names == here.value().skeleton.bone_names &&
                r.value().clip.frame_count == here.value().clip.frame_count;
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(same, std::vector<int>(4, 1));
}

// A worker that crashes, as assimp would inside it: the import is an error naming the file.
TEST(ImportSandbox, AWorkerThatCrashesIsAnErrorNamingTheFile) {
  if (!std::filesystem::exists(kFbx)) GTEST_SKIP() << kFbx << " is missing";
  const test::TempDir dir;
  const std::filesystem::path crashing = dir / "keystream-import";
  {
    std::ofstream script(crashing);
    script << "#!/bin/sh\nkill -SEGV $$\n";
  }
  std::filesystem::permissions(crashing, std::filesystem::perms::owner_all);
  setenv("KS_IMPORT_WORKER", crashing.c_str(), 1);
  const Result<ImportedClip> r = import_clip(kFbx);
  unsetenv("KS_IMPORT_WORKER");
  EXPECT_TRUE(test::refused_mentioning(r, {kFbx.string() + ": the FBX reader failed on this file (SIGSEGV)"}));
}

TEST(ImportedClipWire, EveryCutOfAMessageIsRefused) {
  const Result<ImportedClip> clip = import_clip(kDemo);
  ASSERT_TRUE(clip.ok()) << clip.error();
  const std::string message = encode_import_result(clip);
  bool well_formed = false;
  ASSERT_TRUE(decode_import_result(message, well_formed).ok());
  EXPECT_TRUE(well_formed);
  // Cuts at every byte of the head, then at strides through the rest.
  for (size_t cut = 0; cut < message.size(); cut += cut < 4096 ? 1 : 997) {
    const Result<ImportedClip> r = decode_import_result(std::string_view(message).substr(0, cut), well_formed);
    ASSERT_FALSE(r.ok() && well_formed) << "a message cut at " << cut << " was read";
  }
  EXPECT_FALSE(decode_import_result(message + "x", well_formed).ok());
}

TEST(ImportedClipWire, ForgedCountsAreRefusedWithoutAllocatingThem) {
  const std::string message = encode_import_result(import_clip(kDemo));
  // Every 8-byte window set to a huge count in turn (in the head): a refusal, never a huge allocation.
  for (size_t at = 5; at + 8 <= std::min<size_t>(message.size(), 600); ++at) {
    std::string forged = message;
    const uint64_t huge = uint64_t{1} << 60;
    std::memcpy(forged.data() + at, &huge, 8);
    bool well_formed = false;
    (void)decode_import_result(forged, well_formed);
  }
}

// The wire carries a mesh's morph targets whole; every cut through them is
// refused, and a forged count anywhere allocates nothing it has not read.
TEST(ImportedClipWire, MorphTargetsArriveIntact) {
  const test::TempDir dir;
  const std::filesystem::path path = dir / "morph.gltf";
  test::write_skinned_morph_file(path);
  const Result<ImportedClip> clip = import_clip(path);
  ASSERT_TRUE(clip.ok()) << clip.error();
  ASSERT_TRUE(clip.value().mesh.has_value());
  const std::vector<MorphTarget>& sent = clip.value().mesh->morph_targets;
  ASSERT_EQ(sent.size(), 3u);
  const std::string message = encode_import_result(clip);
  bool well_formed = false;
  const Result<ImportedClip> decoded = decode_import_result(message, well_formed);
  ASSERT_TRUE(decoded.ok() && well_formed) << (decoded.ok() ? "not well formed" : decoded.error());
  ASSERT_TRUE(decoded.value().mesh.has_value());
  const std::vector<MorphTarget>& received = decoded.value().mesh->morph_targets;
  ASSERT_EQ(received.size(), sent.size());
  for (size_t t = 0; t < sent.size(); ++t) {
    EXPECT_EQ(received[t].name, sent[t].name);
    EXPECT_EQ(received[t].node, sent[t].node);
    EXPECT_EQ(received[t].mesh, sent[t].mesh);
    EXPECT_EQ(received[t].target_index, sent[t].target_index);
    EXPECT_EQ(received[t].default_weight, sent[t].default_weight);
    EXPECT_EQ(received[t].first_vertex, sent[t].first_vertex);
    ASSERT_EQ(received[t].position_deltas.size(), sent[t].position_deltas.size());
    EXPECT_EQ(0, std::memcmp(received[t].position_deltas.data(), sent[t].position_deltas.data(),
                             sent[t].position_deltas.size() * sizeof(Vec3)));
    EXPECT_EQ(received[t].normal_deltas.size(), sent[t].normal_deltas.size());
  }
  for (size_t cut = 0; cut < message.size(); ++cut) {
    const Result<ImportedClip> r = decode_import_result(std::string_view(message).substr(0, cut), well_formed);
    ASSERT_FALSE(r.ok() && well_formed) << "a message cut at " << cut << " was read";
  }
  for (size_t at = 5; at + 8 <= message.size(); ++at) {
    std::string forged = message;
    const uint64_t huge = uint64_t{1} << 60;
    std::memcpy(forged.data() + at, &huge, 8);
    (void)decode_import_result(forged, well_formed);
  }
}

// The wire carries the clip's scalar tracks (morph weights) whole: names,
// targets and every value; a forged target is refused.
TEST(ImportedClipWire, ScalarTracksArriveIntact) {
  const test::TempDir dir;
  const std::filesystem::path path = dir / "morph.gltf";
  test::write_skinned_morph_file(path);
  const Result<ImportedClip> clip = import_clip(path);
  ASSERT_TRUE(clip.ok()) << clip.error();
  const std::vector<ScalarTrack>& sent = clip.value().clip.scalars;
  ASSERT_EQ(sent.size(), 3u);
  const std::string message = encode_import_result(clip);
  bool well_formed = false;
  const Result<ImportedClip> decoded = decode_import_result(message, well_formed);
  ASSERT_TRUE(decoded.ok() && well_formed) << (decoded.ok() ? "not well formed" : decoded.error());
  const std::vector<ScalarTrack>& received = decoded.value().clip.scalars;
  ASSERT_EQ(received.size(), sent.size());
  for (size_t t = 0; t < sent.size(); ++t) {
    EXPECT_EQ(received[t].name, sent[t].name);
    EXPECT_EQ(received[t].components, sent[t].components);
    EXPECT_EQ(received[t].values, sent[t].values);
    EXPECT_EQ(received[t].target, sent[t].target);
    EXPECT_EQ(received[t].node, sent[t].node);
    EXPECT_EQ(received[t].target_index, sent[t].target_index);
  }
  EXPECT_TRUE(received[0].target == ScalarTarget::kMorphWeight && !received[0].node.empty());
  EXPECT_TRUE(decoded.value().clip.validate(decoded.value().skeleton).ok());
  // The target byte follows the values of the first track: an unknown one is refused.
  const size_t values_bytes = sent[0].values.size() * sizeof(float);
  const std::string_view first_values(reinterpret_cast<const char*>(sent[0].values.data()), values_bytes);
  const size_t at = message.find(first_values);
  ASSERT_NE(at, std::string::npos);
  std::string forged = message;
  forged[at + values_bytes] = 7;
  EXPECT_FALSE(decode_import_result(forged, well_formed).ok());
}

// Source keys as Writer sends them: the interpolation, the count, the frames.
std::string source_keys_bytes(Interpolation interpolation, const std::vector<uint32_t>& frames) {
  std::string bytes(1, static_cast<char>(interpolation));
  const uint64_t count = frames.size();
  bytes.append(reinterpret_cast<const char*>(&count), sizeof count);
  bytes.append(reinterpret_cast<const char*>(frames.data()), frames.size() * sizeof(uint32_t));
  return bytes;
}

// The studio fits what the CLI fits: the wire carries every track's source
// keys; more keys than frames, a frame past the clip or an unknown
// interpolation is refused.
TEST(ImportedClipWire, SourceKeysArriveIntact) {
  Result<ImportedClip> clip = import_clip(kDemo);
  ASSERT_TRUE(clip.ok()) << clip.error();
  RawClip& sent = clip.value().clip;
  const uint32_t last = sent.frame_count - 1;
  ASSERT_GE(sent.bones.size(), 2u);
  sent.bones[0].source_keys[0] = {Interpolation::kStep, {0, 3, last}};
  sent.bones[1].source_keys[1] = {Interpolation::kLinear, {0, last}};
  ScalarTrack& curve = sent.scalars.emplace_back();
  curve.name = "curve";
  curve.values.assign(sent.frame_count, 0.5f);
  curve.source_keys = {Interpolation::kLinear, {0, 1, last}};
  const std::string message = encode_import_result(clip);
  bool well_formed = false;
  const Result<ImportedClip> decoded = decode_import_result(message, well_formed);
  ASSERT_TRUE(decoded.ok() && well_formed) << (decoded.ok() ? "not well formed" : decoded.error());
  const RawClip& received = decoded.value().clip;
  EXPECT_TRUE(received.validate(decoded.value().skeleton).ok());
  ASSERT_EQ(received.bones.size(), sent.bones.size());
  for (size_t b = 0; b < sent.bones.size(); ++b) {
    for (size_t k = 0; k < 3; ++k) {
      EXPECT_EQ(received.bones[b].source_keys[k].interpolation, sent.bones[b].source_keys[k].interpolation) << b;
      EXPECT_EQ(received.bones[b].source_keys[k].frames, sent.bones[b].source_keys[k].frames) << b;
    }
  }
  ASSERT_EQ(received.scalars.size(), sent.scalars.size());
  EXPECT_EQ(received.scalars.back().source_keys.interpolation, Interpolation::kLinear);
  EXPECT_EQ(received.scalars.back().source_keys.frames, curve.source_keys.frames);

  // Bone 0's translation keys replaced by others: only the untouched ones are read.
  const std::string original = source_keys_bytes(Interpolation::kStep, {0, 3, last});
  const size_t at = message.find(original);
  ASSERT_NE(at, std::string::npos);
  const auto forge = [&](const std::string& keys) {
    std::string forged = message;
    forged.replace(at, original.size(), keys);
    bool forged_well_formed = false;
    return decode_import_result(forged, forged_well_formed).ok() && forged_well_formed;
  };
  std::vector<uint32_t> every_frame(sent.frame_count);
  for (uint32_t f = 0; f < sent.frame_count; ++f) every_frame[f] = f;
  EXPECT_TRUE(forge(source_keys_bytes(Interpolation::kStep, every_frame)));
  std::vector<uint32_t> too_many = every_frame;
  too_many.push_back(last);
  EXPECT_FALSE(forge(source_keys_bytes(Interpolation::kStep, too_many)));
  EXPECT_FALSE(forge(source_keys_bytes(Interpolation::kStep, {0, 3, last + 1})));
  EXPECT_FALSE(forge(source_keys_bytes(static_cast<Interpolation>(kInterpolationCount), {0, 3, last})));
}

}  // namespace
}  // namespace ks
