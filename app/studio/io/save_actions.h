#pragma once
// What the File menu writes, without UI so the tests can use it: the fitted
// stream as a .ks file and the decoded animation as binary glTF, both
// written atomically (a failed write leaves any existing file as it was),
// and the names the save dialogs start from.

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "app/studio/jobs/fit_job.h"
#include "keystream/runtime/result.h"

namespace ks::studio {

/// Where "Save stream" starts: beside `source`, named after it
/// (walk.glb -> walk.ks; a stream file walk.ks -> walk.refit.ks, not itself).
std::filesystem::path default_stream_path(const std::filesystem::path& source);

/// Where "Export decoded glTF" starts: beside `source`, walk.glb -> walk.decoded.glb
/// (never the source itself).
std::filesystem::path default_glb_path(const std::filesystem::path& source);

/// Writes `result`'s stream to `path`; returns the bytes written. The error
/// names the file. Requires a result without error.
Result<size_t> save_stream(const FitResult& result, const std::filesystem::path& path);

/// Decodes `result`'s stream at every frame and writes it to `path` as
/// binary glTF: onto the source file's nodes, meshes, skins and materials
/// when the clip came from a .gltf or .glb file (its buffers read as the
/// import read them, `allow_outside_uris`), with the source's meshes when it
/// came from an FBX or Collada file, a bare skeleton otherwise.
/// Returns the bytes written; the error names the file. What the export
/// leaves out (scalar tracks it cannot place) or a reader should know (an
/// additive stream's glTF is its layer) goes to `warnings`.
Result<size_t> export_decoded_glb(const FitResult& result, const std::filesystem::path& path, bool allow_outside_uris,
                                  std::vector<std::string>& warnings);

}  // namespace ks::studio
