#include "keystream/io/tolerance_file.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "keystream/clip/excerpt.h"
#include "keystream/io/exact_number.h"
#include "keystream/io/file_io.h"
#include "keystream/io/override_file.h"

namespace ks {

bool is_clip_wide(const BoneTolerance& entry) {
  return entry.bone == kClipWideEntryName;
}

Error clip_wide_set_twice(const std::string& origin, const std::string& first_origin) {
  return Error{origin + ": the clip-wide tolerance '*' is already set (from " + first_origin + ")"};
}

void apply_tolerance_file(const ToleranceFile& file, FitSettings& fit) {
  if (file.tolerance_m) fit.tolerance_m = *file.tolerance_m;
  if (file.shell_distance_m) fit.shell_distance_m = *file.shell_distance_m;
  fit.bone_tolerances = file.bone_tolerances;
}

namespace {

constexpr std::string_view kBlanks = " \t\r";  // what the reader trims

// Why the reader would not read `name` back as the entry's name; empty when it would.
std::string unwritable(const std::string& name) {
  if (name.empty()) return "it is empty";
  if (name == kClipWideEntryName) return "'*' is the clip-wide entry";
  if (name.find_first_of("\n\r") != std::string::npos) return "it holds a line break";
  if (kBlanks.find(name.front()) != std::string_view::npos || kBlanks.find(name.back()) != std::string_view::npos) {
    return "the reader trims blanks at its ends";
  }
  for (size_t hash = name.find('#'); hash != std::string::npos; hash = name.find('#', hash + 1)) {
    // read_override_file's rule: a comment starts at a line's '#' or one after a blank.
    if (hash == 0 || name[hash - 1] == ' ' || name[hash - 1] == '\t') return "its '#' would start a comment";
  }
  return {};
}

// `value` (metres) in the entry's unit, `scale` of them per metre, read back
// by `to_setting`; "%.9g" with a note in `inexact` when no text reads back exactly.
std::string number_text(float value, double scale, float (*to_setting)(float), const std::string& what,
                        std::vector<std::string>* inexact) {
  std::string text = exact_number(value, scale, to_setting);
  if (!text.empty()) return text;
  char shown[64];
  std::snprintf(shown, sizeof shown, "%.9g", static_cast<double>(value) * scale);
  if (inexact) inexact->push_back(what + " is written " + shown + ", as near as a decimal reads back");
  return shown;
}

}  // namespace

Result<std::string> bone_tolerance_file_text(const FitSettings& fit, std::vector<std::string>* inexact) {
  const auto positive = [](float v) { return std::isfinite(v) && v > 0.f; };
  if (!positive(fit.tolerance_m) || !positive(fit.shell_distance_m)) {
    return Error{"the clip-wide tolerance and shell distance must be positive to be written"};
  }
  std::string text = "# Written by keystream; read by --bone-tolerances: *=MM@CM for the clip, NAME=MM[@CM] per bone\n";
  text += "*=" + number_text(fit.tolerance_m, 1000.0, times_milli, "the clip-wide tolerance", inexact) + "@" +
          number_text(fit.shell_distance_m, 100.0, times_centi, "the clip-wide shell distance", inexact) + "\n";
  for (const BoneTolerance& o : fit.bone_tolerances) {
    const std::string bone = "bone \"" + excerpt(o.bone) + "\"";
    if (const std::string why = unwritable(o.bone); !why.empty()) {
      return Error{bone + " cannot be named in a tolerance file: " + why};
    }
    if (!positive(o.tolerance_m) || !(std::isfinite(o.shell_distance_m) && o.shell_distance_m >= 0.f)) {
      return Error{"the tolerance of " + bone + " must be positive, its shell distance positive or 0 (inherited)"};
    }
    std::string line =
        o.bone + "=" + number_text(o.tolerance_m, 1000.0, over_thousand, "the tolerance of " + bone, inexact);
    if (o.shell_distance_m > 0.f) {
      line += "@" + number_text(o.shell_distance_m, 100.0, over_hundred, "the shell distance of " + bone, inexact);
    }
    if (line.size() > kMaxOverrideLineBytes) {
      return Error{bone + " cannot be named in a tolerance file: its line would pass " +
                   std::to_string(kMaxOverrideLineBytes) + " bytes"};
    }
    text += line + "\n";
  }
  if (text.size() > kMaxOverrideFileBytes || fit.bone_tolerances.size() + 2 > kMaxOverrideLines) {
    return Error{std::to_string(fit.bone_tolerances.size()) + " bone tolerances are more than a tolerance file holds"};
  }
  return text;
}

Status write_bone_tolerance_file(const std::filesystem::path& path, const FitSettings& fit,
                                 std::vector<std::string>* inexact) {
  const std::string shown = excerpt(path.string(), kPathExcerptChars);
  Result<std::string> text = bone_tolerance_file_text(fit, inexact);
  if (!text) return Error{shown + ": " + text.error()};
  // write_file_atomically's errors name the file already.
  return write_file_atomically(path, text.value());
}

Result<ToleranceFile> read_bone_tolerance_file(const std::filesystem::path& path) {
  const std::string shown = excerpt(path.string(), kPathExcerptChars);
  const auto origin = [&](uint32_t line) { return shown + ":" + std::to_string(line); };
  ToleranceFile file;
  std::vector<uint32_t> lines;  // of each bone tolerance
  uint32_t clip_wide_line = 0;  // 0: none yet
  const Status read = read_override_file("", path.string(), "tolerance", [&](std::string_view entry, uint32_t line) {
    Result<BoneTolerance> parsed = parse_bone_tolerance(entry);
    if (!parsed) return Status{Error{origin(line) + ": " + parsed.error()}};
    if (!is_clip_wide(parsed.value())) {
      file.bone_tolerances.push_back(std::move(parsed.value()));
      lines.push_back(line);
      return Status{};
    }
    if (clip_wide_line != 0) return Status{clip_wide_set_twice(origin(line), origin(clip_wide_line))};
    clip_wide_line = line;
    file.tolerance_m = parsed.value().tolerance_m;
    if (parsed.value().shell_distance_m > 0.f) file.shell_distance_m = parsed.value().shell_distance_m;
    return Status{};
  });
  if (!read) return Error{read.error()};
  const OverrideNames names{file.bone_tolerances.size(),
                            [&](size_t i) -> const std::string& { return file.bone_tolerances[i].bone; },
                            [&](size_t i) { return origin(lines[i]); }};
  if (Status unique = check_names_unique(names, "bone", "a tolerance"); !unique) return Error{unique.error()};
  return file;
}

}  // namespace ks
