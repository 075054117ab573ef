#pragma once
// TimelinePanel: the "Timeline" window (DESIGN §9). Transport (first,
// previous, play/pause, next, last, loop, speed), the current time and frame;
// a seek bar showing where the fitted keys fall, a tick per jump frame and
// the playhead, which click or drag scrubs (whole frames; playback pauses
// while scrubbing and resumes after); and what the player read: keys this
// frame while playing, the cost of the last seek and where it resumed.

#include <cstdint>
#include <memory>
#include <vector>

#include "app/studio/app/studio_state.h"
#include "app/studio/panels/timeline_math.h"

namespace ks::studio {

class TimelinePanel {
 public:
  /// Draws the window; call once a frame between ImGui::NewFrame and
  /// ImGui::Render, after the player has sampled this frame, so the readout
  /// describes the frame shown. Edits state.frame_time, playing, looping and
  /// speed; reads the player's counters (keys_read_last_frame, last_seek_*).
  void draw(StudioState& state);

 private:
  void draw_transport(StudioState& state, uint32_t last_frame, float sample_rate_hz);
  void draw_seek_bar(StudioState& state, const FitResult* result);
  void draw_readout(const StudioState& state, const FitResult& result);
  /// Re-bins the keys when the result or the bin count changed.
  void update_histogram(const StudioState& state, size_t bin_count);

  // Scrubbing.
  bool m_scrubbing = false;           // the seek bar was held at the end of the last frame
  bool m_resume_after_scrub = false;  // playback was on when the scrub began
  FrameAxis m_axis;                   // the seek bar's axis at the last draw

  // The key histogram and the result it was binned from (weak: it identifies
  // the result without keeping it alive).
  std::weak_ptr<const FitResult> m_binned_result;
  uint64_t m_binned_generation = 0;
  std::vector<uint32_t> m_bins;
  uint32_t m_full_scale = 0;  // keys a full-height bar stands for

};

}  // namespace ks::studio
