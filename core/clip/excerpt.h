#pragma once
// How an error message quotes text from an input file (a name, a token, a
// URI): shortened and made printable, so that a hostile file can make the
// message neither huge nor a terminal escape sequence. Here, in the lowest
// layer of the offline library, so that the clip model, the codec and file
// reading quote names alike.

#include <cstddef>
#include <string>
#include <string_view>

namespace ks {

/// `text` as an error message may quote it: at most `max_chars` characters
/// (then "..."), well-formed UTF-8 kept, control and stray bytes as '?'.
std::string excerpt(std::string_view text, size_t max_chars = 60);

}  // namespace ks
