#pragma once
// The object-space error of a pose (DESIGN §5): per bone, the largest
// distance between the source and decoded positions of its three virtual
// vertices, a shell distance d along the bone's axes. Both poses are model
// space, so parents' errors are already in their children. The fit,
// measure() and the studio's colours all take their figures from here.

#include <span>

#include "keystream/runtime/transform.h"

namespace ks {

/// With every bone's vertices at `distance_m`.
void object_space_errors(std::span<const Transform> source_model, std::span<const Transform> decoded_model,
                         float distance_m, std::span<float> errors_m);

/// With bone b's vertices at `distance_m[b]`.
void object_space_errors(std::span<const Transform> source_model, std::span<const Transform> decoded_model,
                         std::span<const float> distance_m, std::span<float> errors_m);

}  // namespace ks
