#pragma once
// Measuring (DESIGN §5, §10): how far a decoded stream is from its source.
// Decodes every source frame through the Player (exactly what an engine
// would see) and reports errors per track, per bone and per frame, the
// object-space error of virtual vertices, and the sizes.

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "keystream/clip/raw_clip.h"
#include "keystream/clip/skeleton.h"
#include "keystream/codec/object_space_error.h"
#include "keystream/runtime/result.h"
#include "keystream/runtime/stream_view.h"

namespace ks {

struct MeasureSettings {
  /// Distances from each bone, metres, of the virtual vertices whose
  /// model-space error is the object-space error. Default 3 cm and 1 m.
  std::vector<float> virtual_vertex_distances_m = {0.03f, 1.f};
  /// When not empty, one per bone: the shell distance of each bone's own
  /// tolerance, at which bone_error_m is measured (what the fit promises).
  std::vector<float> bone_shell_distance_m;

  /// Refuses an empty list or a distance that is not a positive number.
  /// (fit_clip's tolerances: bone_tolerances_of in fit.h.)
  Status validate() const;
};

/// Largest error of one track over the source frames and key poses, and
/// its mean over the frames.
struct TrackError {
  float max = 0.f;   // in the kind's unit: metres, degrees, or scale
  float mean = 0.f;
  uint32_t worst_frame = 0;      // the frame of max, or the nearest to it
  float worst_frame_time = 0.f;  // where max is: worst_frame, or a key pose's time between frames
};

/// Bytes of a stream by part.
struct StreamSizes {
  size_t raw_bytes = 0;         // float32 T/R/S of every bone at every frame (10 floats)
  size_t compressed_bytes = 0;  // the whole stream
  size_t table_bytes = 0;       // header, parents and track records (constants included)
  size_t key_bytes = 0;         // key widths, initial keys and key stream
  size_t jump_frame_bytes = 0;  // jump index and states
  size_t metadata_bytes = 0;    // names and tolerances (an engine may strip them)
  size_t key_count = 0;
  size_t keys_by_kind[4] = {0, 0, 0, 0};  // translation, rotation, scale, scalar
  /// Bytes of the scalar tracks' keys (their runs, initial keys and key
  /// widths) and track records: their share of compressed_bytes.
  size_t scalar_bytes = 0;
  size_t tracks_by_coding[4] = {0, 0, 0, 0};  // identity, constant, animated, rest
  /// The stream an engine needs: everything but the metadata.
  size_t bytes_without_metadata() const { return compressed_bytes - metadata_bytes; }
  double ratio() const { return compressed_bytes ? double(raw_bytes) / double(compressed_bytes) : 0.0; }
  /// Bits of key data (initial keys and key stream) per key.
  double bits_per_key() const { return key_count ? 8.0 * double(key_bytes) / double(key_count) : 0.0; }
};

struct ClipMeasurement {
  std::vector<TrackError> tracks;           // 3 per bone: translation, rotation, scale
  /// One per scalar track: its largest component difference, in its unit.
  std::vector<TrackError> scalar_tracks;
  float max_track_error[3] = {0, 0, 0};     // per kind, over all tracks
  float mean_track_error[3] = {0, 0, 0};    // per kind, mean over tracks and frames
  /// Per frame, the largest track error of each kind: [frame][kind].
  std::vector<std::array<float, 3>> frame_max_track_error;

  std::vector<float> distances_m;           // the virtual vertex distances measured
  /// Per distance, per bone: largest object-space error over frames, metres.
  std::vector<std::vector<float>> bone_object_error;
  /// Per distance, per frame: largest object-space error over bones, metres.
  std::vector<std::vector<float>> frame_object_error;
  /// Per distance: largest object-space error over bones and frames, metres.
  std::vector<float> max_object_error;
  /// Per distance: 99th percentile over all bone-frames, metres.
  std::vector<float> p99_object_error;
  /// With MeasureSettings::bone_shell_distance_m: per bone, the largest
  /// object-space error at its own shell distance, the frame of it (or the
  /// nearest to it), and its frame time (fractional at a key pose).
  std::vector<float> bone_error_m;
  std::vector<uint32_t> bone_worst_frame;
  std::vector<float> bone_worst_frame_time;
  /// Largest distance between source and decoded model-space joint positions, metres.
  float max_joint_position_error = 0.f;

  StreamSizes sizes;
};

/// Decodes `stream` at every frame of `clip` and at its key poses (the
/// source's keys between frames, RawClip::key_poses) and measures it against
/// `clip`. A key pose counts in every maximum (reported at its nearest
/// frame), not in the per-frame figures, means or percentiles. Refuses a
/// stream whose bones, scalar tracks, frames, rate or additivity do not
/// match the clip. An additive clip's object-space errors are on the pose
/// composed on its base (its track errors on the additive values).
Result<ClipMeasurement> measure(const Skeleton& skeleton, const RawClip& clip, const StreamView& stream,
                                const MeasureSettings& settings = {});

/// Sizes of a stream (without decoding it).
StreamSizes stream_sizes(const StreamView& stream);

}  // namespace ks
