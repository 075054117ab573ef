// make_golden_stream: writes the golden stream and its decoded poses
// (tests/golden/README.md). Run it only for a deliberate format change, with
// a new version and new file names; the committed files must keep decoding.
//
//   make_golden_stream <output folder>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "core/offline/file_io.h"
#include "core/offline/pack.h"
#include "core/runtime/player.h"
#include "core/runtime/stream_format.h"
#include "core/runtime/stream_view.h"
#include "tests/golden/golden_clip.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_golden_stream <output folder>\n");
    return 2;
  }
  const std::filesystem::path folder = argv[1];
  const std::string version = std::to_string(ks::kStreamVersion);

  // Pack the hand-built clip.
  const ks::FittedClip clip = ks::golden::make_clip();
  ks::PackSettings settings;
  settings.jump_interval_s = ks::golden::kJumpIntervalS;
  const ks::Result<std::vector<uint8_t>> stream = ks::pack(clip, settings);
  if (!stream.ok()) {
    std::fprintf(stderr, "make_golden_stream: %s\n", stream.error().c_str());
    return 1;
  }

  // Open it and decode the poses, checking them against the fitted curves
  // before anything is written.
  const ks::Result<ks::StreamView> view = ks::StreamView::open(stream.value(), "golden stream");
  if (!view.ok()) {
    std::fprintf(stderr, "make_golden_stream: %s\n", view.error().c_str());
    return 1;
  }
  ks::Player player(view.value());
  std::vector<ks::Transform> pose(clip.parents.size());
  for (const float t : ks::golden::frame_times()) {
    player.sample_frame(t, pose);
    for (size_t b = 0; b < pose.size(); ++b) {
      float expected[3][4];
      for (uint32_t kind = 0; kind < 3; ++kind) ks::evaluate_fitted(clip.tracks[3 * b + kind], t, expected[kind]);
      const ks::Transform reference{{expected[0][0], expected[0][1], expected[0][2]},
                                    {expected[1][0], expected[1][1], expected[1][2], expected[1][3]},
                                    {expected[2][0], expected[2][1], expected[2][2]}};
      if (std::memcmp(&reference, &pose[b], sizeof reference) != 0) {
        std::fprintf(stderr,
                     "make_golden_stream: the player differs from the fitted curves at frame time %g, bone %zu\n",
                     static_cast<double>(t), b);
        return 1;
      }
    }
  }
  const std::vector<uint8_t> poses = ks::golden::poses_bytes(view.value());

  // Write both files.
  const std::filesystem::path stream_path = folder / ("stream_v" + version + ".ks");
  const std::filesystem::path poses_path = folder / ("stream_v" + version + "_poses.bin");
  for (const auto& [path, bytes] : {std::pair{stream_path, &stream.value()}, std::pair{poses_path, &poses}}) {
    if (ks::Status s = ks::write_file_atomically(path, std::span<const unsigned char>(*bytes)); !s) {
      std::fprintf(stderr, "make_golden_stream: %s\n", s.error().c_str());
      return 1;
    }
    std::printf("wrote %s (%zu bytes)\n", path.string().c_str(), bytes->size());
  }
  return 0;
}
