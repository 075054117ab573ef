#include "app/studio/set/set_save.h"

#include <map>

#include "app/studio/set/set_figures.h"
#include "keystream/clip/excerpt.h"
#include "keystream/io/stream_file.h"
#include "keystream/io/stream_names.h"

namespace ks::studio {

SaveAllPlan plan_save_all(const std::vector<SetRow>& rows, const std::filesystem::path& folder) {
  SaveAllPlan plan;
  plan.folder = folder;
  std::map<std::string, std::string> sources;  // key -> shown
  for (const SetRow& row : rows) sources.emplace(file_key(row.source), row.source.string());
  std::map<std::string, std::string> claimed;  // key -> the row writing it
  for (const SetRow& row : rows) {
    const std::filesystem::path out = animation_stream_path(folder, row.source, row.file_name_part);
    plan.outputs.push_back(out);
    const std::string label = set_row_label(row);
    if (plan.blocker.empty() && (row.state == SetRowState::kFailed || !row.result || row.stale)) {
      plan.blocker = label + (row.state == SetRowState::kFailed ? " failed: " + excerpt(row.error, 200)
                                                                : " is not fitted yet for these settings");
    }
    const std::string key = file_key(out);
    if (plan.blocker.empty() && sources.contains(key)) {
      plan.blocker = "the output " + excerpt(out.string(), kPathExcerptChars) + " of " + label + " is a source";
    }
    const auto [it, inserted] = claimed.emplace(key, label);
    if (plan.blocker.empty() && !inserted) {
      plan.blocker = "both " + it->second + " and " + label + " would write " +
                     excerpt(out.string(), kPathExcerptChars) + "; save them into different folders";
    }
    std::error_code ec;
    if (std::filesystem::exists(out, ec)) plan.existing.push_back(out);
  }
  if (rows.empty()) plan.blocker = "the set has no clips";
  return plan;
}

Result<size_t> save_all(const std::vector<SetRow>& rows, const SaveAllPlan& plan) {
  if (!plan.blocker.empty()) return Error{plan.blocker};
  if (plan.outputs.size() != rows.size()) return Error{"the set changed since Save all was planned"};
  std::error_code ec;
  std::filesystem::create_directories(plan.folder, ec);
  if (ec)
    return Error{excerpt(plan.folder.string(), kPathExcerptChars) + ": cannot create the folder: " + ec.message()};
  size_t written = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (!rows[i].result || rows[i].stale) return Error{set_row_label(rows[i]) + " is not fitted for these settings"};
    if (Status s = write_stream_file(plan.outputs[i], rows[i].result->stream); !s) return Error{s.error()};
    ++written;
  }
  return written;
}

}  // namespace ks::studio
