#include "app/studio/viewport/morph_weights.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <map>
#include <utility>

namespace ks::studio {

std::vector<MorphTrackKey> morph_track_keys(std::span<const ScalarTrack> tracks) {
  std::vector<MorphTrackKey> keys;
  keys.reserve(tracks.size());
  for (const ScalarTrack& track : tracks) {
    keys.push_back({track.target == ScalarTarget::kMorphWeight, track.node, track.target_index});
  }
  return keys;
}

std::vector<MorphTrackKey> morph_track_keys(std::span<const StreamScalarInfo> tracks) {
  std::vector<MorphTrackKey> keys;
  keys.reserve(tracks.size());
  for (const StreamScalarInfo& track : tracks) {
    keys.push_back({track.target == static_cast<uint8_t>(ScalarTarget::kMorphWeight), track.node, track.target_index});
  }
  return keys;
}

std::vector<int32_t> bind_morph_tracks(std::span<const MorphTarget> targets, std::span<const MorphTrackKey> keys) {
  // A map of the tracks, so that a face of hundreds of targets binds in n log n.
  std::map<std::pair<std::string, uint32_t>, int32_t> track_of;
  for (size_t s = 0; s < keys.size(); ++s) {
    if (keys[s].morph_weight) track_of.try_emplace({keys[s].node, keys[s].target_index}, static_cast<int32_t>(s));
  }
  std::vector<int32_t> bound(targets.size(), -1);
  for (size_t t = 0; t < targets.size(); ++t) {
    const auto it = track_of.find({targets[t].node, targets[t].target_index});
    if (it != track_of.end()) bound[t] = it->second;
  }
  return bound;
}

void source_morph_weights(std::span<const MorphTarget> targets, const RawClip& clip,
                          std::span<const int32_t> track_of_target, float frame_time, std::span<float> weights) {
  assert(track_of_target.size() == targets.size() && weights.size() == targets.size());
  const uint32_t last = clip.frame_count > 0 ? clip.frame_count - 1 : 0;
  // NaN becomes frame 0, as in source_pose_at.
  const float t = frame_time > 0.f ? std::min(frame_time, static_cast<float>(last)) : 0.f;
  const uint32_t f0 = std::min(static_cast<uint32_t>(t), last);
  const uint32_t f1 = std::min(f0 + 1, last);
  const float a = t - static_cast<float>(f0);
  for (size_t i = 0; i < targets.size(); ++i) {
    const int32_t s = track_of_target[i];
    weights[i] = targets[i].default_weight;
    if (s < 0 || static_cast<size_t>(s) >= clip.scalars.size() || clip.frame_count == 0) continue;
    const ScalarTrack& track = clip.scalars[static_cast<size_t>(s)];
    const size_t stride = track.components;
    if (track.values.size() < size_t{clip.frame_count} * stride) continue;
    const float v0 = track.values[f0 * stride], v1 = track.values[f1 * stride];
    weights[i] = a == 0.f ? v0 : (1.f - a) * v0 + a * v1;
  }
}

void decoded_morph_weights(std::span<const MorphTarget> targets, std::span<const float> values,
                           std::span<const uint32_t> offsets, std::span<const int32_t> track_of_target,
                           std::span<float> weights) {
  assert(track_of_target.size() == targets.size() && weights.size() == targets.size());
  for (size_t i = 0; i < targets.size(); ++i) {
    const int32_t s = track_of_target[i];
    const bool decoded =
        s >= 0 && static_cast<size_t>(s) < offsets.size() && offsets[static_cast<size_t>(s)] < values.size();
    weights[i] = decoded ? values[offsets[static_cast<size_t>(s)]] : targets[i].default_weight;
  }
}

void active_morphs(std::span<const float> weights, std::vector<ActiveMorph>& active) {
  active.clear();
  for (size_t t = 0; t < weights.size(); ++t) {
    // `!(w == 0)` would keep a NaN, which would blank the vertices it touches.
    if (weights[t] != 0.f && !std::isnan(weights[t])) active.push_back({static_cast<uint32_t>(t), weights[t]});
  }
}

}  // namespace ks::studio
