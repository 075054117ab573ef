// keystream: the command-line tool. main() picks the command; each command
// lives in its own file (*_command.cpp).

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "app/cli/commands.h"

namespace {

constexpr const char* kUsage =
    "usage: keystream COMMAND [options]\n"
    "\n"
    "commands:\n"
    "  inspect [SOURCE]   print a source clip's skeleton, clip and mesh\n"
    "  measure [SOURCE]   fit, quantize and pack a clip; print sizes, errors\n"
    "                     and fit time\n"
    "\n"
    "Without SOURCE a command uses the built-in demo clip. 'keystream COMMAND\n"
    "--help' lists a command's options.\n";

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
  std::fprintf(stderr, "keystream: unknown command '%.*s'\n%s", static_cast<int>(command.size()), command.data(),
               kUsage);
  return 2;
}
