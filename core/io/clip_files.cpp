#include "keystream/io/clip_files.h"

#include <algorithm>

#include "keystream/clip/excerpt.h"
#include "keystream/io/import.h"

namespace ks {

Result<std::vector<std::filesystem::path>> clip_files_in_folder(const std::filesystem::path& folder) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::vector<fs::path> found;
  for (fs::recursive_directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code type_ec;
    if (it->is_regular_file(type_ec) && is_importable(it->path())) found.push_back(it->path());
  }
  if (ec) return Error{excerpt(folder.string(), kPathExcerptChars) + ": cannot list the folder: " + ec.message()};
  std::sort(found.begin(), found.end());
  if (found.empty()) {
    return Error{excerpt(folder.string(), kPathExcerptChars) +
                 ": the folder holds no .gltf, .glb, .bvh, .fbx, .dae or .zae file"};
  }
  return found;
}

}  // namespace ks
