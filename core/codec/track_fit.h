#pragma once
// Fitting one track (DESIGN §5 step 2): the fewest keys whose decoded curve
// stays within a threshold at every source frame. Keys are quantized as
// they are inserted, so the error measured is the error of what the player
// decodes, hemisphere fix and normalisation included. A fitter keeps its
// state, so the object-space fit can tighten a track's threshold and go on
// inserting keys instead of starting again.

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "keystream/clip/raw_clip.h"
#include "keystream/codec/quantize.h"
#include "keystream/runtime/curve.h"
#include "keystream/runtime/quantization.h"

namespace ks {

/// Where the fitter places the key that splits a segment over its threshold.
enum class SplitRule : uint8_t {
  kLargestError,  // at the source frame of largest error (default: fewer keys, see issue 3 note)
  kMidpoint,      // at the segment's middle frame, as the original engine did
};

const char* to_string(SplitRule rule);

/// One key of a fitted track.
struct FittedKey {
  uint16_t frame = 0;
  int32_t codes[4] = {0, 0, 0, 0};  // one per coded component (quantization.h)
  CurveKey decoded{};   // as the player holds it: dequantized, hemisphere-aligned with the key before
  float ideal[4] = {};  // the unquantized value the key was made from (for plotting the fitted curve)
};

/// The keys of one track and what they achieve.
struct FittedTrack {
  // The byte-wide fields sit together (96 bytes, not 104): a fitted clip holds
  // one per track, 150,000 for a rig of 50,000 bones.
  uint32_t bone = 0;
  TrackKind kind = TrackKind::kTranslation;
  TrackCoding coding = TrackCoding::kIdentity;
  /// True when `floor` is the least any step can reach (the finest step the
  /// code range or float precision allows), not just the chosen step's.
  bool floor_is_limit = false;
  bool threshold_met = true;
  /// How the curve runs between keys: Hermite, or the source's linear or
  /// step interpolation through a subset of its keys (SourceKeys).
  Interpolation interpolation = Interpolation::kHermite;
  /// Animated tracks: how their keys are coded. Constant and identity tracks
  /// code no component: their exact value is `quantization.constant`
  /// (constant_value), as in the stream's track table.
  TrackQuantization quantization;
  /// Animated tracks: frames non-decreasing; two keys at one frame mark a
  /// discontinuity. Constant and identity tracks have none (a rig of 50,000
  /// bones has 150,000 of them, and a key each would be 150,000 allocations).
  std::vector<FittedKey> keys;
  float threshold = 0.f;  // in the kind's unit (metres, degrees, scale)
  float max_error = 0.f;  // largest decoded error over the source frames and keys between them
  /// The least error the track's coding can promise: the largest error of a
  /// key placed at any source frame. Above the threshold, the threshold
  /// cannot be met (threshold_met is false where it actually is missed).
  float floor = 0.f;
  uint32_t discontinuities = 0;
};

/// Settings of the greedy refinement.
struct TrackFitOptions {
  SplitRule split_rule = SplitRule::kLargestError;
  /// A step between two frames at least this many times larger than the
  /// steps on either side of it (and than 20 thresholds) becomes a
  /// discontinuity: two keys at one frame. 0 disables.
  float discontinuity_ratio = 8.f;
  /// The quantization step is chosen so a key alone is within this share
  /// of the threshold; the rest is the curve's.
  float key_error_share = 0.5f;
};

/// A source value at a time between frames (a source key the frames miss,
/// RawClip::key_poses): the fit is held to its threshold there too.
struct TimedSample {
  float frame_time = 0.f;  // strictly between two frames
  Sample value{};
};

class TrackFitter {
 public:
  /// A fitter of the track of `kind` with these samples (one per frame, at
  /// least two) and `between` (in time order), which must outlive it. With
  /// `source_keys` (keyed(): the source keys the track sparsely, LINEAR or
  /// STEP), the fit also tries a curve of that interpolation through a
  /// subset of those keys, and keeps it when it needs fewer keys than a
  /// Hermite curve (on a tie Hermite, which builds faster in the player):
  /// never more keys than the source has, wherever the threshold is within
  /// reach of the source's own keys.
  TrackFitter(TrackKind kind, std::span<const Sample> samples, const TrackFitOptions& options,
              std::span<const TimedSample> between = {}, const SourceKeys* source_keys = nullptr);

  /// Fits the track to `threshold`. After a first fit, a lower threshold
  /// goes on inserting keys where the coding allows it; a higher one, or
  /// one below the coding's floor, fits again from the start (as does a
  /// source-keyed curve that runs out of source keys).
  void fit(float threshold);

  /// The bone's rest value, which the stream need not store
  /// (TrackCoding::kRest): a constant within the threshold of every sample
  /// takes it before any value but the identity. Call before the first fit.
  void offer_rest_value(const Sample& rest) { m_rest = rest; }

  const FittedTrack& track() const { return m_track; }
  FittedTrack& track() { return m_track; }

 private:
  static constexpr uint32_t kNoKey = UINT32_MAX;

  void fit_from_start();
  // No keys, on a curve of `interpolation`: the track's and the refining chain's.
  void clear_keys(Interpolation interpolation);
  void fit_curve(Interpolation interpolation);
  bool try_constant();
  void place_initial_keys();
  uint32_t append_key(const FittedKey& key, uint32_t after);
  void align_from(uint32_t first, bool until_unchanged = true);
  void measure_segment(uint32_t key);
  void push_segment(uint32_t key);
  void refine();
  void finish();
  FittedKey make_key(uint16_t frame, const float* value) const;
  float key_error(const CurveKey& decoded, size_t frame) const;

  TrackKind m_kind;
  std::span<const Sample> m_samples;
  std::span<const TimedSample> m_between;
  // The source's key frames a keyed curve splits at (empty: none to keep).
  std::span<const uint32_t> m_source_frames;
  Interpolation m_source_interpolation = Interpolation::kHermite;
  std::optional<Sample> m_rest;  // offer_rest_value's
  TrackFitOptions m_options;
  float m_threshold = 0.f;
  bool m_fitted = false;
  FittedTrack m_track;  // its keys are copied out of the chain below by finish()
  // The keys while refining: a list in frame order over a pool that only
  // grows (key 0 at frame 0 first), so an insertion costs the same anywhere.
  // A sorted vector moved its tail on every insertion: on long mocap (4,500
  // frames, thousands of keys a track) that was a fifth of a fit.
  std::vector<FittedKey> m_pool;
  std::vector<uint32_t> m_next;  // per key: the key after it in frame order, or kNoKey
  std::vector<uint32_t> m_prev;  // per key: the key before it, or kNoKey
  std::vector<float> m_segment_error;     // per key: largest error strictly inside the segment it starts
  std::vector<uint32_t> m_segment_worst;  // per key: the frame to split that segment at (its first: none inside)
  struct Candidate {
    float error;
    uint32_t key;  // the segment's first key
    bool operator<(const Candidate& other) const { return error < other.error; }
  };
  std::vector<Candidate> m_heap;  // segments by error, lazily updated
};

/// The decoded value of a fitted track at frame time `t`: the curve of its
/// keys as the player evaluates it, or a constant track's exact value.
void evaluate_fitted(const FittedTrack& track, float t, float out[4]);

/// The value of a constant or identity track (it has no keys).
inline const float* constant_value(const FittedTrack& track) { return track.quantization.constant; }

/// Every frame's decoded value (frames 0 .. out.size()-1), bit for bit what
/// evaluate_fitted and the player return, walking the keys once.
void decode_track(const FittedTrack& track, std::span<Sample> out);

/// The same curve through the keys' unquantized values (FittedKey::ideal):
/// what the fit chose before quantization. Its distance to the source is the
/// fit error; its distance to evaluate_fitted is the quantization error.
void evaluate_ideal(const FittedTrack& track, float t, float out[4]);

/// The constant value of a track of `kind` at the identity (0, unit rotation, 1).
bool is_identity_value(TrackKind kind, const float* value);

}  // namespace ks
