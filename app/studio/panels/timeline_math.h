#pragma once
// Timeline math: the seek bar's geometry and what it shows (frame <-> pixel,
// label spacing, the key histogram, which jump frame a seek resumes from),
// kept free of ImGui so the tests can check it. Frames are the clip's,
// 0..last_frame; x is in screen pixels.

#include <cstddef>
#include <cstdint>
#include <span>

#include "keystream/codec/fit.h"
#include "keystream/runtime/stream_view.h"

namespace ks::studio {

/// The seek bar's horizontal axis: frame 0 at x0, the last frame at x1.
struct FrameAxis {
  float x0 = 0.f;           // px, where frame 0 is drawn
  float x1 = 1.f;           // px, where the last frame is drawn; > x0
  uint32_t last_frame = 0;  // frame_count - 1
};

/// Screen x of `frame` (fractional, not clamped). A one-frame clip is all at x0.
float frame_to_x(const FrameAxis& axis, float frame);
/// The frame (fractional) under screen x `x`, clamped to 0..last_frame.
float x_to_frame(const FrameAxis& axis, float x);
/// `frame` rounded to the nearest whole frame (halves up), clamped to
/// 0..last_frame; NaN gives 0.
float snap_to_frame(float frame, uint32_t last_frame);

/// The last jump frame at or before frame time `frame_time`, as the player
/// picks it for a seek there; null when there is none (such a seek restarts
/// from frame 0). `jumps` ascending by frame, as StreamView holds them.
const JumpFrame* jump_frame_at_or_before(std::span<const JumpFrame> jumps, float frame_time);

/// Frames between labelled ticks: the smallest step of 1, 2, 5, 10, 20, 50...
/// whose labels on `axis` are at least `min_spacing_px` apart (or, when none
/// is, the first step that spans the whole clip). At least 1.
uint32_t frame_label_step(const FrameAxis& axis, float min_spacing_px);
/// Frames between the unlabelled ticks within a label step: 10 -> 2, 20 -> 5,
/// 50 -> 10, 2 -> 1, 5 -> 1; 0 (none) for a step of 1.
uint32_t frame_minor_step(uint32_t label_step);

// The key histogram: `bin_count` bins over frames 0..frame_count-1, each at
// least one frame wide (bin_count <= frame_count); bin b holds frames
// bin_first_frame(b) .. bin_first_frame(b + 1) - 1.

/// Bins for a bar `width_px` wide: one per `px_per_bin` px, at most one per
/// frame, at least one.
size_t key_bin_count(float width_px, float px_per_bin, uint32_t frame_count);
/// The bin that holds `frame`; frames past the end are in the last bin.
size_t key_bin_of_frame(uint32_t frame, uint32_t frame_count, size_t bin_count);
/// The first frame of bin `bin`; bin_count gives frame_count.
uint32_t bin_first_frame(size_t bin, uint32_t frame_count, size_t bin_count);
/// Sets `bins` (all of it; its size is the bin count) to how many keys of
/// `tracks` fall in each bin.
void bin_key_frames(std::span<const FittedTrack> tracks, uint32_t frame_count, std::span<uint32_t> bins);
/// The count a full-height bar stands for: the largest of the inner bins,
/// because every track has a key at frame 0 and most one at the last frame,
/// and the two end bins would flatten the rest. The largest of all bins when
/// there are no inner bins or they are empty; 0 when every bin is.
uint32_t histogram_full_scale(std::span<const uint32_t> bins);

}  // namespace ks::studio
