#pragma once
// FitProgress: what a fit running on another thread has done so far, and a
// way to stop it. fit_clip writes it as it goes; the caller reads it at any
// time (the studio shows it as a progress bar) and may ask the fit to stop
// (the studio abandons a fit that a newer request has made pointless).

#include <atomic>
#include <cstdint>

namespace ks {

struct FitProgress {
  /// Passes over the tracks started: the object-space fit's rounds (fit,
  /// measure, tighten) and loosening passes; one in local mode.
  std::atomic<uint32_t> pass{0};
  /// Tracks the running pass fits, and how many of them are done.
  std::atomic<uint32_t> pass_tracks{0};
  std::atomic<uint32_t> pass_tracks_done{0};
  /// Set by the caller: the fit stops before its next track, and fit_clip
  /// returns an error saying it was abandoned.
  std::atomic<bool> abandon{false};

  /// Share of the running pass's tracks done, 0..1.
  float pass_fraction() const {
    const uint32_t total = pass_tracks.load(std::memory_order_relaxed);
    const uint32_t done = pass_tracks_done.load(std::memory_order_relaxed);
    return total == 0 ? 0.f : static_cast<float>(done < total ? done : total) / static_cast<float>(total);
  }
  bool abandoned() const { return abandon.load(std::memory_order_relaxed); }
};

/// fit_clip's error when FitProgress::abandon stopped it.
inline constexpr const char* kFitAbandonedError = "the fit was abandoned";

}  // namespace ks
