// make_demo_clip: writes the project's demo character (skinned humanoid with a
// walk and an idle animation) as a binary glTF file. assets/demo_walk.glb is
// this program's output, and a test checks that it still is, byte for byte.

#include <cstdio>
#include <sstream>
#include <string>
#include <string_view>

#include "demo_character.h"
#include "keystream/io/file_io.h"

namespace {

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;

void print_usage(std::FILE* stream) {
  std::fputs(
      "usage: make_demo_clip OUT.glb\n"
      "\n"
      "Writes the keystream demo character (a procedurally built, skinned\n"
      "humanoid with the animations \"walk\" and \"idle\") to OUT.glb.\n"
      "The output is deterministic: the same bytes on every run and build.\n",
      stream);
}

}  // namespace

int main(int argc, char** argv) {
  // Command line: exactly one output path, or --help.
  if (argc == 2 && (std::string_view(argv[1]) == "--help" || std::string_view(argv[1]) == "-h")) {
    print_usage(stdout);
    return kExitOk;
  }
  if (argc != 2 || argv[1][0] == '\0' || argv[1][0] == '-') {
    print_usage(stderr);
    return kExitUsage;
  }
  const std::string out_path = argv[1];

  // Build the character and its animations.
  const tinygltf::Model model = ks::demo::build_demo_model();

  // Serialize to .glb bytes in memory, so the file is only touched once the
  // whole thing exists.
  std::stringstream glb;
  tinygltf::TinyGLTF writer;
  if (!writer.WriteGltfSceneToStream(&model, glb, /*prettyPrint=*/false, /*writeBinary=*/true) || !glb) {
    std::fprintf(stderr, "make_demo_clip: %s: cannot serialize the glTF model\n", out_path.c_str());
    return kExitFailed;
  }

  // Replace the output atomically: an interrupted run never leaves half a file.
  const ks::Status written = ks::write_file_atomically(out_path, glb.str());
  if (!written) {
    std::fprintf(stderr, "make_demo_clip: %s\n", written.error().c_str());
    return kExitFailed;
  }
  return kExitOk;
}
