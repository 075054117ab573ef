#pragma once
// The glTF fuzzer's starting points (fuzz/README.md): small documents that
// import, in both containers, and the hostile shapes the importer must
// refuse (deep nesting, huge counts, a key far in time, truncation, URIs
// leading out of the folder). gltf_fuzzer writes the external buffer these
// name ("walk.bin") beside every input; make_fuzz_seeds writes the seeds.

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "tests/io/gltf_test_files.h"

namespace ks::fuzz {

/// The name of the external buffer beside every fuzzed input.
inline constexpr const char* kExternalBuffer = "walk.bin";

/// Its bytes: the skinned test document's buffer.
inline std::vector<unsigned char> external_buffer_bytes() { return test::make_skinned_document().buffer.bytes; }

/// Every seed: a file name (its extension says the container) and its bytes.
inline std::vector<std::pair<std::string, std::string>> gltf_seeds() {
  std::vector<std::pair<std::string, std::string>> seeds;
  const test::GltfDocument doc = test::make_skinned_document();
  const nlohmann::json embedded = nlohmann::json::parse(doc.text());
  seeds.emplace_back("skinned_embedded.gltf", embedded.dump());

  nlohmann::json external = embedded;
  external["buffers"][0]["uri"] = kExternalBuffer;
  seeds.emplace_back("skinned_external.gltf", external.dump());

  nlohmann::json binary = embedded;
  binary["buffers"][0].erase("uri");
  const std::string glb = test::make_glb(binary.dump(), doc.buffer.bytes);
  seeds.emplace_back("skinned.glb", glb);
  seeds.emplace_back("skinned_truncated.glb", glb.substr(0, glb.size() / 2));

  nlohmann::json cubic = embedded;
  cubic["animations"][0]["samplers"][0]["interpolation"] = "STEP";
  cubic["nodes"][3]["matrix"] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  seeds.emplace_back("skinned_step_matrix.gltf", cubic.dump());

  nlohmann::json huge = embedded;
  huge["accessors"][0]["count"] = 4000000000u;
  huge["bufferViews"][0]["byteStride"] = 252;
  seeds.emplace_back("huge_count.gltf", huge.dump());

  nlohmann::json outside = external;
  outside["buffers"][0]["uri"] = "../../../../etc/passwd";
  outside["images"] = {{{"uri", "/dev/zero"}}};
  seeds.emplace_back("outside_uris.gltf", outside.dump());

  std::string deep = embedded.dump();
  deep.insert(deep.size() - 1, ",\"extras\":" + std::string(300, '[') + std::string(300, ']'));
  seeds.emplace_back("deep_extras.gltf", deep);

  seeds.emplace_back("no_skin.gltf", [&] {
    nlohmann::json j = embedded;
    j.erase("skins");
    j["nodes"][3].erase("skin");
    return j.dump();
  }());

  // Morph targets, which the studio draws: one moving positions and
  // normals, one positions alone, and the mesh's default weights.
  nlohmann::json morph = embedded;
  morph["meshes"][0]["primitives"][0]["targets"] = {{{"POSITION", 0}, {"NORMAL", 0}}, {{"POSITION", 0}}};
  morph["meshes"][0]["weights"] = {0.5, 0.0};
  seeds.emplace_back("morph_targets.gltf", morph.dump());
  return seeds;
}

/// Writes every seed into `folder`; false (with a message) on failure.
inline bool write_gltf_seeds(const std::filesystem::path& folder) {
  for (const auto& [name, bytes] : gltf_seeds()) {
    std::ofstream out(folder / name, std::ios::binary);
    out << bytes;
    if (!out) {
      std::fprintf(stderr, "make_fuzz_seeds: cannot write %s\n", (folder / name).string().c_str());
      return false;
    }
    std::printf("%s: %zu bytes\n", (folder / name).string().c_str(), bytes.size());
  }
  return true;
}

}  // namespace ks::fuzz
