#pragma once
// The clip files of a folder, as every tool that takes a folder lists them.
#include <filesystem>
#include <vector>

#include "keystream/runtime/result.h"

namespace ks {

/// The .gltf, .glb, .bvh, .fbx, .dae and .zae files in `folder` and its
/// subfolders, in name order. An error names the folder when it cannot be
/// listed or holds no such file.
Result<std::vector<std::filesystem::path>> clip_files_in_folder(const std::filesystem::path& folder);

}  // namespace ks
