#pragma once
// PlayerPool: Players of one stream shared by every character playing that
// clip (the x42 "shared caches"). A Player's state only reads forward cheaply,
// so the pool hands out the player whose state is closest at or before the
// wanted time. Characters at the same time then read each key once, and a
// character whose clip just looped picks up a player left near the loop start
// instead of restarting. Every player is constructed with the pool; handing
// them out allocates nothing.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "keystream/runtime/player.h"
#include "keystream/runtime/stream_view.h"

namespace ks {

class PlayerPool {
 public:
  /// `capacity` (at least 1) players at frame 0 of `stream`, which must
  /// outlive the pool, sharing one key cache of at most `key_cache_bytes`
  /// (Player's constructor).
  PlayerPool(const StreamView& stream, uint32_t capacity, size_t key_cache_bytes = Player::kDefaultKeyCacheBytes);

  /// Player::set_rest_pose on every player of the pool.
  bool set_rest_pose(std::span<const Transform> rest_pose);

  /// The player to sample at `frame_time` (frames, clamped to 0..last frame
  /// as Player::sample_frame clamps it): of the players valid from a frame at
  /// or before it, the one that read the most keys (fewest left to read; a
  /// player never handed out sits at frame 0 and always qualifies); when every
  /// player is ahead, the least recently handed out, whose own seek then
  /// restores a jump frame or restarts. The player stays in the pool: call its
  /// sample_frame(frame_time, pose) before acquiring again, since the next
  /// acquire may hand the same player to another character.
  Player& acquire(float frame_time);

  /// Counters summed over the players handed out so far. A player's counters
  /// start with its construction (the initial keys, what a restart reads), so
  /// a player counts them when first handed out; a player never handed out
  /// played nothing. reset_counters() zeroes every player's.
  PlayerCounters counters() const;
  void reset_counters();

  uint32_t capacity() const { return static_cast<uint32_t>(m_players.size()); }
  /// Players handed out at least once.
  uint32_t players_used() const { return m_players_used; }
  const StreamView& stream() const { return *m_stream; }

  /// Bytes the pool owns: the Player objects, what each owns
  /// (Player::memory_bytes(), their shared key cache once) and the hand-out
  /// record.
  size_t memory_bytes() const;

 private:
  const StreamView* m_stream;
  std::vector<Player> m_players;
  std::vector<uint64_t> m_handed_out_at;  // per player, the hand-out count when last handed out; 0 = never
  uint64_t m_hand_outs = 0;
  uint32_t m_players_used = 0;
};

}  // namespace ks
