#pragma once
// RefitWorker: fits on a thread of its own so the UI never waits. Requests
// carry a generation; only the newest pending request runs next (the ones a
// slider drag makes in between are dropped), and a result that is no longer
// the newest is still published (it is better than nothing) but marked stale
// until the newest arrives.

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "app/studio/fit_job.h"

namespace ks::studio {

class RefitWorker {
 public:
  RefitWorker();
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

 private:
  struct Pending {
    std::shared_ptr<const ImportedClip> clip;
    CodecSettings settings;
    uint64_t generation = 0;
  };
  void run();

  mutable std::mutex m_mutex;
  mutable std::condition_variable m_changed;
  std::optional<Pending> m_pending;
  bool m_running = false;
  bool m_stop = false;
  uint64_t m_generation = 0;
  std::shared_ptr<const FitResult> m_latest;
  std::thread m_thread;  // last: starts after the members it uses
};

}  // namespace ks::studio
