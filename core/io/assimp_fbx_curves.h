#pragma once
// A guard for assimp's FBX animation curves (assimp_guard.h). When assimp
// 5.2 converts a rotation curve it inserts a key for every half turn
// between two keys, so one forged value (a KeyValueFloat of -7.4e9 degrees
// in a 900-byte file, found by fuzzing) makes it allocate gigabytes and run
// for minutes. Every curve value must be finite, and all curves together may
// travel at most kMaxFbxCurveHalfTurns half turns (180 units, taken as
// degrees whatever the curve animates): real clips travel a few hundred.

#include <cstddef>
#include <string_view>

#include "keystream/runtime/result.h"

namespace ks::assimp {

inline constexpr double kMaxFbxCurveHalfTurns = 1e6;

/// Adds the travel of a binary FBX KeyValueFloat record, whose properties
/// are bytes [offset, end) of `bytes` (already bounds-checked), to
/// `half_turns`: refuses a value that is not finite or a total past the limit.
Status check_binary_key_values(std::string_view bytes, size_t offset, size_t end, double& half_turns);

/// The same for an ASCII FBX: the values of the "KeyValueFloat:" entry at
/// `at` of `text` (an "*N {" then "a: v, v, ...}").
Status check_ascii_key_values(std::string_view text, size_t at, double& half_turns);

}  // namespace ks::assimp
