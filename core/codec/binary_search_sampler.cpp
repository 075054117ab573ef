#include "keystream/codec/binary_search_sampler.h"

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
    assert(clip.tracks[t].kind == static_cast<TrackKind>(t % 3));
    m_tracks[t] = hold_keys(clip.tracks[t]);
  }
  // The scalar tracks, after every bone's keys.
  for (size_t t = clip.bone_track_count(); t < clip.tracks.size(); ++t) {
    assert(clip.tracks[t].kind == TrackKind::kScalar);
    const size_t s = t - clip.bone_track_count();
    const uint32_t components = s < clip.scalars.size() ? clip.scalars[s].components : 1;
    m_scalar_tracks.push_back(hold_keys(clip.tracks[t]));
    m_scalar_components.push_back(components);
    m_scalar_value_count += components;
  }
}

BinarySearchSampler::TrackKeys BinarySearchSampler::hold_keys(const FittedTrack& track) {
  TrackKeys keys;
  keys.first_key = static_cast<uint32_t>(m_frames.size());
  if (track.coding != TrackCoding::kAnimated) {
    // Held as a track of one key, the form evaluate_keys reads.
    keys.key_count = 1;
    m_frames.push_back(0.f);
    m_values.insert(m_values.end(), constant_value(track), constant_value(track) + 4);
    return keys;
  }
  keys.key_count = static_cast<uint32_t>(track.keys.size());
  keys.interpolation = track.interpolation;
  for (const FittedKey& key : track.keys) {
    m_frames.push_back(static_cast<float>(key.frame));
    m_values.insert(m_values.end(), key.decoded.value, key.decoded.value + 4);
  }
  return keys;
}

size_t BinarySearchSampler::memory_bytes() const {
  return (m_tracks.size() + m_scalar_tracks.size()) * sizeof(TrackKeys) +
         m_scalar_components.size() * sizeof(uint32_t) + m_frames.size() * sizeof(float) +
         m_values.size() * sizeof(float);
}

namespace {

// The track's kind is asked for only once the segment is read, and the code
// is inlined into its callers, so that the bones' baseline compiles as it did
// before scalar tracks shared it: it is the yardstick of the timings.
template <class KindOf>
[[gnu::always_inline]] inline void evaluate_keys(const float* frames, const float* values, size_t n,
                                                 Interpolation interpolation, KindOf kind_of, float frame_time,
                                                 float out[4], BinarySearchCounters& counters) {
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
  counters.keys_read += 4;
  ++counters.track_lookups;
  const TrackKind kind = kind_of();
  evaluate_segment(keys[0], keys[1], keys[2], keys[3], frame_time, component_count(kind), out, interpolation,
                   kind == TrackKind::kRotation);
  if (kind == TrackKind::kRotation) normalize_rotation(out);
}

}  // namespace

void BinarySearchSampler::evaluate_track(size_t track_index, float frame_time, float out[4]) {
  const TrackKeys& track = m_tracks[track_index];
  evaluate_keys(
      m_frames.data() + track.first_key, m_values.data() + 4 * size_t{track.first_key}, track.key_count,
      track.interpolation, [track_index] { return static_cast<TrackKind>(track_index % 3); }, frame_time, out,
      m_counters);
}

float BinarySearchSampler::clamp_frame_time(float frame_time) const {
  // As Player::sample_frame clamps (NaN to frame 0).
  const float last = static_cast<float>(m_frame_count - 1);
  if (!(frame_time > 0.f)) frame_time = 0.f;
  return frame_time > last ? last : frame_time;
}

void BinarySearchSampler::sample_frame(float frame_time, std::span<Transform> local_pose) {
  assert(local_pose.size() >= bone_count());
  frame_time = clamp_frame_time(frame_time);
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

void BinarySearchSampler::sample_frame(float frame_time, std::span<Transform> local_pose,
                                       std::span<float> scalar_values) {
  sample_frame(frame_time, local_pose);
  sample_frame_scalars(frame_time, scalar_values);
}

void BinarySearchSampler::sample_frame_scalars(float frame_time, std::span<float> scalar_values) {
  assert(scalar_values.size() >= m_scalar_value_count);
  frame_time = clamp_frame_time(frame_time);
  size_t at = 0;
  for (size_t s = 0; s < m_scalar_tracks.size(); ++s) {
    float value[4];
    const TrackKeys& track = m_scalar_tracks[s];
    evaluate_keys(
        m_frames.data() + track.first_key, m_values.data() + 4 * size_t{track.first_key}, track.key_count,
        track.interpolation, [] { return TrackKind::kScalar; }, frame_time, value, m_counters);
    // A release build writes what fits and nothing past it, as the Player does.
    const size_t room = scalar_values.size() - std::min(at, scalar_values.size());
    const size_t count = std::min<size_t>(m_scalar_components[s], room);
    std::copy(value, value + count, scalar_values.data() + at);
    at += m_scalar_components[s];
  }
}

}  // namespace ks
