#pragma once
// A small clip's keys, decoded once (DESIGN §8): a player that holds them
// never reads its key stream again. Its seeks set each lane straight from
// them instead of restarting or restoring a jump frame and reading on (on
// the small shared clips a seek's fixed steps, a restart or restore,
// reading through the ring and a refill, cost more than the baseline's
// binary search: robot's seek at auto took 1.01 of the baseline's time
// reading the stream, 0.39 with the cache), and its play stages each key
// due as its value, with no bits to read and nothing to dequantize
// (robot's play 0.23 of the baseline's time reading the stream, 0.19 from
// the cache; docs/benchmarks.md). The cache holds 20 bytes a key and 2 per
// track and frame, so it is kept for clips whose cache fits a limit
// (Player::kDefaultKeyCacheBytes).
// The lanes' cursors then keep only their counts (keys_read, keys_left and
// need: what lanes_due and lanes_finished look at); their place in the
// stream (bit, codes, segment) stays as the player was made.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "keystream/runtime/lane_group.h"
#include "keystream/runtime/stream_view.h"

namespace ks {

class KeyCache {
 public:
  /// Bytes the cache takes per key, and per lane and frame (the count of
  /// the lane's keys at or before each frame: a seek's lookup).
  static constexpr size_t kBytesPerKey = 20;
  static constexpr size_t kBytesPerLaneFrame = 2;
  /// What `stream`'s cache takes: its animated keys and, per animated track,
  /// its frames.
  static size_t bytes_for(const StreamView& stream) {
    return bytes_for(stream.total_key_count(), stream.animated_track_count(), stream.frame_count());
  }
  /// The same from the counts (a packer's, before there is a stream).
  static constexpr size_t bytes_for(uint32_t total_key_count, uint32_t animated_track_count, uint32_t frame_count) {
    return size_t{total_key_count} * kBytesPerKey + size_t{animated_track_count} * frame_count * kBytesPerLaneFrame;
  }

  /// Decodes every key of every lane of `lanes` (as they stand before frame
  /// 0, LaneGroup::start) from `key_stream` (the plain key stream) when they
  /// fit in `max_bytes`; else the cache stays empty. Keys 0..2 come from the
  /// lanes' initial keys, the others are read by the lane readers, so their
  /// values are those play reading the stream puts in the windows.
  void fill(const LaneGroup& lanes, const StreamView& stream, std::span<const uint8_t> key_stream, size_t max_bytes);
  bool empty() const { return m_first.empty(); }
  size_t memory_bytes() const {
    return m_keys.capacity() * sizeof(Key) + m_first.capacity() * sizeof(uint32_t) +
           m_keys_by_frame.capacity() * sizeof(uint16_t);
  }

  /// What a seek leaves to the player.
  struct Seek {
    uint32_t stream_keys = 0;  // stream keys read by the frame, over every lane
    uint32_t last_need = 0;    // the latest need of those keys: the lanes are valid from there on
  };
  /// Sets every lane of `lanes` as forward play leaves it at `frame`, but
  /// for the final segments play has taken (the caller takes them: they
  /// wait in no list here). A lane has read every key whose need (the frame
  /// of the key two before it) is at or before `frame`, and at least keys
  /// 0..2; its window is the last four of them (copies of key 0 in front,
  /// as a restart leaves it), its cursor's counts follow, and the blocks
  /// that changed are stale.
  Seek seek(LaneGroup& lanes, uint32_t frame) const;

  /// What a play step leaves to the player.
  struct Play {
    uint32_t keys = 0;       // keys the lanes took
    uint32_t last_need = 0;  // the latest need of those keys (0: none)
  };
  /// Play on to `frame` (at or after the lanes' frame): every lane due
  /// (lanes_due) takes the keys whose need is at or before `frame`.
  Play play(LaneGroup& lanes, uint32_t frame) const;

 private:
  struct Key {
    float value[4];  // dequantized, negated keys negated: a window's value
    int32_t frame;   // as a cursor holds it (a window holds it as a float)
  };
  static_assert(sizeof(Key) == kBytesPerKey);

  static void set_lane(SegmentLanes& block, LaneCursors& c, uint32_t l, const Key* keys, uint32_t count, uint32_t read);
  uint32_t take_window(LaneGroup& lanes, uint32_t lane, int64_t now, int32_t& latest_need) const;

  // Every key of each lane in key order, the lanes one after another: lane
  // l's from m_first[l] (lanes + 1 entries).
  std::vector<Key> m_keys;
  std::vector<uint32_t> m_first;
  // Per lane, per frame 0..frames-1: how many of its keys are at or before
  // the frame (lane l's row from l * m_frames). A binary search of the
  // frames instead took the demo's seeks more time than reading the stream:
  // its guesses miss half the time, for each of 40 lanes.
  std::vector<uint16_t> m_keys_by_frame;
  uint32_t m_frames = 0;
};

}  // namespace ks
