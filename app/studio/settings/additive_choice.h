#pragma once
// The additive base the Settings panel chooses (DESIGN §3, §9): the studio
// keeps the clip as imported and fits it, or it made additive to the base,
// so that choosing none gives the clip back unchanged.

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "keystream/io/additive_import.h"
#include "keystream/io/import.h"

namespace ks::studio {

/// The clip to fit: `imported` itself for kNone, else a copy made additive
/// to `spec` (a base file imported with `settings`). Errors name the base.
Result<std::shared_ptr<const ImportedClip>> clip_to_fit(std::shared_ptr<const ImportedClip> imported,
                                                        const AdditiveBaseSpec& spec, const ImportSettings& settings);

/// `spec` with its file absolute and normal: the stream records the file
/// as the spec names it, and the command line spells it so, from any folder.
AdditiveBaseSpec absolute_base(AdditiveBaseSpec spec);

/// Animation `index` of the open file at `path` (its animation `names`) as
/// a base: by name, or by index where a name does not read back after '#'
/// (empty, all digits, holding '#'). The stream records the same either way.
AdditiveBaseSpec file_animation_base(const std::filesystem::path& path, const std::vector<std::string>& names,
                                     int index);

/// The index among `names` of the animation `spec` names when its file is
/// `path` (the open file), else -1.
int file_animation_index(const AdditiveBaseSpec& spec, const std::filesystem::path& path,
                         const std::vector<std::string>& names);

/// The base to keep once `opened` replaces `previous`: another animation of
/// the previous file is no base for another file (kNone); the others stay.
AdditiveBaseSpec base_after_open(const AdditiveBaseSpec& spec, const std::filesystem::path& previous,
                                 const std::filesystem::path& opened);

/// "additive to first-frame" (bind-pose, FILENAME#ANIMATION): what a clip's base
/// is, as the CLI reports it; empty when the clip is not additive.
std::string additive_label(const AdditiveBasePoses& base);

}  // namespace ks::studio
