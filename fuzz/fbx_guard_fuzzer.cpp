// fbx_guard_fuzzer: the checks an FBX passes before assimp sees it
// (assimp_guard.h, assimp_fbx_graph.h), alone: thousands of times faster
// than a whole import, so mutations reach deep into the record walk, the
// object graph and the rewrite of curves without keys. A refusal is short
// and printable; a rewrite only ever renames AnimationCurve records, so it
// has the input's size and differs from it only where a record's name ends.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "keystream/io/assimp_guard.h"

namespace {

[[noreturn]] void fail(const char* what, std::string_view detail) {
  std::fprintf(stderr, "fbx_guard_fuzzer: %s: %.300s\n", what, std::string(detail).c_str());
  std::abort();
}

bool printable(std::string_view text) {
  for (const char c : text) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  std::string rewritten;
  ks::assimp::GuardFindings findings;
  const ks::Status s = ks::assimp::check_input(bytes, ".fbx", rewritten, 65536, &findings);
  if (!s) {
    if (s.error().size() > 2000 || !printable(s.error())) fail("a refusal too long or not printable", s.error());
    return 0;
  }
  for (const std::string& warning : findings.warnings) {
    if (warning.size() > 2000 || !printable(warning)) fail("a warning too long or not printable", warning);
  }
  if (rewritten.empty()) return 0;
  if (rewritten.size() != bytes.size()) fail("a rewrite changed the size", std::to_string(rewritten.size()));
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (rewritten[i] != bytes[i] && !(rewritten[i] == 'X' && bytes.substr(i - 13, 14) == "AnimationCurve")) {
      fail("a rewrite changed more than a curve's record name", std::to_string(i));
    }
  }
  return 0;
}
