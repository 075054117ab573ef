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

#include "keystream/codec/pack.h"
#include "keystream/io/file_io.h"
#include "keystream/runtime/player.h"
#include "keystream/runtime/stream_format.h"
#include "keystream/runtime/stream_view.h"
#include "tests/golden/golden_clip.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_golden_stream <output folder>\n");
    return 2;
  }
  const std::filesystem::path folder = argv[1];
  const std::string version = std::to_string(ks::kStreamVersion);

  // Pack the hand-built clip, plain and with a zstd key stream; both must decode
  // to the fitted curves exactly, so they share one poses file.
  const ks::FittedClip clip = ks::golden::make_clip();
  std::vector<std::pair<std::filesystem::path, std::vector<uint8_t>>> files;
  std::vector<uint8_t> poses;
  for (const bool zstd : {false, true}) {
    const ks::Result<std::vector<uint8_t>> stream = ks::pack(clip, ks::golden::pack_settings(zstd));
    if (!stream.ok()) {
      std::fprintf(stderr, "make_golden_stream: %s\n", stream.error().c_str());
      return 1;
    }
    const ks::Result<ks::StreamView> view = ks::StreamView::open(stream.value(), "golden stream");
    if (!view.ok()) {
      std::fprintf(stderr, "make_golden_stream: %s\n", view.error().c_str());
      return 1;
    }
    // The rest tracks' values travel in the metadata (format version 11).
    std::vector<float> rest_values;
    for (const ks::FittedTrack& track : clip.tracks) {
      if (track.coding != ks::TrackCoding::kRest) continue;
      const int components = track.kind == ks::TrackKind::kRotation ? 4 : 3;
      rest_values.insert(rest_values.end(), track.quantization.constant, track.quantization.constant + components);
    }
    if (view.value().metadata().rest_values != rest_values) {
      std::fprintf(stderr, "make_golden_stream: the metadata does not hold the rest tracks' values\n");
      return 1;
    }
    ks::Player player(view.value());
    std::vector<ks::Transform> pose(clip.parents.size());
    std::vector<float> scalar_values(player.scalar_value_count());
    for (const float t : ks::golden::frame_times()) {
      player.sample_frame(t, pose, scalar_values);
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
      // A scalar track's curve has four floats; the player returns its components.
      for (uint32_t s = 0; s < clip.scalars.size(); ++s) {
        float expected[4];
        ks::evaluate_fitted(clip.tracks[clip.bone_track_count() + s], t, expected);
        const size_t bytes = clip.scalars[s].components * sizeof(float);
        if (std::memcmp(expected, scalar_values.data() + player.scalar_value_offset(s), bytes) != 0) {
          std::fprintf(stderr,
                       "make_golden_stream: the player differs from the fitted curves at frame time %g, scalar "
                       "track %u\n",
                       static_cast<double>(t), s);
          return 1;
        }
      }
    }
    poses = ks::golden::poses_bytes(view.value());
    // A player that reads the key stream (no key cache) must decode the same.
    if (ks::golden::poses_bytes(view.value(), 0) != poses) {
      std::fprintf(stderr,
                   "make_golden_stream: a player reading the key stream differs from one using its key cache\n");
      return 1;
    }
    files.emplace_back(folder / ("stream_v" + version + (zstd ? "_zstd" : "") + ".ks"), stream.value());
  }
  files.emplace_back(folder / ("stream_v" + version + "_poses.bin"), poses);

  for (const auto& [path, bytes] : files) {
    if (ks::Status s = ks::write_file_atomically(path, std::span<const unsigned char>(bytes)); !s) {
      std::fprintf(stderr, "make_golden_stream: %s\n", s.error().c_str());
      return 1;
    }
    std::printf("wrote %s (%zu bytes)\n", path.string().c_str(), bytes.size());
  }
  return 0;
}
