#include "keystream/runtime/player.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <string>

namespace ks {

namespace {

// Where a lane of `track`'s kind writes its value: the byte offset of its
// bone's translation, rotation or scale in a pose, or of a scalar track's
// four floats in the scalar values (LaneOutputs).
uint32_t output_offset(const StreamTrack& track) {
  if (track.kind == TrackKind::kScalar) return track.bone * kScalarSlotFloats * static_cast<uint32_t>(sizeof(float));
  const size_t member = track.kind == TrackKind::kRotation      ? offsetof(Transform, rotation)
                        : track.kind == TrackKind::kTranslation ? offsetof(Transform, translation)
                                                                : offsetof(Transform, scale);
  return track.bone * static_cast<uint32_t>(sizeof(Transform)) + static_cast<uint32_t>(member);
}

}  // namespace

bool Player::set_rest_pose(std::span<const Transform> rest_pose) {
  if (rest_pose.size() != m_constant_pose.size()) return false;
  for (const StreamTrack& track : m_stream->bone_tracks()) {
    if (track.coding != TrackCoding::kRest) continue;
    Transform& pose = m_constant_pose[track.bone];
    const Transform& rest = rest_pose[track.bone];
    if (track.kind == TrackKind::kTranslation) pose.translation = rest.translation;
    if (track.kind == TrackKind::kRotation) pose.rotation = rest.rotation;
    if (track.kind == TrackKind::kScale) pose.scale = rest.scale;
  }
  return true;
}

Player::Player(const StreamView& stream, size_t key_cache_bytes)
    : m_stream(&stream),
      m_constant_pose(stream.bone_count()),
      m_scalar_slots(size_t{stream.scalar_track_count()} * kScalarSlotFloats, 0.f) {
  std::vector<uint32_t> animated_tracks;
  for (uint32_t t = 0; t < stream.tracks().size(); ++t) {
    const StreamTrack& track = stream.tracks()[t];
    if (track.kind == TrackKind::kScalar) {
      m_scalar_offsets.push_back(m_scalar_value_count);
      m_scalar_value_count += track.components;
    }
    if (track.coding == TrackCoding::kAnimated) {
      animated_tracks.push_back(t);
      continue;
    }
    // Identity, constant and rest tracks: their value, exactly as stored.
    if (track.kind == TrackKind::kScalar) {
      std::copy_n(track.quantization.constant, kScalarSlotFloats, &m_scalar_slots[size_t{track.bone} * kScalarSlotFloats]);
      continue;
    }
    Transform& pose = m_constant_pose[track.bone];
    const float* v = track.quantization.constant;
    if (track.kind == TrackKind::kTranslation) pose.translation = {v[0], v[1], v[2]};
    if (track.kind == TrackKind::kRotation) pose.rotation = {v[0], v[1], v[2], v[3]};
    if (track.kind == TrackKind::kScale) pose.scale = {v[0], v[1], v[2]};
  }
  if (stream.key_stream_compressed()) {
    // Decompressed once: a forged frame that does not decompress (which
    // StreamCheck::kFast lets through) reads as zeros: wrong poses, nothing
    // out of bounds.
    // With kKeyLoadSlackBytes of zeros after it (key_stream()).
    m_plain_key_stream.assign(stream.key_stream_bytes() + kKeyLoadSlackBytes, 0);
    if (!stream.decompress_key_stream(std::span(m_plain_key_stream).first(stream.key_stream_bytes()))) {
      std::fill(m_plain_key_stream.begin(), m_plain_key_stream.end(), 0);
    }
    ++m_counters.blocks_decompressed;
  }
  // Lanes in order of key count, most first: a block reads as many rounds
  // as its busiest lane in a seek, so lanes of a block should read about as
  // many keys as each other; and in play a block of sparse tracks has no
  // key due at most frames. Rotations first, then vec3 and scalar tracks:
  // only the blocks that hold one pay for telling the kinds apart (Fox's
  // one translation in its last block rather than in its pair of blocks:
  // play 12% faster).
  const auto by_key_count = [&](uint32_t a, uint32_t b) {
    return stream.tracks()[a].key_count > stream.tracks()[b].key_count;
  };
  std::stable_sort(animated_tracks.begin(), animated_tracks.end(), by_key_count);
  const auto rotations_end =
      std::stable_partition(animated_tracks.begin(), animated_tracks.end(),
                            [&](uint32_t t) { return stream.tracks()[t].kind == TrackKind::kRotation; });
  // Hermite rotations before linear and step ones, which share as few
  // blocks with them as they can: only a block that holds one builds its
  // lanes' interpolation (the demo's four linear tracks spread over its three
  // blocks cost its play 4.6% more instructions).
  std::stable_partition(animated_tracks.begin(), rotations_end, [&](uint32_t t) {
    return stream.tracks()[t].interpolation == Interpolation::kHermite;
  });
  // Scalar lanes last, so that sample_scalars evaluates their blocks alone.
  const auto scalars_begin = std::stable_partition(
      rotations_end, animated_tracks.end(), [&](uint32_t t) { return stream.tracks()[t].kind != TrackKind::kScalar; });
  m_first_scalar_block = static_cast<uint32_t>(scalars_begin == animated_tracks.end()
                                                   ? (animated_tracks.size() + kLanesPerBlock - 1) / kLanesPerBlock
                                                   : (scalars_begin - animated_tracks.begin()) / kLanesPerBlock);
  // Each animated track's lane.
  std::vector<uint32_t> lane_of(stream.tracks().size(), 0);
  for (uint32_t l = 0; l < animated_tracks.size(); ++l) lane_of[animated_tracks[l]] = l;
  set_up_lanes(animated_tracks);
  // Keys 0..2 of every animated track, in track order.
  BitReader initial(stream.initial_keys());
  uint32_t streamed = 0;
  for (uint32_t t = 0; t < stream.tracks().size(); ++t) {
    const StreamTrack& track = stream.tracks()[t];
    if (track.coding != TrackCoding::kAnimated) continue;
    const uint32_t lane = lane_of[t];
    InitialKeys& keys = m_lanes.initial[lane];
    keys.count = std::min(track.key_count, kInitialKeysPerTrack);
    keys.keys[0].negated = read_absolute_codes(initial, track, keys.keys[0].codes);
    for (uint32_t k = 1; k < keys.count; ++k) {
      keys.keys[k] = keys.keys[k - 1];
      keys.keys[k].negated = read_key_differences(initial, track, keys.keys[k].frame, keys.keys[k].codes);
    }
    const int32_t place = track.key_count > kInitialKeysPerTrack ? static_cast<int32_t>(streamed++) : -1;
    m_lanes.streamed[lane] = place;
  }
  set_up_saved_windows();
  // A restore reads the saved oldest key and three more per streamed track.
  m_restore_cost_keys = streamed * kWindowSize;
  reset_lanes(kBeforeClip, false);
  m_start_counters = m_counters;
  // Built once here, not at every restart's first evaluation.
  build_stale_coefficients(std::span<SegmentLanes>(m_lanes.blocks));
  keep_start();
  // After keep_start: the cache reads every key from the lanes' start.
  auto cache = std::make_shared<KeyCache>();
  cache->fill(m_lanes, stream, key_stream(), key_cache_bytes);
  if (!cache->empty()) {
    m_key_cache = std::move(cache);
    // Play stages keys from the cache, as values (KeyCache::play).
    for (SegmentLanes& b : m_lanes.blocks) stage_values(b.arrivals);
    for (SegmentLanes& b : m_lanes.start.blocks) stage_values(b.arrivals);
    // The key stream is not read again: a zstd stream's decompressed copy goes.
    std::vector<uint8_t>().swap(m_plain_key_stream);
  }
}


void Player::keep_start() {
  m_lanes.start.blocks = m_lanes.blocks;
  m_lanes.start.cursors = m_lanes.cursors;
  m_lanes.start.final_pending = m_lanes.final_pending;
  // Room for every lane, as find_final_pending fills it.
  m_lanes.start.final_pending.reserve(m_lanes.tracks.size());
}

void Player::back_to_start() {
  // Same sizes: copies into the storage the player already has.
  std::copy(m_lanes.start.blocks.begin(), m_lanes.start.blocks.end(), m_lanes.blocks.begin());
  std::copy(m_lanes.start.cursors.begin(), m_lanes.start.cursors.end(), m_lanes.cursors.begin());
  m_lanes.final_pending.assign(m_lanes.start.final_pending.begin(), m_lanes.start.final_pending.end());
  m_lanes.next_due = 0;
}

void Player::set_up_lanes(const std::vector<uint32_t>& tracks) {
  const StreamView& s = *m_stream;
  const uint32_t blocks = static_cast<uint32_t>((tracks.size() + kLanesPerBlock - 1) / kLanesPerBlock);
  m_lanes.blocks.resize(blocks);
  m_lanes.cursors.assign(blocks, LaneCursors{});
  m_lanes.tracks = tracks;
  m_lanes.initial.assign(tracks.size(), InitialKeys{});
  m_lanes.streamed.assign(tracks.size(), -1);
  m_lanes.final_pending.reserve(tracks.size());
  m_lanes.play_events.assign(blocks, PlayStepBlock{});
  clear_lanes(std::span<SegmentLanes>(m_lanes.blocks));
  // Each lane's first segment: StreamView::first_segments lists the animated tracks', in track order.
  std::vector<uint32_t> animated_index(s.tracks().size(), 0);
  uint32_t animated = 0;
  for (uint32_t t = 0; t < s.tracks().size(); ++t) {
    if (s.tracks()[t].coding == TrackCoding::kAnimated) animated_index[t] = animated++;
  }
  for (uint32_t l = 0; l < tracks.size(); ++l) {
    m_lanes.cursors[l / kLanesPerBlock].first_segment[l % kLanesPerBlock] =
        s.first_segments()[animated_index[tracks[l]]];
  }
  for (uint32_t l = 0; l < tracks.size(); ++l) {
    const StreamTrack& track = s.tracks()[tracks[l]];
    if (track.key_coding.negation_bits) {
      m_lanes.cursors[l / kLanesPerBlock].negation_lanes |= 1u << (l % kLanesPerBlock);
    }
    m_lanes.blocks[l / kLanesPerBlock].output[l % kLanesPerBlock] = output_offset(track);
    set_lane_dequantization(std::span<SegmentLanes>(m_lanes.blocks), l, track.quantization, track.kind);
    set_lane_interpolation(std::span<SegmentLanes>(m_lanes.blocks), l, track.interpolation);
  }
}

size_t Player::memory_bytes() const {
  const LaneGroup& g = m_lanes;
  const size_t lanes =
      g.blocks.capacity() * sizeof(g.blocks[0]) + g.cursors.capacity() * sizeof(LaneCursors) +
      g.tracks.capacity() * sizeof(uint32_t) + g.initial.capacity() * sizeof(InitialKeys) +
      g.streamed.capacity() * sizeof(int32_t) + g.final_pending.capacity() * sizeof(uint32_t) +
      g.saved_windows.capacity() * sizeof(SavedWindowLanes) + g.play_events.capacity() * sizeof(PlayStepBlock) +
      g.start.blocks.capacity() * sizeof(g.blocks[0]) + g.start.cursors.capacity() * sizeof(LaneCursors) +
      g.start.final_pending.capacity() * sizeof(uint32_t);
  return lanes + m_constant_pose.capacity() * sizeof(Transform) + m_scalar_slots.capacity() * sizeof(float) +
         m_scalar_offsets.capacity() * sizeof(uint32_t) + m_plain_key_stream.capacity() + key_cache_bytes();
}

std::span<const uint8_t> Player::key_stream() const {
  // The key stream and the bytes after it that may be loaded: the lane
  // readers load 64 bits at a key's first byte, which near the end of the
  // key stream passes it, so they read a key lane by lane unless the load
  // stays inside the span. A plain key stream is followed by the rest of the
  // stream (at least its jump index or metadata); a decompressed one by
  // kKeyLoadSlackBytes of zeros. A small clip's keys are nearly all that
  // near the end: this lets the AVX2 kernel read them. The cursors never
  // pass the key stream itself (StreamView::open checks the runs' lengths).
  if (m_stream->key_stream_compressed()) return m_plain_key_stream;
  const std::span<const uint8_t> bytes = m_stream->bytes();
  const uint8_t* keys = m_stream->key_stream().data();
  return {keys, static_cast<size_t>(bytes.data() + bytes.size() - keys)};
}

std::span<const uint8_t> Player::jump_state_bytes() const {
  // A state's fields are loaded 32 bits at a time from their first byte,
  // which near the end of the jump states passes them: into the metadata
  // after them (read_saved_windows reads those fields lane by lane when the
  // load would pass the stream).
  const std::span<const uint8_t> bytes = m_stream->bytes();
  const uint8_t* states = m_stream->jump_states().data();
  if (states == nullptr) return {};
  return {states, static_cast<size_t>(bytes.data() + bytes.size() - states)};
}

// Where each block's lanes' saved windows are in a jump state: every state
// has the same layout (StreamView::saved_window_offsets).
void Player::set_up_saved_windows() {
  const StreamView& s = *m_stream;
  if (s.jump_frames().empty()) return;
  m_lanes.saved_windows.assign(m_lanes.blocks.size(), SavedWindowLanes{});
  for (uint32_t l = 0; l < m_lanes.tracks.size(); ++l) {
    if (m_lanes.streamed[l] < 0) continue;
    const uint32_t place = static_cast<uint32_t>(m_lanes.streamed[l]);
    const StreamTrack& track = s.tracks()[m_lanes.tracks[l]];
    set_saved_window_lane(m_lanes.saved_windows[l / kLanesPerBlock], l % kLanesPerBlock,
                          s.saved_window_offsets()[place], track.key_count, s.key_index_bits(),
                          s.jump_frame_difference_bits()[place], track.key_coding.absolute_bits,
                          track.quantization.coded_mask, track.key_coding.negation_bits);
  }
}


float Player::frame_time_at(float t_seconds) const {
  const StreamView& s = *m_stream;
  const float last = static_cast<float>(s.last_frame());
  float frame_time = t_seconds * s.sample_rate_hz();
  if (!std::isfinite(frame_time)) return 0.f;
  // Snap before wrapping: a time a rounding error short of a whole number of
  // loops is the loop point, frame 0, not the last frame.
  const float nearest = std::nearbyint(frame_time);
  if (std::fabs(frame_time - nearest) <= 1e-4f * std::fmax(1.f, std::fabs(nearest))) frame_time = nearest;
  if (m_looping && last > 0.f) {
    frame_time = std::fmod(frame_time, last);
    if (frame_time < 0.f) frame_time += last;
  }
  return !(frame_time > 0.f) ? 0.f : (frame_time > last ? last : frame_time);
}

void Player::sample(float t_seconds, std::span<Transform> local_pose, std::span<float> scalar_values) {
  sample_frame(frame_time_at(t_seconds), local_pose, scalar_values);
}

void Player::sample(float t_seconds, std::span<Transform> local_pose) {
  sample_frame(frame_time_at(t_seconds), local_pose);
}

float Player::clamp_frame_time(float frame_time) const {
  const float last = static_cast<float>(m_stream->last_frame());
  if (!(frame_time > 0.f)) frame_time = 0.f;
  return frame_time > last ? last : frame_time;
}

// The bones-only calls stay apart from the ones with scalar values: each
// step the latter adds cost small clips' poses up to 5% more instructions
// (greenman's seeks).
void Player::sample_frame(float frame_time, std::span<Transform> local_pose, std::span<float> scalar_values) {
  frame_time = clamp_frame_time(frame_time);
  seek_frame(frame_time);
  evaluate(frame_time, local_pose, scalar_values);
}

void Player::sample_frame(float frame_time, std::span<Transform> local_pose) {
  frame_time = clamp_frame_time(frame_time);
  seek_frame(frame_time);
  evaluate(frame_time, local_pose);
}

void Player::evaluate(float frame_time, std::span<Transform> local_pose) {
  // A pose shorter than the skeleton is the caller's bug (asserted); a
  // release build writes the bones it has and nothing past them.
  assert(local_pose.size() >= m_constant_pose.size());
  const size_t bones = std::min(local_pose.size(), m_constant_pose.size());
  std::memcpy(local_pose.data(), m_constant_pose.data(), bones * sizeof(Transform));
  build_and_evaluate_lanes(std::span<SegmentLanes>(m_lanes.blocks), frame_time,
                           reinterpret_cast<unsigned char*>(local_pose.data()), bones * sizeof(Transform));
}

void Player::evaluate(float frame_time, std::span<Transform> local_pose, std::span<float> scalar_values) {
  if (scalar_values.empty()) return evaluate(frame_time, local_pose);
  // A scalar array shorter than the stream's is the caller's bug (asserted);
  // a release build writes what fits and nothing past it.
  assert(local_pose.size() >= m_constant_pose.size());
  assert(scalar_values.size() >= m_scalar_value_count);
  const size_t bones = std::min(local_pose.size(), m_constant_pose.size());
  std::memcpy(local_pose.data(), m_constant_pose.data(), bones * sizeof(Transform));
  const LaneOutputs out{reinterpret_cast<unsigned char*>(local_pose.data()), bones * sizeof(Transform),
                        reinterpret_cast<unsigned char*>(m_scalar_slots.data()), m_scalar_slots.size() * sizeof(float)};
  build_and_evaluate_lanes(std::span<SegmentLanes>(m_lanes.blocks), frame_time, out);
  copy_scalar_values(scalar_values);
}

void Player::sample_scalars(float t_seconds, std::span<float> scalar_values) {
  sample_frame_scalars(frame_time_at(t_seconds), scalar_values);
}

void Player::sample_frame_scalars(float frame_time, std::span<float> scalar_values) {
  frame_time = clamp_frame_time(frame_time);
  seek_frame(frame_time);
  evaluate_scalars(frame_time, scalar_values);
}

// The blocks of bone lanes are left as the keys read made them (stale, keys
// staged): the next pose builds them, as if this evaluation had not been.
void Player::evaluate_scalars(float frame_time, std::span<float> scalar_values) {
  assert(scalar_values.size() >= m_scalar_value_count);
  const LaneOutputs out{nullptr, 0, reinterpret_cast<unsigned char*>(m_scalar_slots.data()),
                        m_scalar_slots.size() * sizeof(float)};
  build_and_evaluate_lanes(std::span<SegmentLanes>(m_lanes.blocks).subspan(m_first_scalar_block), frame_time, out);
  copy_scalar_values(scalar_values);
}

// From four floats per track to each track's components, packed.
void Player::copy_scalar_values(std::span<float> scalar_values) const {
  const std::span<const StreamTrack> scalars = m_stream->scalar_tracks();
  for (size_t s = 0; s < scalars.size(); ++s) {
    const size_t at = m_scalar_offsets[s];
    const size_t count = std::min<size_t>(scalars[s].components, scalar_values.size() - std::min(at, scalar_values.size()));
    std::memcpy(scalar_values.data() + at, &m_scalar_slots[s * kScalarSlotFloats], count * sizeof(float));
  }
}

}  // namespace ks
