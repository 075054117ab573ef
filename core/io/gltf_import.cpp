#include "keystream/io/gltf_import.h"

#include <tiny_gltf.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <system_error>

#include "keystream/io/file_io.h"
#include "keystream/io/gltf_animation.h"
#include "keystream/io/gltf_document.h"
#include "keystream/io/gltf_hierarchy.h"
#include "keystream/io/gltf_mesh.h"
#include "keystream/io/gltf_schema.h"

namespace ks {

namespace {

Result<ImportedClip> import_model(const tinygltf::Model& model, const ImportSettings& settings,
                                  std::vector<std::string>& warnings) {
  ImportedClip imported;
  Result<gltf::ModelSkeleton> skeleton = gltf::read_skeleton(model, warnings);
  if (!skeleton) return Error{skeleton.error()};
  const std::vector<int>& bone_of_node = skeleton.value().bone_of_node;
  Result<std::optional<SkinnedMesh>> mesh =
      gltf::read_meshes(model, skeleton.value().usable_skin, bone_of_node, settings.read_textures, warnings);
  if (!mesh) return Error{mesh.error()};

  Result<int> animation = gltf::choose_animation(model, settings);
  if (!animation) return Error{animation.error()};
  Result<RawClip> clip = gltf::resample_animation(model, animation.value(), skeleton.value().skeleton, bone_of_node,
                                                  settings, imported.source_start_s, warnings);
  if (!clip) return Error{clip.error()};

  imported.skeleton = std::move(skeleton.value().skeleton);
  imported.clip = std::move(clip.value());
  imported.mesh = std::move(mesh.value());
  imported.animation_index = animation.value();
  for (size_t i = 0; i < model.animations.size(); ++i) {
    imported.animation_names.push_back(model.animations[i].name.empty() ? "animation_" + std::to_string(i)
                                                                        : model.animations[i].name);
  }
  if (Status s = check_imported(imported); !s) return Error{s.error()};
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
  std::vector<std::string> warnings;
  Result<tinygltf::Model> model =
      gltf::load_document(path, bytes.value(), {settings.read_textures, settings.allow_outside_uris});
  if (!model && settings.read_textures) {
    // An image file that may not be read (outside the folder, a FIFO) costs
    // the textures, not the clip: load again without images.
    warnings.push_back("textures not read: " + model.error());
    model = gltf::load_document(path, bytes.value(), {false, settings.allow_outside_uris});
  }
  if (!model) return Error{path.string() + ": " + model.error()};
  Result<ImportedClip> imported = import_model(model.value(), settings, warnings);
  if (!imported) return Error{path.string() + ": " + imported.error()};
  imported.value().source = path;
  imported.value().warnings = std::move(warnings);
  return imported;
}

}  // namespace ks
