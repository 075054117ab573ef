#include "app/studio/io/save_actions.h"

#include <cassert>
#include <optional>
#include <vector>

#include "keystream/io/file_io.h"
#include "keystream/io/gltf_export.h"
#include "keystream/io/import.h"
#include "keystream/io/stream_file.h"

namespace ks::studio {

namespace {

std::filesystem::path beside(const std::filesystem::path& source, const std::string& name) {
  return source.has_parent_path() ? source.parent_path() / name : std::filesystem::path(name);
}

}  // namespace

std::filesystem::path default_stream_path(const std::filesystem::path& source) {
  const std::string stem = source.stem().string().empty() ? "clip" : source.stem().string();
  return beside(source, stem + (lowercase_extension(source) == ".ks" ? ".refit.ks" : ".ks"));
}

std::filesystem::path default_glb_path(const std::filesystem::path& source) {
  const std::string stem = source.stem().string().empty() ? "clip" : source.stem().string();
  return beside(source, stem + ".decoded.glb");
}

Result<size_t> save_stream(const FitResult& result, const std::filesystem::path& path) {
  assert(result.error.empty());
  if (Status s = write_stream_file(path, result.stream); !s) return Error{s.error()};
  return result.stream.size();
}

Result<size_t> export_decoded_glb(const FitResult& result, const std::filesystem::path& path, bool allow_outside_uris,
                                  std::vector<std::string>& warnings) {
  assert(result.error.empty() && result.clip);
  const std::filesystem::path& source = result.clip->source;
  const std::string ext = lowercase_extension(source);
  const std::optional<std::filesystem::path> mesh_source =
      is_importable(source) && ext != ".bvh" ? std::optional(source) : std::nullopt;
  const DecodedStream decoded = decode_stream(result.view);
  if (result.view.additive()) warnings.push_back(additive_layer_export_warning(result.view.metadata().additive_base));
  Result<std::vector<uint8_t>> glb =
      export_gltf(decoded.skeleton, decoded.clip, mesh_source, allow_outside_uris, &warnings);
  if (!glb) return Error{path.string() + ": cannot export: " + glb.error()};
  const std::vector<uint8_t>& bytes = glb.value();
  if (Status s = write_file_atomically(path, std::span<const unsigned char>(bytes.data(), bytes.size())); !s) {
    return Error{s.error()};
  }
  return bytes.size();
}

}  // namespace ks::studio
