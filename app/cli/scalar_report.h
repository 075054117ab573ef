#pragma once
// What the tools say about scalar tracks (morph-target weights and user
// curves): what each one is, and its decoded error against its precision,
// as text and JSON, for compress, measure, verify, info and inspect.

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "keystream/clip/raw_clip.h"
#include "keystream/codec/fit.h"
#include "keystream/codec/measure.h"
#include "keystream/runtime/stream_view.h"

namespace ks::cli {

/// What a scalar track is and the precision it is held to.
struct ScalarTrackInfo {
  std::string name;
  uint32_t components = 1;
  ScalarTarget target = ScalarTarget::kCurve;
  std::string node;           // morph weights: the node whose mesh the target belongs to
  uint32_t target_index = 0;  // morph weights: the target's index in that mesh
  float precision = 0.f;      // in the track's unit; 0 where unknown (a source clip, a stream without metadata)
};

/// The fitted clip's scalar tracks, with the precisions the fit held them to.
std::vector<ScalarTrackInfo> scalar_tracks_of(const FittedClip& fitted);
/// A source clip's scalar tracks (no precision yet).
std::vector<ScalarTrackInfo> scalar_tracks_of(const RawClip& clip);
/// A stream's scalar tracks: names, targets and precisions from its
/// metadata, or "scalar N" and precision 0 where it stores none.
std::vector<ScalarTrackInfo> scalar_tracks_of(const StreamView& stream);

/// How many of `tracks` are morph weights (the rest are curves).
size_t morph_weight_count(const std::vector<ScalarTrackInfo>& tracks);
/// "3 (2 morph weights, 1 curve)", or "none".
std::string describe_count(const std::vector<ScalarTrackInfo>& tracks);
/// "curve" or "morph-weight", as JSON names targets.
const char* json_target(ScalarTarget target);
/// JSON: name, components, target, node and target_index (morph weights),
/// precision (null where unknown).
nlohmann::json to_json(const ScalarTrackInfo& track);
/// "1234 bytes (12.3% of the stream)".
std::string describe_share(size_t part_bytes, size_t whole_bytes);

/// One scalar track's decoded error against its precision.
struct ScalarError {
  ScalarTrackInfo track;
  TrackError error;  // the largest component difference over the source frames
  bool over() const { return error.max > track.precision; }
  float ratio() const { return track.precision > 0.f ? error.max / track.precision : 0.f; }
};

/// `tracks` with their errors in `m` (one per scalar track, in order).
std::vector<ScalarError> scalar_errors(std::vector<ScalarTrackInfo> tracks, const ClipMeasurement& m);
/// How many are over their precision.
size_t count_over(const std::vector<ScalarError>& errors);
/// Indices into `errors`, worst relative to its precision first (ties by index).
std::vector<size_t> worst_first(const std::vector<ScalarError>& errors);
/// "face/smile 0.00012 > 0.0001 (120.0%), frame 12".
std::string describe(const ScalarError& error);
/// JSON: the track's fields and max, mean, worst_frame, ratio, ok.
nlohmann::json to_json(const ScalarError& error);

}  // namespace ks::cli
