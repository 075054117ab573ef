#pragma once
// How every message and every text report quotes text from an input (a
// name, a value, a token, a path): shortened and made printable, so that a
// hostile file can make the output neither huge nor a terminal escape
// sequence. Here, in the lowest layer of the offline library, so that the
// clip model, the codec, file reading and the tools quote text alike.

#include <cstddef>
#include <string>
#include <string_view>

namespace ks {

/// Characters of a name, a value or a token that a message quotes (the default).
inline constexpr size_t kExcerptChars = 100;
/// Characters of a path: PATH_MAX, so a real path is only made printable, never cut.
inline constexpr size_t kPathExcerptChars = 4096;
/// Characters of a whole message, whose quotes are excerpts already: a bound for one that was not.
inline constexpr size_t kMessageExcerptChars = 2000;

/// `text` as output may show it: well-formed UTF-8 kept; every byte of a
/// control character (C0, DEL, C1, bidi overrides) or of a malformed
/// sequence as `\xHH`; at most `max_chars` characters (an escape counts
/// four), then "... (N bytes)" with N the size of the whole text.
std::string excerpt(std::string_view text, size_t max_chars = kExcerptChars);

}  // namespace ks
