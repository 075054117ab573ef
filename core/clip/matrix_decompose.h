#pragma once
// An affine matrix as the Transform a bone holds (scale, rotation,
// translation): what importers do with files that store node matrices
// (glTF `matrix`, FBX and Collada nodes through assimp).

#include <span>

#include "keystream/runtime/transform.h"

namespace ks {

/// The translation, rotation and scale of `m` (column-major, m[column * 4 +
/// row], finite): scales are the lengths of the first three columns, a
/// mirror (negative determinant) is carried by the x scale, and a shear,
/// which a Transform cannot hold, is lost. A column of length 0 leaves the
/// identity rotation.
Transform decompose_matrix(std::span<const double, 16> m);

}  // namespace ks
