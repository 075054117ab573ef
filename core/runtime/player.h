#pragma once
// Player (DESIGN §8): decodes a stream into local poses. Constant tracks
// come from a pose built once; for every animated track it keeps a window
// of the four keys around the current segment (the active array) and one
// cursor into the key stream that only moves forward. Before a sample, the
// segment of every track whose window changed is reduced to coefficients in
// a structure-of-arrays lane (segment_lanes.h), once however many keys
// arrived, so a sample evaluates the animated tracks eight at a time and
// nothing else. New keys are staged in their lanes as codes, and each block
// dequantizes its lanes' keys eight at a time. sample() reads just the keys
// that became due since the last call; going backward, or far ahead, it
// restores the nearest jump frame at or before the wanted time and reads
// forward from there.
// Everything is allocated in the constructor; sampling allocates nothing.

#include <cstdint>
#include <span>
#include <vector>

#include "core/runtime/curve.h"
#include "core/runtime/key_stream_reader.h"
#include "core/runtime/need_calendar.h"
#include "core/runtime/segment_lanes.h"
#include "core/runtime/stream_format.h"
#include "core/runtime/stream_key_layout.h"
#include "core/runtime/stream_view.h"
#include "core/runtime/transform.h"

namespace ks {

/// One animated track's slot in the active array. Its window is the last
/// four keys read, oldest first (copies of key 0 before it), held as read:
/// codes, frames and "negated" bits. Reading a key shifts those in and
/// nothing more; the dequantized keys follow before the next sample, for
/// the keys still in the window only (a seek skips the rest).
struct TrackWindow {
  int32_t codes[kWindowSize][4] = {};  // the newest key's codes start the next key's differences
  uint32_t frames[kWindowSize] = {};
  // Not uint8_t: a store through a character type may alias anything, and
  // reading a key would then reload the player's state after every key.
  uint32_t negated = 0;         // bit i: key i is the negation of its dequantized value
  uint32_t keys_behind = 0;     // keys shifted in since its lane's keys were brought up to date (up to four)
  uint8_t coded_mask = 0;       // the track's coded components and key coding, copied here so reading
  KeyCoding coding;             // a key touches its window only
  uint32_t keys_read = 0;      // keys of this track read so far
  uint32_t key_count = 0;      // keys the track has
  uint32_t track = 0;          // index of the track in the stream
  uint32_t lane = 0;           // its lane among the rotation or the vec3 lanes
  bool lane_stale = false;     // keys arrived since its lane was last written (it is in Player::m_stale)
  StreamKeyLayout layout;      // where the fields of its next stream key sit (its segment's widths)
  uint64_t key_widths_bit = 0;  // where its segments' widths start in the key widths section
};

/// What the player did, as counted in the x42 measurements. Cumulative until
/// reset_counters().
struct PlayerCounters {
  uint64_t keys_read = 0;         // keys decoded: initial keys, stream keys and jump-frame keys
  uint64_t keys_dequantized = 0;  // keys turned into values: only those still in a window at a sample
  uint64_t window_updates = 0;    // track windows written (a key shifted in, or a window restored)
  uint64_t jump_frames_used = 0;  // jump frames restored by seeks
  uint64_t restarts = 0;          // seeks that restarted from frame 0
  uint64_t keys_skipped = 0;      // stream keys a forward seek did not need to read
  uint64_t blocks_decompressed = 0;  // zstd key stream blocks decompressed
};

class Player {
 public:
  /// A player at frame 0 of `stream`, which must outlive it.
  explicit Player(const StreamView& stream);

  /// Local pose (one Transform per bone) at `t_seconds`: clamped to the clip,
  /// or wrapped into it when looping. A time within 1e-4 frames of a frame is
  /// that frame, so sampling at f / rate reproduces frame f exactly.
  void sample(float t_seconds, std::span<Transform> local_pose);
  /// Local pose at frame time `frame_time` (frames, fractional), clamped to
  /// 0..last frame.
  void sample_frame(float frame_time, std::span<Transform> local_pose);
  /// Brings the active array to `frame_time` without evaluating a pose.
  void seek_frame(float frame_time);

  void set_looping(bool looping) { m_looping = looping; }
  bool looping() const { return m_looping; }

  /// The frame time `t_seconds` maps to (clamped or wrapped, snapped to frames).
  float frame_time_at(float t_seconds) const;

  const PlayerCounters& counters() const { return m_counters; }
  void reset_counters() { m_counters = {}; }
  /// The windows of the animated tracks, in track order.
  std::span<const TrackWindow> active_array() const { return m_active_array; }
  /// Keys of the key stream read so far (the cursor).
  uint32_t cursor_key_index() const { return m_cursor_key_index; }
  /// First frame the active array is valid for: every key read is due at or
  /// before it, so sampling any later frame only reads forward (no seek back).
  /// A PlayerPool hands out players by it.
  uint32_t valid_from_frame() const { return m_last_need; }
  const StreamView& stream() const { return *m_stream; }

  /// Bytes the player owns: its active array, constant pose and queue and,
  /// for a zstd stream, one decompressed block and the decompression context.
  size_t memory_bytes() const;

 private:
  void restart();
  void start_block(uint32_t block);
  void restore(uint32_t jump_index);
  void read_keys_due();   // every key due at m_next_need
  void next_need();
  void enter_block_of(uint32_t key_index);
  void advance_to(uint32_t frame);
  void evaluate(float frame_time, std::span<Transform> local_pose);
  void stage_key(const TrackWindow& window, const StreamTrack& track, uint32_t position);
  void mark_stale(uint32_t slot);
  void update_stale_lanes();
  void find_finished();

  const StreamView* m_stream;
  std::vector<TrackWindow> m_active_array;  // animated tracks only
  std::vector<Transform> m_constant_pose;   // every bone, constant tracks filled in
  std::vector<RotationLanes> m_rotation_lanes;  // each animated rotation's keys and current segment
  std::vector<Vec3Lanes> m_vec3_lanes;          // each animated translation's and scale's
  std::vector<uint64_t> m_stale_rotation_blocks;  // bit b: block b's keys changed since its coefficients were built
  std::vector<uint64_t> m_stale_vec3_blocks;
  std::vector<uint32_t> m_finished;         // slots of the windows that hold their track's last key
  std::vector<Transform> m_short_pose;      // sample() into a pose shorter than the skeleton goes here first
  std::vector<uint32_t> m_stale;            // slots of the windows whose lanes trail their keys
  std::vector<uint32_t> m_refilled;         // those of them that took several keys (update_stale_lanes)
  NeedCalendar m_queue;                     // streamed windows by the need frame of their next key
  KeyStreamReader m_reader;                 // the cursor into the key stream
  uint32_t m_cursor_key_index = 0;
  uint32_t m_last_need = 0;        // need frame of the last key read: the state is valid from here...
  uint32_t m_next_need = 0;        // ...up to (excluding) the need frame of the next key
  uint32_t m_restore_cost_keys = 0;  // keys a jump-frame restore decodes, to decide when seeking ahead pays
  bool m_looping = false;
  PlayerCounters m_counters;

  friend Status check_jump_frames(const StreamView& stream);
};

/// Replays `stream` forward and checks that every jump frame restores exactly
/// the state forward play reaches (StreamView::open calls it for
/// StreamCheck::kFull).
Status check_jump_frames(const StreamView& stream);

}  // namespace ks
