#pragma once
// Packing (DESIGN §7): lays a fitted clip out as one stream of bytes (layout
// in core/runtime/stream_format.h): header, bone and track tables, the
// initial keys, every other key in its track's run, and jump frames every
// `jump_interval_s` (or at the interval jump_interval.h chooses) so a player
// can seek.

#include <cstdint>
#include <string>
#include <vector>

#include "keystream/codec/fit.h"
#include "keystream/runtime/result.h"

namespace ks {

/// Which names the metadata stores (stream_format.h, "Names").
enum class NameStorage : uint8_t {
  kFull = 0,  // the clip's, the source's and the bones' names
  kHash = 1,  // a 32-bit hash per bone (name_hash), no names
  kNone = 2,  // no names: an engine binds bones by index
};
const char* to_string(NameStorage names);

struct PackSettings {
  float jump_interval_s = 1.f;  // seconds between jump frames; 0 = none; default 1
  bool auto_jump_interval = false;  // choose the interval per clip instead (jump_interval.h); jump_interval_s is then ignored
  bool zstd = false;            // compress the key stream in blocks cut at the jump frames
  int zstd_level = 19;          // 1..22; higher is smaller and slower to pack, not to play
  std::string source_name;      // recorded in the metadata: the file the clip came from
  NameStorage names = NameStorage::kFull;

  /// Refuses a negative or non-finite interval, a zstd level outside 1..22,
  /// an unknown NameStorage.
  Status validate() const;
  bool operator==(const PackSettings&) const = default;
};

/// What the command line and the studio pack with unless told otherwise:
/// the defaults, with the jump interval chosen per clip.
inline PackSettings tool_pack_settings() {
  PackSettings settings;
  settings.auto_jump_interval = true;
  return settings;
}

/// The stream of `clip` (format version kStreamVersion), with its bone names
/// and thresholds as metadata; refuses settings or a fitted clip that break
/// the format's rules (naming the track and key).
Result<std::vector<uint8_t>> pack(const FittedClip& clip, const PackSettings& settings);

/// Frames between jump frames for `jump_interval_s` at `sample_rate_hz`
/// (at least 1), or 0 for none.
uint32_t jump_interval_frames(float jump_interval_s, float sample_rate_hz);

}  // namespace ks
