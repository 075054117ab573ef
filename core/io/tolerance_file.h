#pragma once
// The --bone-tolerances file, read and written: NAME=MM[@CM] per bone
// (override_file.h) and one clip-wide entry *=MM[@CM], the clip's
// --tolerance and --shell-distance. Numbers are written so that they read
// back to the very floats written.

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "keystream/codec/error_budget.h"
#include "keystream/codec/fit.h"
#include "keystream/runtime/result.h"

namespace ks {

/// The name of the clip-wide entry. Its MM and CM are converted as
/// --tolerance MM and --shell-distance CM convert them (times 1e-3f and
/// 1e-2f), so the entry and the options give the same floats; a bone's
/// entry divides by 1000 and 100.
inline constexpr std::string_view kClipWideEntryName = "*";

/// Whether `entry` (from parse_bone_tolerance) is the clip-wide entry.
bool is_clip_wide(const BoneTolerance& entry);

/// The refusal of a second clip-wide entry at `origin` ("f.txt:4"), the first
/// having come from `first_origin` ("f.txt:1").
Error clip_wide_set_twice(const std::string& origin, const std::string& first_origin);

/// What a tolerance file sets.
struct ToleranceFile {
  std::optional<float> tolerance_m;            // "*=MM": the clip's E, metres; none when absent
  std::optional<float> shell_distance_m;       // "*=MM@CM": the clip's d, metres; none without "@CM"
  std::vector<BoneTolerance> bone_tolerances;  // the bones' entries, in file order
};

/// `file` applied to `fit`: the clip-wide values it sets, and its bone
/// tolerances in place of fit's.
void apply_tolerance_file(const ToleranceFile& file, FitSettings& fit);

/// The text of a tolerance file for `fit`: a # line saying what wrote it,
/// "*=MM@CM" for the clip, then "NAME=MM[@CM]" per bone tolerance, in order
/// (no "@CM" for an inherited distance, 0). Each number is the shortest text
/// that reads back exactly; one that has none is written "%.9g" and said so
/// in `inexact` (when given). Refuses a name the reader would read otherwise
/// (empty, "*", with a line break, a comment's '#', blanks at either end, or
/// too long for a line) and a value that is not positive, naming the bone.
Result<std::string> bone_tolerance_file_text(const FitSettings& fit, std::vector<std::string>* inexact = nullptr);

/// Writes bone_tolerance_file_text(fit) to `path` atomically; errors name the file.
Status write_bone_tolerance_file(const std::filesystem::path& path, const FitSettings& fit,
                                 std::vector<std::string>* inexact = nullptr);

/// Reads a tolerance file under read_override_file's caps. Refuses a bad
/// entry, a bone named twice and a second "*", naming the file and line.
Result<ToleranceFile> read_bone_tolerance_file(const std::filesystem::path& path);

}  // namespace ks
