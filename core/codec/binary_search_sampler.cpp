#include "core/codec/binary_search_sampler.h"

#include <algorithm>
#include <cassert>

namespace ks {

BinarySearchSampler::BinarySearchSampler(const FittedClip& clip)
    : m_sample_rate_hz(clip.sample_rate_hz), m_frame_count(clip.frame_count), m_tracks(clip.bone_track_count()) {
  assert(clip.tracks.size() >= clip.bone_track_count());
  const size_t key_count = clip.key_count() + clip.tracks.size();  // a constant track is held as one key
  m_frames.reserve(key_count);
  m_values.reserve(4 * key_count);
  // The bones' tracks: the baseline of the pose's sampling time.
  for (size_t t = 0; t < clip.bone_track_count(); ++t) {
    const FittedTrack& track = clip.tracks[t];
    assert(track.kind == static_cast<TrackKind>(t % 3));
    m_tracks[t].first_key = static_cast<uint32_t>(m_frames.size());
    if (track.coding != TrackCoding::kAnimated) {
      // Held as a track of one key, the form evaluate_track reads.
      m_tracks[t].key_count = 1;
      m_frames.push_back(0.f);
      m_values.insert(m_values.end(), constant_value(track), constant_value(track) + 4);
      continue;
    }
    m_tracks[t].key_count = static_cast<uint32_t>(track.keys.size());
    for (const FittedKey& key : track.keys) {
      m_frames.push_back(static_cast<float>(key.frame));
      m_values.insert(m_values.end(), key.decoded.value, key.decoded.value + 4);
    }
  }
}

size_t BinarySearchSampler::memory_bytes() const {
  return m_tracks.size() * sizeof(TrackKeys) + m_frames.size() * sizeof(float) + m_values.size() * sizeof(float);
}

void BinarySearchSampler::evaluate_track(size_t track_index, float frame_time, float out[4]) {
  const TrackKeys& track = m_tracks[track_index];
  const float* frames = m_frames.data() + track.first_key;
  const float* values = m_values.data() + 4 * size_t{track.first_key};
  const size_t n = track.key_count;
  if (n == 1) {
    // A constant track: its stored value exactly, unnormalised, as the
    // player and evaluate_fitted return it.
    // Nothing is looked up, so no key read or lookup is counted.
    std::copy(values, values + 4, out);
    return;
  }
  // The segment and neighbour rules of evaluate_fitted (core/codec/track_fit.cpp):
  // the segment starts at the last key at or before t (the right key at a
  // discontinuity); at or past the last key, it is the final segment; missing
  // neighbours are the end keys.
  size_t i = static_cast<size_t>(std::upper_bound(frames, frames + n, frame_time) - frames);
  i = i > 0 ? i - 1 : 0;
  if (n >= 2 && i >= n - 1) i = n - 2;
  const size_t p = n >= 2 ? i : 0;
  const size_t q = n >= 2 ? i + 1 : 0;
  const size_t prev = n >= 2 && i > 0 ? i - 1 : 0;
  const size_t next = n >= 2 ? std::min(i + 2, n - 1) : 0;
  CurveKey keys[4];
  const size_t index[4] = {prev, p, q, next};
  for (int k = 0; k < 4; ++k) {
    std::copy(values + 4 * index[k], values + 4 * index[k] + 4, keys[k].value);
    keys[k].frame = frames[index[k]];
  }
  m_counters.keys_read += 4;
  ++m_counters.track_lookups;
  const TrackKind kind = static_cast<TrackKind>(track_index % 3);
  evaluate_segment(keys[0], keys[1], keys[2], keys[3], frame_time, component_count(kind), out);
  if (kind == TrackKind::kRotation) normalize_rotation(out);
}

void BinarySearchSampler::sample_frame(float frame_time, std::span<Transform> local_pose) {
  assert(local_pose.size() >= bone_count());
  // Clamped as Player::sample_frame clamps (NaN to frame 0).
  const float last = static_cast<float>(m_frame_count - 1);
  if (!(frame_time > 0.f)) frame_time = 0.f;
  if (frame_time > last) frame_time = last;
  const size_t bones = std::min<size_t>(local_pose.size(), bone_count());
  for (size_t bone = 0; bone < bones; ++bone) {
    Transform& out = local_pose[bone];
    float value[4];
    evaluate_track(3 * bone, frame_time, value);
    out.translation = {value[0], value[1], value[2]};
    evaluate_track(3 * bone + 1, frame_time, value);
    out.rotation = {value[0], value[1], value[2], value[3]};
    evaluate_track(3 * bone + 2, frame_time, value);
    out.scale = {value[0], value[1], value[2]};
  }
}

}  // namespace ks
