#pragma once
// The weights the viewport draws a mesh's morph targets with, with no GL:
// which scalar track drives each target (its node and target index), the
// weights at a time from the source clip or from the player's decoded
// values, and the targets that cost anything (weight not 0) for the renderer.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "keystream/clip/raw_clip.h"
#include "keystream/clip/skinned_mesh.h"
#include "keystream/runtime/stream_metadata.h"

namespace ks::studio {

/// What a scalar track drives, as far as morph targets care.
struct MorphTrackKey {
  bool morph_weight = false;  // ScalarTarget::kMorphWeight
  std::string node;
  uint32_t target_index = 0;
};

std::vector<MorphTrackKey> morph_track_keys(std::span<const ScalarTrack> tracks);
std::vector<MorphTrackKey> morph_track_keys(std::span<const StreamScalarInfo> tracks);

/// Per morph target, the first morph-weight track naming its node and
/// target index; -1 where none does (the target keeps its default weight).
/// Nodes sharing a name share the first such track.
std::vector<int32_t> bind_morph_tracks(std::span<const MorphTarget> targets, std::span<const MorphTrackKey> keys);

/// Each target's weight at fractional `frame_time` of `clip`: its track's
/// first component interpolated linearly between the neighbouring frames and
/// clamped to the clip, as source_pose_at does the bones (a whole frame is
/// that frame's value exactly); else its default weight.
void source_morph_weights(std::span<const MorphTarget> targets, const RawClip& clip,
                          std::span<const int32_t> track_of_target, float frame_time, std::span<float> weights);

/// Each target's weight from the player's scalar values (`offsets[s]`: where
/// track s starts among `values`, Player::scalar_value_offset): its track's
/// first component; else its default weight.
void decoded_morph_weights(std::span<const MorphTarget> targets, std::span<const float> values,
                           std::span<const uint32_t> offsets, std::span<const int32_t> track_of_target,
                           std::span<float> weights);

/// A target that moves its vertices now: the renderer's unit of work.
struct ActiveMorph {
  uint32_t target = 0;  // index into SkinnedMesh::morph_targets
  float weight = 0.f;
};

/// The targets whose weight is not 0 (nor NaN), in target order.
void active_morphs(std::span<const float> weights, std::vector<ActiveMorph>& active);

}  // namespace ks::studio
