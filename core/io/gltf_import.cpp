#include "core/io/gltf_import.h"

#include <tiny_gltf.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <system_error>

#include "core/io/file_io.h"
#include "core/io/gltf_animation.h"
#include "core/io/gltf_files.h"
#include "core/io/gltf_hierarchy.h"
#include "core/io/gltf_mesh.h"
#include "core/io/gltf_schema.h"

namespace ks {

namespace {

// Images are not needed to import animation; skipping them also means a
// missing texture (interpolation_test.gltf references one) is not an error.
bool skip_image(tinygltf::Image*, const int, std::string*, std::string*, int, int, const unsigned char*, int, void*) {
  return true;
}

// `bytes` is the whole file at `path`; external buffers are read beside it
// only (gltf_files.h), unless `allow_outside_uris`.
Result<tinygltf::Model> load_model(const std::filesystem::path& path, const std::string& bytes,
                                   bool allow_outside_uris) {
  const bool binary = lowercase_extension(path) == ".glb";

  // tinygltf drops properties of the wrong type without a word; check first,
  // and check the nesting before any parser recurses through it.
  if (binary) {
    if (Status s = gltf::check_glb_container(bytes); !s) return Error{"not a readable glTF 2.0 file: " + s.error()};
  }
  const std::string_view text = gltf::json_text(bytes, binary);
  if (Status s = gltf::check_json_nesting(text); !s) return Error{"not a valid glTF 2.0 file: " + s.error()};
  const nlohmann::json document = nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
  if (!document.is_discarded()) {
    if (Status s = gltf::check_json_types(document); !s) return Error{"not a valid glTF 2.0 file: " + s.error()};
  }

  tinygltf::TinyGLTF loader;
  loader.SetImageLoader(skip_image, nullptr);
  Result<gltf::ExternalFiles> files = gltf::ExternalFiles::plan(document, path, {false, allow_outside_uris});
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
  if (!ok) {
    return Error{"not a readable glTF 2.0 file: " + gltf::loader_message(error.empty() ? warning : error)};
  }
  return model;
}

Result<ImportedClip> import_model(const tinygltf::Model& model, const ImportSettings& settings,
                                  std::vector<std::string>& warnings) {
  ImportedClip imported;
  Result<std::vector<int>> parents = gltf::node_parents(model);
  if (!parents) return Error{parents.error()};
  Result<int> skin = gltf::choose_skin(model);
  if (!skin) return Error{skin.error()};
  Result<std::vector<int>> bones = gltf::bone_nodes(model, parents.value());
  if (!bones) return Error{bones.error()};
  std::vector<int> bone_of_node;
  std::vector<char> usable_skin;
  Result<Skeleton> skeleton = gltf::build_skeleton(model, parents.value(), bones.value(), skin.value(), bone_of_node,
                                                   usable_skin, warnings);
  if (!skeleton) return Error{skeleton.error()};
  Result<std::optional<SkinnedMesh>> mesh = gltf::read_meshes(model, usable_skin, bone_of_node, warnings);
  if (!mesh) return Error{mesh.error()};

  Result<int> animation = gltf::choose_animation(model, settings);
  if (!animation) return Error{animation.error()};
  Result<RawClip> clip = gltf::resample_animation(model, animation.value(), skeleton.value(), bone_of_node, settings,
                                                  imported.source_start_s, warnings);
  if (!clip) return Error{clip.error()};

  imported.skeleton = std::move(skeleton.value());
  imported.clip = std::move(clip.value());
  imported.mesh = std::move(mesh.value());
  imported.animation_index = animation.value();
  for (size_t i = 0; i < model.animations.size(); ++i) {
    imported.animation_names.push_back(model.animations[i].name.empty() ? "animation_" + std::to_string(i)
                                                                        : model.animations[i].name);
  }
  if (Status s = imported.skeleton.validate(); !s) return Error{s.error()};
  if (Status s = imported.clip.validate(imported.skeleton); !s) return Error{s.error()};
  if (imported.mesh) {
    if (Status s = imported.mesh->validate(imported.skeleton.bone_count()); !s) return Error{s.error()};
  }
  return imported;
}

}  // namespace

Result<ImportedClip> import_gltf(const std::filesystem::path& path, const ImportSettings& settings) {
  if (Status s = settings.validate(); !s) return Error{path.string() + ": " + s.error()};
  // A missing path gets one plain answer; read_file refuses a directory, a
  // FIFO or a device by what it is.
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return Error{path.string() + ": no such file"};
  const Result<std::string> bytes = read_file(path);
  if (!bytes) return Error{bytes.error()};  // names the path already
  Result<tinygltf::Model> model = load_model(path, bytes.value(), settings.allow_outside_uris);
  if (!model) return Error{path.string() + ": " + model.error()};
  std::vector<std::string> warnings;
  Result<ImportedClip> imported = import_model(model.value(), settings, warnings);
  if (!imported) return Error{path.string() + ": " + imported.error()};
  imported.value().source = path;
  imported.value().warnings = std::move(warnings);
  return imported;
}

}  // namespace ks
