#include "keystream/clip/excerpt.h"

#include <cstdint>

namespace ks {

namespace {

// Bytes of the well-formed UTF-8 sequence at `at` (Unicode table 3-7: no
// overlong forms, no surrogates, nothing past U+10FFFF), or 0.
size_t sequence_length(std::string_view text, size_t at, uint32_t& code_point) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[at + k]); };
  const unsigned char c = byte(0);
  if (c < 0x80) {
    code_point = c;
    return 1;
  }
  size_t length = 0;
  unsigned char low = 0x80, high = 0xBF;  // the range of the second byte
  if (c >= 0xC2 && c <= 0xDF) {
    length = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    length = 3;
    if (c == 0xE0) low = 0xA0;
    if (c == 0xED) high = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    length = 4;
    if (c == 0xF0) low = 0x90;
    if (c == 0xF4) high = 0x8F;
  } else {
    return 0;
  }
  if (at + length > text.size() || byte(1) < low || byte(1) > high) return 0;
  code_point = c & (0xFFu >> (length + 1));
  for (size_t k = 1; k < length; ++k) {
    if ((byte(k) & 0xC0) != 0x80) return 0;
    code_point = (code_point << 6) | (byte(k) & 0x3Fu);
  }
  return length;
}

// Characters a terminal acts on rather than shows: C0, DEL and C1 controls
// (U+009B is a CSI to many terminals), and the bidi embeddings, overrides
// and isolates, which can make a line read as another.
bool is_control(uint32_t c) {
  return c < 0x20 || (c >= 0x7F && c <= 0x9F) || (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069);
}

}  // namespace

std::string excerpt(std::string_view text, size_t max_chars) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  size_t i = 0;
  size_t shown = 0;
  while (i < text.size()) {
    uint32_t code_point = 0;
    const size_t length = sequence_length(text, i, code_point);
    const bool printable = length > 0 && !is_control(code_point);
    // A control character's bytes are escaped one by one, as a stray byte's.
    const size_t bytes = printable ? length : (length > 0 ? length : 1);
    const size_t width = printable ? 1 : 4 * bytes;
    if (shown + width > max_chars) break;
    if (printable) {
      out.append(text.substr(i, length));
    } else {
      for (size_t k = 0; k < bytes; ++k) {
        const auto c = static_cast<unsigned char>(text[i + k]);
        out += {'\\', 'x', kHex[c >> 4], kHex[c & 0xF]};
      }
    }
    i += bytes;
    shown += width;
  }
  if (i < text.size()) out += "... (" + std::to_string(text.size()) + " bytes)";
  return out;
}

}  // namespace ks
