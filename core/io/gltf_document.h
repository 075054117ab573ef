#pragma once
// Loading a glTF document (internal to the glTF importer and exporter): the
// checks no parser may run before (the GLB container, the JSON's nesting),
// the JSON types tinygltf would ignore, then tinygltf itself, reading only
// the files the document may (gltf_files.h). One path for every reader, so
// the importer and the export's source refuse exactly the same files.

#include <filesystem>
#include <string>

#include "keystream/io/gltf_files.h"
#include "keystream/runtime/result.h"

namespace tinygltf {
class Model;
}

namespace ks::gltf {

/// The model of `bytes`, the whole file at `path` (a .glb when its extension
/// says so), its external files read by `rules`. With rules.read_images an
/// external image's encoded bytes are kept in Image::image (an export embeds
/// them); otherwise no image is decoded. The error does not name the file.
Result<tinygltf::Model> load_document(const std::filesystem::path& path, const std::string& bytes,
                                      const ExternalFileRules& rules);

}  // namespace ks::gltf
