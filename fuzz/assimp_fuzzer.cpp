// assimp_fuzzer: the FBX and Collada importer (assimp behind our guard)
// refuses bad bytes with a message that starts with the file's name and
// stays short, never crashes, and whatever it accepts passes the rules every
// later stage relies on (Skeleton, RawClip and SkinnedMesh validate) within
// the bone-frame limit; a broken rule aborts, which libFuzzer reports as a
// crash. The input is Collada when it starts with '<' (after an optional
// UTF-8 byte-order mark), zipped Collada (.zae) when it starts with a zip
// entry's "PK", FBX otherwise.
//
// assimp itself is Debian's build, not instrumented: libFuzzer's coverage
// guides only through our code, and ASan sees assimp's memory errors only
// where they touch the heap through malloc or crash outright. Its
// allocations do go through ASan's malloc, so -malloc_limit_mb catches an
// input that makes it ask for too much.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "keystream/io/assimp_import.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  std::string_view text = bytes;
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  const char* name = text.starts_with("<") ? "fuzz.dae" : bytes.starts_with("PK") ? "fuzz.zae" : "fuzz.fbx";
  ks::ImportSettings settings;
  settings.max_bone_frames = 65536;  // each run stays small
  const ks::Result<ks::ImportedClip> imported = ks::import_assimp_bytes(bytes, name, settings);
  if (!imported) {
    if (!imported.error().starts_with(name) || imported.error().size() > 2000) {
      std::fprintf(stderr, "assimp_fuzzer: a refusal that does not name the file or is too long: %.300s\n",
                   imported.error().c_str());
      std::abort();
    }
    return 0;
  }
  const ks::ImportedClip& clip = imported.value();
  const ks::Status checks[] = {clip.skeleton.validate(), clip.clip.validate(clip.skeleton),
                               clip.mesh ? clip.mesh->validate(clip.skeleton.bone_count()) : ks::Status{}};
  for (const ks::Status& s : checks) {
    if (!s) {
      std::fprintf(stderr, "assimp_fuzzer: accepted an invalid clip: %s\n", s.error().c_str());
      std::abort();
    }
  }
  if (uint64_t{clip.skeleton.bone_count()} * clip.clip.frame_count > settings.max_bone_frames) {
    std::fprintf(stderr, "assimp_fuzzer: %zu bones x %u frames passes the bone-frame limit\n",
                 clip.skeleton.bone_count(), clip.clip.frame_count);
    std::abort();
  }
  return 0;
}
