#pragma once
// Save all: one .ks per clip of the set, named as `keystream compress
// --all-animations` names them (SOURCE.ANIMATION.ks in one folder), so the
// studio and the command line write the same files. No UI here, so the
// tests can use it; the panel asks before replacing what a plan finds.
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "app/studio/set/set_fitter.h"
#include "keystream/runtime/result.h"

namespace ks::studio {

/// What Save all would write into a folder.
struct SaveAllPlan {
  std::filesystem::path folder;
  std::vector<std::filesystem::path> outputs;   // one per row, in row order
  std::vector<std::filesystem::path> existing;  // outputs already there: replaced only when the user agrees
  /// Why nothing may be written yet: a row without a current result, two
  /// rows writing one file, or an output that is a source. Empty: ready.
  std::string blocker;
};

/// The plan for `rows` into `folder`.
SaveAllPlan plan_save_all(const std::vector<SetRow>& rows, const std::filesystem::path& folder);

/// Writes each row's stream to its output, atomically, creating the folder.
/// Requires a plan without blocker made from the same rows. Stops at the
/// first failure, naming the file (the files already written are whole).
/// Returns the files written.
Result<size_t> save_all(const std::vector<SetRow>& rows, const SaveAllPlan& plan);

}  // namespace ks::studio
