#include "core/clip/excerpt.h"

namespace ks {

std::string excerpt(std::string_view text, size_t max_chars) {
  std::string out;
  size_t i = 0;
  size_t shown = 0;
  while (i < text.size() && shown < max_chars) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    // A well-formed UTF-8 sequence is kept whole (names may be in any
    // script); any other byte outside printable ASCII becomes '?'.
    const size_t length = c < 0x80                   ? 1
                          : (c >= 0xC2 && c <= 0xDF) ? 2
                          : (c >= 0xE0 && c <= 0xEF) ? 3
                          : (c >= 0xF0 && c <= 0xF4) ? 4
                                                     : 0;
    bool valid = length > 0 && i + length <= text.size();
    for (size_t k = 1; valid && k < length; ++k) valid = (static_cast<unsigned char>(text[i + k]) & 0xC0) == 0x80;
    if (length == 1 && (c < 0x20 || c == 0x7f)) valid = false;
    if (valid) {
      out.append(text.substr(i, length));
      i += length;
    } else {
      out += '?';
      ++i;
    }
    ++shown;
  }
  if (i < text.size()) out += "...";
  return out;
}

}  // namespace ks
