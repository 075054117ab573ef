#pragma once
// The rate–distortion sweep behind the studio's R–D panel: the open clip
// fitted at a sweep of object-space tolerances with everything else as the
// user set it, each point through the whole pipeline (run_fit: fit, pack,
// open, measure on the decoded stream), so a point is what `keystream
// compress --tolerance E` would give. It runs on a thread of its own, point
// by point; a new request (another clip, other settings) abandons it.

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "app/studio/jobs/fit_job.h"

namespace ks::studio {

/// The tolerances a sweep fits, metres: 0.01 mm to 5 mm in 1-2-5 steps.
inline constexpr float kSweepTolerances_m[] = {0.00001f, 0.00002f, 0.00005f, 0.0001f, 0.0002f,
                                               0.0005f,  0.001f,   0.002f,   0.005f};

/// One point of the sweep.
struct RdPoint {
  float tolerance_m = 0.f;  // E of the bones without an override
  size_t stream_bytes = 0;  // the stream as the settings pack it, metadata included
  size_t key_count = 0;     // keys of the animated tracks
  size_t jump_frame_bytes = 0;
  double ratio = 0.0;       // to float32 T/R/S at every frame
  float max_error_m = 0.f;  // largest object-space error over bones (each at its shell distance) and frames
  size_t bones_over = 0;    // bones over their tolerance (a quantization floor above it)
  double seek_keys = 0.0;   // keys a player reads per random seek (mean of kSeekSamples)
};

/// Seeks a point's seek cost is the mean of: to frames spread over the clip
/// in a fixed shuffled order, each from where the last left the player.
inline constexpr uint32_t kSeekSamples = 32;

/// Keys `view`'s player reads per seek over kSeekSamples seeks to frames
/// spread over the clip in a fixed shuffled order, reading the stream (no
/// key cache).
double mean_seek_keys(const StreamView& view);

/// The point of a finished, successful fit.
RdPoint rd_point(const FitResult& result);

/// What a sweep covers: the clip and the settings but the tolerance.
struct RdRequest {
  std::shared_ptr<const ImportedClip> clip;
  CodecSettings settings;  // its tolerance is replaced by each of the sweep's
};

/// The sweep as far as it has got.
struct RdSweep {
  std::shared_ptr<const ImportedClip> clip;
  CodecSettings settings;
  std::vector<RdPoint> points;  // in kSweepTolerances_m order, as they finish
  size_t total = 0;             // points the sweep will have
  std::string error;            // a point that failed (the sweep stops there)
  bool done() const { return !error.empty() || points.size() == total; }
};

class RdSweepWorker {
 public:
  RdSweepWorker();
  ~RdSweepWorker();
  RdSweepWorker(const RdSweepWorker&) = delete;
  RdSweepWorker& operator=(const RdSweepWorker&) = delete;

  /// Sweeps `request` unless the running or last sweep covers the same clip
  /// and settings; abandons a running sweep of anything else.
  void request(const RdRequest& request);
  /// The newest sweep's points so far (a copy: the worker goes on adding).
  std::optional<RdSweep> latest() const;
  bool busy() const;
  /// Blocks until no sweep runs or waits (screenshot mode, tests).
  void wait_idle() const;

 private:
  void run();

  mutable std::mutex m_mutex;
  mutable std::condition_variable m_changed;
  std::optional<RdRequest> m_pending;
  std::optional<RdSweep> m_sweep;           // the running or last sweep
  std::shared_ptr<RunProgress> m_progress;  // the running point's, to abandon it
  bool m_running = false;
  bool m_stop = false;
  std::thread m_thread;  // last: starts after the members it uses
};

}  // namespace ks::studio
