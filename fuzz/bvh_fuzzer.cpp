// bvh_fuzzer: the BVH importer refuses bad text with a message, never crashes,
// and whatever it accepts passes the rules every later stage relies on
// (Skeleton::validate, RawClip::validate); a broken rule aborts, which
// libFuzzer reports as a crash.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "keystream/io/bvh_import.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  // Both ways of choosing the unit scale, picked by the input so each run
  // stays one import: guessed from the skeleton's height, or centimetres.
  ks::ImportSettings settings;
  settings.bvh_unit_scale_m = size % 2 == 0 ? 0.f : 0.01f;
  const ks::Result<ks::ImportedClip> imported = ks::import_bvh_text(text, "fuzz.bvh", settings);
  if (!imported) return 0;

  const ks::ImportedClip& clip = imported.value();
  if (const ks::Status s = clip.skeleton.validate(); !s) {
    std::fprintf(stderr, "bvh_fuzzer: accepted an invalid skeleton: %s\n", s.error().c_str());
    std::abort();
  }
  if (const ks::Status s = clip.clip.validate(clip.skeleton); !s) {
    std::fprintf(stderr, "bvh_fuzzer: accepted an invalid clip: %s\n", s.error().c_str());
    std::abort();
  }
  return 0;
}
