// BVH parsing. The file is untrusted text, so the parser is written to refuse
// rather than to guess or to crash:
// - the hierarchy is read with an explicit stack (no recursion) under a depth
//   limit; statements (OFFSET, CHANNELS, a joint's name) take their values from
//   their own line, so a short statement is reported where it is;
// - the motion is read twice: here a first pass validates every line and keeps
//   the complete frames, and only then does the importer allocate tracks, for
//   exactly that many frames, and read the lines again (the header's "Frames:"
//   is compared, never trusted for memory);
// - every message is "<source>: line <n>: <problem>".
#include "keystream/io/bvh_parser.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "keystream/clip/raw_clip.h"
#include "keystream/io/bvh_tokenizer.h"

namespace ks::bvh {

namespace {

// Limits that keep hostile files from exhausting the stack or memory.
constexpr size_t kMaxJoints = 65535;               // bones are addressed with 16 bits downstream
constexpr size_t kMaxDepth = 1000;                 // nesting of { }; deeper files are refused, not recursed into
constexpr size_t kMaxTextBytes = size_t{1} << 30;  // 1 GiB

std::optional<Channel> parse_channel(std::string_view name) {
  static constexpr std::array<std::string_view, 6> kNames = {"Xposition", "Yposition", "Zposition",
                                                             "Xrotation", "Yrotation", "Zrotation"};
  for (size_t i = 0; i < kNames.size(); ++i) {
    if (iequals(name, kNames[i])) return static_cast<Channel>(i);
  }
  return std::nullopt;
}

Status read_number(const Token& t, double& out, const Diagnostics& diagnostics) {
  const std::optional<double> v = parse_double(t.text);
  if (!v) return diagnostics.error(t.line, shown(t.text) + " is not a number");
  if (!std::isfinite(*v)) return diagnostics.error(t.line, shown(t.text) + " is not a finite number");
  out = *v;
  return {};
}

// Reads the numbers of one motion line into `values` (at most values.size()
// of them) and returns how many words the line has.
Result<size_t> read_motion_line(const FrameLine& frame, std::span<double> values, const Diagnostics& diagnostics) {
  size_t count = 0;
  for (size_t p = 0; p < frame.text.size();) {
    while (p < frame.text.size() && is_space(frame.text[p])) ++p;
    if (p >= frame.text.size()) break;
    size_t e = p;
    while (e < frame.text.size() && !is_space(frame.text[e])) ++e;
    if (count < values.size()) {
      if (Status s = read_number({frame.text.substr(p, e - p), frame.line}, values[count], diagnostics); !s) {
        return Error{s.error()};
      }
    }
    ++count;
    p = e;
  }
  return count;
}

class BvhParser {
 public:
  explicit BvhParser(Diagnostics& diagnostics) : m_diagnostics(diagnostics) {}

  Error error(size_t line, const std::string& what) const { return m_diagnostics.error(line, what); }
  void warn(const std::string& what) { m_diagnostics.warn(what); }

  Status parse_hierarchy(Tokenizer& tokens, Hierarchy& h);
  Status parse_motion(LineReader& lines, Document& document);

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
  Status read_frame_header(LineReader& lines, uint64_t& declared, double& frame_time);
  Status collect_frames(LineReader& lines, size_t columns, std::vector<FrameLine>& frames);

  Diagnostics& m_diagnostics;
};

// ---------------------------------------------------------------------------
// Hierarchy

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
      if (Status s = read_number(*word, offset[count], m_diagnostics); !s) return s;
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

// First pass over the motion: validates every line and keeps the complete
// frames, so that the size of the clip is known before any track is allocated
// (the header's frame count is never trusted for memory).
Status BvhParser::collect_frames(LineReader& lines, size_t columns, std::vector<FrameLine>& frames) {
  std::vector<double> values(columns);
  std::string_view text;
  while (lines.next(text)) {
    const FrameLine frame{text, lines.line_number()};
    const Result<size_t> count = read_motion_line(frame, values, m_diagnostics);
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

Status BvhParser::parse_motion(LineReader& lines, Document& document) {
  const Hierarchy& h = document.hierarchy;
  uint64_t declared = 0;
  if (Status s = read_frame_header(lines, declared, document.frame_time_s); !s) return s;

  std::vector<FrameLine>& frames = document.frames;
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
  document.end_line = std::max<size_t>(lines.line_number(), 1);
  if (frames.empty()) return error(document.end_line, "the motion has no complete frames");
  return {};
}

}  // namespace

bool is_position(Channel c) {
  return c <= Channel::kZposition;
}
size_t axis_of(Channel c) {
  return static_cast<size_t>(c) % 3;
}

Error Diagnostics::error(size_t line, const std::string& what) const {
  return Error{source + ": line " + std::to_string(line) + ": " + what};
}

void Diagnostics::warn(const std::string& what) {
  warnings.push_back(source + ": " + what);
}

Result<Document> parse_document(std::string_view text, Diagnostics& diagnostics) {
  if (text.size() > kMaxTextBytes) return Error{diagnostics.source + ": the text is larger than 1 GiB"};
  constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";
  if (text.substr(0, kUtf8Bom.size()) == kUtf8Bom) text.remove_prefix(kUtf8Bom.size());

  BvhParser parser(diagnostics);
  LineReader lines(text);
  Tokenizer tokens(lines);
  Document document;
  if (Status s = parser.parse_hierarchy(tokens, document.hierarchy); !s) return Error{s.error()};
  if (Status s = parser.parse_motion(lines, document); !s) return Error{s.error()};
  return document;
}

Status read_frame(const FrameLine& frame, std::span<double> values, const Diagnostics& diagnostics) {
  if (Result<size_t> count = read_motion_line(frame, values, diagnostics); !count) return Error{count.error()};
  return {};
}

}  // namespace ks::bvh
