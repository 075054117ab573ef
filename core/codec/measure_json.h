#pragma once
// A measurement (measure.h) as JSON text, for tools and the Python module:
// the figures `keystream measure` prints, named with their units.

#include <span>
#include <string>

#include "keystream/clip/skeleton.h"
#include "keystream/codec/measure.h"

namespace ks {

/// `m` (of a clip of `skeleton`) as a JSON object: sizes, keys, per-kind
/// track errors, object-space errors per distance, the joint position
/// error, every bone's error (against `bone_tolerance_m` when given: one
/// per bone, metres) and every scalar track's. Lengths are in metres.
std::string measurement_json(const ClipMeasurement& m, const Skeleton& skeleton,
                             std::span<const float> bone_tolerance_m = {});

}  // namespace ks
