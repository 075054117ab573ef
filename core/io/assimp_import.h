#pragma once
// FBX (binary and ASCII) and Collada (.dae, and .zae: zipped) import, through assimp.

#include <filesystem>
#include <string_view>

#include "keystream/io/import.h"

namespace ks {

/// Imports an FBX or Collada character or node animation. The file is read
/// through read_file (a regular file, bounded) and checked for what would
/// make assimp recurse or allocate without bound (assimp_guard.h) before
/// assimp parses the bytes (assimp_scene.h). The skeleton holds the nodes
/// the meshes' bones name, every node an animation moves and their
/// ancestors, with assimp's $AssimpFbx$ helper nodes folded into their bone
/// (assimp_skeleton.h), in metres: an FBX file's UnitScaleFactor, a Collada
/// file's <unit>. The animation settings choose (by index or name) is
/// resampled as a glTF LINEAR one is (gltf_import.h), the file's key times
/// the frames miss kept as key poses (assimp_animation.h); every mesh is
/// kept for the studio (assimp_mesh.h) with its morph targets, and morph
/// weight channels become scalar tracks (assimp_morph.h). What cannot be
/// used (mesh channels, sheared nodes, meshes that cannot be bound, morph
/// channels naming no mesh) is a warning.
/// Errors name the file and the problem, assimp's message shortened.
/// assimp runs in a child process (import_sandbox.h): its crash, stack
/// overflow, runaway memory or time is an error naming the file.
Result<ImportedClip> import_assimp(const std::filesystem::path& path, const ImportSettings& settings);

/// The same for a file's bytes already in memory; `name` (its extension,
/// .fbx, .dae or .zae in any case, chooses the format) is what errors name.
/// In this process, uncontained: what the child runs, and the fuzzer.
Result<ImportedClip> import_assimp_bytes(std::string_view bytes, const std::filesystem::path& name,
                                         const ImportSettings& settings);

/// import_assimp without the child process: what the import worker runs.
Result<ImportedClip> import_assimp_here(const std::filesystem::path& path, const ImportSettings& settings);

/// The import worker's main (app/import_worker): reads a request on stdin
/// (imported_clip_wire.h), imports the FBX or Collada file it names here and
/// writes the result on stdout. Returns the exit status.
int run_import_worker();

}  // namespace ks
