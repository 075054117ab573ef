// gltf_fuzzer: the glTF importer refuses bad input with a short message
// naming the file, never crashes, hangs or reads outside the file's folder,
// and whatever it accepts passes the rules every later stage relies on
// (Skeleton::validate, RawClip::validate, SkinnedMesh::validate), with and
// without the studio's base colour textures. Each input
// is written into a scratch folder as fuzz.glb (when it starts with the GLB
// magic) or fuzz.gltf, beside the external buffer the seeds name.

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "fuzz/gltf_seeds.h"
#include "keystream/io/gltf_import.h"

namespace {

// A folder of this process's own, with the external buffer, made once.
const std::filesystem::path& scratch() {
  static const std::filesystem::path folder = [] {
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("ks_gltf_fuzzer_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const std::vector<unsigned char> bytes = ks::fuzz::external_buffer_bytes();
    std::ofstream(dir / ks::fuzz::kExternalBuffer, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    return dir;
  }();
  return folder;
}

[[noreturn]] void broken(const char* rule, const std::string& detail) {
  std::fprintf(stderr, "gltf_fuzzer: %s: %s\n", rule, detail.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const bool binary = size >= 4 && std::memcmp(data, "glTF", 4) == 0;
  const std::filesystem::path path = scratch() / (binary ? "fuzz.glb" : "fuzz.gltf");
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));

  ks::ImportSettings settings;
  settings.max_bone_frames = uint64_t{1} << 16;  // keeps each run small; the limit itself is what is checked
  settings.animation_index = size % 3 == 0 ? 1 : 0;
  // Half the runs read and decode textures as the studio does: images are
  // untrusted bytes too (stb_image behind a size check of their header).
  settings.read_textures = size % 2 == 0;
  const ks::Result<ks::ImportedClip> imported = ks::import_gltf(path, settings);
  if (!imported) {
    const std::string& message = imported.error();
    if (message.rfind(path.string() + ": ", 0) != 0) broken("a refusal that does not name the file", message);
    if (message.size() > 2000) broken("a refusal of more than 2000 characters", message.substr(0, 200));
    return 0;
  }
  const ks::ImportedClip& clip = imported.value();
  if (const ks::Status s = clip.skeleton.validate(); !s) broken("accepted an invalid skeleton", s.error());
  if (const ks::Status s = clip.clip.validate(clip.skeleton); !s) broken("accepted an invalid clip", s.error());
  if (clip.mesh) {
    if (const ks::Status s = clip.mesh->validate(clip.skeleton.bone_count()); !s) {
      broken("accepted an invalid mesh", s.error());
    }
  }
  // Each scalar component counts as a bone (check_clip_size).
  uint64_t counted = clip.skeleton.bone_count();
  for (const ks::ScalarTrack& track : clip.clip.scalars) counted += track.components;
  if (counted * clip.clip.frame_count > settings.max_bone_frames) {
    broken("accepted a clip past the bone-frame limit", std::to_string(clip.clip.frame_count) + " frames");
  }
  return 0;
}
