#pragma once
// Lexing of BVH text (internal to the BVH importer): lines, words, numbers
// and "Label:" values, and tokens quoted for messages. The text is untrusted:
// a word never reaches past its line, and a number that does not parse, or
// does not fit, is reported rather than guessed.

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

namespace ks::bvh {

/// True for the ASCII white-space characters (space, \t, \r, \n, \v, \f).
bool is_space(char c);

/// ASCII case-insensitive equality.
bool iequals(std::string_view a, std::string_view b);

/// `s` without leading and trailing white space.
std::string_view trim(std::string_view s);

/// `s` quoted for an error message: its excerpt (core/clip/excerpt.h) of 40 characters.
std::string shown(std::string_view s);

/// Lines of the text, numbered from 1; "\n", "\r\n" and a lone "\r" end a line.
class LineReader {
 public:
  explicit LineReader(std::string_view text) : m_text(text) {}

  /// Sets `line` to the next line, without its end, and returns true; false at the end of the text.
  bool next(std::string_view& line);
  /// Number of the line last returned; 0 before the first.
  size_t line_number() const { return m_line; }
  /// The text after the line last returned.
  std::string_view rest() const { return m_text.substr(m_pos); }

 private:
  std::string_view m_text;
  size_t m_pos = 0;
  size_t m_line = 0;
};

/// A word of the text and the number of its line.
struct Token {
  std::string_view text;
  size_t line = 0;
};

/// Whitespace-separated words of the hierarchy. '{' and '}' are words of their
/// own even when glued to a name ("Hips{"). Statements such as OFFSET and
/// CHANNELS read their values from the same line only, so a short statement is
/// reported as short instead of swallowing the next keyword.
class Tokenizer {
 public:
  explicit Tokenizer(LineReader& lines) : m_lines(lines) {}

  /// The next word, on this line or a later one; nullopt at the end of the text.
  std::optional<Token> next();
  /// The next word on the current line.
  std::optional<Token> next_on_line();
  /// The next word on the current line unless it is a brace (which closes the statement).
  std::optional<Token> next_word_on_line();
  /// The next word on the current line, left in place.
  std::optional<Token> peek_on_line() const;
  /// Number of the current line, at least 1 (for messages about the end of the text).
  size_t line() const;

 private:
  LineReader& m_lines;
  std::string_view m_line;
  size_t m_pos = 0;
};

/// `s` as a decimal number; an optional leading '+' is accepted. Beyond
/// double range it is an infinity ("1e999") or zero ("1e-999"); nullopt when
/// `s` is not a number.
std::optional<double> parse_double(std::string_view s);

/// `s` as a non-negative decimal integer; nullopt when it is not one or does not fit.
std::optional<uint64_t> parse_count(std::string_view s);

/// The value after a label such as "Frames:" or "Frame Time:" (`words`
/// {"Frame", "Time"}); the colon may be glued to the value or missing.
/// nullopt when the line has another label.
std::optional<std::string_view> value_after_label(std::string_view line, std::initializer_list<std::string_view> words);

/// `d` rounded to float; out-of-range values become infinities explicitly (a
/// plain cast would be undefined behaviour), for the caller to refuse.
float to_float(double d);

}  // namespace ks::bvh
