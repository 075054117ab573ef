// keystream-sampling-probe: the player's sampling loop alone, with a fixed
// workload, so that an instruction count of it is the same on every run.
// This shared machine's clock moves by 10-20% between runs; callgrind's
// instruction counts do not, so A/B comparisons of the player use them:
//
//   valgrind --tool=callgrind --toggle-collect='ks::Player::sample_frame*'
//            build/bench/keystream-sampling-probe CLIP[#ANIMATION] seq|seek [JUMP_S|auto] [COUNT]
//
// (one command line). With --baseline (first argument) the same workload
// samples the fitted clip with the BinarySearchSampler instead, the unit the
// bench's ratios are in: count it with
// --toggle-collect='ks::BinarySearchSampler::sample_frame*', and the ratio of
// the two counts is the player's instruction ratio to the baseline.
//
// Instructions per pose = callgrind's total / the poses the probe reports.
// `seq` plays every frame of the clip in order, COUNT loops (default: as many
// as make about 100,000 poses); `seek` samples COUNT (default 20,000) random
// times (fixed seed). The stream is the default fit, packed with jump frames
// every JUMP_S seconds (default: what --jump-interval auto chooses).
// Outside valgrind the probe also prints ns per pose, min and median of 9
// repetitions.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "keystream/codec/binary_search_sampler.h"
#include "keystream/codec/fit.h"
#include "keystream/codec/pack.h"
#include "keystream/io/import.h"
#include "keystream/runtime/player.h"
#include "keystream/runtime/stream_view.h"

namespace {

int usage(const char* why) {
  std::fprintf(stderr, "keystream-sampling-probe: %s\n", why);
  std::fprintf(stderr,
               "usage: keystream-sampling-probe [--baseline] [--simd LEVEL] [--key-cache BYTES] CLIP[#ANIMATION] "
               "seq|seek [JUMP_S|auto] [COUNT]\n");
  return 2;
}

// An error of the import, fit, pack or load (each names the file): exit 1.
int fail(const std::string& message) {
  std::fprintf(stderr, "keystream-sampling-probe: %s\n", message.c_str());
  return 1;
}

// A positive number, or the usage error naming `what`.
bool parse_positive(const char* text, const char* what, double& out) {
  char* end = nullptr;
  out = std::strtod(text, &end);
  if (end == text || *end != '\0' || !(out > 0.0) || out > 1e9) {
    std::fprintf(stderr, "keystream-sampling-probe: %s '%s' is not a positive number\n", what, text);
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace ks;
  const bool baseline = argc > 1 && std::string(argv[1]) == "--baseline";
  if (baseline) {
    --argc;
    ++argv;
  }
  // --simd LEVEL: the player's kernels (segment_lanes.h), for comparing levels in one build.
  if (argc > 2 && std::string(argv[1]) == "--simd") {
    SimdLevel level;
    if (!simd_level_named(argv[2], level)) {
      return usage((std::string("--simd takes ") + kSimdLevelNames + ", not '" + argv[2] + "'").c_str());
    }
    if (level > best_simd_level()) return usage("this CPU does not run that --simd level");
    set_simd_level(level);
    argc -= 2;
    argv += 2;
  }
  // --key-cache BYTES: the player's key cache limit (Player's default
  // otherwise), to time seeks that set windows straight from decoded keys.
  size_t key_cache_bytes = Player::kDefaultKeyCacheBytes;
  if (argc > 2 && std::string(argv[1]) == "--key-cache") {
    double limit = 0.0;
    if (!parse_positive(argv[2], "--key-cache", limit)) return 2;
    key_cache_bytes = static_cast<size_t>(limit);
    argc -= 2;
    argv += 2;
  }
  if (argc < 3 || argc > 5) return usage("expected 2 to 4 arguments after the options");
  const std::string mode = argv[2];
  if (mode != "seq" && mode != "seek") return usage("the mode is seq or seek");
  double jump_s = 0.0;
  double count = 0.0;
  if (argc > 3 && std::string(argv[3]) != "auto" && !parse_positive(argv[3], "JUMP_S", jump_s)) return 2;
  if (argc > 4 && !parse_positive(argv[4], "COUNT", count)) return 2;

  std::string path = argv[1];
  ImportSettings import_settings;
  if (const size_t hash = path.rfind('#'); hash != std::string::npos) {
    import_settings.animation_name = path.substr(hash + 1);
    path.resize(hash);
  }
  const Result<ImportedClip> imported = import_clip(path, import_settings);
  if (!imported.ok()) return fail(imported.error());
  const Result<FittedClip> fitted = fit_clip(imported.value().skeleton, imported.value().clip, FitSettings{},
                                             std::max(1u, std::thread::hardware_concurrency()));
  if (!fitted.ok()) return fail(path + ": " + fitted.error());
  PackSettings pack_settings = tool_pack_settings();
  if (jump_s > 0.0) {
    pack_settings.auto_jump_interval = false;
    pack_settings.jump_interval_s = static_cast<float>(jump_s);
  }
  const Result<std::vector<uint8_t>> bytes = pack(fitted.value(), pack_settings);
  if (!bytes.ok()) return fail(path + ": " + bytes.error());
  const Result<StreamView> view = StreamView::open(bytes.value(), path.c_str());
  if (!view.ok()) return fail(view.error());

  const StreamView& stream = view.value();
  Player player(stream, key_cache_bytes);
  BinarySearchSampler baseline_sampler(fitted.value());
  const auto sample_frame = [&](float frame_time, std::span<Transform> pose) {
    if (baseline) {
      baseline_sampler.sample_frame(frame_time, pose);
    } else {
      player.sample_frame(frame_time, pose);
    }
  };
  std::vector<Transform> pose(stream.bone_count());
  const uint32_t frames = stream.frame_count();
  const bool sequential = mode == "seq";
  const uint64_t loops = count > 0.0 ? static_cast<uint64_t>(count) : std::max<uint64_t>(1, 100000 / frames);
  const uint64_t poses = sequential ? loops * frames : (count > 0.0 ? static_cast<uint64_t>(count) : 20000);
  constexpr int kRepetitions = 9;
  std::vector<double> ns_per_pose;
  for (int repetition = 0; repetition < kRepetitions; ++repetition) {
    std::mt19937 random(1);
    const auto start = std::chrono::steady_clock::now();
    if (sequential) {
      for (uint64_t loop = 0; loop < loops; ++loop) {
        for (uint32_t f = 0; f < frames; ++f) sample_frame(static_cast<float>(f), pose);
      }
    } else {
      for (uint64_t i = 0; i < poses; ++i) {
        sample_frame(static_cast<float>(random() >> 8) * 0x1p-24f * static_cast<float>(frames - 1), pose);
      }
    }
    ns_per_pose.push_back(std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count() /
                          static_cast<double>(poses));
  }
  std::sort(ns_per_pose.begin(), ns_per_pose.end());
  const double all_poses = static_cast<double>(poses) * kRepetitions;
  std::printf("%s: %zu bytes, jump frames every %.3f s (%zu bytes), %u frames, %u animated tracks\n", path.c_str(),
              bytes.value().size(), static_cast<double>(stream.jump_interval_frames()) / stream.sample_rate_hz(),
              stream.jump_frame_bytes(), frames, player.lane_count());
  const uint64_t keys_read = baseline ? baseline_sampler.counters().keys_read : player.counters().keys_read;
  std::printf("%s%s: %.0f poses, %.2f keys read per pose; ns per pose min %.0f, median %.0f\n",
              baseline ? "baseline " : "", mode.c_str(), all_poses, static_cast<double>(keys_read) / all_poses,
              ns_per_pose.front(), ns_per_pose[kRepetitions / 2]);
  return 0;
}
