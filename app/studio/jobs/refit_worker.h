#pragma once
// RefitWorker: fits on a thread of its own so the UI never waits. Requests
// carry a generation; only the newest pending request runs next (the ones a
// slider drag makes in between are dropped). A newer request abandons the
// running fit unless that one is about to finish: then it is still
// published (it is better than nothing) but marked stale until the newest
// arrives. So a short fit keeps the view live while a slider is dragged, and
// a long one (seconds on long mocap) makes way for the settings the user
// has now.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "app/studio/jobs/fit_job.h"

namespace ks::studio {

class RefitWorker {
 public:
  /// A newer request abandons the running fit when that is expected to take
  /// more than `keep_if_done_within_s` more (0: always; infinity: never).
  explicit RefitWorker(double keep_if_done_within_s = kKeepIfDoneWithin);
  ~RefitWorker();
  RefitWorker(const RefitWorker&) = delete;
  RefitWorker& operator=(const RefitWorker&) = delete;

  /// Fits `clip` (kept alive by the worker while it runs) with `settings`;
  /// replaces any request not yet started. Returns the request's generation.
  uint64_t request(std::shared_ptr<const ImportedClip> clip, const CodecSettings& settings);

  /// The newest finished result, or null before the first.
  std::shared_ptr<const FitResult> latest() const;
  /// True while a request is running or waiting.
  bool busy() const;
  /// Generation of the newest request.
  uint64_t newest_generation() const;
  /// Blocks until the newest request has finished (screenshot mode, tests).
  void wait_idle() const;
  /// The running request's progress, and the worker's counts.
  RefitStatus status() const;

  /// A fit that is this close to done is let finish (seconds): about the
  /// time a slider drag takes to send the next request, times ten.
  static constexpr double kKeepIfDoneWithin = 0.15;

 private:
  struct Pending {
    std::shared_ptr<const ImportedClip> clip;
    CodecSettings settings;
    uint64_t generation = 0;
  };
  void run();
  double expected_remaining_s() const;  // of the running request; m_mutex held

  mutable std::mutex m_mutex;
  mutable std::condition_variable m_changed;
  std::optional<Pending> m_pending;
  bool m_running = false;
  bool m_stop = false;
  uint64_t m_generation = 0;
  std::shared_ptr<const FitResult> m_latest;
  double m_keep_if_done_within_s;
  // The running request's progress (shared with run_fit), clip and start.
  std::shared_ptr<RunProgress> m_progress;
  std::shared_ptr<const ImportedClip> m_running_clip;
  std::chrono::steady_clock::time_point m_started;
  // How long the last finished request took, and on which clip: what the
  // next request on that clip is expected to take.
  std::weak_ptr<const ImportedClip> m_last_clip;
  double m_last_run_s = 0.0;
  uint64_t m_abandoned = 0;
  std::thread m_thread;  // last: starts after the members it uses
};

}  // namespace ks::studio
