#pragma once
// Import: a source file (glTF 2.0, BVH, FBX or Collada) to a Skeleton, a RawClip and, where
// the file has one, the skinned mesh. Dispatches on the file extension.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "keystream/clip/raw_clip.h"
#include "keystream/clip/skeleton.h"
#include "keystream/clip/skinned_mesh.h"
#include "keystream/runtime/result.h"

namespace ks {

/// How a source file becomes a clip.
/// The resampling rates a clip may have, Hz: slower rates make key times a
/// glTF export cannot write (1e-38 Hz puts frame 1 at 1e38 s), faster ones
/// make frames no source needs.
inline constexpr float kMinSampleRateHz = 1.f;
inline constexpr float kMaxSampleRateHz = 10000.f;

/// Bones x frames a clip may have unless the caller raises it: about 200 MB
/// at the peak of a fit (some 190 bytes per bone and frame, measured on the
/// CMU takes). A file of a few kilobytes can ask for any number of frames (a
/// key at 2,000 s); this keeps what it costs in proportion. Each component
/// of a scalar track (a morph weight) counts as a bone: it costs less, so
/// the bound stays safe.
inline constexpr uint64_t kDefaultMaxBoneFrames = uint64_t{1} << 20;

struct ImportSettings {
  int animation_index = 0;      // which animation of a glTF, FBX or Collada file; default 0
  std::string animation_name;   // when non-empty, selects by name instead of index; default ""
  float sample_rate_hz = 0.f;   // glTF, FBX, Collada resampling rate, Hz; 0 = automatic (see gltf_import.h)
  float bvh_unit_scale_m = 0.f; // BVH metres per file unit; 0 = guess from the skeleton's height
  bool allow_outside_uris = false;  // glTF buffers may be read from outside the file's folder (gltf_files.h)
  bool read_textures = false;  // glTF base colour images decoded into the mesh (the studio); default: none read
  uint64_t max_bone_frames = kDefaultMaxBoneFrames;  // (bones + scalar components) x frames, checked before allocating

  /// Refuses a rate other than 0 outside kMinSampleRateHz..kMaxSampleRateHz,
  /// negative or non-finite scales, a negative index, a bone-frame limit
  /// below 2.
  Status validate() const;
};

/// Refuses a clip of (`bones` + `scalar_components`) x `frames` beyond
/// `settings.max_bone_frames`, before anything of that size is allocated;
/// the message says how to raise the limit.
Status check_clip_size(uint64_t bones, uint64_t frames, const ImportSettings& settings, uint64_t scalar_components = 0);

/// Everything an import produces.
struct ImportedClip {
  std::filesystem::path source;
  Skeleton skeleton;
  RawClip clip;
  std::optional<SkinnedMesh> mesh;           // glTF, FBX and Collada files with a mesh
  std::vector<std::string> animation_names;  // every animation in the file
  int animation_index = 0;                   // the one in `clip`
  float unit_scale_m = 1.f;                  // metres per file unit that was applied
  double source_start_s = 0.0;               // source time of frame 0, seconds (glTF, FBX, DAE: the first key)
  std::vector<std::string> warnings;         // things accepted with a defined fix-up
};

/// What every importer checks before returning a clip: its skeleton, its
/// clip against the skeleton and its mesh, if any, against the bone count
/// (Skeleton, RawClip and SkinnedMesh validate); the first rule broken.
Status check_imported(const ImportedClip& imported);

/// Index of the animation `settings` selects among `names` (a file's
/// animation names in order, "" for an unnamed one): by name when
/// animation_name is set, else animation_index. Refuses a file without
/// animations, an unknown name (listing, shortened, the names there are) and
/// an index out of range.
Result<int> choose_animation(const std::vector<std::string>& names, const ImportSettings& settings);

/// `path`'s extension in lower case, with its dot (".glb"): what import_clip
/// and the tools that list clips go by.
std::string lowercase_extension(const std::filesystem::path& path);

/// True for the files import_clip reads: .gltf, .glb, .bvh, .fbx, .dae and .zae, in any case.
bool is_importable(const std::filesystem::path& path);

/// Imports `path` (.gltf, .glb, .bvh, .fbx, .dae or .zae). The error names the file and the problem.
Result<ImportedClip> import_clip(const std::filesystem::path& path, const ImportSettings& settings = {});

}  // namespace ks
