#pragma once
// The fit's passes over tracks on worker threads: the bones' tracks
// (fit.cpp) and the scalar tracks (scalar_fit.cpp) share it.

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

#include "keystream/codec/fit_progress.h"

namespace ks {

// Runs work(i) for every index in `indices` on up to `threads` threads, as
// one pass of `progress` (when given): counted track by track, and stopped
// before the next track once the caller abandons it. False when abandoned.
template <class Work>
inline bool parallel_for(const std::vector<size_t>& indices, unsigned threads, FitProgress* progress, const Work& work) {
  if (progress != nullptr) {
    progress->pass_tracks_done.store(0, std::memory_order_relaxed);
    progress->pass_tracks.store(static_cast<uint32_t>(indices.size()), std::memory_order_relaxed);
    progress->pass.fetch_add(1, std::memory_order_relaxed);
  }
  std::atomic<size_t> next{0};
  auto run = [&] {
    for (size_t i = next++; i < indices.size(); i = next++) {
      if (progress != nullptr && progress->abandoned()) return;
      work(indices[i]);
      if (progress != nullptr) progress->pass_tracks_done.fetch_add(1, std::memory_order_relaxed);
    }
  };
  const unsigned count = std::max(1u, std::min<unsigned>(threads, static_cast<unsigned>(indices.size())));
  std::vector<std::thread> workers;
  for (unsigned w = 1; w < count; ++w) workers.emplace_back(run);
  run();
  for (std::thread& w : workers) w.join();
  return progress == nullptr || !progress->abandoned();
}

}  // namespace ks
