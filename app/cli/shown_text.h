#pragma once
// How the command-line tool shows text it did not write (names and values
// from input files, paths, messages that quote them): always through
// excerpt (core/clip/excerpt.h), so that no input reaches the terminal raw
// or whole. JSON output keeps names whole; its dump escapes them.

#include <filesystem>
#include <string>
#include <string_view>

#include "keystream/clip/excerpt.h"

namespace ks::cli {

/// A name or a value from an input (bone, animation, option value).
inline std::string shown_name(std::string_view name) { return excerpt(name); }

/// A path given or found on disk: made printable, never cut.
inline std::string shown_path(const std::filesystem::path& path) { return excerpt(path.string(), kPathExcerptChars); }

/// A whole message (an error, a warning) whose quotes are excerpts already.
inline std::string shown_message(std::string_view message) { return excerpt(message, kMessageExcerptChars); }

}  // namespace ks::cli
