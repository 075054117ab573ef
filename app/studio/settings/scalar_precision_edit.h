#pragma once
// Scalar tracks (morph weights, user curves) as the studio edits and names
// them: a track's precision override becomes a ScalarPrecision in the fit
// settings (one per track name, as fit_clip requires) and can be removed
// again. No UI here, so the tests can use it.

#include <string>
#include <string_view>

#include "keystream/clip/raw_clip.h"
#include "keystream/codec/fit.h"

namespace ks::studio {

/// The range the studio's precision sliders offer, in the track's unit
/// (Ctrl+click types a value, clamped to it).
inline constexpr float kLeastEditedScalarPrecision = 1e-6f;
inline constexpr float kMostEditedScalarPrecision = 10.f;

/// The precision override of scalar track `track`, or null.
const ScalarPrecision* find_scalar_precision(const FitSettings& settings, std::string_view track);

/// Sets `precision` as the override of its track, replacing one already there.
void set_scalar_precision(FitSettings& settings, const ScalarPrecision& precision);

/// Removes the override of scalar track `track`; false when it had none.
bool remove_scalar_precision(FitSettings& settings, std::string_view track);

/// Removes the overrides naming no scalar track of `clip` (another clip's,
/// which the fit would refuse).
void drop_foreign_scalar_precisions(FitSettings& settings, const RawClip& clip);

/// The index of `clip`'s scalar track named `name`, or -1.
int find_scalar_track(const RawClip& clip, std::string_view name);

/// The scalar track `text` names (--select-curve): by name, else by index
/// when it is a whole number below their count; -1 when neither.
int scalar_track_by_name_or_index(const RawClip& clip, const std::string& text);

/// The scalar track to show once `clip` replaces `previous` (null: none
/// was open), which showed track `selected` (-1: none): the track of the
/// same name, or -1.
int scalar_track_after_open(const RawClip* previous, int selected, const RawClip& clip);

/// What the track drives, as the tree and the Curves panel say it:
/// "morph weight of NODE, target N" or "user curve", with ", N components"
/// when it has more than one.
std::string describe_scalar_track(const ScalarTrack& track);

/// "0.00003 / 0.00010": a scalar track's largest error and its precision,
/// with as many decimals as the precision needs (two significant digits).
std::string format_precision_pair(float error, float precision);

}  // namespace ks::studio
