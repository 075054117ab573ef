#include "keystream/runtime/player_pool.h"

#include <cassert>

namespace ks {

PlayerPool::PlayerPool(const StreamView& stream, uint32_t capacity, size_t key_cache_bytes) : m_stream(&stream) {
  assert(capacity > 0);
  // acquire() always returns a player: an empty pool would have none to give.
  const uint32_t count = capacity > 0 ? capacity : 1;
  m_players.reserve(count);
  // The first made, the others copies of it: they share its key cache (and
  // keep the room it reserved, LaneList), so a clip's keys are decoded once.
  m_players.emplace_back(stream, key_cache_bytes);
  for (uint32_t i = 1; i < count; ++i) m_players.push_back(m_players.front());
  m_handed_out_at.assign(count, 0);
}

Player& PlayerPool::acquire(float frame_time) {
  const float last = static_cast<float>(m_stream->last_frame());
  if (!(frame_time > 0.f)) frame_time = 0.f;  // also maps NaN to frame 0
  if (frame_time > last) frame_time = last;
  const uint32_t frame = static_cast<uint32_t>(frame_time);

  // Ties go to the lowest index, so players already handed out are preferred
  // to fresh ones at the same state and the players used stay few.
  size_t closest = m_players.size();
  size_t least_recent = 0;
  for (size_t i = 0; i < m_players.size(); ++i) {
    const Player& player = m_players[i];
    if (player.valid_from_frame() <= frame &&
        (closest == m_players.size() || player.cursor_key_index() > m_players[closest].cursor_key_index())) {
      closest = i;
    }
    if (m_handed_out_at[i] < m_handed_out_at[least_recent]) least_recent = i;
  }
  const size_t chosen = closest < m_players.size() ? closest : least_recent;
  if (m_handed_out_at[chosen] == 0) ++m_players_used;
  m_handed_out_at[chosen] = ++m_hand_outs;
  return m_players[chosen];
}

PlayerCounters PlayerPool::counters() const {
  PlayerCounters sum;
  for (size_t i = 0; i < m_players.size(); ++i) {
    if (m_handed_out_at[i] == 0) continue;
    const PlayerCounters& c = m_players[i].counters();
    sum.keys_read += c.keys_read;
    sum.window_updates += c.window_updates;
    sum.jump_frames_used += c.jump_frames_used;
    sum.restarts += c.restarts;
    sum.keys_skipped += c.keys_skipped;
    sum.blocks_decompressed += c.blocks_decompressed;
  }
  return sum;
}

bool PlayerPool::set_rest_pose(std::span<const Transform> rest_pose) {
  if (rest_pose.size() != m_stream->bone_count()) return false;
  for (Player& player : m_players) player.set_rest_pose(rest_pose);
  return true;
}

void PlayerPool::reset_counters() {
  for (Player& player : m_players) player.reset_counters();
}

size_t PlayerPool::memory_bytes() const {
  size_t bytes = m_players.capacity() * sizeof(Player) + m_handed_out_at.capacity() * sizeof(uint64_t);
  // The players share one key cache: counted once.
  for (const Player& player : m_players) bytes += player.memory_bytes() - player.key_cache_bytes();
  return bytes + m_players.front().key_cache_bytes();
}

}  // namespace ks
