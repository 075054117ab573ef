#pragma once
// The keystream commands; each takes its arguments (after the command name)
// and returns the process exit code: 0 success, 1 failure on the input,
// 2 bad usage.

#include <string_view>
#include <vector>

namespace ks::cli {

int run_inspect(const std::vector<std::string_view>& args);
int run_measure(const std::vector<std::string_view>& args);
int run_compress(const std::vector<std::string_view>& args);
int run_info(const std::vector<std::string_view>& args);
int run_verify(const std::vector<std::string_view>& args);
int run_export(const std::vector<std::string_view>& args);
int run_bench(const std::vector<std::string_view>& args);

extern const char* const kInspectHelp;
extern const char* const kMeasureHelp;

/// True when `args` asks for help (-h or --help anywhere).
bool wants_help(const std::vector<std::string_view>& args);

}  // namespace ks::cli
