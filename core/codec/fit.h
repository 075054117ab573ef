#pragma once
// Fitting (DESIGN §5): the fewest keys and bits whose decoded pose keeps
// every virtual vertex of every bone within the object-space tolerance at
// every source frame and key pose (a source key between frames, RawClip::
// key_poses: where keys at frames cannot turn through it, the bone misses
// and says so). The tolerance E is split along the hierarchy into a
// threshold per track (error_budget.h); each track is fitted to its
// threshold (track_fit.h); the decoded clip is measured in object space,
// exactly as the player will decode it, and the chains of bones over their
// tolerance are tightened and refitted until every bone holds or a
// quantization floor stops it. An additive clip (RawClip::additive_base)
// is measured on the pose composed on its base. The per-kind local
// thresholds of version 1 remain as the explicit local mode.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "keystream/clip/raw_clip.h"
#include "keystream/clip/skeleton.h"
#include "keystream/codec/error_budget.h"
#include "keystream/codec/fit_progress.h"
#include "keystream/codec/quantize.h"
#include "keystream/codec/scalar_fit.h"
#include "keystream/codec/track_fit.h"
#include "keystream/runtime/curve.h"
#include "keystream/runtime/result.h"
#include "keystream/runtime/stream_format.h"

namespace ks {

/// What the fit promises.
enum class ErrorMode : uint8_t {
  kObjectSpace,  // every bone's virtual vertices within its tolerance (default)
  kLocal,        // every track within a per-kind threshold in its own space (version 1)
};

const char* to_string(ErrorMode mode);

/// Whether bone tracks that hold their rest value are stored
/// (stream_format.h, "Rest tracks").
enum class RestTracks : uint8_t {
  kKeep = 0,  // stored like any constant: the stream plays alone
  kSkip = 1,  // coded kRest: the engine's skeleton gives the values (a copy in the metadata for tools)
};
/// "keep" or "skip", as the tools spell it (`--rest-tracks`).
const char* to_string(RestTracks rest_tracks);
/// The RestTracks `text` spells; false for anything else.
bool parse_rest_tracks(std::string_view text, RestTracks& out);

struct FitSettings {
  ErrorMode error_mode = ErrorMode::kObjectSpace;
  float tolerance_m = 0.0001f;     // object space: E, metres; default 0.1 mm
  float shell_distance_m = 0.03f;  // object space: d, metres from each bone; default 3 cm
  /// Object space: tolerances of bones (and the bones below them) that differ from E and d.
  std::vector<BoneTolerance> bone_tolerances;

  float translation_error_m = 0.0005f;  // local mode: metres, distance; default 0.5 mm
  float rotation_error_deg = 0.1f;      // local mode: degrees between source and decoded; default 0.1
  float scale_error = 0.001f;           // local mode: largest component difference, unitless; default 0.001

  SplitRule split_rule = SplitRule::kLargestError;
  /// A step between two frames at least this many times larger than the steps
  /// on either side of it (and than 2 thresholds) becomes a discontinuity:
  /// two keys at one frame. 0 disables. Default 8.
  float discontinuity_ratio = 8.f;
  /// Scalar tracks (morph weights, user curves): the largest error promised
  /// at every source frame, in each track's unit; default 0.0001 (ACL's).
  float scalar_precision = kDefaultScalarPrecision;
  /// Scalar tracks whose precision differs, by name.
  std::vector<ScalarPrecision> scalar_precisions;
  /// kSkip: a bone track within its threshold of the skeleton's rest value
  /// takes that value and stores none (not for additive clips).
  RestTracks rest_tracks = RestTracks::kKeep;

  /// Checks every field, naming the one out of range (bone names are checked
  /// against the skeleton by fit_clip).
  Status validate() const;
  bool operator==(const FitSettings&) const = default;
};

/// How a bone fared in object space (object-space mode).
struct BoneFit {
  float tolerance_m = 0.f;       // E of this bone
  float shell_distance_m = 0.f;  // d of this bone
  float max_error_m = 0.f;       // largest distance of a decoded virtual vertex from the source's
  uint32_t worst_frame = 0;
  /// When the tolerance is missed: the least error the codings on the
  /// bone's chain can reach (their quantization floors through the levers),
  /// or the error reached when the chain's tracks are at their floors or
  /// tightening them stopped lowering it. Below the tolerance only when the
  /// fit ran out of rounds.
  float floor_m = 0.f;
  bool met() const { return max_error_m <= tolerance_m; }
};

/// What an additive clip is the difference to (DESIGN §3): the stream
/// records it; the fit measured the composed pose.
struct AdditiveInfo {
  AdditiveBase base = AdditiveBase::kNone;
  std::string base_name;  // kClip: the base's file and animation
  bool operator==(const AdditiveInfo&) const = default;
};

struct FittedClip {
  std::string name;
  float sample_rate_hz = 30.f;
  uint32_t frame_count = 0;
  std::vector<int32_t> parents;         // from the skeleton
  std::vector<std::string> bone_names;  // from the skeleton (the stream's metadata)
  /// 3 per bone (translation, rotation, scale), then one per scalar track
  /// (kind kScalar, `bone` its index among them), as the stream orders them.
  std::vector<FittedTrack> tracks;
  std::vector<FittedScalar> scalars;    // one per scalar track
  AdditiveInfo additive;
  std::vector<BoneFit> bones;           // object-space mode: one per bone; empty in local mode
  FitSettings settings;
  uint32_t rounds = 0;                  // object space: fit, measure, tighten rounds run

  size_t key_count() const;
  size_t bone_track_count() const { return 3 * parents.size(); }
  /// Local mode: every track met its threshold. Object space: every bone met
  /// its tolerance. Both: every scalar track met its precision.
  bool bound_met() const;
  /// True when every track met its threshold.
  bool thresholds_met() const;
};

/// Fits every track of `clip`. Refuses invalid settings, an override naming
/// no bone of `skeleton`, or an invalid clip. `threads` > 1 fits tracks in
/// parallel (same result). `progress`, when given, counts the tracks fitted
/// as the fit goes; setting its `abandon` stops the fit before its next
/// track, with the error kFitAbandonedError.
Result<FittedClip> fit_clip(const Skeleton& skeleton, const RawClip& clip, const FitSettings& settings,
                            unsigned threads = 1, FitProgress* progress = nullptr);

}  // namespace ks
