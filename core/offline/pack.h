#pragma once
// Packing (DESIGN §7): lays a fitted clip out as one stream of bytes (layout
// in core/runtime/stream_format.h): header, bone and track tables, the
// initial keys, every other key sorted by the frame it is needed, and jump
// frames every `jump_interval_s` so a player can seek.

#include <cstdint>
#include <vector>

#include "core/offline/fit.h"
#include "core/runtime/result.h"

namespace ks {

struct PackSettings {
  float jump_interval_s = 1.f;  // seconds between jump frames; 0 = none; default 1

  /// Refuses a negative or non-finite interval.
  Status validate() const;
};

/// The stream of `clip`; refuses settings or a fitted clip that break the
/// format's rules (naming the track and key).
Result<std::vector<uint8_t>> pack(const FittedClip& clip, const PackSettings& settings);

/// Frames between jump frames for `jump_interval_s` at `sample_rate_hz`
/// (at least 1), or 0 for none.
uint32_t jump_interval_frames(float jump_interval_s, float sample_rate_hz);

}  // namespace ks
