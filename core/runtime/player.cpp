#include "core/runtime/player.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cstddef>
#include <cmath>
#include <cstring>
#include <limits>

#include "core/runtime/stream_format.h"

namespace ks {

namespace {

constexpr uint32_t kNoKeyDue = std::numeric_limits<uint32_t>::max();

// Makes room for the track's next key in the window: the oldest key drops
// out. Element by element, front to back: the compiler keeps these in
// registers (a memmove here was a library call per key).
inline void shift_window(TrackWindow& window) {
  for (uint32_t i = 0; i + 1 < kWindowSize; ++i) {
    for (int c = 0; c < 4; ++c) window.codes[i][c] = window.codes[i + 1][c];
    window.frames[i] = window.frames[i + 1];
  }
}

inline void finish_key(TrackWindow& window, bool negated) {
  window.negated = (window.negated >> 1) | (negated ? 1u << (kWindowSize - 1) : 0u);
  if (window.keys_behind < kWindowSize) ++window.keys_behind;
  ++window.keys_read;
}

// Reads the track's next key, written as Rice-coded differences from its
// newest one (a track's keys 1 and 2, read by restart()), into the window.
// The key is decoded in place: no local copy whose components, stored one
// by one, would be read back at once as a vector (a store-forwarding stall).
template <class Reader>
inline void read_next_key(Reader& reader, TrackWindow& window) {
  shift_window(window);
  finish_key(window, read_key_differences(reader, window.coding, window.coded_mask, window.frames[kWindowSize - 1],
                                          window.codes[kWindowSize - 1]));
}

// The layout of the segment holding the track's next key (keys_read).
inline void load_segment_layout(TrackWindow& window, std::span<const uint8_t> key_widths) {
  window.layout = segment_layout(key_widths, window.key_widths_bit, segment_of_key(window.keys_read),
                                 window.coded_mask, window.coding.negation_bits);
}

// Reads the track's next key from the key stream (fixed widths per segment,
// stream_key_layout.h) into the window.
template <class Reader>
inline void read_next_stream_key(Reader& reader, std::span<const uint8_t> key_widths, TrackWindow& window) {
  if (opens_segment(window.keys_read)) load_segment_layout(window, key_widths);
  shift_window(window);
  finish_key(window, read_stream_key(reader, window.layout, window.coding.frame_delta_min,
                                     window.frames[kWindowSize - 1], window.codes[kWindowSize - 1]));
}

// Fills a window with one key: key 0 of its track, and its clamped copies.
inline void fill_window(TrackWindow& window, const int32_t codes[4], uint32_t frame, bool negated) {
  for (uint32_t i = 0; i < kWindowSize; ++i) {
    std::memcpy(&window.codes[i], codes, sizeof window.codes[i]);
    window.frames[i] = frame;
  }
  window.negated = negated ? (1u << kWindowSize) - 1u : 0u;
  window.keys_behind = kWindowSize;
  window.keys_read = 1;
}

// Key k of a track is needed when segment k-2 begins: at the frame of key
// k-2, which sits third in the window while keys 0..k-1 have been read.
inline uint32_t need_of_next_key(const TrackWindow& window) { return window.frames[2]; }

bool same_window(const TrackWindow& a, const TrackWindow& b) {
  return a.keys_read == b.keys_read && a.negated == b.negated &&
         std::memcmp(a.codes, b.codes, sizeof a.codes) == 0 && std::memcmp(a.frames, b.frames, sizeof a.frames) == 0;
}

// Shifts the keys staged in the blocks marked in `stale_blocks` into their
// lanes (the marks stay: the blocks still need their coefficients rebuilt).
template <int Components>
void shift_in_stale_blocks(std::span<SegmentLanes<Components>> blocks, std::span<const uint64_t> stale_blocks) {
  for (uint32_t word = 0; word < stale_blocks.size(); ++word) {
    for (uint64_t bits = stale_blocks[word]; bits != 0; bits &= bits - 1) {
      shift_in_staged_keys(blocks[word * 64 + static_cast<uint32_t>(std::countr_zero(bits))]);
    }
  }
}

// Rebuilds the coefficients of the blocks marked in `stale_blocks`, then
// clears the marks.
template <int Components>
void build_stale_blocks(std::span<SegmentLanes<Components>> blocks, std::span<uint64_t> stale_blocks) {
  for (uint32_t word = 0; word < stale_blocks.size(); ++word) {
    for (uint64_t bits = stale_blocks[word]; bits != 0; bits &= bits - 1) {
      build_coefficients(blocks[word * 64 + static_cast<uint32_t>(std::countr_zero(bits))]);
    }
    stale_blocks[word] = 0;
  }
}

}  // namespace

Player::Player(const StreamView& stream)
    : m_stream(&stream), m_constant_pose(stream.bone_count()), m_short_pose(stream.bone_count()), m_reader(stream) {
  m_active_array.reserve(stream.animated_track_count());
  m_finished.reserve(stream.animated_track_count());
  uint32_t rotations = 0;
  uint32_t vec3s = 0;
  for (uint32_t t = 0; t < stream.tracks().size(); ++t) {
    const StreamTrack& track = stream.tracks()[t];
    if (track.coding == TrackCoding::kAnimated) {
      TrackWindow window;
      window.track = t;
      window.key_count = track.key_count;
      window.coded_mask = track.quantization.coded_mask;
      window.coding = track.key_coding;
      window.lane = track.kind == TrackKind::kRotation ? rotations++ : vec3s++;
      window.key_widths_bit = track.key_widths_bit;
      m_active_array.push_back(window);
      continue;
    }
    // Identity and constant tracks: their value, exactly as stored.
    Transform& pose = m_constant_pose[track.bone];
    const float* v = track.constant;
    if (track.kind == TrackKind::kTranslation) pose.translation = {v[0], v[1], v[2]};
    if (track.kind == TrackKind::kRotation) pose.rotation = {v[0], v[1], v[2], v[3]};
    if (track.kind == TrackKind::kScale) pose.scale = {v[0], v[1], v[2]};
  }
  // Lanes in track order; each writes its value where its bone's transform
  // holds that kind (a byte offset into the pose).
  m_rotation_lanes.resize((rotations + kLanesPerBlock - 1) / kLanesPerBlock);
  m_vec3_lanes.resize((vec3s + kLanesPerBlock - 1) / kLanesPerBlock);
  m_stale_rotation_blocks.resize((m_rotation_lanes.size() + 63) / 64);
  m_stale_vec3_blocks.resize((m_vec3_lanes.size() + 63) / 64);
  clear_lanes(m_rotation_lanes);
  clear_lanes(m_vec3_lanes);
  for (const TrackWindow& window : m_active_array) {
    const StreamTrack& track = stream.tracks()[window.track];
    const uint32_t bone = track.bone * static_cast<uint32_t>(sizeof(Transform));
    const uint32_t block = window.lane / kLanesPerBlock;
    const uint32_t lane = window.lane % kLanesPerBlock;
    if (track.kind == TrackKind::kRotation) {
      m_rotation_lanes[block].output[lane] = bone + static_cast<uint32_t>(offsetof(Transform, rotation));
      set_lane_dequantization(std::span<RotationLanes>(m_rotation_lanes), window.lane, track.quantization);
    } else {
      set_lane_dequantization(std::span<Vec3Lanes>(m_vec3_lanes), window.lane, track.quantization);
      const size_t member = track.kind == TrackKind::kTranslation ? offsetof(Transform, translation) : offsetof(Transform, scale);
      m_vec3_lanes[block].output[lane] = bone + static_cast<uint32_t>(member);
    }
  }
  m_queue.reserve(static_cast<uint32_t>(m_active_array.size()));
  m_stale.reserve(m_active_array.size());
  m_refilled.reserve(m_active_array.size());
  m_restore_cost_keys = stream.streamed_track_count() * kWindowSize;
  restart();
}

size_t Player::memory_bytes() const {
  return m_active_array.capacity() * sizeof(TrackWindow) + m_constant_pose.capacity() * sizeof(Transform) +
         m_short_pose.capacity() * sizeof(Transform) + m_rotation_lanes.capacity() * sizeof(RotationLanes) +
         m_vec3_lanes.capacity() * sizeof(Vec3Lanes) +
         (m_stale_rotation_blocks.capacity() + m_stale_vec3_blocks.capacity()) * sizeof(uint64_t) +
         (m_finished.capacity() + m_stale.capacity() + m_refilled.capacity()) * sizeof(uint32_t) +
         m_queue.memory_bytes() + m_reader.memory_bytes();
}

// Inlined so the common call, the newest key, indexes the window at a constant.
[[gnu::always_inline]] inline void Player::stage_key(const TrackWindow& window, const StreamTrack& track,
                                                     uint32_t position) {
  const bool negated = ((window.negated >> position) & 1u) != 0;
  const uint32_t block = window.lane / kLanesPerBlock;
  if (track.kind == TrackKind::kRotation) {
    stage_lane_key(std::span<RotationLanes>(m_rotation_lanes), window.lane, window.codes[position],
                   window.frames[position], negated);
    m_stale_rotation_blocks[block / 64] |= uint64_t{1} << (block % 64);
  } else {
    stage_lane_key(std::span<Vec3Lanes>(m_vec3_lanes), window.lane, window.codes[position], window.frames[position],
                   negated);
    m_stale_vec3_blocks[block / 64] |= uint64_t{1} << (block % 64);
  }
}

void Player::restart() {
  const StreamView& s = *m_stream;
  BitReader initial(s.initial_keys());
  m_queue.clear(0);
  m_stale.clear();
  for (uint32_t slot = 0; slot < m_active_array.size(); ++slot) {
    TrackWindow& window = m_active_array[slot];
    const StreamTrack& track = s.tracks()[window.track];
    int32_t codes[4];
    const bool first_negated = read_absolute_codes(initial, track, codes);
    fill_window(window, codes, 0, first_negated);
    const uint32_t initial_count = track.key_count < kInitialKeysPerTrack ? track.key_count : kInitialKeysPerTrack;
    for (uint32_t k = 1; k < initial_count; ++k) read_next_key(initial, window);
    window.lane_stale = false;
    mark_stale(slot);
    if (window.keys_read < window.key_count) m_queue.push(need_of_next_key(window), slot);
    m_counters.keys_read += initial_count;
    ++m_counters.window_updates;
  }
  find_finished();
  start_block(0);
  m_cursor_key_index = 0;
  m_last_need = 0;
  next_need();
}

void Player::restore(uint32_t jump_index) {
  const StreamView& s = *m_stream;
  const JumpFrame& jump = s.jump_frames()[jump_index];
  const std::span<const StreamTrack> tracks = s.tracks();
  const uint32_t key_index_bits = s.key_index_bits();
  // Tracks of at most three keys never change after restart() at
  // construction; a jump frame saves only the streamed tracks. One window
  // of bits over the saved state: its fields and Rice codes cost shifts,
  // not a bounds-checked load each.
  BitReader state_reader(s.jump_states(), jump.state_bit_offset);
  RiceWindow<BitReader> state(state_reader);
  m_queue.clear(jump.frame);
  uint32_t keys = 0;
  uint32_t windows = 0;
  for (uint32_t slot = 0; slot < m_active_array.size(); ++slot) {
    TrackWindow& window = m_active_array[slot];
    if (window.key_count <= kInitialKeysPerTrack) continue;
    ++windows;
    const StreamTrack& track = tracks[window.track];
    const uint32_t keys_read = read_field(state, key_index_bits);
    const uint32_t saved = keys_read < kWindowSize ? keys_read : kWindowSize;
    // The saved keys go straight to the back of the window, oldest first;
    // the places before them hold copies of the oldest (as after restart()).
    int32_t codes[4];
    uint32_t frame = read_field(state, kFrameBits);
    bool negated = read_absolute_codes(state, track, codes);
    const uint32_t first = kWindowSize - (saved > 0 ? saved : 1);
    window.negated = 0;
    for (uint32_t i = 0; i < kWindowSize; ++i) {
      if (i > first) negated = read_key_differences(state, window.coding, window.coded_mask, frame, codes);
      std::memcpy(&window.codes[i], codes, sizeof codes);
      window.frames[i] = frame;
      window.negated |= negated ? 1u << i : 0u;
    }
    window.keys_behind = kWindowSize;
    window.keys_read = keys_read;
    mark_stale(slot);
    if (keys_read < window.key_count) {
      load_segment_layout(window, s.key_widths());
      m_queue.push(need_of_next_key(window), slot);
    }
    keys += saved;
  }
  state.finish();
  m_counters.keys_read += keys;
  m_counters.window_updates += windows;
  find_finished();
  if (jump.stream_key_index > m_cursor_key_index) m_counters.keys_skipped += jump.stream_key_index - m_cursor_key_index;
  start_block(jump_index + 1);  // block b + 1 starts at jump frame b
  m_cursor_key_index = jump.stream_key_index;
  m_last_need = jump.frame;
  ++m_counters.jump_frames_used;
  next_need();
}

void Player::start_block(uint32_t block) {
  const uint64_t before = m_reader.blocks_decompressed();
  // A block that does not decompress (a corrupt stream StreamCheck::kFast
  // let through) reads as zeros: wrong poses, nothing out of bounds.
  static_cast<void>(m_reader.start_block(block));
  m_counters.blocks_decompressed += m_reader.blocks_decompressed() - before;
}

void Player::next_need() {
  if (m_queue.empty()) {
    m_next_need = kNoKeyDue;
    return;
  }
  if (m_reader.past_block(m_cursor_key_index)) enter_block_of(m_cursor_key_index);
  m_next_need = m_queue.next_need();
}

void Player::enter_block_of(uint32_t key_index) {
  const uint64_t before = m_reader.blocks_decompressed();
  m_reader.enter_block_of(key_index);
  m_counters.blocks_decompressed += m_reader.blocks_decompressed() - before;
}

void Player::read_keys_due() {
  const uint32_t need = m_next_need;
  const std::span<const uint8_t> key_widths = m_stream->key_widths();
  m_last_need = need;
  // The cursor and the count in locals: the compiler then keeps them in
  // registers across the window stores of every key.
  TrackWindow* const windows = m_active_array.data();
  uint32_t cursor = m_cursor_key_index;
  uint32_t keys = 0;
  // The windows due at this need, in slot order: ties go by track index,
  // the order the packer wrote their keys in (DESIGN §7).
  m_queue.take_next_need([&](uint32_t slot) {
    TrackWindow& window = windows[slot];
    // A window whose next key is due at this need too reads it at once: it
    // still comes before every slot after it. (Only a forged stream's
    // frames, which wrap, can make a need go back; it counts as this one.)
    do {
      if (m_reader.past_block(cursor)) [[unlikely]] enter_block_of(cursor);
      read_next_stream_key(m_reader, key_widths, window);
      ++cursor;
      ++keys;
    } while (window.keys_read < window.key_count && need_of_next_key(window) <= need);
    mark_stale(slot);
    if (window.keys_read < window.key_count) {
      m_queue.push(need_of_next_key(window), slot);
    } else {
      m_finished.push_back(slot);
    }
  });
  m_cursor_key_index = cursor;
  m_counters.keys_read += keys;
  m_counters.window_updates += keys;
  next_need();
}

void Player::advance_to(uint32_t frame) {
  while (m_next_need <= frame) read_keys_due();
}

void Player::seek_frame(float frame_time) {
  const StreamView& s = *m_stream;
  const float last = static_cast<float>(s.last_frame());
  if (!(frame_time > 0.f)) frame_time = 0.f;  // also maps NaN to frame 0
  if (frame_time > last) frame_time = last;
  const uint32_t frame = static_cast<uint32_t>(frame_time);
  if (frame >= m_last_need && frame < m_next_need) return;  // nothing became due

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
    // Ahead: restore only when it decodes fewer keys than reading forward.
    const JumpFrame& target = s.jump_frames()[jump - 1];
    if (target.stream_key_index > m_cursor_key_index &&
        target.stream_key_index - m_cursor_key_index > m_restore_cost_keys) {
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

void Player::find_finished() {
  m_finished.clear();
  for (uint32_t slot = 0; slot < m_active_array.size(); ++slot) {
    if (m_active_array[slot].keys_read == m_active_array[slot].key_count) m_finished.push_back(slot);
  }
}

void Player::mark_stale(uint32_t slot) {
  TrackWindow& window = m_active_array[slot];
  if (window.lane_stale) return;
  window.lane_stale = true;
  m_stale.push_back(slot);
}

void Player::update_stale_lanes() {
  const std::span<const StreamTrack> tracks = m_stream->tracks();
  // The keys that arrived in each window since its lane was brought up to
  // date (at most its four) are staged as codes, and each block dequantizes
  // and shifts in its lanes' staged keys eight lanes per instruction. A
  // window that took one key (play at the clip's rate) stages it here and
  // its block's rebuild shifts it in. Windows that took several (after a
  // seek every window refills) stage them one round per key, oldest first,
  // each round shifted in before the next is staged.
  uint32_t most_behind = 1;
  m_refilled.clear();
  for (const uint32_t slot : m_stale) {
    TrackWindow& window = m_active_array[slot];
    m_counters.keys_dequantized += window.keys_behind;
    window.lane_stale = false;
    if (window.keys_behind > 1) {
      m_refilled.push_back(slot);
      most_behind = std::max<uint32_t>(most_behind, window.keys_behind);
      continue;
    }
    if (window.keys_behind == 1) stage_key(window, tracks[window.track], kWindowSize - 1);
    window.keys_behind = 0;
  }
  m_stale.clear();
  for (uint32_t position = kWindowSize - most_behind; position < kWindowSize; ++position) {
    if (position > kWindowSize - most_behind) {
      // The keys staged so far (one-key windows' included) go in before the next round's.
      shift_in_stale_blocks(std::span<RotationLanes>(m_rotation_lanes),
                            std::span<const uint64_t>(m_stale_rotation_blocks));
      shift_in_stale_blocks(std::span<Vec3Lanes>(m_vec3_lanes), std::span<const uint64_t>(m_stale_vec3_blocks));
    }
    for (const uint32_t slot : m_refilled) {
      const TrackWindow& window = m_active_array[slot];
      if (position + window.keys_behind >= kWindowSize) stage_key(window, tracks[window.track], position);
    }
  }
  for (const uint32_t slot : m_refilled) m_active_array[slot].keys_behind = 0;
  // Whole blocks at once, after every key is in: the kernel reads each key
  // lane as one vector, long after its components were stored one by one.
  build_stale_blocks(std::span<RotationLanes>(m_rotation_lanes), std::span<uint64_t>(m_stale_rotation_blocks));
  build_stale_blocks(std::span<Vec3Lanes>(m_vec3_lanes), std::span<uint64_t>(m_stale_vec3_blocks));
}

void Player::evaluate(float frame_time, std::span<Transform> local_pose) {
  update_stale_lanes();
  const size_t bone_count = m_stream->bone_count();
  assert(local_pose.size() >= bone_count);
  // A pose shorter than the skeleton gets the bones it has, through a full one.
  const std::span<Transform> pose = local_pose.size() >= bone_count ? local_pose : std::span<Transform>(m_short_pose);
  std::memcpy(pose.data(), m_constant_pose.data(), bone_count * sizeof(Transform));
  unsigned char* bytes = reinterpret_cast<unsigned char*>(pose.data());
  evaluate_lanes(std::span<const RotationLanes>(m_rotation_lanes), frame_time, bytes);
  evaluate_lanes(std::span<const Vec3Lanes>(m_vec3_lanes), frame_time, bytes);
  // A window holding its track's last key also covers the final segment
  // (from its third key to its fourth), which its lane does not.
  const std::span<const StreamTrack> tracks = m_stream->tracks();
  for (const uint32_t slot : m_finished) {
    const TrackWindow& w = m_active_array[slot];
    const StreamTrack& track = tracks[w.track];
    CurveKey keys[kWindowSize];
    for (uint32_t i = 1; i < kWindowSize; ++i) {
      keys[i] = track.kind == TrackKind::kRotation
                    ? lane_key(std::span<const RotationLanes>(m_rotation_lanes), w.lane, i)
                    : lane_key(std::span<const Vec3Lanes>(m_vec3_lanes), w.lane, i);
    }
    if (!(frame_time >= keys[2].frame)) continue;
    float value[4];
    evaluate_segment(keys[1], keys[2], keys[3], keys[3], frame_time, component_count(track.kind), value);
    Transform& out = pose[track.bone];
    if (track.kind == TrackKind::kTranslation) {
      out.translation = {value[0], value[1], value[2]};
    } else if (track.kind == TrackKind::kRotation) {
      normalize_rotation(value);
      out.rotation = {value[0], value[1], value[2], value[3]};
    } else {
      out.scale = {value[0], value[1], value[2]};
    }
  }
  if (pose.data() != local_pose.data()) std::copy(pose.begin(), pose.begin() + local_pose.size(), local_pose.begin());
}

Status check_jump_frames(const StreamView& stream) {
  if (stream.jump_frames().empty()) return {};
  Player forward(stream);
  Player restored(stream);
  for (uint32_t j = 0; j < stream.jump_frames().size(); ++j) {
    const JumpFrame& jump = stream.jump_frames()[j];
    forward.advance_to(jump.frame);
    // Check where the jump frame resumes before restoring it: restore() reads
    // the key stream there, and an offset that is not a key's start is
    // untrusted bytes.
    if (forward.m_cursor_key_index != jump.stream_key_index || forward.m_reader.position() != jump.stream_bit_offset) {
      return Error{"jump frame " + std::to_string(j) + " (frame " + std::to_string(jump.frame) +
                   ") resumes at stream key " + std::to_string(jump.stream_key_index) + " (bit " +
                   std::to_string(jump.stream_bit_offset) + "), but forward play is at key " +
                   std::to_string(forward.m_cursor_key_index) + " (bit " +
                   std::to_string(forward.m_reader.position()) + ")"};
    }
    restored.restore(j);
    for (size_t slot = 0; slot < forward.m_active_array.size(); ++slot) {
      const TrackWindow& a = forward.m_active_array[slot];
      const TrackWindow& b = restored.m_active_array[slot];
      const bool same = same_window(a, b);
      if (!same) {
        return Error{"jump frame " + std::to_string(j) + " (frame " + std::to_string(jump.frame) +
                     ") does not hold the state forward play reaches for track " + std::to_string(a.track)};
      }
    }
  }
  return {};
}

}  // namespace ks
