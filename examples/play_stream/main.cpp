// play_stream: plays a keystream stream file (.ks) the way an engine calls
// the runtime: load the bytes, open a checked StreamView on them, sample a
// Player forward at the clip's rate and at random times, print bone
// transforms. Links keystream::runtime only (docs/runtime.md).
//   play_stream FILE.ks [BONES]   BONES: how many bones each pose prints (default 3)
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <span>
#include <string>
#include <vector>

#include <keystream/runtime/player.h>
#include <keystream/runtime/stream_view.h>

namespace {

void print_pose(const char* when, float t_seconds, const ks::StreamView& stream, std::span<const ks::Transform> pose,
                uint32_t bones) {
  std::printf("pose %s t=%.4f s\n", when, static_cast<double>(t_seconds));
  const std::vector<std::string>& names = stream.metadata().bone_names;  // empty when the stream stores none
  for (uint32_t b = 0; b < bones; ++b) {
    const ks::Transform& x = pose[b];
    std::printf("  %3u %-16s T %8.4f %8.4f %8.4f  R %7.4f %7.4f %7.4f %7.4f  S %6.3f %6.3f %6.3f\n", b,
                b < names.size() ? names[b].c_str() : "-", double{x.translation.x}, double{x.translation.y},
                double{x.translation.z}, double{x.rotation.x}, double{x.rotation.y}, double{x.rotation.z},
                double{x.rotation.w}, double{x.scale.x}, double{x.scale.y}, double{x.scale.z});
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: play_stream FILE.ks [BONES]\n");
    return 2;
  }
  const char* path = argv[1];

  // Load: the view borrows these bytes, so they outlive it and every Player of it.
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    std::fprintf(stderr, "play_stream: %s: %s\n", path, std::strerror(errno));
    return 1;
  }
  const std::vector<uint8_t> bytes{std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};

  // Validate: StreamCheck::kFast (the default) is an engine's load; a bad
  // file is an error naming it, never a crash.
  ks::Result<ks::StreamView> opened = ks::StreamView::open(bytes, path);
  if (!opened) {
    std::fprintf(stderr, "play_stream: %s\n", opened.error().c_str());
    return 1;
  }
  const ks::StreamView& stream = opened.value();  // stays put: a Player keeps a pointer to it
  std::printf("%s: %u bones, %u frames at %.3f Hz (%.3f s), format version %u%s\n", path, stream.bone_count(),
              stream.frame_count(), static_cast<double>(stream.sample_rate_hz()),
              static_cast<double>(stream.duration_s()), stream.version(),
              stream.key_stream_compressed() ? ", zstd key stream" : "");

  // One Player per character; it and the pose are allocated here, and
  // sampling allocates nothing.
  ks::Player player(stream);
  std::vector<ks::Transform> pose(stream.bone_count());
  const unsigned long wanted = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 3ul;
  const uint32_t bones = static_cast<uint32_t>(std::min<unsigned long>(stream.bone_count(), wanted));

  // Forward at the clip's rate: each sample reads only the keys that became due.
  for (uint32_t frame = 0; frame < stream.frame_count(); ++frame) {
    const float t = static_cast<float>(frame) / stream.sample_rate_hz();
    player.sample(t, pose);
    if (frame == 0 || frame == stream.frame_count() / 2 || frame == stream.last_frame()) {
      print_pose("forward", t, stream, pose, bones);
    }
  }

  // Random times, past the end too, looping: going back (or far ahead) the
  // player restores the nearest jump frame at or before the time.
  player.set_looping(true);
  std::mt19937 random(18);
  std::uniform_real_distribution<float> time(0.f, 2.f * stream.duration_s());
  for (int i = 0; i < 4; ++i) {
    const float t = time(random);
    player.sample(t, pose);
    print_pose("random", t, stream, pose, bones);
  }

  const ks::PlayerCounters& counters = player.counters();
  std::printf("keys read %llu, jump frames used %llu, player memory %zu bytes\n",
              static_cast<unsigned long long>(counters.keys_read),
              static_cast<unsigned long long>(counters.jump_frames_used), player.memory_bytes());
  return 0;
}
