#pragma once
// StreamMetadata: what a stream says about itself for tools. A player needs
// it only for rest tracks no one gave it a rest pose for; `keystream verify` takes the tolerance it must check
// from it, `export` and the studio the bone names. Layout in
// core/runtime/stream_format.h.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "keystream/runtime/result.h"
#include "keystream/runtime/stream_format.h"

namespace ks {

/// A bone whose object-space tolerance differs from the clip's (it and the
/// bones below it, down to the next override).
struct StreamBoneTolerance {
  uint32_t bone = 0;
  float tolerance_m = 0.f;
  float shell_distance_m = 0.f;  // 0: the one inherited from above
};

/// What a scalar track is, for tools (the player needs only its components).
struct StreamScalarInfo {
  std::string name;
  float precision = 0.f;      // the largest error promised at every source frame, in the track's unit
  uint8_t target = 0;         // 0 a user curve, 1 a morph weight (ScalarTarget)
  std::string node;           // morph weights: the node whose mesh the target belongs to
  uint32_t target_index = 0;  // morph weights: the target's index in that mesh
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
  float scalar_precision = 0.f;             // the scalar tracks' default precision
  std::vector<StreamScalarInfo> scalars;    // one per scalar track, or empty when not stored
  AdditiveBase additive_base = AdditiveBase::kNone;
  std::string additive_base_name;           // kClip: the base clip's file and animation
  /// The rest tracks' values (TrackCoding::kRest), their components end to
  /// end in track order: for tools, and players no one gives a rest pose.
  std::vector<float> rest_values;
  /// `--names hash`: name_hash of each bone's name, one per bone (bone_names
  /// is then empty); else empty.
  std::vector<uint32_t> bone_name_hashes;
};

/// The 32-bit FNV-1a hash of a name's UTF-8 bytes: what `--names hash`
/// stores per bone, so an engine binds its bones by the same hash.
constexpr uint32_t name_hash(std::string_view name) {
  uint32_t hash = 2166136261u;
  for (const char c : name) {
    hash ^= static_cast<uint8_t>(c);
    hash *= 16777619u;
  }
  return hash;
}

/// Reads and checks the metadata section of a stream of `bone_count` bones,
/// `scalar_count` scalar tracks and rest tracks of `rest_value_count`
/// components in all; the error names what is wrong (the caller adds the
/// stream's name).
Result<StreamMetadata> parse_stream_metadata(std::span<const uint8_t> section, uint32_t bone_count,
                                             uint32_t scalar_count, uint32_t rest_value_count = 0);

}  // namespace ks
