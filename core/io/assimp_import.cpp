#include "keystream/io/assimp_import.h"

#include <unistd.h>

#include <cerrno>
#include <string>
#include <system_error>

#include "keystream/io/assimp_animation.h"
#include "keystream/io/assimp_mesh.h"
#include "keystream/io/assimp_scene.h"
#include "keystream/io/assimp_skeleton.h"
#include "keystream/io/file_io.h"
#include "keystream/io/import_sandbox.h"
#include "keystream/io/imported_clip_wire.h"

namespace ks {

namespace {

// A take whose curves have no keys, which assimp drops: two frames of the
// rest pose, as a single-pose glTF animation is imported.
RawClip still_clip(const std::string& name, const Skeleton& skeleton, const ImportSettings& settings) {
  RawClip clip;
  clip.name = name;
  clip.sample_rate_hz = settings.sample_rate_hz > 0.f ? settings.sample_rate_hz : 30.f;
  clip.frame_count = kMinFrameCount;
  for (const Transform& rest : skeleton.rest_pose) {
    BoneTracks& tracks = clip.bones.emplace_back();
    tracks.translations.assign(kMinFrameCount, rest.translation);
    tracks.rotations.assign(kMinFrameCount, rest.rotation);
    tracks.scales.assign(kMinFrameCount, rest.scale);
  }
  return clip;
}

Result<ImportedClip> import_scene(const aiScene& scene, const std::string& ext, const ImportSettings& settings,
                                  const std::vector<std::string>& still_takes, std::vector<std::string>& warnings) {
  ImportedClip imported;
  imported.animation_names = assimp::animation_names(scene);
  const bool still = imported.animation_names.empty() && !still_takes.empty();
  if (still) imported.animation_names = still_takes;
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
      still ? Result<RawClip>(still_clip(imported.animation_names[static_cast<size_t>(animation.value())],
                                         skeleton.value().skeleton, settings))
            : assimp::resample_animation(scene, tree.value(), skeleton.value(),
                                         static_cast<unsigned>(animation.value()), ext != ".fbx", settings,
                                         imported.source_start_s, warnings);
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
  assimp::GuardFindings findings;
  Result<const aiScene*> scene = assimp::read_scene(importer, bytes, ext, settings.max_bone_frames, &findings);
  if (!scene) return Error{name.string() + ": " + scene.error()};
  std::vector<std::string> warnings = std::move(findings.warnings);
  Result<ImportedClip> imported = import_scene(*scene.value(), ext, settings, findings.still_takes, warnings);
  if (!imported) return Error{name.string() + ": " + imported.error()};
  imported.value().source = name;
  imported.value().warnings = std::move(warnings);
  return imported;
}

Result<ImportedClip> import_assimp_here(const std::filesystem::path& path, const ImportSettings& settings) {
  if (Status s = settings.validate(); !s) return Error{path.string() + ": " + s.error()};
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return Error{path.string() + ": no such file"};
  const Result<std::string> bytes = read_file(path);
  if (!bytes) return Error{bytes.error()};  // names the path already
  return import_assimp_bytes(bytes.value(), path, settings);
}

Result<ImportedClip> import_assimp(const std::filesystem::path& path, const ImportSettings& settings) {
  if (Status s = settings.validate(); !s) return Error{path.string() + ": " + s.error()};
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return Error{path.string() + ": no such file"};
  // The size sets the limits; the worker reads the file itself.
  const uint64_t size = std::filesystem::is_regular_file(path, ec) ? std::filesystem::file_size(path, ec) : 0;
  const std::string_view reader = lowercase_extension(path) == ".fbx" ? "FBX" : "Collada";
  return import_contained(path, settings, reader, sandbox_limits_for(ec ? 0 : size),
                          [&] { return import_assimp_here(path, settings); });
}

int run_import_worker() {
  // The request is small (kMaxImportRequestBytes): read whole, bounded.
  std::string request;
  char buffer[4096];
  ssize_t n;
  while ((n = ::read(STDIN_FILENO, buffer, sizeof buffer)) != 0) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 || request.size() > kMaxImportRequestBytes) return 2;
    request.append(buffer, static_cast<size_t>(n));
  }
  std::filesystem::path path;
  ImportSettings settings;
  if (!decode_import_request(request, path, settings)) return 2;
  const std::string result = encode_import_result(import_assimp_here(path, settings));
  size_t done = 0;
  while (done < result.size()) {
    n = ::write(STDOUT_FILENO, result.data() + done, result.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return 1;
    done += static_cast<size_t>(n);
  }
  return 0;
}

}  // namespace ks
