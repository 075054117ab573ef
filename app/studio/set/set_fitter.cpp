#include "app/studio/set/set_fitter.h"

#include <algorithm>
#include <utility>

#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "keystream/io/import.h"
#include "keystream/io/stream_names.h"

namespace ks::studio {

// A row as the fitter keeps it.
struct SetFitter::Row {
  SetRow shown;  // all but state/progress are kept current here
  // The clip as imported, without its mesh, kept for refits: a set holds
  // its clips' samples, as the single-clip view holds one clip's.
  std::shared_ptr<const ImportedClip> imported;
  uint64_t result_generation = 0;        // of shown.result or shown.error; 0: none yet
  std::shared_ptr<RunProgress> running;  // null unless a worker has it
};

// What a worker does next: list a source (its first import), or fit or
// repack a row for the current settings.
struct SetFitter::Task {
  enum class Kind : uint8_t { kNone, kList, kFit, kRepack } kind = Kind::kNone;
  uint64_t set_id = 0;
  size_t source_index = 0;  // kList
  uint64_t generation = 0;
  std::filesystem::path source;
  ImportSettings import;
  CodecSettings settings;
  std::shared_ptr<const ImportedClip> imported;  // kFit: null to import again
  std::shared_ptr<const FitResult> previous;     // kRepack
  std::shared_ptr<RunProgress> progress;
};

namespace {

// A set's fits are background work: the UI thread (and the open clip's
// refit) come first when the cores are busy. Linux sets a nice value per
// thread; elsewhere the workers keep the default priority.
void lower_this_threads_priority() {
#ifdef __linux__
  static_cast<void>(setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), 10));
#endif
}

}  // namespace

unsigned SetFitter::default_workers() {
  const unsigned cores = std::thread::hardware_concurrency();
  return cores > 1 ? cores - 1 : 1;
}

SetFitter::SetFitter(unsigned workers) {
  for (unsigned w = 0; w < std::max(1u, workers); ++w) m_threads.emplace_back([this] { run(); });
}

SetFitter::~SetFitter() {
  {
    const std::lock_guard<std::mutex> lock(m_mutex);
    m_stop = true;
    for (Row& row : m_rows) {
      if (row.running) row.running->fit.abandon = true;
    }
  }
  m_changed.notify_all();
  for (std::thread& t : m_threads) t.join();
}

void SetFitter::open(std::vector<std::filesystem::path> sources, const ImportSettings& import,
                     const CodecSettings& settings) {
  {
    const std::lock_guard<std::mutex> lock(m_mutex);
    for (Row& row : m_rows) {
      if (row.running) row.running->fit.abandon = true;
    }
    m_rows.clear();
    m_sources = std::move(sources);
    m_listing.assign(m_sources.size(), 0);
    m_import = import;
    m_import.animation_name.clear();
    m_settings = settings;
    ++m_set_id;
    m_fit_generation = ++m_generation;
  }
  m_changed.notify_all();
}

void SetFitter::close() {
  open({}, m_import, m_settings);
}

void SetFitter::set_settings(const CodecSettings& settings) {
  {
    const std::lock_guard<std::mutex> lock(m_mutex);
    change_settings(settings);
  }
  m_changed.notify_all();
}

bool SetFitter::try_set_settings(const CodecSettings& settings) {
  {
    const std::unique_lock<std::mutex> lock(m_mutex, std::try_to_lock);
    if (!lock.owns_lock()) return false;
    change_settings(settings);
  }
  m_changed.notify_all();
  return true;
}

void SetFitter::change_settings(const CodecSettings& settings) {
  if (settings == m_settings) return;
  const bool refit = !(settings.fit == m_settings.fit);
  m_settings = settings;
  ++m_generation;
  if (refit) m_fit_generation = m_generation;
  for (Row& row : m_rows) {
    if (row.running) row.running->fit.abandon = true;
  }
}

std::vector<SetRow> SetFitter::rows() const {
  const std::lock_guard<std::mutex> lock(m_mutex);
  return rows_locked();
}

SetProgress SetFitter::progress() const {
  const std::lock_guard<std::mutex> lock(m_mutex);
  return progress_locked();
}

SetSnapshot SetFitter::snapshot() const {
  const std::lock_guard<std::mutex> lock(m_mutex);
  return {rows_locked(), progress_locked()};
}

bool SetFitter::try_snapshot(SetSnapshot& out) const {
  const std::unique_lock<std::mutex> lock(m_mutex, std::try_to_lock);
  if (!lock.owns_lock()) return false;
  out.rows = rows_locked();
  out.progress = progress_locked();
  return true;
}

std::vector<SetRow> SetFitter::rows_locked() const {
  std::vector<SetRow> out;
  out.reserve(m_rows.size());
  for (const Row& row : m_rows) {
    SetRow shown = row.shown;
    const bool current = row.result_generation == m_generation;
    shown.stale = shown.result != nullptr && !current;
    if (row.running) {
      shown.state = SetRowState::kRunning;
      shown.stage = row.running->stage.load(std::memory_order_relaxed);
      shown.progress = row.running->fit.pass_fraction();
    } else if (!current) {
      shown.state = SetRowState::kWaiting;
    } else {
      shown.state = shown.error.empty() ? SetRowState::kDone : SetRowState::kFailed;
    }
    out.push_back(std::move(shown));
  }
  return out;
}

SetProgress SetFitter::progress_locked() const {
  SetProgress p;
  p.files = m_sources.size();
  p.files_listed = static_cast<size_t>(std::count(m_listing.begin(), m_listing.end(), 2));
  p.rows = m_rows.size();
  for (const Row& row : m_rows) p.rows_current += row.result_generation == m_generation && !row.running;
  return p;
}

bool SetFitter::idle() const {
  return !progress_locked().busy();
}

void SetFitter::wait_idle() const {
  std::unique_lock<std::mutex> lock(m_mutex);
  m_changed.wait(lock, [this] { return idle(); });
}

bool SetFitter::next_task(Task& task) {
  task = Task{};
  task.set_id = m_set_id;
  task.import = m_import;
  task.settings = m_settings;
  task.generation = m_generation;
  // Listing first: it makes the rows the table shows.
  for (size_t s = 0; s < m_sources.size(); ++s) {
    if (m_listing[s] != 0) continue;
    m_listing[s] = 1;
    task.kind = Task::Kind::kList;
    task.source_index = s;
    task.source = m_sources[s];
    task.import.animation_index = 0;
    return true;
  }
  for (size_t r = 0; r < m_rows.size(); ++r) {
    Row& row = m_rows[r];
    if (row.running || row.result_generation == m_generation) continue;
    const bool fit_current = row.shown.result != nullptr && row.result_generation >= m_fit_generation;
    task.kind = fit_current ? Task::Kind::kRepack : Task::Kind::kFit;
    task.source = row.shown.source;
    task.import.animation_index = row.shown.animation;
    task.imported = row.imported;
    task.previous = row.shown.result;
    task.progress = std::make_shared<RunProgress>();
    row.running = task.progress;
    return true;
  }
  return false;
}

void SetFitter::run() {
  lower_this_threads_priority();
  for (;;) {
    Task task;
    {
      std::unique_lock<std::mutex> lock(m_mutex);
      m_changed.wait(lock, [&] { return m_stop || next_task(task); });
      if (m_stop) return;
    }
    if (task.kind == Task::Kind::kList) {
      Result<ImportedClip> first = import_clip(task.source, task.import);
      if (first) first.value().mesh.reset();  // the set draws none: each row would hold a copy
      const std::lock_guard<std::mutex> lock(m_mutex);
      if (task.set_id == m_set_id) finish_listing(task.source_index, std::move(first));
    } else {
      std::shared_ptr<const FitResult> result;
      std::shared_ptr<const ImportedClip> imported = task.imported;
      std::string error;
      if (task.kind == Task::Kind::kRepack) {
        result = repack(*task.previous, task.settings, task.generation, task.progress.get());
      } else {
        if (!imported) {
          Result<ImportedClip> loaded = import_clip(task.source, task.import);
          if (loaded) {
            loaded.value().mesh.reset();
            imported = std::make_shared<const ImportedClip>(std::move(loaded.value()));
          } else {
            error = loaded.error();
          }
        }
        // One core per clip: the set's clips are the parallel work.
        if (imported) result = run_fit(imported, task.settings, task.generation, 1, task.progress.get());
      }
      if (result && !result->error.empty()) {
        error = result->error;
        if (!result->abandoned) result.reset();
      }
      const std::lock_guard<std::mutex> lock(m_mutex);
      if (task.set_id == m_set_id) {
        finish_row(task.progress.get(), task.generation, std::move(result), std::move(imported), std::move(error));
      }
    }
    m_changed.notify_all();
  }
}

void SetFitter::finish_listing(size_t source, Result<ImportedClip> first) {
  m_listing[source] = 2;
  const std::filesystem::path& path = m_sources[source];
  // Rows stay in source order whichever worker lists first.
  size_t at = 0;
  while (at < m_rows.size() && m_rows[at].shown.source != path) {
    const auto s = std::find(m_sources.begin(), m_sources.end(), m_rows[at].shown.source);
    if (static_cast<size_t>(s - m_sources.begin()) > source) break;
    ++at;
  }
  std::vector<Row> added;
  if (!first) {
    Row row;
    row.shown.source = path;
    row.shown.file_name_part = "0";
    row.shown.error = first.error();
    row.result_generation = m_generation;  // nothing to redo until it is opened again
    added.push_back(std::move(row));
  } else {
    std::vector<std::string> names = first.value().animation_names;
    if (names.empty()) names.push_back(first.value().clip.name);
    const std::vector<std::string> parts = animation_file_names(names);
    auto imported = std::make_shared<const ImportedClip>(std::move(first.value()));
    for (size_t a = 0; a < names.size(); ++a) {
      Row row;
      row.shown.source = path;
      row.shown.animation = static_cast<int>(a);
      row.shown.animation_name = names[a];
      row.shown.file_name_part = parts[a];
      if (a == 0) row.imported = imported;
      added.push_back(std::move(row));
    }
  }
  m_rows.insert(m_rows.begin() + static_cast<std::ptrdiff_t>(at), std::make_move_iterator(added.begin()),
                std::make_move_iterator(added.end()));
}

void SetFitter::finish_row(const RunProgress* ran, uint64_t generation, std::shared_ptr<const FitResult> result,
                           std::shared_ptr<const ImportedClip> imported, std::string error) {
  // Listing may have moved the row: it is the one holding the job's progress.
  const auto row = std::find_if(m_rows.begin(), m_rows.end(), [&](const Row& r) { return r.running.get() == ran; });
  if (row == m_rows.end()) return;
  row->running.reset();
  if (imported) row->imported = std::move(imported);
  // An abandoned job (the settings changed under it) leaves the row as it was.
  if (generation != m_generation || (result && result->abandoned)) return;
  row->shown.result = std::move(result);
  row->shown.error = std::move(error);
  row->result_generation = generation;
  if (!row->shown.error.empty()) row->shown.result.reset();
}

}  // namespace ks::studio
