#pragma once
// BVH import: the hierarchy (any channel order, 3 or 6 channels per joint,
// End Sites) and the motion, scaled from file units to metres.

#include <filesystem>
#include <string_view>

#include "keystream/io/import.h"

namespace ks {

/// Imports a BVH file; see import_bvh_text.
Result<ImportedClip> import_bvh(const std::filesystem::path& path, const ImportSettings& settings);

/// Parses BVH text. `source_name` names the input in error messages. Every
/// joint becomes a bone; End Sites become Skeleton::end_sites. The clip's
/// rate is 1 / Frame Time (settings.sample_rate_hz is not applied: BVH is
/// already sampled). A frame count in the header that disagrees with the
/// motion lines is a warning, and the frames actually present are used.
Result<ImportedClip> import_bvh_text(std::string_view text, std::string_view source_name,
                                     const ImportSettings& settings);

}  // namespace ks
