#pragma once
// SetFitter: a character's whole animation set fitted with one set of
// settings, on a pool of worker threads so the UI never waits (DESIGN §9).
// The set is source files; each file's animations become rows once a worker
// has listed it (its first import). A change of settings restarts only what
// it invalidates: a change of packing alone repacks the kept fits, any other
// refits, and a running job for older settings is abandoned.
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "app/studio/jobs/fit_job.h"

namespace ks::studio {

/// Where one row of the set is.
enum class SetRowState : uint8_t { kWaiting, kRunning, kDone, kFailed };

/// One animation of the set as the UI reads it: a copy, taken under the lock.
struct SetRow {
  std::filesystem::path source;
  int animation = 0;           // index in the file
  std::string animation_name;  // as the file names it
  std::string file_name_part;  // the ANIMATION of SOURCE.ANIMATION.ks (animation_file_names)
  SetRowState state = SetRowState::kWaiting;
  /// The newest finished result (possibly for older settings while the row
  /// runs again: `stale`), or null. Never one with an error: that is `error`.
  std::shared_ptr<const FitResult> result;
  bool stale = false;
  std::string error;  // kFailed: why (import or fit)
  FitStage stage = FitStage::kFitting;
  float progress = 0.f;  // kRunning: share of the fit's current pass done, 0..1
};

/// The whole set's progress.
struct SetProgress {
  size_t files = 0, files_listed = 0;
  size_t rows = 0, rows_current = 0;  // rows done or failed for the current settings
  bool busy() const { return files_listed < files || rows_current < rows; }
};

/// The set as the UI draws it.
struct SetSnapshot {
  std::vector<SetRow> rows;
  SetProgress progress;
};

class SetFitter {
 public:
  /// `workers` threads (at least one); each fits one clip at a time on one core.
  explicit SetFitter(unsigned workers = default_workers());
  ~SetFitter();
  SetFitter(const SetFitter&) = delete;
  SetFitter& operator=(const SetFitter&) = delete;

  /// Replaces the set with every animation of `sources` (imported with
  /// `import`, its animation choice ignored), fitted with `settings`.
  void open(std::vector<std::filesystem::path> sources, const ImportSettings& import, const CodecSettings& settings);
  /// Closes the set: running jobs are abandoned, the rows dropped.
  void close();
  /// New settings for the whole set; equal ones change nothing.
  void set_settings(const CodecSettings& settings);
  /// The same without waiting: false when a worker holds the set (try again
  /// next frame). The UI thread never waits on a worker, which runs at a
  /// lower priority and may be descheduled while it holds the lock.
  bool try_set_settings(const CodecSettings& settings);

  // The thread that opens and closes the set (the UI) reads these without a lock.
  bool empty() const { return m_sources.empty(); }
  const std::vector<std::filesystem::path>& sources() const { return m_sources; }

  std::vector<SetRow> rows() const;
  SetProgress progress() const;
  SetSnapshot snapshot() const;
  /// The snapshot without waiting: false (and `out` unchanged) when a worker holds the set.
  bool try_snapshot(SetSnapshot& out) const;
  /// Blocks until every row is done or failed for the current settings (tests, scripts).
  void wait_idle() const;

  unsigned workers() const { return static_cast<unsigned>(m_threads.size()); }
  /// Every core but one, which the UI keeps.
  static unsigned default_workers();

 private:
  struct Row;
  struct Task;
  void run();
  bool next_task(Task& task);  // m_mutex held
  void finish_listing(size_t source, Result<ImportedClip> first);
  void finish_row(const RunProgress* ran, uint64_t generation, std::shared_ptr<const FitResult> result,
                  std::shared_ptr<const ImportedClip> imported, std::string error);
  bool idle() const;                                    // m_mutex held
  void change_settings(const CodecSettings& settings);  // m_mutex held
  std::vector<SetRow> rows_locked() const;
  SetProgress progress_locked() const;

  mutable std::mutex m_mutex;
  mutable std::condition_variable m_changed;
  std::vector<std::filesystem::path> m_sources;
  std::vector<uint8_t> m_listing;  // per source: 0 not yet, 1 being listed, 2 listed
  std::vector<Row> m_rows;
  ImportSettings m_import;
  CodecSettings m_settings;
  uint64_t m_set_id = 0;          // which open() the tasks belong to
  uint64_t m_generation = 0;      // of m_settings
  uint64_t m_fit_generation = 0;  // the generation whose fit settings are current
  bool m_stop = false;
  std::vector<std::thread> m_threads;  // last: they start after the members they use
};

}  // namespace ks::studio
