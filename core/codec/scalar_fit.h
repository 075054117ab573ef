#pragma once
// Fitting scalar tracks (DESIGN §3, §5): each morph weight or user curve is
// fitted by the same curve and greedy insertion as a bone's track
// (track_fit.h), held to its precision: the largest component difference
// between the decoded and the source value, at every source frame. Scalar
// tracks drive no bone, so each is fitted once, on its own.

#include <cstdint>
#include <string>
#include <vector>

#include "keystream/clip/raw_clip.h"
#include "keystream/codec/track_fit.h"
#include "keystream/runtime/result.h"

namespace ks {

/// A scalar track whose precision differs from the clip's default.
struct ScalarPrecision {
  std::string track;  // the scalar track's name
  float precision = 0.f;
  bool operator==(const ScalarPrecision&) const = default;
};

/// The default precision of scalar tracks: ACL's for float tracks.
inline constexpr float kDefaultScalarPrecision = 0.0001f;

/// What a fitted scalar track is, beside its keys (FittedClip::tracks).
struct FittedScalar {
  std::string name;
  uint32_t components = 1;
  float precision = 0.f;  // what the fit was held to
  ScalarTarget target = ScalarTarget::kCurve;
  std::string node;
  uint32_t target_index = 0;
};

/// Fits every scalar track of `clip` to its precision (its override in
/// `overrides`, else `default_precision`), `threads` at a time. Appends one
/// FittedTrack per scalar track to `tracks` (kind kScalar, `bone` its index
/// among the scalar tracks) and its description to `scalars`. Refuses an
/// override naming no scalar track, and a value beyond 1e30.
Status fit_scalar_tracks(const RawClip& clip, float default_precision, const std::vector<ScalarPrecision>& overrides,
                         const TrackFitOptions& options, unsigned threads, std::vector<FittedTrack>& tracks,
                         std::vector<FittedScalar>& scalars);

/// The precision each of `clip`'s scalar tracks is held to, or an error
/// naming an override that matches no track.
Result<std::vector<float>> resolve_scalar_precisions(const RawClip& clip, float default_precision,
                                                     const std::vector<ScalarPrecision>& overrides);

}  // namespace ks
