#include "core/runtime/player.h"


#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <string>

namespace ks {

namespace {

// Where a lane of `track`'s kind writes its value: the byte offset of its
// bone's translation, rotation or scale in a pose.
uint32_t output_offset(const StreamTrack& track) {
  const size_t member = track.kind == TrackKind::kRotation      ? offsetof(Transform, rotation)
                        : track.kind == TrackKind::kTranslation ? offsetof(Transform, translation)
                                                                : offsetof(Transform, scale);
  return track.bone * static_cast<uint32_t>(sizeof(Transform)) + static_cast<uint32_t>(member);
}

// Stages `key` as the next key of lane `lane`.
template <int Components>
void stage(std::span<SegmentLanes<Components>> blocks, uint32_t lane, const CodedKey& key) {
  stage_lane_key(blocks, lane, key.codes, key.frame, key.negated);
}

// The key at place `position` (0..3) of a window holding a track's keys
// 0..count-1 (count <= 3), copies of key 0 in front: as a window of that
// track reads after restart().
const CodedKey& restart_window_key(const InitialKeys& initial, uint32_t position) {
  const int32_t k = static_cast<int32_t>(initial.count + position) - static_cast<int32_t>(kWindowSize);
  return initial.keys[k > 0 ? k : 0];
}

// Points lane `l` of block `c` at its track's newest key `newest` (read as
// key keys_read - 1) and the key after it in its run, at bit `bit`.
void set_cursor(LaneCursors& c, uint32_t l, const StreamTrack& track, std::span<const uint8_t> key_widths,
                uint32_t keys_read, const CodedKey& newest, uint32_t need, uint64_t bit) {
  c.bit[l] = bit;
  c.keys_read[l] = keys_read;
  c.keys_left[l] = static_cast<int32_t>(track.key_count - keys_read);
  for (int i = 0; i < 4; ++i) c.codes[i][l] = newest.codes[i];
  c.frame[l] = static_cast<int32_t>(newest.frame);
  c.need[l] = static_cast<int32_t>(need);
  c.frame_delta_min[l] = track.key_coding.frame_delta_min;
  if (keys_read < track.key_count) load_lane_layout(c, l, track, key_widths, keys_read);
}

}  // namespace

Player::Player(const StreamView& stream)
    : m_stream(&stream), m_constant_pose(stream.bone_count()), m_short_pose(stream.bone_count()) {
  std::vector<uint32_t> rotation_tracks, vec3_tracks;
  for (uint32_t t = 0; t < stream.tracks().size(); ++t) {
    const StreamTrack& track = stream.tracks()[t];
    if (track.coding == TrackCoding::kAnimated) {
      (track.kind == TrackKind::kRotation ? rotation_tracks : vec3_tracks).push_back(t);
      continue;
    }
    // Identity and constant tracks: their value, exactly as stored.
    Transform& pose = m_constant_pose[track.bone];
    const float* v = track.constant;
    if (track.kind == TrackKind::kTranslation) pose.translation = {v[0], v[1], v[2]};
    if (track.kind == TrackKind::kRotation) pose.rotation = {v[0], v[1], v[2], v[3]};
    if (track.kind == TrackKind::kScale) pose.scale = {v[0], v[1], v[2]};
  }
  if (stream.key_stream_compressed()) {
    // Decompressed once: a forged frame that does not decompress (which
    // StreamCheck::kFast lets through) reads as zeros: wrong poses, nothing
    // out of bounds.
    m_plain_key_stream.assign(stream.key_stream_bytes(), 0);
    if (!stream.decompress_key_stream(m_plain_key_stream)) {
      std::fill(m_plain_key_stream.begin(), m_plain_key_stream.end(), 0);
    }
    ++m_counters.blocks_decompressed;
  }
  set_up_group(m_rotations, rotation_tracks);
  set_up_group(m_vec3s, vec3_tracks);
  // Keys 0..2 of every animated track, in track order.
  BitReader initial(stream.initial_keys());
  uint32_t streamed = 0;
  uint32_t next_rotation = 0, next_vec3 = 0;
  for (uint32_t t = 0; t < stream.tracks().size(); ++t) {
    const StreamTrack& track = stream.tracks()[t];
    if (track.coding != TrackCoding::kAnimated) continue;
    const bool rotation = track.kind == TrackKind::kRotation;
    const uint32_t lane = rotation ? next_rotation++ : next_vec3++;
    InitialKeys& keys = rotation ? m_rotations.initial[lane] : m_vec3s.initial[lane];
    keys.count = std::min(track.key_count, kInitialKeysPerTrack);
    keys.keys[0].negated = read_absolute_codes(initial, track, keys.keys[0].codes);
    for (uint32_t k = 1; k < keys.count; ++k) {
      keys.keys[k] = keys.keys[k - 1];
      keys.keys[k].negated = read_key_differences(initial, track, keys.keys[k].frame, keys.keys[k].codes);
    }
    const int32_t place = track.key_count > kInitialKeysPerTrack ? static_cast<int32_t>(streamed++) : -1;
    (rotation ? m_rotations.streamed[lane] : m_vec3s.streamed[lane]) = place;
  }
  m_restore_keys_read.resize(streamed);
  m_restore_oldest.resize(streamed);
  m_restore_offsets.resize(streamed);
  // A restore reads the saved oldest key and three more per streamed track.
  m_restore_cost_keys = streamed * kWindowSize;
  restart();
}

template <int Components>
void Player::set_up_group(LaneGroup<Components>& group, const std::vector<uint32_t>& tracks) {
  const StreamView& s = *m_stream;
  const uint32_t blocks = static_cast<uint32_t>((tracks.size() + kLanesPerBlock - 1) / kLanesPerBlock);
  group.blocks.resize(blocks);
  group.cursors.assign(blocks, LaneCursors{});
  group.tracks = tracks;
  group.initial.assign(tracks.size(), InitialKeys{});
  group.streamed.assign(tracks.size(), -1);
  group.finished.reserve(tracks.size());
  group.run_starts.resize(tracks.size());
  clear_lanes(std::span<SegmentLanes<Components>>(group.blocks));
  // The runs follow one another in track order: find each lane's among the animated tracks.
  uint32_t animated = 0;
  uint32_t lane = 0;
  for (uint32_t t = 0; t < s.tracks().size() && lane < tracks.size(); ++t) {
    if (s.tracks()[t].coding != TrackCoding::kAnimated) continue;
    if (t == tracks[lane]) group.run_starts[lane++] = s.run_starts()[animated];
    ++animated;
  }
  for (uint32_t l = 0; l < tracks.size(); ++l) {
    const StreamTrack& track = s.tracks()[tracks[l]];
    group.blocks[l / kLanesPerBlock].output[l % kLanesPerBlock] = output_offset(track);
    set_lane_dequantization(std::span<SegmentLanes<Components>>(group.blocks), l, track.quantization);
    group.cursors[l / kLanesPerBlock].track[l % kLanesPerBlock] = tracks[l];
  }
}

size_t Player::memory_bytes() const {
  const auto group_bytes = [](const auto& g) {
    return g.blocks.capacity() * sizeof(g.blocks[0]) + g.cursors.capacity() * sizeof(LaneCursors) +
           g.tracks.capacity() * sizeof(uint32_t) + g.run_starts.capacity() * sizeof(uint64_t) +
           g.initial.capacity() * sizeof(InitialKeys) + g.streamed.capacity() * sizeof(int32_t) +
           g.finished.capacity() * sizeof(uint32_t);
  };
  return group_bytes(m_rotations) + group_bytes(m_vec3s) +
         (m_constant_pose.capacity() + m_short_pose.capacity()) * sizeof(Transform) + m_plain_key_stream.capacity() +
         m_restore_keys_read.capacity() * sizeof(uint32_t) + m_restore_oldest.capacity() * sizeof(CodedKey) +
         m_restore_offsets.capacity() * sizeof(uint64_t);
}

std::span<const uint8_t> Player::key_stream() const {
  if (m_stream->key_stream_compressed()) return m_plain_key_stream;
  return m_stream->key_stream();
}

template <int Components>
void Player::find_finished(LaneGroup<Components>& group) {
  group.finished.clear();
  for (uint32_t l = 0; l < group.tracks.size(); ++l) {
    if (group.cursors[l / kLanesPerBlock].keys_left[l % kLanesPerBlock] == 0) group.finished.push_back(l);
  }
}

// Every window back to keys 0..2 (copies of key 0 in front), staged one
// round per place and shifted in, then the cursors at the start of the runs.
template <int Components>
void Player::restart_group(LaneGroup<Components>& group) {
  const StreamView& s = *m_stream;
  const std::span<SegmentLanes<Components>> blocks(group.blocks);
  for (uint32_t position = 0; position < kWindowSize; ++position) {
    if (position > 0) {
      for (SegmentLanes<Components>& block : blocks) shift_in_staged_keys(block);
    }
    for (uint32_t l = 0; l < group.tracks.size(); ++l) stage(blocks, l, restart_window_key(group.initial[l], position));
  }
  for (SegmentLanes<Components>& block : blocks) build_coefficients(block);
  for (uint32_t l = 0; l < group.tracks.size(); ++l) {
    const InitialKeys& initial = group.initial[l];
    const StreamTrack& track = s.tracks()[group.tracks[l]];
    const uint32_t need = initial.keys[initial.count >= 2 ? initial.count - 2 : 0].frame;
    set_cursor(group.cursors[l / kLanesPerBlock], l % kLanesPerBlock, track, s.key_widths(), initial.count,
               initial.keys[initial.count - 1], need, group.run_starts[l]);
    m_counters.keys_read += initial.count;
    m_counters.keys_dequantized += kWindowSize;
    ++m_counters.window_updates;
  }
  find_finished(group);
}

void Player::restart() {
  restart_group(m_rotations);
  restart_group(m_vec3s);
  m_cursor_key_index = 0;
  m_last_need = 0;
}

// Reads the next key of the lanes `due` of block `block`, after shifting in
// what is staged there, and loads the widths of the lanes that enter a new
// segment.
template <int Components>
void Player::read_round(LaneGroup<Components>& group, uint32_t block, uint32_t due) {
  const StreamView& s = *m_stream;
  SegmentLanes<Components>& lanes = group.blocks[block];
  LaneCursors& c = group.cursors[block];
  if (lanes.arrivals.any) shift_in_staged_keys(lanes);
  for (uint32_t open = read_lane_keys(lanes, c, due, key_stream()); open != 0; open &= open - 1) {
    const uint32_t l = static_cast<uint32_t>(std::countr_zero(open));
    load_lane_layout(c, l, s.tracks()[c.track[l]], s.key_widths(), c.keys_read[l]);
  }
  const uint32_t keys = count_lanes(due);
  m_counters.keys_read += keys;
  m_counters.keys_dequantized += keys;
  m_counters.window_updates += keys;
}

// Reads every key of the group needed at or before `frame`; returns how many.
template <int Components>
uint32_t Player::advance_group(LaneGroup<Components>& group, uint32_t frame) {
  uint32_t keys = 0;
  bool finished = false;
  for (uint32_t b = 0; b < group.blocks.size(); ++b) {
    LaneCursors& c = group.cursors[b];
    uint32_t due = lanes_due(c, frame);
    if (due == 0) continue;
    const uint32_t finished_before = lanes_finished(c);
    do {
      // The state is valid from the latest need of a key read on.
      for (uint32_t bits = due; bits != 0; bits &= bits - 1) {
        const uint32_t need = static_cast<uint32_t>(c.need[std::countr_zero(bits)]);
        m_last_need = need > m_last_need ? need : m_last_need;
      }
      read_round(group, b, due);
      keys += count_lanes(due);
      due = lanes_due(c, frame);
    } while (due != 0);
    build_coefficients(group.blocks[b]);
    finished = finished || lanes_finished(c) != finished_before;
  }
  if (finished) find_finished(group);
  return keys;
}

void Player::advance_to(uint32_t frame) {
  m_cursor_key_index += advance_group(m_rotations, frame);
  m_cursor_key_index += advance_group(m_vec3s, frame);
}

// Each streamed lane's window from the parsed jump state: from keys 0..2
// and the first keys of its run, or from its oldest key and the three keys
// after it in its run.
template <int Components>
void Player::restore_group(LaneGroup<Components>& group) {
  const StreamView& s = *m_stream;
  const std::span<SegmentLanes<Components>> blocks(group.blocks);
  for (uint32_t b = 0; b < group.blocks.size(); ++b) {
    SegmentLanes<Components>& lanes = group.blocks[b];
    LaneCursors& c = group.cursors[b];
    const uint32_t first = b * kLanesPerBlock;
    const uint32_t end = std::min<uint32_t>(first + kLanesPerBlock, static_cast<uint32_t>(group.tracks.size()));
    uint32_t from_initial = 0;  // lanes whose window holds an initial key
    uint32_t from_oldest = 0;   // lanes whose window starts at a saved key
    uint32_t reads[kLanesPerBlock] = {};
    for (uint32_t l = first; l < end; ++l) {
      if (group.streamed[l] < 0) continue;
      const uint32_t read = m_restore_keys_read[static_cast<uint32_t>(group.streamed[l])];
      if (read >= kRestoreFromRunKeys) {
        from_oldest |= 1u << (l - first);
        reads[l - first] = kWindowSize - 1;
      } else {
        from_initial |= 1u << (l - first);
        reads[l - first] = read - kInitialKeysPerTrack;
      }
    }
    if ((from_initial | from_oldest) == 0) continue;
    // Four rounds of staging: the restart window where it still holds an
    // initial key; the oldest key (which the reads push to the front) last.
    for (uint32_t position = 0; position < kWindowSize; ++position) {
      if (position > 0) shift_in_staged_keys(lanes);
      for (uint32_t bits = from_initial; bits != 0; bits &= bits - 1) {
        const uint32_t l = first + static_cast<uint32_t>(std::countr_zero(bits));
        stage(blocks, l, restart_window_key(group.initial[l], position));
      }
    }
    for (uint32_t bits = from_oldest; bits != 0; bits &= bits - 1) {
      const uint32_t l = first + static_cast<uint32_t>(std::countr_zero(bits));
      stage(blocks, l, m_restore_oldest[static_cast<uint32_t>(group.streamed[l])]);
    }
    for (uint32_t bits = from_initial | from_oldest; bits != 0; bits &= bits - 1) {
      const uint32_t lane = static_cast<uint32_t>(std::countr_zero(bits));
      const uint32_t l = first + lane;
      const uint32_t place = static_cast<uint32_t>(group.streamed[l]);
      const StreamTrack& track = s.tracks()[group.tracks[l]];
      const InitialKeys& initial = group.initial[l];
      if ((from_oldest >> lane) & 1u) {
        // The need of the key after the oldest is unknown here and unused:
        // the reads below replace it.
        set_cursor(c, lane, track, s.key_widths(), m_restore_keys_read[place] - (kWindowSize - 1),
                   m_restore_oldest[place], 0, group.run_starts[l] + m_restore_offsets[place]);
      } else {
        set_cursor(c, lane, track, s.key_widths(), initial.count, initial.keys[initial.count - 1],
                   initial.keys[initial.count - 2].frame, group.run_starts[l]);
      }
      m_counters.keys_read += (from_oldest >> lane) & 1u;
      m_counters.keys_dequantized += (from_oldest >> lane) & 1u ? 1 : kWindowSize;
      ++m_counters.window_updates;
    }
    // Then the keys after them, one round per key.
    for (uint32_t round = 0; round + 1 < kWindowSize; ++round) {
      uint32_t due = 0;
      for (uint32_t lane = 0; lane < kLanesPerBlock; ++lane) due |= (reads[lane] > round ? 1u : 0u) << lane;
      if (due != 0) read_round(group, b, due);
    }
    build_coefficients(lanes);
  }
  find_finished(group);
}

void Player::restore(uint32_t jump_index) {
  const StreamView& s = *m_stream;
  const JumpFrame& jump = s.jump_frames()[jump_index];
  BitReader state(s.jump_states(), jump.state_bit_offset);
  uint32_t place = 0;
  for (const StreamTrack& track : s.tracks()) {
    if (track.coding != TrackCoding::kAnimated || track.key_count <= kInitialKeysPerTrack) continue;
    const uint32_t read = state.read(s.key_index_bits());
    // StreamView::open checked the range; clamp anyway so a lane never reads
    // more keys than its track has.
    m_restore_keys_read[place] = std::clamp(read, kInitialKeysPerTrack, track.key_count);
    if (read >= kRestoreFromRunKeys) {
      CodedKey& oldest = m_restore_oldest[place];
      oldest.frame = state.read(kFrameBits);
      oldest.negated = read_absolute_codes(state, track, oldest.codes);
      m_restore_offsets[place] = state.read64(s.run_offset_bits());
    }
    ++place;
  }
  restore_group(m_rotations);
  restore_group(m_vec3s);
  if (jump.stream_keys_read > m_cursor_key_index) m_counters.keys_skipped += jump.stream_keys_read - m_cursor_key_index;
  m_cursor_key_index = jump.stream_keys_read;
  m_last_need = jump.frame;
  ++m_counters.jump_frames_used;
}

void Player::seek_frame(float frame_time) {
  const StreamView& s = *m_stream;
  const float last = static_cast<float>(s.last_frame());
  if (!(frame_time > 0.f)) frame_time = 0.f;  // also maps NaN to frame 0
  if (frame_time > last) frame_time = last;
  const uint32_t frame = static_cast<uint32_t>(frame_time);

  // The nearest jump frame at or before `frame` (index+1; 0 means frame 0).
  uint32_t jump = 0;
  if (s.jump_interval_frames() > 0) {
    jump = frame / s.jump_interval_frames();
    if (jump > s.jump_frames().size()) jump = static_cast<uint32_t>(s.jump_frames().size());
  }
  if (frame < m_last_need) {
    if (jump == 0) {
      restart();
      ++m_counters.restarts;
    } else {
      restore(jump - 1);
    }
  } else if (jump > 0) {
    // Ahead: restore only when it reads fewer keys than reading forward.
    const JumpFrame& target = s.jump_frames()[jump - 1];
    if (target.frame > m_last_need && target.stream_keys_read > m_cursor_key_index &&
        target.stream_keys_read - m_cursor_key_index > m_restore_cost_keys) {
      restore(jump - 1);
    }
  }
  advance_to(frame);
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

void Player::sample(float t_seconds, std::span<Transform> local_pose) {
  sample_frame(frame_time_at(t_seconds), local_pose);
}

void Player::sample_frame(float frame_time, std::span<Transform> local_pose) {
  const float last = static_cast<float>(m_stream->last_frame());
  if (!(frame_time > 0.f)) frame_time = 0.f;
  if (frame_time > last) frame_time = last;
  seek_frame(frame_time);
  evaluate(frame_time, local_pose);
}

// A lane whose track has no key left also covers the final segment (from
// its third key to its fourth), which its coefficients do not.
template <int Components>
void Player::evaluate_group(const LaneGroup<Components>& group, float frame_time, unsigned char* pose) const {
  const std::span<const SegmentLanes<Components>> blocks(group.blocks);
  evaluate_lanes(blocks, frame_time, pose);
  for (const uint32_t lane : group.finished) {
    CurveKey keys[kWindowSize];
    for (uint32_t i = 1; i < kWindowSize; ++i) keys[i] = lane_key(blocks, lane, i);
    if (!(frame_time >= keys[2].frame)) continue;
    float value[4];
    evaluate_segment(keys[1], keys[2], keys[3], keys[3], frame_time, Components, value);
    if constexpr (Components == 4) normalize_rotation(value);
    std::memcpy(pose + blocks[lane / kLanesPerBlock].output[lane % kLanesPerBlock], value, Components * sizeof(float));
  }
}

void Player::evaluate(float frame_time, std::span<Transform> local_pose) {
  const size_t bone_count = m_stream->bone_count();
  assert(local_pose.size() >= bone_count);
  // A pose shorter than the skeleton gets the bones it has, through a full one.
  const std::span<Transform> pose = local_pose.size() >= bone_count ? local_pose : std::span<Transform>(m_short_pose);
  std::memcpy(pose.data(), m_constant_pose.data(), bone_count * sizeof(Transform));
  unsigned char* bytes = reinterpret_cast<unsigned char*>(pose.data());
  evaluate_group(m_rotations, frame_time, bytes);
  evaluate_group(m_vec3s, frame_time, bytes);
  if (pose.data() != local_pose.data()) std::copy(pose.begin(), pose.begin() + local_pose.size(), local_pose.begin());
}

namespace {

// True when lane `l` of blocks `x` and `y` hold the same keys and coefficients.
template <int Components>
bool same_lane(const SegmentLanes<Components>& x, const SegmentLanes<Components>& y, uint32_t l) {
  const auto same = [l](const float* a, const float* b) { return std::memcmp(a + l, b + l, sizeof(float)) == 0; };
  for (uint32_t k = 0; k < kKeysPerLane; ++k) {
    if (!same(x.key_frame[k], y.key_frame[k])) return false;
    for (int c = 0; c < Components; ++c) {
      if (!same(x.key_value[k][c], y.key_value[k][c])) return false;
    }
  }
  if (!same(x.start, y.start) || !same(x.span, y.span)) return false;
  for (int c = 0; c < Components; ++c) {
    if (!same(x.p[c], y.p[c]) || !same(x.q[c], y.q[c]) || !same(x.difference[c], y.difference[c]) ||
        !same(x.tangent_p[c], y.tangent_p[c]) || !same(x.tangent_q[c], y.tangent_q[c])) {
      return false;
    }
  }
  return true;
}

// The track of the first lane whose state (cursor, keys, coefficients: all
// that decides later poses) differs between the groups, or -1.
template <int Components>
int64_t first_different_track(const LaneGroup<Components>& a, const LaneGroup<Components>& b) {
  for (uint32_t lane = 0; lane < a.tracks.size(); ++lane) {
    const uint32_t i = lane / kLanesPerBlock, l = lane % kLanesPerBlock;
    const LaneCursors& x = a.cursors[i];
    const LaneCursors& y = b.cursors[i];
    bool same =
        x.keys_left[l] == y.keys_left[l] && x.keys_read[l] == y.keys_read[l] && same_lane(a.blocks[i], b.blocks[i], l);
    // A finished lane's cursor is never read again.
    if (same && x.keys_left[l] != 0) {
      same = x.bit[l] == y.bit[l] && x.frame[l] == y.frame[l] && x.need[l] == y.need[l] &&
             x.key_bits[l] == y.key_bits[l] && x.segment_end[l] == y.segment_end[l];
      for (int c = 0; c < 4; ++c) same = same && x.codes[c][l] == y.codes[c][l];
      for (uint32_t f = 0; f < kLaneFields; ++f)
        same = same && x.shift[f][l] == y.shift[f][l] && x.mask[f][l] == y.mask[f][l];
    }
    if (!same) return a.tracks[lane];
  }
  return -1;
}

}  // namespace

Status check_jump_frames(const StreamView& stream) {
  if (stream.jump_frames().empty()) return {};
  Player forward(stream);
  Player restored(stream);
  for (uint32_t j = 0; j < stream.jump_frames().size(); ++j) {
    const JumpFrame& jump = stream.jump_frames()[j];
    forward.advance_to(jump.frame);
    restored.restore(j);
    if (forward.m_cursor_key_index != jump.stream_keys_read) {
      return Error{"jump frame " + std::to_string(j) + " (frame " + std::to_string(jump.frame) + ") says " +
                   std::to_string(jump.stream_keys_read) + " stream keys are read, forward play has read " +
                   std::to_string(forward.m_cursor_key_index)};
    }
    int64_t track = first_different_track(forward.m_rotations, restored.m_rotations);
    const int64_t vec3_track = first_different_track(forward.m_vec3s, restored.m_vec3s);
    if (track < 0 || (vec3_track >= 0 && vec3_track < track)) track = vec3_track;
    if (track >= 0) {
      return Error{"jump frame " + std::to_string(j) + " (frame " + std::to_string(jump.frame) +
                   ") does not hold the state forward play reaches for track " + std::to_string(track)};
    }
  }
  return {};
}

}  // namespace ks
