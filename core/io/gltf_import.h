#pragma once
// glTF 2.0 import (.gltf with embedded or external buffers, and .glb).

#include <filesystem>

#include "keystream/io/import.h"

namespace ks {

/// Imports a skinned character (the skin's joints and their non-joint
/// ancestors, the animation chosen by `settings`, the skinned meshes) or,
/// when the file has no skin, its node hierarchy. Every index and byte range
/// is checked before use, in every mesh and animation of the file.
///
/// Samplers (STEP, LINEAR, CUBICSPLINE) are resampled to a fixed rate from
/// the animation's first key to its last: settings.sample_rate_hz when set;
/// else one that puts a frame on every key time where one is within reason,
/// as gltf_sample_rate.h chooses it. The LINEAR and CUBICSPLINE key times
/// it misses are kept as RawClip::key_poses (and named in a warning); a
/// STEP key between frames jumps at the next frame (with a warning).
/// Channels a bone lacks take its rest value.
///
/// A `weights` channel becomes one scalar track per morph target of its
/// node's mesh, "NODE/TARGET" (gltf_morph_weights.h), sampled at the same
/// frames; its keys count for the rate as the bones' do. A node whose
/// weights no channel animates gets no track (the mesh's default weights
/// are the renderer's). A `weights` channel on a node without a mesh, or
/// whose mesh has no morph targets or another number of them than the
/// channel has values per key, is refused rather than skipped: the file
/// breaks the glTF rule that the weights are those of the node's targets,
/// and no count of values per key can be trusted to mean what it says.
Result<ImportedClip> import_gltf(const std::filesystem::path& path, const ImportSettings& settings);

}  // namespace ks
