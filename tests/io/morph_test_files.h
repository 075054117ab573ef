#pragma once
// A skinned glTF character with morph targets, for every test that needs
// morph-weight scalar tracks (import, codec round trip, export, the studio):
// the file and the weights the importer must make of it, frame by frame.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/io/gltf_test_files.h"

namespace ks::test {

/// How the skinned morph file stores its weights channel.
struct MorphFileOptions {
  std::string interpolation = "LINEAR";  // LINEAR, STEP or CUBICSPLINE
  bool target_names = true;              // mesh extras.targetNames; false: the targets are named by index
  bool normalized_shorts = false;        // weights as normalised SHORT (tangents too) instead of FLOAT
};

/// What the importer must make of the skinned morph file.
struct MorphFileExpectation {
  float sample_rate_hz = 0.f;               // 10 Hz for LINEAR, 30 Hz for STEP and CUBICSPLINE
  uint32_t frame_count = 0;                 // the clip runs from 0 s (the rotations' first key) to 0.5 s
  std::vector<std::string> track_names;     // "face/smile", "face/blink", "face/frown" (or "face/0"...)
  std::vector<uint32_t> key_frames;         // the frames the weight keys (0.1, 0.3, 0.5 s) land on
  std::vector<std::vector<float>> weights;  // [frame][target], as the glTF specification interpolates
  int weights_output_accessor = -1;         // the weights sampler's output, for tests that break it
};

/// The file: "rig" (node 0) above joints "lower" (1) and "upper" (2);
/// "face" (3) draws mesh 0 with skin 0, a quad with three morph targets.
/// Animation "talk" rotates both joints (LINEAR, keys at 0, 0.1 ... 0.4 s)
/// and, in channel 2 through sampler 2, face's weights (keys at 0.1, 0.3
/// and 0.5 s: the weights hold before their first key, the rotations after
/// their last).
inline constexpr int kMorphNode = 3;
inline constexpr int kMorphTargets = 3;

/// The document, to break in one place before writing it; `expected` is set.
GltfDocument make_skinned_morph_document(const MorphFileOptions& options, MorphFileExpectation& expected);

/// Writes the skinned morph file to `path` (a .gltf with its buffer
/// embedded) and returns what the importer must make of it.
MorphFileExpectation write_skinned_morph_file(const std::filesystem::path& path, const MorphFileOptions& options = {});

}  // namespace ks::test
