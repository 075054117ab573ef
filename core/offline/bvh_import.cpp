// BVH import. The file is untrusted text, so the parser is written to refuse
// rather than to guess or to crash:
// - the hierarchy is read with an explicit stack (no recursion) under a depth
//   limit; statements (OFFSET, CHANNELS, a joint's name) take their values from
//   their own line, so a short statement is reported where it is;
// - the motion is read twice: a first pass validates every line and counts the
//   complete frames, and only then are tracks allocated, for exactly that many
//   frames (the header's "Frames:" is compared, never trusted for memory);
// - every message is "<source>: line <n>: <problem>".
#include "core/offline/bvh_import.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <system_error>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace ks {

namespace {

// Limits that keep hostile files from exhausting the stack or memory.
constexpr size_t kMaxJoints = 65535;                    // bones are addressed with 16 bits downstream
constexpr size_t kMaxDepth = 1000;                      // nesting of { }; deeper files are refused, not recursed into
constexpr size_t kMaxJointChannels = 6;                 // three positions and three rotations
constexpr uint64_t kMaxBoneFrames = uint64_t{1} << 26;  // bones x frames; beyond this the tracks need gigabytes
constexpr size_t kMaxFileBytes = size_t{1} << 30;       // 1 GiB

// ---------------------------------------------------------------------------
// Text

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
std::string shown(std::string_view s) {
  constexpr size_t kMax = 40;
  std::string out = "'";
  for (size_t i = 0; i < s.size() && i < kMax; ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    out += (c < 0x20 || c == 0x7f) ? '?' : s[i];
  }
  if (s.size() > kMax) out += "...";
  return out + "'";
}

// Lines of the text, numbered from 1; "\n", "\r\n" and a lone "\r" end a line.
class LineReader {
 public:
  explicit LineReader(std::string_view text) : m_text(text) {}

  bool next(std::string_view& line) {
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
  size_t line_number() const { return m_line; }  // of the line last returned; 0 before the first
  std::string_view rest() const { return m_text.substr(m_pos); }

 private:
  std::string_view m_text;
  size_t m_pos = 0;
  size_t m_line = 0;
};

struct Token {
  std::string_view text;
  size_t line = 0;
};

// Whitespace-separated words of the hierarchy. '{' and '}' are words of their
// own even when glued to a name ("Hips{"). Statements such as OFFSET and
// CHANNELS read their values from the same line only, so a short statement is
// reported as short instead of swallowing the next keyword.
class Tokenizer {
 public:
  explicit Tokenizer(LineReader& lines) : m_lines(lines) {}

  std::optional<Token> next() {
    for (;;) {
      if (std::optional<Token> t = next_on_line()) return t;
      if (!m_lines.next(m_line)) return std::nullopt;
      m_pos = 0;
    }
  }
  std::optional<Token> next_on_line() {
    std::optional<Token> t = peek_on_line();
    if (t) m_pos = static_cast<size_t>(t->text.data() - m_line.data()) + t->text.size();
    return t;
  }
  /// The next word on the current line unless it is a brace (which closes the statement).
  std::optional<Token> next_word_on_line() {
    std::optional<Token> t = peek_on_line();
    if (!t || t->text == "{" || t->text == "}") return std::nullopt;
    return next_on_line();
  }
  std::optional<Token> peek_on_line() const {
    size_t p = m_pos;
    while (p < m_line.size() && is_space(m_line[p])) ++p;
    if (p >= m_line.size()) return std::nullopt;
    size_t e = p + 1;
    if (m_line[p] != '{' && m_line[p] != '}') {
      while (e < m_line.size() && !is_space(m_line[e]) && m_line[e] != '{' && m_line[e] != '}') ++e;
    }
    return Token{m_line.substr(p, e - p), m_lines.line_number()};
  }
  size_t line() const { return std::max<size_t>(m_lines.line_number(), 1); }

 private:
  LineReader& m_lines;
  std::string_view m_line;
  size_t m_pos = 0;
};

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

// The value after a label such as "Frames:" or "Frame Time:"; the colon may be
// glued to the value or missing. nullopt when the line has another label.
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

// ---------------------------------------------------------------------------
// Channels and rotations

enum class Channel : uint8_t { kXposition, kYposition, kZposition, kXrotation, kYrotation, kZrotation };

std::optional<Channel> parse_channel(std::string_view name) {
  static constexpr std::array<std::string_view, 6> kNames = {"Xposition", "Yposition", "Zposition",
                                                             "Xrotation", "Yrotation", "Zrotation"};
  for (size_t i = 0; i < kNames.size(); ++i) {
    if (iequals(name, kNames[i])) return static_cast<Channel>(i);
  }
  return std::nullopt;
}

bool is_position(Channel c) {
  return c <= Channel::kZposition;
}
size_t axis_of(Channel c) {
  return static_cast<size_t>(c) % 3;
}

struct QuatD {
  double x = 0.0, y = 0.0, z = 0.0, w = 1.0;
};

QuatD operator*(const QuatD& a, const QuatD& b) {
  return {a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y, a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
          a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w, a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
}

QuatD axis_rotation(size_t axis, double degrees) {
  const double half = 0.5 * degrees * (3.14159265358979323846 / 180.0);
  QuatD q{0.0, 0.0, 0.0, std::cos(half)};
  (axis == 0 ? q.x : axis == 1 ? q.y : q.z) = std::sin(half);
  return q;
}

// ---------------------------------------------------------------------------
// Hierarchy

struct JointDecl {
  std::string name;
  int32_t parent = -1;
  std::array<double, 3> offset{};  // file units
  bool has_offset = false;
  bool has_channels = false;
  std::array<Channel, kMaxJointChannels> channels{};
  size_t channel_count = 0;
  size_t first_column = 0;  // of this joint's channels in a motion line
  size_t line = 0;
};

struct EndSiteDecl {
  int32_t parent = -1;
  std::array<double, 3> offset{};
  bool has_offset = false;
};

struct Hierarchy {
  std::vector<JointDecl> joints;
  std::vector<EndSiteDecl> end_sites;
  size_t column_count = 0;  // numbers per motion line
};

// One motion line: its text and number, kept to be read again once validated.
struct FrameLine {
  std::string_view text;
  size_t line = 0;
};

class BvhParser {
 public:
  explicit BvhParser(std::string_view source) : m_source(source) {}

  Error error(size_t line, const std::string& what) const {
    return Error{m_source + ": line " + std::to_string(line) + ": " + what};
  }
  void warn(const std::string& what) { m_warnings.push_back(m_source + ": " + what); }
  std::vector<std::string>& warnings() { return m_warnings; }
  const std::string& source() const { return m_source; }

  Status parse_hierarchy(Tokenizer& tokens, Hierarchy& h);
  Status parse_motion(LineReader& lines, const Hierarchy& h, double scale, RawClip& clip);

 private:
  // One '{' not yet closed: a joint or an End Site.
  struct Open {
    bool end_site = false;
    size_t index = 0;
  };

  Status open_brace(Tokenizer& tokens, std::string_view what, std::vector<Open>& open, Open entry);
  Status begin_joint(Tokenizer& tokens, const Token& keyword, Hierarchy& h, std::vector<Open>& open);
  Status read_offset(Tokenizer& tokens, const Token& keyword, std::array<double, 3>& offset, bool& has_offset);
  Status read_channels(Tokenizer& tokens, const Token& keyword, Hierarchy& h, JointDecl& joint);
  Status read_number(const Token& t, double& out) const;
  Status read_frame_header(LineReader& lines, uint64_t& declared, double& frame_time);
  Result<size_t> read_motion_line(const FrameLine& frame, std::span<double> values) const;
  Status collect_frames(LineReader& lines, size_t columns, std::vector<FrameLine>& frames);

  std::string m_source;
  std::vector<std::string> m_warnings;
};

Status BvhParser::read_number(const Token& t, double& out) const {
  const std::optional<double> v = parse_double(t.text);
  if (!v) return error(t.line, shown(t.text) + " is not a number");
  if (!std::isfinite(*v)) return error(t.line, shown(t.text) + " is not a finite number");
  out = *v;
  return {};
}

Status BvhParser::open_brace(Tokenizer& tokens, std::string_view what, std::vector<Open>& open, Open entry) {
  const std::optional<Token> brace = tokens.next();
  if (!brace || brace->text != "{") {
    return error(brace ? brace->line : tokens.line(), "expected '{' after " + std::string(what) + ", found " +
                                                          (brace ? shown(brace->text) : "the end of the file"));
  }
  // The nesting is tracked on a heap stack, never by recursion, and bounded.
  if (open.size() >= kMaxDepth) {
    return error(brace->line, "the hierarchy is nested deeper than " + std::to_string(kMaxDepth) + " levels");
  }
  open.push_back(entry);
  return {};
}

Status BvhParser::begin_joint(Tokenizer& tokens, const Token& keyword, Hierarchy& h, std::vector<Open>& open) {
  // A name is the rest of the line up to '{'; a few exporters put spaces in names.
  std::string name;
  while (std::optional<Token> word = tokens.next_word_on_line()) {
    if (!name.empty()) name += ' ';
    name.append(word->text);
  }
  const std::string kind(keyword.text);
  if (name.empty()) return error(keyword.line, kind + " is missing its joint name");
  if (h.joints.size() >= kMaxJoints) {
    return error(keyword.line, "too many joints (at most " + std::to_string(kMaxJoints) + ")");
  }
  JointDecl joint;
  joint.name = std::move(name);
  joint.parent = open.empty() ? -1 : static_cast<int32_t>(open.back().index);
  joint.line = keyword.line;
  const std::string what = kind + " " + shown(joint.name);
  h.joints.push_back(std::move(joint));
  return open_brace(tokens, what, open, Open{false, h.joints.size() - 1});
}

Status BvhParser::read_offset(Tokenizer& tokens, const Token& keyword, std::array<double, 3>& offset,
                              bool& has_offset) {
  if (has_offset) return error(keyword.line, "a second OFFSET in the same joint");
  size_t count = 0;
  while (std::optional<Token> word = tokens.next_word_on_line()) {
    if (count < 3) {
      if (Status s = read_number(*word, offset[count]); !s) return s;
    }
    ++count;
  }
  if (count != 3) return error(keyword.line, "OFFSET needs 3 numbers, found " + std::to_string(count));
  has_offset = true;
  return {};
}

Status BvhParser::read_channels(Tokenizer& tokens, const Token& keyword, Hierarchy& h, JointDecl& joint) {
  if (joint.has_channels) return error(keyword.line, "a second CHANNELS in joint " + shown(joint.name));
  const std::optional<Token> count_token = tokens.next_word_on_line();
  if (!count_token) return error(keyword.line, "CHANNELS is missing its channel count");
  const std::optional<uint64_t> count = parse_count(count_token->text);
  if (!count)
    return error(keyword.line, "channel count " + shown(count_token->text) + " is not a non-negative integer");
  if (*count > kMaxJointChannels) {
    return error(keyword.line, "CHANNELS count " + std::to_string(*count) + " is more than 6 (at most 6 per joint)");
  }
  // The names are the rest of the line; keep the first few, count them all.
  std::array<Token, kMaxJointChannels> names{};
  size_t listed = 0;
  while (std::optional<Token> word = tokens.next_word_on_line()) {
    if (listed < names.size()) names[listed] = *word;
    ++listed;
  }
  if (listed != *count) {
    return error(keyword.line,
                 "CHANNELS says " + std::to_string(*count) + " but lists " + std::to_string(listed) + " channel names");
  }
  for (size_t i = 0; i < listed; ++i) {
    const std::optional<Channel> c = parse_channel(names[i].text);
    if (!c) {
      return error(keyword.line, "unknown channel " + shown(names[i].text) +
                                     " (expected Xposition, Yposition, Zposition, Xrotation, Yrotation or Zrotation)");
    }
    if (std::find(joint.channels.begin(), joint.channels.begin() + static_cast<std::ptrdiff_t>(i), *c) !=
        joint.channels.begin() + static_cast<std::ptrdiff_t>(i)) {
      return error(keyword.line, "channel " + shown(names[i].text) + " is listed twice");
    }
    joint.channels[i] = *c;
  }
  // Motion lines hold the channels in the order the CHANNELS statements appear.
  joint.channel_count = listed;
  joint.first_column = h.column_count;
  joint.has_channels = true;
  h.column_count += listed;
  return {};
}

Status BvhParser::parse_hierarchy(Tokenizer& tokens, Hierarchy& h) {
  const std::optional<Token> first = tokens.next();
  if (!first) return error(tokens.line(), "the file is empty");
  if (!iequals(first->text, "HIERARCHY")) return error(first->line, "expected HIERARCHY, found " + shown(first->text));

  std::vector<Open> open;
  for (;;) {
    const std::optional<Token> token = tokens.next();
    if (!token) {
      if (!open.empty()) {
        const Open& top = open.back();
        const std::string what = top.end_site ? std::string("End Site") : "joint " + shown(h.joints[top.index].name);
        return error(tokens.line(), "unbalanced braces: " + what + " is not closed at the end of the file");
      }
      if (h.joints.empty()) return error(tokens.line(), "no ROOT in HIERARCHY");
      return error(tokens.line(), "missing MOTION section");
    }
    const std::string_view word = token->text;

    if (open.empty()) {  // between roots
      if (iequals(word, "ROOT")) {
        if (Status s = begin_joint(tokens, *token, h, open); !s) return s;
      } else if (iequals(word, "MOTION")) {
        if (h.joints.empty()) return error(token->line, "no ROOT in HIERARCHY");
        if (std::optional<Token> extra = tokens.next_on_line()) {
          return error(token->line, "unexpected " + shown(extra->text) + " after MOTION");
        }
        return {};
      } else if (word == "}") {
        return error(token->line, "unbalanced braces: '}' without a matching '{'");
      } else {
        return error(token->line, "unexpected " + shown(word) + " outside a ROOT (expected ROOT or MOTION)");
      }
      continue;
    }

    const Open top = open.back();
    if (word == "}") {
      const bool has_offset = top.end_site ? h.end_sites[top.index].has_offset : h.joints[top.index].has_offset;
      if (!has_offset) {
        const std::string what = top.end_site ? std::string("End Site") : "joint " + shown(h.joints[top.index].name);
        return error(token->line, what + " has no OFFSET");
      }
      open.pop_back();
    } else if (iequals(word, "OFFSET")) {
      if (top.end_site) {
        EndSiteDecl& site = h.end_sites[top.index];
        if (Status s = read_offset(tokens, *token, site.offset, site.has_offset); !s) return s;
      } else {
        JointDecl& joint = h.joints[top.index];
        if (Status s = read_offset(tokens, *token, joint.offset, joint.has_offset); !s) return s;
      }
    } else if (top.end_site) {
      return error(token->line, "unexpected " + shown(word) + " in End Site (expected OFFSET or '}')");
    } else if (iequals(word, "CHANNELS")) {
      if (Status s = read_channels(tokens, *token, h, h.joints[top.index]); !s) return s;
    } else if (iequals(word, "JOINT")) {
      if (Status s = begin_joint(tokens, *token, h, open); !s) return s;
    } else if (iequals(word, "End")) {
      const std::optional<Token> site = tokens.next_word_on_line();
      if (!site || !iequals(site->text, "Site")) return error(token->line, "expected 'Site' after 'End'");
      h.end_sites.push_back({static_cast<int32_t>(top.index), {}, false});
      if (Status s = open_brace(tokens, "End Site", open, Open{true, h.end_sites.size() - 1}); !s) return s;
    } else if (iequals(word, "MOTION")) {
      return error(token->line,
                   "unbalanced braces: joint " + shown(h.joints[top.index].name) + " is not closed before MOTION");
    } else {
      return error(token->line, "unexpected " + shown(word) + " in joint " + shown(h.joints[top.index].name) +
                                    " (expected OFFSET, CHANNELS, JOINT, End Site or '}')");
    }
  }
}

// ---------------------------------------------------------------------------
// Unit scale

// Largest of the x, y and z extents of the rest pose (joints and end sites),
// in file units. Rest rotations are identity, so positions are sums of offsets.
double rest_extent(const Hierarchy& h) {
  std::vector<std::array<double, 3>> position(h.joints.size());
  std::array<double, 3> lo{0, 0, 0}, hi{0, 0, 0};
  bool first = true;
  auto include = [&](const std::array<double, 3>& p) {
    for (size_t a = 0; a < 3; ++a) {
      lo[a] = first ? p[a] : std::min(lo[a], p[a]);
      hi[a] = first ? p[a] : std::max(hi[a], p[a]);
    }
    first = false;
  };
  for (size_t j = 0; j < h.joints.size(); ++j) {
    const JointDecl& joint = h.joints[j];
    for (size_t a = 0; a < 3; ++a) {
      position[j][a] = joint.offset[a] + (joint.parent < 0 ? 0.0 : position[static_cast<size_t>(joint.parent)][a]);
    }
    include(position[j]);
  }
  for (const EndSiteDecl& site : h.end_sites) {
    const std::array<double, 3>& base = position[static_cast<size_t>(site.parent)];
    include({base[0] + site.offset[0], base[1] + site.offset[1], base[2] + site.offset[2]});
  }
  return std::max({hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]});
}

// BVH has no unit field. The automatic scale assumes a human-sized figure:
// among the units exporters actually use (metres, centimetres, millimetres,
// inches, and the cgspeed CMU conversion's unit of (1/0.45) * 2.54 cm), pick
// the one that makes the rest-pose extent closest to 1.75 m on a log scale,
// so that a factor-of-two miss weighs the same up or down. A degenerate
// skeleton (no extent) gets centimetres, the most common BVH unit.
double automatic_unit_scale(double extent) {
  constexpr std::array<double, 5> kUnits = {1.0, 0.01, 0.001, 0.0254, (1.0 / 0.45) * 2.54 / 100.0};
  constexpr double kHumanHeightM = 1.75;
  if (!(extent > 0.0) || !std::isfinite(extent)) return 0.01;
  double best = kUnits[0];
  for (double unit : kUnits) {
    if (std::fabs(std::log(extent * unit / kHumanHeightM)) < std::fabs(std::log(extent * best / kHumanHeightM))) {
      best = unit;
    }
  }
  return best;
}

// ---------------------------------------------------------------------------
// Motion

Status BvhParser::read_frame_header(LineReader& lines, uint64_t& declared, double& frame_time) {
  std::string_view line;
  auto next_nonblank = [&]() {
    while (lines.next(line)) {
      if (!trim(line).empty()) return true;
    }
    return false;
  };
  if (!next_nonblank()) return error(std::max<size_t>(lines.line_number(), 1), "expected 'Frames:' after MOTION");
  const std::optional<std::string_view> frames = value_after_label(line, {"Frames"});
  if (!frames) return error(lines.line_number(), "expected 'Frames:' after MOTION, found " + shown(trim(line)));
  const std::optional<uint64_t> count = parse_count(*frames);
  if (!count) return error(lines.line_number(), "Frames " + shown(*frames) + " is not a non-negative integer");
  declared = *count;

  if (!next_nonblank()) return error(lines.line_number(), "expected 'Frame Time:' after Frames");
  const std::optional<std::string_view> time = value_after_label(line, {"Frame", "Time"});
  if (!time) return error(lines.line_number(), "expected 'Frame Time:', found " + shown(trim(line)));
  const std::optional<double> seconds = parse_double(*time);
  // The rate, 1 / Frame Time, must also be a usable float.
  const float rate = seconds && *seconds > 0.0 ? to_float(1.0 / *seconds) : 0.f;
  if (!seconds || !std::isfinite(*seconds) || !(*seconds > 0.0) || !std::isfinite(rate) || !(rate > 0.f)) {
    return error(lines.line_number(), "Frame Time " + shown(*time) + " is not a positive number of seconds");
  }
  frame_time = *seconds;
  return {};
}

// Appends one frame of one joint: rotation is the product of the rotation
// channels in the listed order (column vectors, degrees); translation is the
// OFFSET with each axis that has a position channel replaced by it.
void append_sample(const JointDecl& joint, const double* values, double scale, BoneTracks& tracks) {
  std::array<double, 3> p = joint.offset;
  QuatD q;
  for (size_t i = 0; i < joint.channel_count; ++i) {
    const Channel c = joint.channels[i];
    const double v = values[joint.first_column + i];
    if (is_position(c)) {
      p[axis_of(c)] = v;
    } else {
      q = q * axis_rotation(axis_of(c), v);
    }
  }
  tracks.translations.push_back({to_float(p[0] * scale), to_float(p[1] * scale), to_float(p[2] * scale)});
  tracks.rotations.push_back({to_float(q.x), to_float(q.y), to_float(q.z), to_float(q.w)});
  tracks.scales.push_back({1.f, 1.f, 1.f});
}

// Reads the numbers of one motion line into `values` (at most values.size()
// of them) and returns how many words the line has.
Result<size_t> BvhParser::read_motion_line(const FrameLine& frame, std::span<double> values) const {
  size_t count = 0;
  for (size_t p = 0; p < frame.text.size();) {
    while (p < frame.text.size() && is_space(frame.text[p])) ++p;
    if (p >= frame.text.size()) break;
    size_t e = p;
    while (e < frame.text.size() && !is_space(frame.text[e])) ++e;
    if (count < values.size()) {
      if (Status s = read_number({frame.text.substr(p, e - p), frame.line}, values[count]); !s) return Error{s.error()};
    }
    ++count;
    p = e;
  }
  return count;
}

// First pass over the motion: validates every line and keeps the complete
// frames, so that the size of the clip is known before any track is allocated
// (the header's frame count is never trusted for memory).
Status BvhParser::collect_frames(LineReader& lines, size_t columns, std::vector<FrameLine>& frames) {
  std::vector<double> values(columns);
  std::string_view text;
  while (lines.next(text)) {
    const FrameLine frame{text, lines.line_number()};
    const Result<size_t> count = read_motion_line(frame, values);
    if (!count) return Error{count.error()};
    if (count.value() == 0) continue;  // blank lines, e.g. at the end
    const std::string mismatch = "frame has " + std::to_string(count.value()) + " values, expected " +
                                 std::to_string(columns) + " (one per channel)";
    if (count.value() > columns) return error(frame.line, mismatch);
    if (count.value() < columns) {
      // A file cut short mid-line: keep the complete frames before it.
      if (!trim(lines.rest()).empty()) return error(frame.line, mismatch);
      warn("line " + std::to_string(frame.line) + ": dropped an incomplete last frame (" +
           std::to_string(count.value()) + " of " + std::to_string(columns) + " values)");
      return {};
    }
    if (frames.size() >= kMaxFrameCount) {
      return error(frame.line, "too many frames (more than " + std::to_string(kMaxFrameCount) + ", the maximum)");
    }
    frames.push_back(frame);
  }
  return {};
}

Status BvhParser::parse_motion(LineReader& lines, const Hierarchy& h, double scale, RawClip& clip) {
  uint64_t declared = 0;
  double frame_time = 0.0;
  if (Status s = read_frame_header(lines, declared, frame_time); !s) return s;
  clip.sample_rate_hz = to_float(1.0 / frame_time);

  std::vector<FrameLine> frames;
  if (h.column_count == 0) {
    // Nothing is animated, so there are no numbers to count: the header decides.
    if (Status s = collect_frames(lines, 0, frames); !s) return s;
    if (declared > kMaxFrameCount) {
      return error(lines.line_number(), "too many frames (" + std::to_string(declared) + "; at most " +
                                            std::to_string(kMaxFrameCount) + ")");
    }
    frames.assign(declared, FrameLine{});
  } else {
    if (Status s = collect_frames(lines, h.column_count, frames); !s) return s;
    if (frames.size() != declared) {
      warn("the header declares " + std::to_string(declared) + " frames but the motion data holds " +
           std::to_string(frames.size()) + " complete frames; using " + std::to_string(frames.size()));
    }
  }
  const size_t last_line = std::max<size_t>(lines.line_number(), 1);
  if (frames.empty()) return error(last_line, "the motion has no complete frames");
  if (frames.size() == 1) {
    // A single frame is a legitimate static pose; a clip needs two.
    warn("the motion has a single frame; it is repeated to make a 2-frame static clip");
    frames.push_back(frames[0]);
  }
  const uint64_t samples = uint64_t{frames.size()} * h.joints.size();
  if (samples > kMaxBoneFrames) {
    return error(last_line, "clip too large: " + std::to_string(h.joints.size()) + " bones x " +
                                std::to_string(frames.size()) + " frames is more than " +
                                std::to_string(kMaxBoneFrames) + " samples");
  }

  // Second pass: the lines are known to be good; build the tracks.
  clip.frame_count = static_cast<uint32_t>(frames.size());
  clip.bones.resize(h.joints.size());
  for (BoneTracks& t : clip.bones) {
    t.translations.reserve(frames.size());
    t.rotations.reserve(frames.size());
    t.scales.reserve(frames.size());
  }
  std::vector<double> values(h.column_count);
  for (const FrameLine& frame : frames) {
    if (Result<size_t> count = read_motion_line(frame, values); !count) return Error{count.error()};
    for (size_t j = 0; j < h.joints.size(); ++j) append_sample(h.joints[j], values.data(), scale, clip.bones[j]);
  }
  for (BoneTracks& t : clip.bones) make_rotations_continuous(t.rotations);
  return {};
}

// ---------------------------------------------------------------------------
// Assembly

// Bone names must be unique; a repeated name gets "_2", "_3"... (skipping any
// suffix that another joint already uses), with a warning.
std::vector<std::string> unique_names(const Hierarchy& h, BvhParser& parser) {
  constexpr size_t kMaxRenameWarnings = 10;  // then one summary, however many repeats
  std::unordered_set<std::string> original;
  for (const JointDecl& j : h.joints) original.insert(j.name);
  std::unordered_set<std::string> used;
  std::unordered_map<std::string, size_t> next_suffix;  // keeps a file of 65535 "Bone"s linear
  std::vector<std::string> names;
  size_t renamed = 0;
  for (const JointDecl& j : h.joints) {
    std::string name = j.name;
    if (used.count(name) != 0) {
      size_t& k = next_suffix.try_emplace(j.name, 2).first->second;
      do {
        name = j.name + "_" + std::to_string(k++);
      } while (used.count(name) != 0 || original.count(name) != 0);
      if (++renamed <= kMaxRenameWarnings) {
        parser.warn("line " + std::to_string(j.line) + ": joint name " + shown(j.name) +
                    " is used by an earlier joint; renamed to " + shown(name));
      }
    }
    used.insert(name);
    names.push_back(std::move(name));
  }
  if (renamed > kMaxRenameWarnings) {
    parser.warn(std::to_string(renamed - kMaxRenameWarnings) + " more repeated joint names were renamed");
  }
  return names;
}

Skeleton build_skeleton(const Hierarchy& h, double scale, BvhParser& parser) {
  Skeleton skeleton;
  skeleton.bone_names = unique_names(h, parser);
  for (const JointDecl& j : h.joints) {
    skeleton.parents.push_back(j.parent);
    Transform rest;
    rest.translation = {to_float(j.offset[0] * scale), to_float(j.offset[1] * scale), to_float(j.offset[2] * scale)};
    skeleton.rest_pose.push_back(rest);
  }
  for (const EndSiteDecl& site : h.end_sites) {
    skeleton.end_sites.push_back(
        {site.parent,
         {to_float(site.offset[0] * scale), to_float(site.offset[1] * scale), to_float(site.offset[2] * scale)}});
  }
  return skeleton;
}

Result<std::string> read_file(const std::filesystem::path& path) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (!file) return Error{path.string() + ": cannot open: " + std::generic_category().message(errno)};
  std::string text;
  constexpr size_t kChunk = size_t{1} << 16;
  for (;;) {
    const size_t old_size = text.size();
    text.resize(old_size + kChunk);
    const size_t n = std::fread(text.data() + old_size, 1, kChunk, file);
    const int read_errno = errno;  // before anything else can change it
    text.resize(old_size + n);
    if (n < kChunk) {
      const bool failed = std::ferror(file) != 0;
      std::fclose(file);
      if (!failed) return text;
      return Error{path.string() + ": cannot read: " + std::generic_category().message(read_errno)};
    }
    if (text.size() > kMaxFileBytes) {
      std::fclose(file);
      return Error{path.string() + ": the file is larger than 1 GiB"};
    }
  }
}

}  // namespace

Result<ImportedClip> import_bvh(const std::filesystem::path& path, const ImportSettings& settings) {
  Result<std::string> text = read_file(path);
  if (!text) return Error{text.error()};
  Result<ImportedClip> imported = import_bvh_text(text.value(), path.string(), settings);
  if (imported) {
    imported.value().source = path;
    imported.value().clip.name = path.stem().string();
    imported.value().animation_names = {imported.value().clip.name};
  }
  return imported;
}

Result<ImportedClip> import_bvh_text(std::string_view text, std::string_view source_name,
                                     const ImportSettings& settings) {
  BvhParser parser(source_name.empty() ? std::string_view("(BVH text)") : source_name);
  if (!std::isfinite(settings.bvh_unit_scale_m) || settings.bvh_unit_scale_m < 0.f) {
    return Error{parser.source() + ": BVH unit scale " + std::to_string(settings.bvh_unit_scale_m) +
                 " m per unit is not a positive number (0 = automatic)"};
  }
  if (text.size() > kMaxFileBytes) return Error{parser.source() + ": the text is larger than 1 GiB"};
  constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";
  if (text.substr(0, kUtf8Bom.size()) == kUtf8Bom) text.remove_prefix(kUtf8Bom.size());

  LineReader lines(text);
  Tokenizer tokens(lines);
  Hierarchy hierarchy;
  if (Status s = parser.parse_hierarchy(tokens, hierarchy); !s) return Error{s.error()};

  const double scale =
      settings.bvh_unit_scale_m > 0.f ? settings.bvh_unit_scale_m : automatic_unit_scale(rest_extent(hierarchy));

  ImportedClip out;
  if (Status s = parser.parse_motion(lines, hierarchy, scale, out.clip); !s) return Error{s.error()};
  out.skeleton = build_skeleton(hierarchy, scale, parser);
  out.clip.name = std::filesystem::path(source_name).stem().string();
  if (out.clip.name.empty()) out.clip.name = std::string(source_name);
  out.animation_names = {out.clip.name};
  out.animation_index = 0;
  out.unit_scale_m = static_cast<float>(scale);
  out.warnings = std::move(parser.warnings());

  if (Status s = out.skeleton.validate(); !s) return Error{parser.source() + ": " + s.error()};
  if (Status s = out.clip.validate(out.skeleton); !s) return Error{parser.source() + ": " + s.error()};
  return out;
}

}  // namespace ks
