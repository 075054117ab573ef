#include "core/io/assimp_import.h"

#include <system_error>

#include "core/io/assimp_animation.h"
#include "core/io/assimp_mesh.h"
#include "core/io/assimp_scene.h"
#include "core/io/assimp_skeleton.h"
#include "core/io/file_io.h"

namespace ks {

namespace {

Result<ImportedClip> import_scene(const aiScene& scene, const std::string& ext, const ImportSettings& settings,
                                  std::vector<std::string>& warnings) {
  ImportedClip imported;
  imported.animation_names = assimp::animation_names(scene);
  // The animation first: a file without one is refused before anything is built.
  Result<int> animation = choose_animation(imported.animation_names, settings);
  if (!animation) return Error{animation.error()};
  for (size_t a = 0; a < imported.animation_names.size(); ++a) {
    if (imported.animation_names[a].empty()) imported.animation_names[a] = "animation_" + std::to_string(a);
  }

  Result<assimp::NodeTree> tree = assimp::flatten_nodes(scene);
  if (!tree) return Error{tree.error()};
  Result<double> metres = assimp::metres_per_unit(scene, ext, warnings);
  if (!metres) return Error{metres.error()};
  Result<assimp::SceneSkeleton> skeleton = assimp::read_skeleton(scene, tree.value(), metres.value(), warnings);
  if (!skeleton) return Error{skeleton.error()};
  Result<std::optional<SkinnedMesh>> mesh =
      assimp::read_meshes(scene, tree.value(), metres.value(), skeleton.value(), warnings);
  if (!mesh) return Error{mesh.error()};
  Result<RawClip> clip =
      assimp::resample_animation(scene, tree.value(), skeleton.value(), static_cast<unsigned>(animation.value()),
                                 settings, imported.source_start_s, warnings);
  if (!clip) return Error{clip.error()};

  imported.skeleton = std::move(skeleton.value().skeleton);
  imported.clip = std::move(clip.value());
  imported.mesh = std::move(mesh.value());
  imported.animation_index = animation.value();
  imported.unit_scale_m = static_cast<float>(metres.value() * skeleton.value().root_scale);
  if (Status s = check_imported(imported); !s) return Error{s.error()};
  return imported;
}

}  // namespace

Result<ImportedClip> import_assimp_bytes(std::string_view bytes, const std::filesystem::path& name,
                                         const ImportSettings& settings) {
  if (Status s = settings.validate(); !s) return Error{name.string() + ": " + s.error()};
  const std::string ext = lowercase_extension(name);
  if (ext != ".fbx" && ext != ".dae" && ext != ".zae") return Error{name.string() + ": not an .fbx, .dae or .zae file"};
  Assimp::Importer importer;  // owns the scene until the clip is built
  Result<const aiScene*> scene = assimp::read_scene(importer, bytes, ext);
  if (!scene) return Error{name.string() + ": " + scene.error()};
  std::vector<std::string> warnings;
  Result<ImportedClip> imported = import_scene(*scene.value(), ext, settings, warnings);
  if (!imported) return Error{name.string() + ": " + imported.error()};
  imported.value().source = name;
  imported.value().warnings = std::move(warnings);
  return imported;
}

Result<ImportedClip> import_assimp(const std::filesystem::path& path, const ImportSettings& settings) {
  if (Status s = settings.validate(); !s) return Error{path.string() + ": " + s.error()};
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return Error{path.string() + ": no such file"};
  const Result<std::string> bytes = read_file(path);
  if (!bytes) return Error{bytes.error()};  // names the path already
  return import_assimp_bytes(bytes.value(), path, settings);
}

}  // namespace ks
