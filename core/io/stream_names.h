#pragma once
// How keystream compress --all-animations names each animation's stream
// file, so that every tool writing them names them alike.

#include <filesystem>
#include <string>
#include <vector>

namespace ks {

/// `name` made safe for a file name: ASCII letters, digits, '-' and '_'
/// kept, every other byte '_'; "unnamed" when empty.
std::string file_safe(const std::string& name);

/// `text` with its ASCII letters in lower case.
std::string lowercase(std::string text);

/// The file-name part of each animation: its file_safe name, with the
/// animation's index added ("Run__1") to names that several share once made
/// safe ("Run!" and "Run?" are both "Run_"), ignoring case, so that no two
/// overwrite each other.
std::vector<std::string> animation_file_names(const std::vector<std::string>& names);

/// What identifies a file whatever the spelling: its absolute, normalised
/// path, in lower case (two names differing in case are one file on a
/// case-insensitive file system, and confusing on any other). Tools that
/// write many streams compare outputs and inputs by it.
std::string file_key(const std::filesystem::path& path);

/// folder / "STEM.PART.ks": the stream of the animation whose file-name part
/// (animation_file_names) is `file_name_part`, of `source`.
std::filesystem::path animation_stream_path(const std::filesystem::path& folder, const std::filesystem::path& source,
                                            const std::string& file_name_part);

}  // namespace ks
