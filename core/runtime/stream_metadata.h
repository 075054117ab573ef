#pragma once
// StreamMetadata: what a stream says about itself for tools (version 2). The
// player never needs it; `keystream verify` takes its thresholds, `export`
// and the studio its bone names. Layout in core/runtime/stream_format.h.

#include <string>
#include <vector>

namespace ks {

struct StreamMetadata {
  std::string clip_name;                // the animation's name in its source
  std::string source_name;              // file name of the source, without folders
  std::vector<std::string> bone_names;  // one per bone, or empty when not stored
  // Thresholds the fit was asked to meet; 0 when unknown (version 1 streams).
  float translation_error_m = 0.f;
  float rotation_error_deg = 0.f;
  float scale_error = 0.f;
};

}  // namespace ks
