#pragma once
// What curve a fitted track runs through its keys (Hermite, linear, step;
// docs/curves.md), and for a keyed source how many of the source's keys it
// kept: the Curves panel's line, the Bones panel's tooltips and its scalar
// tracks' rows. Free of ImGui, for the tests.

#include <cstddef>
#include <cstdint>
#include <string>

#include "keystream/clip/raw_clip.h"
#include "keystream/codec/track_fit.h"

namespace ks::studio {

/// How a fitted track's keys sit on its source's keys.
struct SourceKeyUse {
  size_t source_keys = 0;  // the source's keys; 0 when it is sampled (not keyed())
  size_t kept = 0;         // of those, the ones the track has a key at
  size_t added = 0;        // the track's other keys: between source keys, or a discontinuity's second
};

/// Counts `track`'s keys on and off `source`'s frames (all zero when the source is not keyed()).
SourceKeyUse source_key_use(const FittedTrack& track, const SourceKeys& source);

/// The source keys of bone `index`'s track of `kind`, or of scalar track `index` when `kind` is
/// kScalar. Requires the index to be in the clip.
const SourceKeys& track_source_keys(const RawClip& clip, uint32_t index, TrackKind kind);

/// "linear through 21 of the source's 25 keys", "step through all 5 source keys",
/// "Hermite, 41 keys; the source has 25 linear keys", "Hermite, 41 keys" (a sampled source);
/// empty for a constant or identity track, which has no curve.
std::string curve_label(const FittedTrack& track, const SourceKeys& source);

/// The curve's name as the studio shows it: "Hermite", "linear" or "step".
const char* curve_name(Interpolation interpolation);

}  // namespace ks::studio
