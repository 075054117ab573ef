#pragma once
// Files of per-name overrides (--bone-tolerances, --scalar-precisions): one
// NAME=VALUE per line, blank lines and # comments skipped. A file is read
// whole under caps, so that a hostile or broken one is refused by name
// before it costs time or memory.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "keystream/codec/error_budget.h"
#include "keystream/codec/scalar_fit.h"
#include "keystream/runtime/result.h"

namespace ks {

/// Caps on an override file, far above any rig (at most 65,535 bones or
/// scalar tracks, with names of tens of bytes).
inline constexpr uintmax_t kMaxOverrideFileBytes = uintmax_t{16} << 20;  // 16 MiB
inline constexpr size_t kMaxOverrideLineBytes = 4096;
inline constexpr size_t kMaxOverrideLines = 1'000'000;

/// Receives one entry of a file: its text (trimmed, without its comment)
/// and its line, from 1; an error stops the reading and is returned.
using OverrideEntryReader = std::function<Status(std::string_view entry, uint32_t line)>;

/// Reads the file at `path`, given to `option` ("--bone-tolerances"; empty
/// for none), a `kind` file ("tolerance") as messages call it, and hands
/// every entry to `take` in order. A comment runs from a '#' at the start of
/// a line or after a blank. Errors name the option and the file, and the
/// line where one is at fault.
Status read_override_file(std::string_view option, const std::string& path, std::string_view kind,
                          const OverrideEntryReader& take);

/// One bone override "NAME=MM[@CM]" (tolerance in millimetres, shell
/// distance in centimetres, divided by 1000 and 100: over_thousand,
/// over_hundred); an error message naming what is wrong otherwise.
Result<BoneTolerance> parse_bone_tolerance(std::string_view text);

/// One scalar track override "NAME=X" (a positive precision in the track's
/// unit); an error message naming what is wrong otherwise.
Result<ScalarPrecision> parse_scalar_precision(std::string_view text);

/// The overrides of one kind (bone tolerances, scalar precisions) as the
/// checks below see them: how many, each one's name and where it came from
/// ("--bone-tolerances hands.txt:3").
struct OverrideNames {
  size_t count = 0;
  std::function<const std::string&(size_t)> name;
  std::function<std::string(size_t)> origin;
};

/// Names quoted in a refusal of overrides naming nothing; the rest are counted.
inline constexpr size_t kUnknownNamesQuoted = 3;

/// An error when overrides name what `known` lacks: one is named with its
/// origin; of more, the first kUnknownNamesQuoted are, and the rest counted
/// (never one message per name: a file may name a million). `owner` lacks
/// them ("walk.glb"), `what` names them ("bone"), `plural` the overrides
/// ("bone tolerances"); `hint` ends the message.
Status check_names_known(const OverrideNames& overrides, const std::unordered_map<std::string_view, int32_t>& known,
                         const std::string& owner, const std::string& what, const std::string& plural,
                         const std::string& hint);

/// An error naming the first name given two overrides and both origins;
/// `has` says what it has ("a tolerance"). One pass, however many there are.
Status check_names_unique(const OverrideNames& overrides, const std::string& what, const std::string& has);

/// `text` without leading and trailing blanks (spaces, tabs, CR).
std::string_view trimmed(std::string_view text);

}  // namespace ks
