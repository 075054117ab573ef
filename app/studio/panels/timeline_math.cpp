#include "app/studio/panels/timeline_math.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace ks::studio {

float frame_to_x(const FrameAxis& axis, float frame) {
  if (axis.last_frame == 0) return axis.x0;
  return axis.x0 + frame / static_cast<float>(axis.last_frame) * (axis.x1 - axis.x0);
}

float x_to_frame(const FrameAxis& axis, float x) {
  if (axis.last_frame == 0 || !(axis.x1 > axis.x0)) return 0.f;
  const float last = static_cast<float>(axis.last_frame);
  const float frame = (x - axis.x0) / (axis.x1 - axis.x0) * last;
  return !(frame > 0.f) ? 0.f : std::min(frame, last);  // NaN goes to frame 0
}

float snap_to_frame(float frame, uint32_t last_frame) {
  if (!(frame > 0.f)) return 0.f;
  // floor(f + 0.5), not nearbyint: a scrub half-way between frames goes forward.
  return std::min(std::floor(frame + 0.5f), static_cast<float>(last_frame));
}

const JumpFrame* jump_frame_at_or_before(std::span<const JumpFrame> jumps, float frame_time) {
  if (!(frame_time >= 0.f)) return nullptr;
  const auto after = std::upper_bound(jumps.begin(), jumps.end(), frame_time, [](float t, const JumpFrame& jump) {
    return t < static_cast<float>(jump.frame);
  });
  return after == jumps.begin() ? nullptr : &*(after - 1);
}

uint32_t frame_label_step(const FrameAxis& axis, float min_spacing_px) {
  if (axis.last_frame == 0) return 1;
  const double px_per_frame = (static_cast<double>(axis.x1) - axis.x0) / axis.last_frame;
  // 64-bit: the step can pass UINT32_MAX / 5 before it spans a long clip.
  for (uint64_t magnitude = 1;; magnitude *= 10) {
    for (const uint64_t mantissa : {1u, 2u, 5u}) {
      const uint64_t step = mantissa * magnitude;
      if (static_cast<double>(step) * px_per_frame >= min_spacing_px || step >= axis.last_frame) {
        return static_cast<uint32_t>(std::min<uint64_t>(step, UINT32_MAX));
      }
    }
  }
}

uint32_t frame_minor_step(uint32_t label_step) {
  uint32_t mantissa = label_step, magnitude = 1;
  while (mantissa >= 10 && mantissa % 10 == 0) {
    mantissa /= 10;
    magnitude *= 10;
  }
  switch (mantissa) {
    case 1: return magnitude / 5;                       // 10 -> 2, 100 -> 20; none for 1
    case 2: return magnitude == 1 ? 1 : magnitude / 2;  // 2 -> 1, 20 -> 5, 200 -> 50
    case 5: return magnitude;                           // 5 -> 1, 50 -> 10
    default: return 0;                                  // not a 1-2-5 step
  }
}

size_t key_bin_count(float width_px, float px_per_bin, uint32_t frame_count) {
  const float bins = px_per_bin > 0.f ? std::floor(width_px / px_per_bin) : 1.f;
  const size_t most = std::max<size_t>(frame_count, 1);
  if (!(bins >= 1.f)) return 1;
  return bins >= static_cast<float>(most) ? most : static_cast<size_t>(bins);
}

size_t key_bin_of_frame(uint32_t frame, uint32_t frame_count, size_t bin_count) {
  if (frame_count == 0 || bin_count == 0) return 0;
  assert(bin_count <= frame_count);
  frame = std::min(frame, frame_count - 1);
  return static_cast<size_t>(uint64_t{frame} * bin_count / frame_count);
}

uint32_t bin_first_frame(size_t bin, uint32_t frame_count, size_t bin_count) {
  if (bin_count == 0) return 0;
  // ceil(bin * frame_count / bin_count): the first f whose bin (above) is `bin`.
  return static_cast<uint32_t>((uint64_t{bin} * frame_count + bin_count - 1) / bin_count);
}

void bin_key_frames(std::span<const FittedTrack> tracks, uint32_t frame_count, std::span<uint32_t> bins) {
  std::fill(bins.begin(), bins.end(), 0u);
  if (bins.empty() || frame_count == 0) return;
  for (const FittedTrack& track : tracks) {
    for (const FittedKey& key : track.keys) ++bins[key_bin_of_frame(key.frame, frame_count, bins.size())];
  }
}

uint32_t histogram_full_scale(std::span<const uint32_t> bins) {
  if (bins.empty()) return 0;
  const uint32_t all = *std::max_element(bins.begin(), bins.end());
  if (bins.size() <= 2) return all;
  const uint32_t inner = *std::max_element(bins.begin() + 1, bins.end() - 1);
  return inner > 0 ? inner : all;
}

}  // namespace ks::studio
