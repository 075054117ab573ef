#include "keystream/io/gltf_document.h"

#include <tiny_gltf.h>

#include <nlohmann/json.hpp>
#include <string_view>

#include "keystream/io/gltf_schema.h"
#include "keystream/io/import.h"

namespace ks::gltf {

namespace {

// Images are not needed to import animation; skipping them also means a
// missing texture (interpolation_test.gltf references one) is not an error.
bool skip_image(tinygltf::Image*, const int, std::string*, std::string*, int, int, const unsigned char*, int, void*) {
  return true;
}

// Keeps an image's encoded bytes (PNG, JPEG...) to embed them unchanged;
// images already in a buffer view stay where they are.
bool keep_image_bytes(tinygltf::Image* image, const int, std::string*, std::string*, int, int,
                      const unsigned char* bytes, int size, void*) {
  if (image->bufferView < 0 && bytes != nullptr && size > 0) image->image.assign(bytes, bytes + size);
  return true;
}

}  // namespace

Result<tinygltf::Model> load_document(const std::filesystem::path& path, const std::string& bytes,
                                      const ExternalFileRules& rules) {
  const bool binary = lowercase_extension(path) == ".glb";

  // tinygltf drops properties of the wrong type without a word; check first,
  // and check the nesting before any parser recurses through it.
  if (binary) {
    if (Status s = check_glb_container(bytes); !s) return Error{"not a readable glTF 2.0 file: " + s.error()};
  }
  const std::string_view text = json_text(bytes, binary);
  if (Status s = check_json_nesting(text); !s) return Error{"not a valid glTF 2.0 file: " + s.error()};
  const nlohmann::json document = nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
  if (!document.is_discarded()) {
    if (Status s = check_json_types(document); !s) return Error{"not a valid glTF 2.0 file: " + s.error()};
  }

  tinygltf::TinyGLTF loader;
  loader.SetImageLoader(rules.read_images ? keep_image_bytes : skip_image, nullptr);
  Result<ExternalFiles> files = ExternalFiles::plan(document, path, rules);
  if (!files) return Error{files.error()};
  files.value().install(loader);
  tinygltf::Model model;
  std::string error;
  std::string warning;
  const std::string base_dir = path.parent_path().string();
  const auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
  const auto size = static_cast<unsigned int>(bytes.size());
  const bool ok = binary ? loader.LoadBinaryFromMemory(&model, &error, &warning, data, size, base_dir)
                         : loader.LoadASCIIFromString(&model, &error, &warning, bytes.data(), size, base_dir);
  if (!ok) return Error{"not a readable glTF 2.0 file: " + loader_message(error.empty() ? warning : error)};
  return model;
}

}  // namespace ks::gltf
