#pragma once
// StreamMetadata: what a stream says about itself for tools. The player
// never needs it; `keystream verify` takes the tolerance it must check
// from it, `export` and the studio the bone names. Layout in
// core/runtime/stream_format.h.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/runtime/result.h"

namespace ks {

/// A bone whose object-space tolerance differs from the clip's (it and the
/// bones below it, down to the next override).
struct StreamBoneTolerance {
  uint32_t bone = 0;
  float tolerance_m = 0.f;
  float shell_distance_m = 0.f;  // 0: the one inherited from above
};

struct StreamMetadata {
  std::string clip_name;                // the animation's name in its source
  std::string source_name;              // file name of the source, without folders
  std::vector<std::string> bone_names;  // one per bone, or empty when not stored
  bool local_mode = false;              // fitted to per-kind local thresholds instead of the tolerance
  float tolerance_m = 0.f;              // object space: E, metres
  float shell_distance_m = 0.f;         // object space: d, metres
  std::vector<StreamBoneTolerance> bone_tolerances;
  // Local mode: the per-kind thresholds.
  float translation_error_m = 0.f;
  float rotation_error_deg = 0.f;
  float scale_error = 0.f;
};

/// Reads and checks the metadata section of a stream of `bone_count` bones;
/// the error names what is wrong (the caller adds the stream's name).
Result<StreamMetadata> parse_stream_metadata(std::span<const uint8_t> section, uint32_t bone_count);

}  // namespace ks
