#include "keystream/io/bvh_tokenizer.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <system_error>

#include "keystream/clip/excerpt.h"

namespace ks::bvh {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return (x >= 'A' && x <= 'Z' ? x - 'A' + 'a' : x) == (y >= 'A' && y <= 'Z' ? y - 'A' + 'a' : y);
         });
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

// A token for an error message: quoted, shortened, control bytes replaced, so
// that a hostile file cannot make the message huge or unprintable.
std::string shown(std::string_view s) { return "'" + excerpt(s, 40) + "'"; }

bool LineReader::next(std::string_view& line) {
  if (m_pos >= m_text.size()) return false;
  const size_t end = m_text.find_first_of("\r\n", m_pos);
  const size_t stop = end == std::string_view::npos ? m_text.size() : end;
  line = m_text.substr(m_pos, stop - m_pos);
  m_pos = stop;
  if (m_pos < m_text.size() && m_text[m_pos] == '\r') ++m_pos;
  if (m_pos < m_text.size() && m_text[m_pos] == '\n') ++m_pos;
  ++m_line;
  return true;
}

std::optional<Token> Tokenizer::next() {
  for (;;) {
    if (std::optional<Token> t = next_on_line()) return t;
    if (!m_lines.next(m_line)) return std::nullopt;
    m_pos = 0;
  }
}

std::optional<Token> Tokenizer::next_on_line() {
  std::optional<Token> t = peek_on_line();
  if (t) m_pos = static_cast<size_t>(t->text.data() - m_line.data()) + t->text.size();
  return t;
}

std::optional<Token> Tokenizer::next_word_on_line() {
  std::optional<Token> t = peek_on_line();
  if (!t || t->text == "{" || t->text == "}") return std::nullopt;
  return next_on_line();
}

std::optional<Token> Tokenizer::peek_on_line() const {
  size_t p = m_pos;
  while (p < m_line.size() && is_space(m_line[p])) ++p;
  if (p >= m_line.size()) return std::nullopt;
  size_t e = p + 1;
  if (m_line[p] != '{' && m_line[p] != '}') {
    while (e < m_line.size() && !is_space(m_line[e]) && m_line[e] != '{' && m_line[e] != '}') ++e;
  }
  return Token{m_line.substr(p, e - p), m_lines.line_number()};
}

size_t Tokenizer::line() const {
  return std::max<size_t>(m_lines.line_number(), 1);
}

// std::from_chars is locale-independent; it refuses a leading '+', which
// some exporters write, so that is skipped here ("+-1" stays an error).
std::optional<double> parse_double(std::string_view s) {
  if (s.size() > 1 && s[0] == '+' && s[1] != '-' && s[1] != '+') s.remove_prefix(1);
  double v = 0.0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (end != s.data() + s.size() || s.empty()) return std::nullopt;
  if (ec == std::errc::result_out_of_range) {
    // Beyond double range: "1e999" is infinite (and refused by the caller), "1e-999" is zero.
    const bool tiny = s.find("e-") != std::string_view::npos || s.find("E-") != std::string_view::npos;
    const double magnitude = tiny ? 0.0 : std::numeric_limits<double>::infinity();
    return s[0] == '-' ? -magnitude : magnitude;
  }
  if (ec != std::errc{}) return std::nullopt;
  return v;
}

std::optional<uint64_t> parse_count(std::string_view s) {
  uint64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

std::optional<std::string_view> value_after_label(std::string_view line,
                                                  std::initializer_list<std::string_view> words) {
  line = trim(line);
  for (std::string_view word : words) {
    if (line.size() < word.size() || !iequals(line.substr(0, word.size()), word)) return std::nullopt;
    line = trim(line.substr(word.size()));
  }
  if (!line.empty() && line[0] == ':') line = trim(line.substr(1));
  return line;
}

// Out-of-range doubles become infinities explicitly (a plain cast would be
// undefined behaviour); validate() then refuses them with a message.
float to_float(double d) {
  constexpr double kMax = std::numeric_limits<float>::max();
  if (d > kMax) return std::numeric_limits<float>::infinity();
  if (d < -kMax) return -std::numeric_limits<float>::infinity();
  return static_cast<float>(d);
}

}  // namespace ks::bvh
