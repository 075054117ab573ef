#include "app/studio/jobs/rd_sweep.h"

#include <algorithm>

#include "keystream/runtime/player.h"

namespace ks::studio {

namespace {

// Same clip (the very import) and settings but the tolerance.
bool same_sweep(const RdSweep& sweep, const RdRequest& request) {
  CodecSettings a = sweep.settings, b = request.settings;
  a.fit.tolerance_m = b.fit.tolerance_m = 0.f;
  return sweep.clip == request.clip && a == b;
}

}  // namespace

double mean_seek_keys(const StreamView& view) {
  const uint32_t frames = view.last_frame() + 1;
  // The stream's seeks (no key cache): what its jump frames cost.
  Player player(view, 0);
  uint64_t keys = 0;
  for (uint32_t s = 0; s < kSeekSamples; ++s) {
    // 7919 is prime: the samples visit the clip in a scattered order, so
    // seeks go back as often as forward, as scrubbing and random access do.
    const uint32_t frame = static_cast<uint32_t>((uint64_t{s} * 7919u + 13u) % frames);
    const uint64_t before = player.counters().keys_read;
    player.seek_frame(static_cast<float>(frame));
    keys += player.counters().keys_read - before;
  }
  return static_cast<double>(keys) / kSeekSamples;
}

RdPoint rd_point(const FitResult& result) {
  RdPoint p;
  p.tolerance_m = result.settings.fit.tolerance_m;
  const StreamSizes& z = result.measurement.sizes;
  p.stream_bytes = result.stream.size();
  p.key_count = z.key_count;
  p.jump_frame_bytes = z.jump_frame_bytes;
  p.ratio = z.ratio();
  const std::vector<float>& error = result.measurement.bone_error_m;
  for (size_t b = 0; b < error.size(); ++b) {
    p.max_error_m = std::max(p.max_error_m, error[b]);
    if (b < result.bone_tolerance_m.size() && error[b] > result.bone_tolerance_m[b]) ++p.bones_over;
  }
  p.seek_keys = mean_seek_keys(result.view);
  return p;
}

RdSweepWorker::RdSweepWorker() : m_thread([this] { run(); }) {}

RdSweepWorker::~RdSweepWorker() {
  {
    const std::lock_guard<std::mutex> lock(m_mutex);
    m_stop = true;
    m_pending.reset();
    if (m_progress) m_progress->fit.abandon = true;
  }
  m_changed.notify_all();
  m_thread.join();
}

void RdSweepWorker::request(const RdRequest& request) {
  {
    const std::lock_guard<std::mutex> lock(m_mutex);
    if (m_pending && same_sweep(RdSweep{m_pending->clip, m_pending->settings, {}, 0, {}}, request)) return;
    if (!m_pending && m_sweep && same_sweep(*m_sweep, request)) return;
    m_pending = request;
    if (m_progress) m_progress->fit.abandon = true;  // the running point: its sweep is no longer wanted
  }
  m_changed.notify_all();
}

std::optional<RdSweep> RdSweepWorker::latest() const {
  const std::lock_guard<std::mutex> lock(m_mutex);
  return m_sweep;
}

bool RdSweepWorker::busy() const {
  const std::lock_guard<std::mutex> lock(m_mutex);
  return m_running || m_pending.has_value();
}

void RdSweepWorker::wait_idle() const {
  std::unique_lock<std::mutex> lock(m_mutex);
  m_changed.wait(lock, [this] { return !m_running && !m_pending.has_value(); });
}

void RdSweepWorker::run() {
  std::unique_lock<std::mutex> lock(m_mutex);
  while (true) {
    m_changed.wait(lock, [this] { return m_stop || m_pending.has_value(); });
    if (m_stop) return;
    const RdRequest job = std::move(*m_pending);
    m_pending.reset();
    m_running = true;
    m_sweep = RdSweep{job.clip, job.settings, {}, std::size(kSweepTolerances_m), {}};
    for (const float tolerance : kSweepTolerances_m) {
      if (m_pending || m_stop) break;  // a newer request: this sweep is done with
      const auto progress = std::make_shared<RunProgress>();
      m_progress = progress;
      CodecSettings settings = job.settings;
      settings.fit.tolerance_m = tolerance;
      lock.unlock();
      // One thread: the refit worker has the other core, the UI this one.
      const std::shared_ptr<const FitResult> result = run_fit(job.clip, settings, 0, 1, progress.get());
      std::optional<RdPoint> point;
      if (!result->abandoned && result->error.empty()) point = rd_point(*result);
      lock.lock();
      m_progress.reset();
      if (result->abandoned) break;
      if (!point) {
        m_sweep->error = result->error;
        break;
      }
      m_sweep->points.push_back(*point);
      m_changed.notify_all();
    }
    m_running = false;
    m_changed.notify_all();
  }
}

}  // namespace ks::studio
