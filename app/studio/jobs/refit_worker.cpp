#include "app/studio/jobs/refit_worker.h"

#include <algorithm>
#include <limits>

namespace ks::studio {

namespace {
double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}
}  // namespace

RefitWorker::RefitWorker(double keep_if_done_within_s)
    : m_keep_if_done_within_s(keep_if_done_within_s), m_thread([this] { run(); }) {}

RefitWorker::~RefitWorker() {
  {
    const std::lock_guard<std::mutex> lock(m_mutex);
    m_stop = true;
    m_pending.reset();
    if (m_progress) m_progress->fit.abandon = true;  // no one will look at it
  }
  m_changed.notify_all();
  m_thread.join();
}

uint64_t RefitWorker::request(std::shared_ptr<const ImportedClip> clip, const CodecSettings& settings) {
  uint64_t generation;
  {
    const std::lock_guard<std::mutex> lock(m_mutex);
    generation = ++m_generation;
    m_pending = Pending{std::move(clip), settings, generation};
    if (m_running && m_progress && expected_remaining_s() > m_keep_if_done_within_s) m_progress->fit.abandon = true;
  }
  m_changed.notify_all();
  return generation;
}

std::shared_ptr<const FitResult> RefitWorker::latest() const {
  const std::lock_guard<std::mutex> lock(m_mutex);
  return m_latest;
}

bool RefitWorker::busy() const {
  const std::lock_guard<std::mutex> lock(m_mutex);
  return m_running || m_pending.has_value();
}

uint64_t RefitWorker::newest_generation() const {
  const std::lock_guard<std::mutex> lock(m_mutex);
  return m_generation;
}

void RefitWorker::wait_idle() const {
  std::unique_lock<std::mutex> lock(m_mutex);
  m_changed.wait(lock, [this] { return !m_running && !m_pending.has_value(); });
}

RefitStatus RefitWorker::status() const {
  const std::lock_guard<std::mutex> lock(m_mutex);
  RefitStatus s;
  s.busy = m_running || m_pending.has_value();
  s.running = m_running;
  s.abandoned = m_abandoned;
  if (m_running && m_progress) {
    s.stage = m_progress->stage.load(std::memory_order_relaxed);
    s.pass = m_progress->fit.pass.load(std::memory_order_relaxed);
    s.pass_tracks = m_progress->fit.pass_tracks.load(std::memory_order_relaxed);
    s.pass_tracks_done = m_progress->fit.pass_tracks_done.load(std::memory_order_relaxed);
    s.running_s = seconds_since(m_started);
  }
  return s;
}

// The last finished request on the same clip took about what this one will;
// a clip's first request extrapolates its first pass (the bulk of a fit:
// later passes refit only the tracks of bones over their tolerance). Before
// it has a track done there is nothing to lose by abandoning it.
double RefitWorker::expected_remaining_s() const {
  const double run = seconds_since(m_started);
  if (m_last_run_s > 0.0 && m_last_clip.lock() == m_running_clip) return std::max(0.0, m_last_run_s - run);
  const uint32_t pass = m_progress->fit.pass.load(std::memory_order_relaxed);
  const float done = m_progress->fit.pass_fraction();
  if (m_progress->stage.load(std::memory_order_relaxed) != FitStage::kFitting || pass > 1) return 0.0;
  if (pass == 0 || done <= 0.f) return std::numeric_limits<double>::infinity();
  return run * (1.0 - done) / done;
}

void RefitWorker::run() {
  // Leave one core to the UI thread.
  // (hardware_concurrency() may be 0 when unknown.)
  const unsigned threads = std::max(2u, std::thread::hardware_concurrency()) - 1;
  std::unique_lock<std::mutex> lock(m_mutex);
  while (true) {
    m_changed.wait(lock, [this] { return m_stop || m_pending.has_value(); });
    if (m_stop) return;
    Pending job = std::move(*m_pending);
    m_pending.reset();
    m_running = true;
    const auto progress = std::make_shared<RunProgress>();
    m_progress = progress;
    m_running_clip = job.clip;
    m_started = std::chrono::steady_clock::now();
    lock.unlock();
    std::shared_ptr<const FitResult> result = run_fit(job.clip, job.settings, job.generation, threads, progress.get());
    lock.lock();
    m_running = false;
    m_progress.reset();
    m_running_clip.reset();
    if (result->abandoned) {
      ++m_abandoned;
    } else {
      if (result->error.empty()) {
        m_last_clip = job.clip;
        m_last_run_s = seconds_since(m_started);
      }
      m_latest = std::move(result);
    }
    m_changed.notify_all();
  }
}

}  // namespace ks::studio
