// keystream: the command-line tool. main() picks the command; each command
// lives in its own file (*_command.cpp).

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "app/cli/commands.h"
#include "app/cli/shown_text.h"

namespace {

constexpr const char* kUsage =
    "usage: keystream COMMAND [options]\n"
    "\n"
    "commands:\n"
    "  compress IN... [-o OUT]      fit and pack source clips (.gltf, .glb, .bvh,\n"
    "                               .fbx, .dae, .zae, or folders of them) into stream\n"
    "                               files (.ks)\n"
    "  info FILE.ks                 header, error bound, tracks, keys, sizes and\n"
    "                               jump frames\n"
    "  verify SOURCE FILE.ks        decode a stream at every frame of its source and\n"
    "                               check the error bound it stores\n"
    "  export FILE.ks -o OUT.glb    write the decoded animation as glTF\n"
    "  inspect [SOURCE]             print a source clip's skeleton, clip and mesh\n"
    "  measure [SOURCE]             fit, quantize and pack a clip in memory; print\n"
    "                               sizes, errors and fit time\n"
    "  bench [CLIP...]              rate-distortion, sampling and seek timings\n"
    "                               against a baseline, fit time, x42 crowd table\n"
    "\n"
    "Without SOURCE, inspect and measure use the built-in demo clip.\n"
    "'keystream COMMAND --help' lists a command's options.\n";

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string_view> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
    std::fputs(kUsage, args.empty() ? stderr : stdout);
    return args.empty() ? 2 : 0;
  }
  const std::string_view command = args[0];
  args.erase(args.begin());
  if (command == "inspect") return ks::cli::run_inspect(args);
  if (command == "measure") return ks::cli::run_measure(args);
  if (command == "compress") return ks::cli::run_compress(args);
  if (command == "info") return ks::cli::run_info(args);
  if (command == "verify") return ks::cli::run_verify(args);
  if (command == "export") return ks::cli::run_export(args);
  if (command == "bench") return ks::cli::run_bench(args);
  std::fprintf(stderr, "keystream: unknown command '%s'\n%s", ks::cli::shown_name(command).c_str(), kUsage);
  return 2;
}
