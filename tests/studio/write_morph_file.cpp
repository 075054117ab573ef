// ks_write_morph_file: writes the skinned morph test file
// (tests/io/morph_test_files.h) for the studio's morph screenshot test.
//
//   ks_write_morph_file OUT.gltf
//
// Prints each frame's weights, one line per frame: "frame F W0 W1 W2".

#include <cstdio>
#include <filesystem>

#include "tests/io/morph_test_files.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: ks_write_morph_file OUT.gltf\n");
    return 2;
  }
  const ks::test::MorphFileExpectation expected = ks::test::write_skinned_morph_file(argv[1]);
  if (!std::filesystem::exists(argv[1])) {
    std::fprintf(stderr, "ks_write_morph_file: could not write %s\n", argv[1]);
    return 1;
  }
  for (size_t f = 0; f < expected.weights.size(); ++f) {
    std::printf("frame %zu", f);
    for (const float w : expected.weights[f]) std::printf(" %g", static_cast<double>(w));
    std::printf("\n");
  }
  return 0;
}
