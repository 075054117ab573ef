// keystream export: decodes a stream file and writes the animation it holds
// as binary glTF, so any glTF viewer shows what the codec kept.

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>

#include "app/cli/arguments.h"
#include "app/cli/commands.h"
#include "app/cli/shown_text.h"
#include "keystream/io/file_io.h"
#include "keystream/io/gltf_export.h"
#include "keystream/io/import.h"
#include "keystream/io/stream_file.h"

namespace ks::cli {

namespace {

constexpr const char* kExportHelp =
    "usage: keystream export FILE.ks -o OUT.glb [options]\n"
    "\n"
    "Decodes every frame of a stream file through the player and writes the\n"
    "animation as binary glTF. Without --source, OUT holds the bare skeleton\n"
    "(one node per bone, named from the stream) and the animation; with\n"
    "--source, OUT is that glTF file - its meshes, skins and materials - with\n"
    "its animations replaced by the decoded one; an FBX or Collada source\n"
    "gives its meshes, skinned to the stream's skeleton. OUT is replaced\n"
    "atomically:\n"
    "a failed export leaves any existing OUT as it was.\n"
    "\n"
    "options:\n"
    "  -o OUT.glb               the file to write (required)\n"
    "  --source SRC             the .gltf, .glb, .fbx, .dae or .zae file the\n"
    "                           stream was made from; bones are matched to its nodes by name\n"
    "  --allow-outside-uris     let the source read buffers and images outside\n"
    "                           its own folder (refused by default)\n"
    "  -h, --help               show this help\n";

}  // namespace

int run_export(const std::vector<std::string_view>& raw_args) {
  if (wants_help(raw_args)) {
    std::fputs(kExportHelp, stdout);
    return 0;
  }
  Arguments args("export", raw_args);
  std::filesystem::path path;
  std::filesystem::path out;
  std::optional<std::filesystem::path> source;
  bool allow_outside_uris = false;
  while (!args.done()) {
    const std::string_view arg = args.next();
    std::string_view value;
    if (arg == "-o") {
      if (!args.value(arg, value)) return 2;
      out = std::string(value);
    } else if (arg == "--source") {
      if (!args.value(arg, value)) return 2;
      source = std::filesystem::path(std::string(value));
    } else if (arg == "--allow-outside-uris") {
      allow_outside_uris = true;
    } else if (!args.source(arg, path, "FILE.ks")) {
      return 2;
    }
  }
  // Refuse bad usage before reading or decoding anything.
  if (path.empty()) {
    args.fail("no FILE.ks given (see keystream export --help)");
    return 2;
  }
  if (out.empty()) {
    args.fail("-o OUT.glb is required");
    return 2;
  }
  if (lowercase_extension(out) != ".glb") {
    args.fail("-o " + shown_path(out) + ": the output must be a .glb file (binary glTF)");
    return 2;
  }
  if (source) {
    const std::string ext = lowercase_extension(*source);
    if (ext == ".bvh") {
      args.fail("--source " + shown_path(*source) +
                ": a BVH file has no mesh to keep; export without --source to get the skeleton and animation");
      return 2;
    }
    if (ext != ".gltf" && ext != ".glb" && ext != ".fbx" && ext != ".dae" && ext != ".zae") {
      args.fail("--source " + shown_path(*source) + ": the source must be a .gltf, .glb, .fbx, .dae or .zae file");
      return 2;
    }
  }

  Result<std::unique_ptr<StreamFile>> file = load_stream_file(path);
  if (!file) {
    std::fprintf(stderr, "keystream: %s\n", shown_message(file.error()).c_str());
    return 1;
  }
  // A source's bones are found by name: a stream without names has none to find.
  if (const StreamMetadata& meta = file.value()->view.metadata(); source && meta.bone_names.empty()) {
    std::fprintf(stderr,
                 "keystream: %s: cannot export with --source: the stream stores no bone names (compressed with "
                 "--names %s); compress with --names full, or export without --source\n",
                 shown_path(path).c_str(), meta.bone_name_hashes.empty() ? "none" : "hash");
    return 1;
  }
  const DecodedStream decoded = decode_stream(file.value()->view);
  std::vector<std::string> warnings;  // scalar tracks the export cannot place
  if (const StreamView& view = file.value()->view; view.additive()) {
    warnings.push_back(additive_layer_export_warning(view.metadata().additive_base));
  }
  Result<std::vector<uint8_t>> glb =
      export_gltf(decoded.skeleton, decoded.clip, source, allow_outside_uris, &warnings);
  if (!glb) {
    std::fprintf(stderr, "keystream: %s: cannot export: %s\n", shown_path(path).c_str(),
                 shown_message(glb.error()).c_str());
    return 1;
  }
  for (const std::string& warning : warnings) {
    std::fprintf(stderr, "keystream: %s: warning: %s\n", shown_path(path).c_str(), shown_message(warning).c_str());
  }
  const std::vector<uint8_t>& bytes = glb.value();
  if (Status s = write_file_atomically(out, std::span<const unsigned char>(bytes.data(), bytes.size())); !s) {
    std::fprintf(stderr, "keystream: %s\n", shown_message(s.error()).c_str());
    return 1;
  }
  const std::string kept = source ? "meshes and skins of " + shown_path(*source) : "skeleton only, no mesh";
  std::printf("wrote %s: %zu bones, %u frames at %.4g Hz, %zu bytes (%s)\n", shown_path(out).c_str(),
              decoded.skeleton.bone_count(), decoded.clip.frame_count, static_cast<double>(decoded.clip.sample_rate_hz),
              bytes.size(), kept.c_str());
  return 0;
}

}  // namespace ks::cli
