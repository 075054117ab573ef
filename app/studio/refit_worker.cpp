#include "app/studio/refit_worker.h"

#include <algorithm>

namespace ks::studio {

RefitWorker::RefitWorker() : m_thread([this] { run(); }) {}

RefitWorker::~RefitWorker() {
  {
    const std::lock_guard<std::mutex> lock(m_mutex);
    m_stop = true;
    m_pending.reset();
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
    lock.unlock();
    std::shared_ptr<const FitResult> result = run_fit(job.clip, job.settings, job.generation, threads);
    lock.lock();
    m_running = false;
    m_latest = std::move(result);
    m_changed.notify_all();
  }
}

}  // namespace ks::studio
