#pragma once
// The files a glTF document reads besides itself (internal to the glTF
// importer and exporter): its buffers, and its images for a reader that keeps
// them. A glTF names them by URI, so a hostile file could point anywhere:
// "../../etc/passwd" (which an export would then embed), /dev/zero, a FIFO
// that never answers, or a 3 GiB file when it declares 100 bytes. Before
// tinygltf loads anything, every such URI is checked: it must resolve,
// symbolic links followed, to a regular file inside the glTF's own folder
// (unless the caller allows files outside it), and a buffer's file must hold
// exactly the bytes its byteLength declares (a data URI too). tinygltf then
// reads files only through callbacks that find and read the planned files
// and nothing else: only a buffer's declared bytes, never an image the
// reader does not keep. Errors quote URIs as short printable excerpts.

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "keystream/runtime/result.h"

namespace tinygltf {
class TinyGLTF;
}

namespace ks::gltf {

struct ExternalFileRules {
  bool read_images = false;    // images too (an export keeps them); otherwise no image file is read
  bool allow_outside = false;  // URIs may lead outside the glTF's folder (--allow-outside-uris)
};

class ExternalFiles {
 public:
  /// Checks every buffer URI (and every image URI, when images are read) of
  /// `document`, the JSON of the glTF file at `gltf_path`; refuses the first
  /// that breaks `rules`, naming it. An image file that does not exist is
  /// left out (the loader keeps its URI), as a missing texture is no reason
  /// to refuse an animation.
  static Result<ExternalFiles> plan(const nlohmann::json& document, const std::filesystem::path& gltf_path,
                                    const ExternalFileRules& rules);

  /// Makes `loader` find and read files through this plan only. The plan
  /// must outlive the load.
  void install(tinygltf::TinyGLTF& loader);

  /// Bytes each planned file may be read for, by its canonical path.
  const std::map<std::string, uint64_t>& files() const { return m_files; }

 private:
  std::map<std::string, uint64_t> m_files;
};

/// tinygltf's error or warning text as one short printable line: its lines
/// joined with "; ", at most 300 characters (a URI it quotes may be
/// megabytes long).
std::string loader_message(std::string_view text);

/// A URI's path as tinygltf decodes it before looking for the file: "%XY"
/// is the byte 0xXY and "+" a space.
std::string decode_uri(std::string_view uri);

}  // namespace ks::gltf
