#pragma once
// glTF 2.0 import (.gltf with embedded or external buffers, and .glb).

#include <filesystem>

#include "core/io/import.h"

namespace ks {

/// Imports a skinned character (the skin's joints and their non-joint
/// ancestors, the animation chosen by `settings`, the skinned meshes) or,
/// when the file has no skin, its node hierarchy. Every index and byte range
/// is checked before use, in every mesh and animation of the file.
///
/// Samplers (STEP, LINEAR, CUBICSPLINE) are resampled to a fixed rate from
/// the animation's first key to its last: settings.sample_rate_hz when set;
/// else the keys' own rate where all key times lie on one uniform grid (for
/// STEP and CUBICSPLINE animations, the smallest whole multiple of it that
/// reaches 30 Hz, so the shape between keys survives); else 30 Hz.
/// Channels a bone lacks take its rest value.
Result<ImportedClip> import_gltf(const std::filesystem::path& path, const ImportSettings& settings);

}  // namespace ks
