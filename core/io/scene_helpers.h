#pragma once
// What an importer says of the cameras and lights it leaves out of the
// skeleton (glTF and assimp alike: they are no bones, README "Importing
// clips").

#include <string>
#include <vector>

namespace ks {

/// Names a warning quotes: the first eight.
inline constexpr size_t kLeftOutNamesQuoted = 8;

/// The warning for `count` nodes left out, quoting `first` (already
/// excerpts, at most kLeftOutNamesQuoted of them).
inline std::string left_out_helpers_warning(size_t count, const std::vector<std::string>& first) {
  std::string list;
  for (size_t i = 0; i < first.size(); ++i) list += (i == 0 ? "'" : ", '") + first[i] + "'";
  if (count > first.size()) list += ", ...";
  return "left out " + std::to_string(count) + " camera and light node" + (count == 1 ? "" : "s") +
         " (and nodes below them), which are no bones: " + list;
}

}  // namespace ks
