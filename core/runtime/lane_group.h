#pragma once
// The player's active array and read state (DESIGN §8), as one value: every
// animated track's lane (segment_lanes.h) and cursor (lane_reader.h), each
// lane's track, keys 0..2 and place among the jump states' saved windows,
// and what restarts copy back. The Player owns one (player.h); the key
// cache (key_cache.h) sets it, and check_jump_frames compares two.

#include <cstdint>
#include <vector>

#include "keystream/runtime/lane_reader.h"
#include "keystream/runtime/saved_window_reader.h"
#include "keystream/runtime/segment_lanes.h"
#include "keystream/runtime/stream_format.h"

namespace ks {

/// One key as the stream codes it.
struct CodedKey {
  int32_t codes[4] = {};
  uint32_t frame = 0;
  bool negated = false;
};

/// A track's keys 0..2 (those needed at frame 0), kept to rebuild windows
/// that still hold one after a restart or an early jump frame.
struct InitialKeys {
  CodedKey keys[kInitialKeysPerTrack];
  uint32_t count = 0;  // keys the track has among 0..2
};

/// Which of a track's keys is at place `position` (0..3) of the window of a
/// lane that has read its keys 0..keys_read-1: the last four of them, with
/// copies of key 0 in front while it has read fewer than four (as a restart
/// leaves a window, and as play moves it on).
constexpr uint32_t window_key(uint32_t keys_read, uint32_t position) {
  const int32_t k = static_cast<int32_t>(keys_read + position) - static_cast<int32_t>(kKeysPerLane);
  return k > 0 ? static_cast<uint32_t>(k) : 0u;
}

/// A list of lanes with room for every lane reserved when the player is
/// made. Copies keep that room (a std::vector's copy has only as much as it
/// holds), so a copied player samples without allocating too.
class LaneList : public std::vector<uint32_t> {
 public:
  LaneList() = default;
  LaneList(const LaneList& other) : std::vector<uint32_t>() { *this = other; }
  LaneList& operator=(const LaneList& other) {
    if (this != &other) {
      reserve(other.capacity());
      assign(other.begin(), other.end());
    }
    return *this;
  }
  LaneList(LaneList&&) noexcept = default;
  LaneList& operator=(LaneList&&) noexcept = default;
  ~LaneList() = default;
};

/// The lanes of the animated tracks, rotations and vec3s side by side.
struct LaneGroup {
  /// The lanes and cursors as restart() leaves them before frame 0 (taken
  /// when the player is made): a seek that restarts copies them back and
  /// reads on, instead of setting every window up from its initial keys.
  struct Start {
    std::vector<SegmentLanes> blocks;
    std::vector<LaneCursors> cursors;
    LaneList final_pending;
  };

  std::vector<SegmentLanes> blocks;
  std::vector<LaneCursors> cursors;  // one per block
  std::vector<uint32_t> tracks;      // the track of each lane
  std::vector<InitialKeys> initial;  // each lane's keys 0..2
  std::vector<int32_t> streamed;     // each lane's place among the streamed tracks (jump states), or -1
  // Lanes whose track has no key left to read and whose window has not
  // moved on to its final segment yet (take_final_segments).
  LaneList final_pending;
  // Per block, where its lanes' saved windows are in a jump state (empty
  // without jump frames).
  std::vector<SavedWindowLanes> saved_windows;
  // What each play step leaves to the player, a block at most once (read_play_step).
  std::vector<PlayStepBlock> play_events;
  // Play reads nothing before this frame (PlayStep::next_due); 0 after
  // anything but a play step moved the cursors.
  uint32_t next_due = 0;
  Start start;
};

}  // namespace ks
