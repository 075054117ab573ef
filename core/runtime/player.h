#pragma once
// Player (DESIGN §8): decodes a stream into local poses. Constant tracks
// come from a pose built once. Every animated track has a lane in the
// active array (segment_lanes.h: its window of four dequantized keys and
// the coefficients of its current segment, eight tracks of any kind to a
// block, rotations first, the tracks with the most keys first so that a
// block's lanes are about as busy as each other) and a cursor into its
// own run of stream keys (lane_reader.h). A sample reads the next key of
// every lane that has one due, every block in one play step
// (read_play_step, eight cursors at once), marks the blocks that took keys
// stale, and evaluates every block eight tracks at a time (sixteen at
// AVX-512), building a stale block's coefficients on the way
// (build_and_evaluate_lanes). Going backward, or far
// ahead, it restores the nearest jump frame at or before the wanted time
// (each window from its oldest key, read from the jump state eight lanes at
// a time, saved_window_reader.h, and the three keys after it in the run,
// found through StreamView::segments) and reads on to it; before the first
// jump frame it copies back the active array as it stood before frame 0
// (kept when the player is made) and reads on from there. A block whose
// lanes read more than a few keys in one go (a seek, a restore)
// reads them into a ring of four, and only the four each window ends with
// are dequantized (KeyRing, refill_windows).
// A small clip's keys are decoded once, when the player is made (its key
// cache, key_cache.h, at most a given number of bytes: 64 KiB by default),
// and the player reads its key stream no more: its seeks set each lane's
// window straight from them, found through a count of the lane's keys per
// frame, instead of restarting or restoring and reading on; its play stages
// each key due as its value (KeyCache::play).
// A lane whose track has read its last key moves on to its final segment
// (its third key to its last) by shifting in a copy of the last key once
// play reaches the third (take_final_segments): every lane, to the end of
// the clip, is evaluated by its block.
// Everything is allocated in the constructor; sampling allocates nothing.

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "keystream/runtime/curve.h"
#include "keystream/runtime/key_cache.h"
#include "keystream/runtime/lane_group.h"
#include "keystream/runtime/lane_reader.h"
#include "keystream/runtime/segment_lanes.h"
#include "keystream/runtime/stream_format.h"
#include "keystream/runtime/stream_view.h"
#include "keystream/runtime/transform.h"

namespace ks {

/// What the player did, as counted in the x42 measurements. Cumulative until
/// reset_counters().
struct PlayerCounters {
  uint64_t keys_read = 0;            // keys decoded (initial, stream and jump-frame keys), or taken from the key cache
  uint64_t keys_dequantized = 0;     // keys turned into values in a lane (none in play from the key cache)
  uint64_t window_updates = 0;       // track windows written (a key shifted in, or a window restored)
  uint64_t jump_frames_used = 0;     // jump frames restored by seeks
  uint64_t restarts = 0;             // seeks that restarted from frame 0
  uint64_t keys_skipped = 0;         // stream keys a forward seek did not need to read
  uint64_t blocks_decompressed = 0;  // zstd key streams decompressed (once, when the player is made)
  uint64_t cached_seeks = 0;         // seeks that set the lanes from the key cache (no key read)
};

class Player {
 public:
  /// The key cache's default limit (KeyCache::bytes_for): small clips, such
  /// as robot's (329 keys, 10 animated tracks, 81 frames: 8.0 KiB), the
  /// demo's idle (21.1 KiB) or Fox's Run (1,958 keys: 44.0 KiB), where a
  /// seek's fixed steps cost more than the baseline's binary search and
  /// reading and dequantizing keys is a tenth of play (key_cache.h). The
  /// long mocap takes (1.4 MiB each) read the stream. Copies of a player
  /// (and a PlayerPool's players) share its cache.
  static constexpr size_t kDefaultKeyCacheBytes = 64 * 1024;
  /// A sample at most this many frames after the last one plays on (reads
  /// the keys due, as forward play does); any other seeks.
  static constexpr uint32_t kPlayFrameStep = 2;

  /// A player at frame 0 of `stream`, which must outlive it. When the
  /// stream's key cache fits in `key_cache_bytes` (KeyCache::bytes_for: 20
  /// bytes a key, 2 per animated track and frame), the player decodes every
  /// key once, here, and seeks and play set the lanes from them; 0 turns it
  /// off.
  explicit Player(const StreamView& stream, size_t key_cache_bytes = kDefaultKeyCacheBytes);

  /// Local pose (one Transform per bone) at `t_seconds`: clamped to the clip,
  /// or wrapped into it when looping. A time within 1e-4 frames of a frame is
  /// that frame, so sampling at f / rate reproduces frame f exactly. With
  /// `scalar_values` (scalar_value_count() floats), the scalar tracks too:
  /// each track's components in turn, in track order (scalar_value_offset).
  /// An additive stream gives the additive pose: compose it with
  /// apply_additive (additive.h).
  void sample(float t_seconds, std::span<Transform> local_pose, std::span<float> scalar_values);
  void sample(float t_seconds, std::span<Transform> local_pose);
  /// Local pose at frame time `frame_time` (frames, fractional), clamped to
  /// 0..last frame.
  void sample_frame(float frame_time, std::span<Transform> local_pose, std::span<float> scalar_values);
  void sample_frame(float frame_time, std::span<Transform> local_pose);
  /// The scalar tracks alone (an engine reading curves only): the same
  /// values sample() gives, without evaluating a bone. The key walk is the
  /// same (bones and curves share one stream sorted by need), the
  /// evaluation only the blocks of scalar lanes.
  void sample_scalars(float t_seconds, std::span<float> scalar_values);
  void sample_frame_scalars(float frame_time, std::span<float> scalar_values);
  /// Floats of every scalar track's value: the sum of their components.
  uint32_t scalar_value_count() const { return m_scalar_value_count; }
  /// Where scalar track `s`'s components start among the scalar values.
  uint32_t scalar_value_offset(uint32_t s) const { return m_scalar_offsets[s]; }
  /// Brings the active array to `frame_time` without evaluating a pose.
  void seek_frame(float frame_time);

  /// The engine's rest pose (its skeleton's, one local transform per bone)
  /// for the stream's rest tracks (TrackCoding::kRest), in place of the
  /// copy in the stream's metadata; no other track changes. Returns false,
  /// changing nothing, for a pose of another bone count.
  bool set_rest_pose(std::span<const Transform> rest_pose);

  void set_looping(bool looping) { m_looping = looping; }
  bool looping() const { return m_looping; }

  /// The frame time `t_seconds` maps to (clamped or wrapped, snapped to frames).
  float frame_time_at(float t_seconds) const;

  const PlayerCounters& counters() const { return m_counters; }
  void reset_counters() { m_counters = {}; }
  /// Animated tracks: the lanes of the active array.
  uint32_t lane_count() const { return static_cast<uint32_t>(m_lanes.tracks.size()); }
  /// Keys of the key stream read so far, over every track (the cursor).
  uint32_t cursor_key_index() const { return m_cursor_key_index; }
  /// First frame the active array is valid for: every key read is due at or
  /// before it, so sampling any later frame only reads forward (no seek back).
  /// A PlayerPool hands out players by it.
  uint32_t valid_from_frame() const { return m_last_need; }
  const StreamView& stream() const { return *m_stream; }

  /// Bytes the player owns: its lanes, cursors and constant pose, its key
  /// cache (key_cache_bytes()) or, for a zstd stream it reads, the
  /// decompressed key stream.
  size_t memory_bytes() const;
  /// Whether seeks and play set the lanes from the key cache (the key
  /// stream is not read after the player is made).
  bool caches_keys() const { return m_key_cache != nullptr; }
  /// Bytes of the key cache (copies of the player share it; each counts it
  /// in its memory_bytes()).
  size_t key_cache_bytes() const { return m_key_cache ? sizeof(KeyCache) + m_key_cache->memory_bytes() : 0; }
  /// Whether this player and `other` share one key cache (one is a copy of
  /// the other, or of a player they both copy).
  bool shares_key_cache_with(const Player& other) const {
    return m_key_cache != nullptr && m_key_cache == other.m_key_cache;
  }

 private:
  void set_up_lanes(const std::vector<uint32_t>& tracks);
  void reset_lanes(int64_t frame, bool from_jump_state);
  uint32_t advance_lanes(uint32_t frame, uint32_t shifted_rounds);
  void read_keys(uint32_t block, uint32_t due);
  void refill(SegmentLanes& lanes, const uint32_t (&counts)[kLanesPerBlock]);
  uint32_t play_lanes(uint32_t frame, uint32_t shifted_rounds);
  uint32_t play_events(uint32_t events, uint32_t frame, uint32_t shifted_rounds);
  uint32_t read_staged(uint32_t b, uint32_t frame, uint32_t shifted_rounds, uint32_t due);
  uint32_t read_staged_rounds(uint32_t b, uint32_t frame, uint32_t shifted_rounds, uint32_t more);
  uint32_t read_through_ring(uint32_t b, uint32_t frame, uint32_t first_round, uint32_t (&counts)[kLanesPerBlock]);
  uint32_t read_into_ring(uint32_t block, uint32_t round, int64_t frame, const uint32_t (&forced)[kWindowSize]);
  void note_needs(const LaneCursors& c, uint32_t due);
  void note_window_needs(const SegmentLanes& lanes, uint32_t read);
  void set_up_saved_windows();
  void find_final_pending();
  void keep_start();
  void back_to_start();
  void take_final_segments(uint32_t frame);
  void seek_cached(uint32_t frame);

  // Back to frame 0, or to jump frame `jump_index`, and on to `frame`.
  static constexpr int64_t kBeforeClip = -1;
  // Rounds of keys a block shifts in one by one before it reads on into the
  // ring: in play (a sample at most kPlayFrameStep frames after the last
  // one), where a lane mostly reads one key and sometimes two or three; and
  // none in a seek, where it reads a window's worth or more, which the ring
  // dequantizes once (staging the first key, then moving it to the ring,
  // cost the small clips' seeks 3-6% more with the AVX-512 refills).
  static constexpr uint32_t kPlayShiftedRounds = 3;
  static constexpr uint32_t kSeekShiftedRounds = 0;
  void restart(int64_t frame);
  void restore(uint32_t jump_index, uint32_t frame);
  void advance_to(uint32_t frame, uint32_t shifted_rounds = kPlayShiftedRounds);
  // The pose alone, or with the scalar values (when given: not empty).
  void evaluate(float frame_time, std::span<Transform> local_pose);
  void evaluate(float frame_time, std::span<Transform> local_pose, std::span<float> scalar_values);
  void evaluate_scalars(float frame_time, std::span<float> scalar_values);
  // The slots the lanes wrote, to each track's components in `scalar_values`.
  void copy_scalar_values(std::span<float> scalar_values) const;
  float clamp_frame_time(float frame_time) const;
  // The plain key stream and the bytes after it a 64-bit load may read.
  std::span<const uint8_t> key_stream() const;
  // The jump states and the bytes after them a 32-bit load may read.
  std::span<const uint8_t> jump_state_bytes() const;
  static constexpr size_t kKeyLoadSlackBytes = 8;

  const StreamView* m_stream;
  LaneGroup m_lanes;  // every animated track, rotations and vec3s side by side
  KeyRing m_ring{};  // the keys one block reads in one go (a seek, a restore): its windows refill from it
  std::vector<Transform> m_constant_pose;   // every bone, constant tracks filled in
  // Four floats per scalar track, as the lanes write them (constant tracks
  // filled in), and where each track's components go in the caller's array.
  std::vector<float> m_scalar_slots;
  std::vector<uint32_t> m_scalar_offsets;
  uint32_t m_scalar_value_count = 0;
  uint32_t m_first_scalar_block = 0;  // scalar lanes come last: the blocks from here hold them all
  std::vector<uint8_t> m_plain_key_stream;  // a zstd stream's key stream, decompressed once
  // The state a restore reads (its first bit in the jump states) and its jump frame.
  uint64_t m_restore_state_bit = 0;
  uint32_t m_restore_frame = 0;
  uint32_t m_cursor_key_index = 0;
  uint32_t m_last_need = 0;          // need frame of the last key read: the state is valid from here on
  uint32_t m_last_frame = 0;         // the frame seek_frame brought the state to last
  uint32_t m_restore_cost_keys = 0;  // keys a restore reads, to decide when seeking ahead pays
  PlayerCounters m_start_counters;   // what restart(kBeforeClip) counts
  // A small clip's keys, decoded once (null without): immutable, so copies
  // of the player (a PlayerPool's) share it.
  std::shared_ptr<const KeyCache> m_key_cache;
  bool m_looping = false;
  PlayerCounters m_counters;

  friend Status check_jump_frames(const StreamView& stream);
};

/// Replays `stream` forward and checks that every jump frame restores exactly
/// the state forward play reaches (StreamView::open calls it for
/// StreamCheck::kFull).
Status check_jump_frames(const StreamView& stream);

}  // namespace ks
