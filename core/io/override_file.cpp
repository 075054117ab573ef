#include "keystream/io/override_file.h"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <vector>

#include "keystream/clip/excerpt.h"
#include "keystream/io/exact_number.h"
#include "keystream/io/tolerance_file.h"

namespace ks {

std::string_view trimmed(std::string_view text) {
  const size_t first = text.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
}

namespace {

// `digits` (trimmed) as a finite number > 0.
bool positive(std::string_view digits, float& out) {
  const std::string s(trimmed(digits));
  char* end = nullptr;
  out = std::strtof(s.c_str(), &end);
  return !s.empty() && end == s.c_str() + s.size() && std::isfinite(out) && out > 0.f;
}

}  // namespace

Result<BoneTolerance> parse_bone_tolerance(std::string_view text) {
  const size_t equals = text.rfind('=');
  if (equals == std::string_view::npos) {
    // Appended rather than "'" + std::string(text): GCC 12 at -O3 sees a
    // false overlap in that concatenation (-Wrestrict).
    std::string message = "'";
    message.append(excerpt(text)).append("' is not NAME=MM or NAME=MM@CM (no '=')");
    return Error{message};
  }
  BoneTolerance o;
  o.bone = std::string(trimmed(text.substr(0, equals)));
  if (o.bone.empty()) return Error{"'" + excerpt(text) + "' names no bone before the '='"};
  const std::string_view value = text.substr(equals + 1);
  const size_t at = value.find('@');
  float mm = 0.f, cm = 0.f;
  // The clip-wide entry converts as --tolerance and --shell-distance do, so
  // "*=0.5@4" is those options to the last bit; a bone's entry divides.
  const bool clip_wide = o.bone == kClipWideEntryName;
  const auto to_metres = clip_wide ? times_milli : over_thousand;
  const auto cm_to_metres = clip_wide ? times_centi : over_hundred;
  const std::string_view mm_text = value.substr(0, at);
  if (!positive(mm_text, mm) || !(to_metres(mm) > 0.f)) {
    return Error{"the tolerance of \"" + excerpt(o.bone) + "\" ('" + excerpt(mm_text) +
                 "') is not a positive number of millimetres"};
  }
  if (at != std::string_view::npos) {
    const std::string_view cm_text = value.substr(at + 1);
    if (!positive(cm_text, cm) || !(cm_to_metres(cm) > 0.f)) {
      return Error{"the shell distance of \"" + excerpt(o.bone) + "\" ('" + excerpt(cm_text) +
                   "') is not a positive number of centimetres"};
    }
  }
  o.tolerance_m = to_metres(mm);
  o.shell_distance_m = cm_to_metres(cm);  // 0 without "@CM": inherited
  return o;
}

Result<ScalarPrecision> parse_scalar_precision(std::string_view text) {
  // The last '=': a track's name may hold one, its precision never does.
  const size_t equals = text.rfind('=');
  if (equals == std::string_view::npos) {
    std::string message = "'";
    message.append(excerpt(text)).append("' is not NAME=X (no '=')");
    return Error{message};
  }
  ScalarPrecision o;
  o.track = std::string(trimmed(text.substr(0, equals)));
  if (o.track.empty()) return Error{"'" + excerpt(text) + "' names no scalar track before the '='"};
  const std::string_view value = text.substr(equals + 1);
  if (!positive(value, o.precision)) {
    return Error{"the precision of \"" + excerpt(o.track) + "\" ('" + excerpt(trimmed(value)) +
                 "') is not a positive number"};
  }
  return o;
}

Status read_override_file(std::string_view option, const std::string& path, std::string_view kind,
                          const OverrideEntryReader& take) {
  const std::string shown_path = excerpt(path, kPathExcerptChars);
  // "--bone-tolerances: 'f.txt'" and "--bone-tolerances f.txt:3"; without an option "f.txt" and "f.txt:3".
  const std::string where = option.empty() ? shown_path : std::string(option) + ": '" + shown_path + "'";
  const std::string at_line = option.empty() ? shown_path + ":" : std::string(option) + " " + shown_path + ":";
  const std::string a_file = "a " + std::string(kind) + " file";
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    return Error{where + ": " + (std::filesystem::exists(path, ec) ? "not a file" : "no such file")};
  }
  const uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec) return Error{where + ": cannot be read: " + ec.message()};
  if (size > kMaxOverrideFileBytes) {
    return Error{where + ": the file is " + std::to_string(size) + " bytes; " + a_file + " may hold at most " +
                 std::to_string(kMaxOverrideFileBytes) + " bytes (16 MiB)"};
  }
  // The whole file at once (it is small by the cap), so that every cap is
  // checked before any line is used.
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{where + ": cannot be read"};
  // The size read above, whatever a writer appends meanwhile.
  std::string text(static_cast<size_t>(size), '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad()) return Error{where + ": read error"};
  text.resize(static_cast<size_t>(in.gcount()));

  size_t number = 0;
  for (size_t begin = 0; begin < text.size();) {
    const size_t newline = text.find('\n', begin);
    const size_t end = newline == std::string::npos ? text.size() : newline;
    std::string_view line(text.data() + begin, end - begin);
    begin = end + 1;
    if (++number > kMaxOverrideLines) {
      return Error{where + ": more than " + std::to_string(kMaxOverrideLines) + " lines; " + a_file +
                   " may hold at most " + std::to_string(kMaxOverrideLines)};
    }
    if (line.size() > kMaxOverrideLineBytes) {
      return Error{at_line + std::to_string(number) + ": the line is " + std::to_string(line.size()) +
                   " bytes; a line may hold at most " + std::to_string(kMaxOverrideLineBytes) + " ('" + excerpt(line) +
                   "')"};
    }
    for (size_t hash = line.find('#'); hash != std::string_view::npos; hash = line.find('#', hash + 1)) {
      if (hash == 0 || line[hash - 1] == ' ' || line[hash - 1] == '\t') {
        line = line.substr(0, hash);
        break;
      }
    }
    const std::string_view entry = trimmed(line);
    if (entry.empty()) continue;
    if (Status s = take(entry, static_cast<uint32_t>(number)); !s) return s;
  }
  return {};
}

Status check_names_known(const OverrideNames& overrides, const std::unordered_map<std::string_view, int32_t>& known,
                         const std::string& owner, const std::string& what, const std::string& plural,
                         const std::string& hint) {
  std::vector<size_t> unknown;  // the first kUnknownNamesQuoted overrides naming nothing `owner` has
  size_t unknown_count = 0;
  for (size_t i = 0; i < overrides.count; ++i) {
    if (known.count(overrides.name(i)) != 0) continue;
    if (unknown.size() < kUnknownNamesQuoted) unknown.push_back(i);
    ++unknown_count;
  }
  if (unknown_count == 0) return {};
  const auto quoted = [&](size_t i) { return "\"" + excerpt(overrides.name(i)) + "\""; };
  if (unknown_count == 1) {
    return Error{overrides.origin(unknown[0]) + ": " + owner + " has no " + what + " named " + quoted(unknown[0]) +
                 hint};
  }
  std::string message =
      std::to_string(unknown_count) + " " + plural + " name " + what + "s " + owner + " does not have: ";
  for (size_t k = 0; k < unknown.size(); ++k) {
    message += (k ? ", " : "") + quoted(unknown[k]) + " (" + overrides.origin(unknown[k]) + ")";
  }
  if (unknown_count > unknown.size()) message += " and " + std::to_string(unknown_count - unknown.size()) + " more";
  return Error{message + hint};
}

Status check_names_unique(const OverrideNames& overrides, const std::string& what, const std::string& has) {
  std::unordered_map<std::string_view, size_t> first_of;  // each name's first override
  first_of.reserve(overrides.count);
  for (size_t i = 0; i < overrides.count; ++i) {
    const std::string& name = overrides.name(i);
    const auto [first, inserted] = first_of.emplace(name, i);
    if (!inserted) {
      return Error{overrides.origin(i) + ": " + what + " \"" + excerpt(name) + "\" already has " + has + " (from " +
                   overrides.origin(first->second) + ")"};
    }
  }
  return {};
}

}  // namespace ks
