#pragma once
// Additive bases as tools name them (DESIGN §3): "first-frame", "bind-pose"
// or FILE[#ANIMATION], shared by the CLI, the studio and the Python module;
// and an imported clip made additive to one (core/clip/additive.h).

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "keystream/io/import.h"
#include "keystream/runtime/result.h"
#include "keystream/runtime/stream_format.h"
#include "keystream/runtime/stream_view.h"

namespace ks {

struct AdditiveBaseSpec {
  AdditiveBase base = AdditiveBase::kNone;
  std::filesystem::path file;  // kClip
  std::string animation;       // kClip: a name, or an index in digits; empty: the file's first
};

/// Reads "first-frame", "bind-pose" or FILE[#ANIMATION]. A text naming an
/// existing file is that file, '#' included; otherwise the last '#'
/// separates the animation. Refuses an empty text and a file that does not
/// exist (naming it).
Result<AdditiveBaseSpec> parse_additive_base(std::string_view text);

/// The spec as parse_additive_base reads it back.
std::string to_string(const AdditiveBaseSpec& spec);

/// Makes `imported.clip` additive to `spec`'s base. A base file is imported
/// with `settings` (its animation from the spec) and must have the clip's
/// bones, by name and in order; the stream records it as FILE#NAME, with
/// the animation's name when the file has several. Errors name the base.
Status make_imported_additive(ImportedClip& imported, const AdditiveBaseSpec& spec, const ImportSettings& settings);

/// Makes `imported.clip` additive as `stream` (read from `stream_file`)
/// records, to check the stream against it: to `given` when the user names
/// the base (it must be of the stream's kind), else to the recorded base (a
/// base file as recorded, else beside the stream file). Leaves a clip whose
/// stream is not additive as it is, and refuses `given` for it.
Status make_additive_as_stream(ImportedClip& imported, const StreamView& stream,
                               const std::filesystem::path& stream_file, const std::optional<AdditiveBaseSpec>& given,
                               const ImportSettings& settings);

}  // namespace ks
