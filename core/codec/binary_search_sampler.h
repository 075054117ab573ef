#pragma once
// BinarySearchSampler: the "old way" of sampling a fitted clip, kept as the
// baseline the Player is measured against (DESIGN §10, the x42 notes). Every
// track's keys sit in flat arrays; each sample finds each track's segment by
// binary search over that track's frames and evaluates the same curve as the
// Player (core/runtime/curve.h), so both produce the same pose bit for bit.
// It reads four keys per track per sample however close the last sample was,
// which is what the Player's active array avoids.

#include <cstdint>
#include <span>
#include <vector>

#include "keystream/codec/fit.h"
#include "keystream/runtime/curve.h"
#include "keystream/runtime/transform.h"

namespace ks {

/// What the sampler did; cumulative until reset_counters(). Same meaning of
/// "keys read" as PlayerCounters::keys_read.
struct BinarySearchCounters {
  uint64_t keys_read = 0;      // keys a segment evaluation read: 4 per track lookup
  uint64_t track_lookups = 0;  // binary searches (one per track per sample)
};

class BinarySearchSampler {
 public:
  /// Copies the decoded keys of `clip` (three tracks per bone, then its
  /// scalar tracks, each with at least one key, frames non-decreasing: what
  /// fit_clip produces).
  explicit BinarySearchSampler(const FittedClip& clip);

  /// Local pose (one Transform per bone) at frame time `frame_time` (frames,
  /// fractional), clamped to 0..last frame as Player::sample_frame clamps it.
  /// Allocates nothing.
  void sample_frame(float frame_time, std::span<Transform> local_pose);
  /// The same and the scalar tracks' values (scalar_value_count() floats,
  /// each track's components in turn), as the Player writes them.
  void sample_frame(float frame_time, std::span<Transform> local_pose, std::span<float> scalar_values);
  /// The scalar tracks' values alone (Player::sample_frame_scalars).
  void sample_frame_scalars(float frame_time, std::span<float> scalar_values);

  uint32_t bone_count() const { return static_cast<uint32_t>(m_tracks.size() / 3); }
  /// Floats of every scalar track's value: the sum of their components.
  uint32_t scalar_value_count() const { return m_scalar_value_count; }
  uint32_t frame_count() const { return m_frame_count; }
  float sample_rate_hz() const { return m_sample_rate_hz; }

  const BinarySearchCounters& counters() const { return m_counters; }
  void reset_counters() { m_counters = {}; }

  /// Bytes of the key arrays and the track table.
  size_t memory_bytes() const;

 private:
  /// One track's slice of the key arrays.
  struct TrackKeys {
    uint32_t first_key = 0;  // index of its first key in m_frames (and / 4 into m_values)
    uint32_t key_count = 0;
    Interpolation interpolation = Interpolation::kHermite;
  };

  // Appends `track`'s keys to the key arrays; a constant track as one key.
  TrackKeys hold_keys(const FittedTrack& track);
  float clamp_frame_time(float frame_time) const;
  void evaluate_track(size_t track_index, float frame_time, float out[4]);

  float m_sample_rate_hz = 0.f;
  uint32_t m_frame_count = 0;
  std::vector<TrackKeys> m_tracks;  // 3 per bone: translation, rotation, scale
  std::vector<float> m_frames;      // frame of every key, track after track
  std::vector<float> m_values;      // 4 floats per key (decoded, hemisphere-aligned), same order
  BinarySearchCounters m_counters;
  // Apart from the bones' tracks (their keys after the bones' in m_frames),
  // so that sampling bones alone is what it was.
  std::vector<TrackKeys> m_scalar_tracks;
  std::vector<uint32_t> m_scalar_components;
  uint32_t m_scalar_value_count = 0;
};

}  // namespace ks
