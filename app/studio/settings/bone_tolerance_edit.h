#pragma once
// Per-bone tolerance overrides as the studio edits them (DESIGN §5): a
// bone's override of E and d becomes a BoneTolerance in the fit settings,
// applies to the bone and the bones below it down to the next override,
// and can be removed again. Also how the bone tree writes a bone's error
// against its tolerance. No UI here, so the tests can use it.

#include <string>
#include <string_view>

#include "keystream/clip/skeleton.h"
#include "keystream/codec/fit.h"

namespace ks::studio {

/// The override set on bone `name`, or null.
const BoneTolerance* find_bone_tolerance(const FitSettings& settings, std::string_view name);

/// Sets `tolerance` as the override of its bone, replacing one already there
/// (the list keeps one per bone, as fit_clip requires).
void set_bone_tolerance(FitSettings& settings, const BoneTolerance& tolerance);

/// Removes the override of bone `name`; false when it had none.
bool remove_bone_tolerance(FitSettings& settings, std::string_view name);

/// The bone whose override applies to `bone` (itself or the nearest
/// ancestor with one), or -1 when the clip-wide tolerance does.
int overriding_bone(const Skeleton& skeleton, const FitSettings& settings, int bone);

/// "0.08 / 0.10 mm": a bone's largest error and its tolerance in
/// millimetres, with as many decimals as the tolerance needs (two
/// significant digits), and more when the error is over the tolerance but
/// would read as equal.
std::string format_error_pair_mm(float error_m, float tolerance_m);

/// "0.08 / 0.10": the same for any error and its bound in one unit, with at
/// most `max_decimals` decimals.
std::string format_error_pair(double error, double bound, int max_decimals);

}  // namespace ks::studio
