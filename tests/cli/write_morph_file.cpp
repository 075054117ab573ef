// Writes the skinned morph-target glTF of tests/io/morph_test_files.h for the
// command-line tests: write_morph_file PATH [LINEAR|STEP|CUBICSPLINE].

#include <cstdio>
#include <string>

#include "tests/io/morph_test_files.h"

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: write_morph_file PATH [LINEAR|STEP|CUBICSPLINE]\n");
    return 2;
  }
  ks::test::MorphFileOptions options;
  if (argc == 3) options.interpolation = argv[2];
  if (options.interpolation != "LINEAR" && options.interpolation != "STEP" && options.interpolation != "CUBICSPLINE") {
    std::fprintf(stderr, "write_morph_file: '%s' is not LINEAR, STEP or CUBICSPLINE\n", argv[2]);
    return 2;
  }
  const ks::test::MorphFileExpectation expected = ks::test::write_skinned_morph_file(argv[1], options);
  // The track names, one per line, for the test to use.
  for (const std::string& name : expected.track_names) std::printf("%s\n", name.c_str());
  return 0;
}
