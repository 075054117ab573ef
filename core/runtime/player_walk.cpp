// The player's walk through its keys (DESIGN §8): play reading the keys
// due, seeks restarting, restoring a jump frame or setting the lanes from
// the key cache, and the final segments. player.cpp makes the player and
// evaluates.

#include <algorithm>
#include <bit>
#include <cstdint>

#include "keystream/runtime/player.h"

namespace ks {

namespace {

// A lane's key frame (a float) as a frame number. A forged stream can
// give a lane a negative frame, whose conversion to unsigned would be
// undefined: 0.
uint32_t frame_number(float frame) {
  return frame > 0.f ? static_cast<uint32_t>(std::min(frame, 4294967040.f)) : 0u;
}

// Puts `key` in lane `l` of a ring slot, as a lane reader would read it.
void put_key(LaneArrivals& slot, uint32_t l, const CodedKey& key) {
  for (int c = 0; c < 4; ++c) slot.code[c][l] = static_cast<float>(key.codes[c]);
  slot.frame[l] = static_cast<float>(key.frame);
  slot.sign[l] = key.negated ? -1.f : 1.f;
  slot.arrived[l] = 1.f;
}

// Points lane `l` of block `c` at its track's newest key `newest` (read as
// key keys_read - 1). Returns whether the track has a key after it: the
// caller then places the cursor there (place_lane_cursors, a block's lanes
// at once).
bool set_cursor(LaneCursors& c, uint32_t l, const StreamTrack& track, uint32_t keys_read, const CodedKey& newest,
                uint32_t need) {
  c.keys_read[l] = keys_read;
  c.keys_left[l] = static_cast<int32_t>(track.key_count - keys_read);
  for (int i = 0; i < 4; ++i) c.codes[i][l] = newest.codes[i];
  c.frame[l] = static_cast<int32_t>(newest.frame);
  c.need[l] = static_cast<int32_t>(need);
  c.frame_delta_min[l] = track.key_coding.frame_delta_min;
  return keys_read < track.key_count;
}

}  // namespace

// A seek through the key cache (KeyCache::seek), then the final segments
// play would have taken by `frame`.
void Player::seek_cached(uint32_t frame) {
  const KeyCache::Seek seek = m_key_cache->seek(m_lanes, frame);
  m_cursor_key_index = seek.stream_keys;
  m_last_need = seek.last_need;
  m_lanes.next_due = 0;
  find_final_pending();
  take_final_segments(frame);
  ++m_counters.cached_seeks;
}

// After a restart or a restore: every lane whose track has no key left
// waits for its final segment.
void Player::find_final_pending() {
  m_lanes.final_pending.clear();
  const uint32_t lanes = static_cast<uint32_t>(m_lanes.tracks.size());
  for (uint32_t b = 0; b < m_lanes.cursors.size(); ++b) {
    const uint32_t first = b * kLanesPerBlock;
    // Padding lanes (past the last track) have no key left either.
    const uint32_t tracked = lanes - first >= kLanesPerBlock ? 0xFFu : (1u << (lanes - first)) - 1u;
    for (uint32_t done = lanes_finished(m_lanes.cursors[b]) & tracked; done != 0; done &= done - 1) {
      m_lanes.final_pending.push_back(first + static_cast<uint32_t>(std::countr_zero(done)));
    }
  }
}

// Each lane of `final_pending` that play has brought to the third key of
// its window (frame >= its frame) shifts in a copy of its last key, once:
// its window (k1, k2, k3, k3) then makes segment_coefficients of the final
// segment, k2 to k3 with k3 as its own outer neighbour (a track may end on
// two keys at one frame: the value is then k3's). Its block is built at
// the next evaluation.
// The copy is needed from k2's frame on, like a key read there, so the
// state is then valid from that frame on.
void Player::take_final_segments(uint32_t frame) {
  const std::span<SegmentLanes> blocks(m_lanes.blocks);
  const float now = static_cast<float>(frame);
  size_t kept = 0;
  for (const uint32_t lane : m_lanes.final_pending) {
    SegmentLanes& block = blocks[lane / kLanesPerBlock];
    // The lane's window as play left it: with the key it may have just
    // read (staged) shifted in.
    if (block.arrivals.any) shift_in_staged_keys(block);
    const float third = block.key_frame[2][lane % kLanesPerBlock];
    if (!(now >= third)) {
      m_lanes.final_pending[kept++] = lane;
      continue;
    }
    shift_lane_keys(blocks, lane, 1);
    block.stale = true;
    m_last_need = std::max(m_last_need, frame_number(third));
    ++m_counters.window_updates;
  }
  m_lanes.final_pending.resize(kept);
}

void Player::restart(int64_t frame) {
  m_cursor_key_index = 0;
  m_last_need = 0;
  back_to_start();
  m_counters.keys_read += m_start_counters.keys_read;
  m_counters.keys_dequantized += m_start_counters.keys_dequantized;
  m_counters.window_updates += m_start_counters.window_updates;
  if (frame >= 0) advance_to(static_cast<uint32_t>(frame), kSeekShiftedRounds);
}

// read_lane_keys for block `block` (its arrivals must be empty).
void Player::read_keys(uint32_t block, uint32_t due) {
  const StreamView& s = *m_stream;
  read_lane_keys(m_lanes.blocks[block], m_lanes.cursors[block], due, key_stream(), s.segments());
}

// The state is valid from the latest need of a key read on: that of the
// next keys of lanes `due` of `c`, about to be read.
void Player::note_needs(const LaneCursors& c, uint32_t due) {
  const uint32_t need = latest_need(c, due);
  m_last_need = need > m_last_need ? need : m_last_need;
}

// note_needs for the lanes `read` of a block after their windows are
// refilled: the need of a lane's newest key is its second key's frame (a
// key is needed from the frame of the key two before it).
void Player::note_window_needs(const SegmentLanes& lanes, uint32_t read) {
  float latest = 0.f;  // frame_number keeps to the frames: one conversion for the block
  for (uint32_t bits = read; bits != 0; bits &= bits - 1) {
    const float frame = lanes.key_frame[1][std::countr_zero(bits)];
    latest = frame > latest ? frame : latest;
  }
  const uint32_t need = frame_number(latest);
  m_last_need = need > m_last_need ? need : m_last_need;
}

// Reads every key of the lanes needed at or before `frame`; returns how many.
// In play (`shifted_rounds` >= 1), a block's first `shifted_rounds` keys
// per lane are staged and shifted in one at a time (play_lanes; play at
// the clip's rate reads one) and the keys after those go to the ring; a
// seek (none) reads every key through the ring, and only the last four a
// lane reads are dequantized (read_through_ring).
uint32_t Player::advance_lanes(uint32_t frame, uint32_t shifted_rounds) {
  if (shifted_rounds != 0) return play_lanes(frame, shifted_rounds);
  m_lanes.next_due = 0;
  uint32_t keys = 0;
  for (uint32_t b = 0; b < m_lanes.blocks.size(); ++b) {
    LaneCursors& c = m_lanes.cursors[b];
    SegmentLanes& lanes = m_lanes.blocks[b];
    const uint32_t due = lanes_due(c, frame);
    if (due == 0) continue;
    const uint32_t finished_before = lanes_finished(c);
    if (lanes.arrivals.any) shift_in_staged_keys(lanes);
    // Every key through the ring, the first of each lane's in slot 0.
    uint32_t counts[kLanesPerBlock];
    for (uint32_t l = 0; l < kLanesPerBlock; ++l) counts[l] = c.keys_read[l];
    keys += read_through_ring(b, frame, 0, counts);
    // Built at the next evaluation, fused with it (build_and_evaluate_lanes).
    lanes.stale = true;
    // Lanes that read their track's last key wait for its final segment.
    for (uint32_t done = lanes_finished(c) & ~finished_before; done != 0; done &= done - 1) {
      m_lanes.final_pending.push_back(b * kLanesPerBlock + static_cast<uint32_t>(std::countr_zero(done)));
    }
  }
  if (!m_lanes.final_pending.empty()) take_final_segments(frame);
  m_counters.keys_read += keys;
  return keys;
}

// advance_lanes in play: each lane's first key due staged by one
// read_play_step over the blocks (none before the lanes' next_due: a small
// clip's lanes read a key every few frames), then what it left
// (play_events).
uint32_t Player::play_lanes(uint32_t frame, uint32_t shifted_rounds) {
  uint32_t keys = 0;
  if (frame >= m_lanes.next_due) {
    const StreamView& s = *m_stream;
    const PlayStep step =
        read_play_step(std::span<SegmentLanes>(m_lanes.blocks), std::span<LaneCursors>(m_lanes.cursors), frame,
                       key_stream(), s.segments(), m_lanes.play_events.data());
    m_last_need = std::max(m_last_need, step.latest_need);
    m_counters.keys_dequantized += step.keys;
    m_counters.window_updates += step.keys;
    // Events change the needs the step saw.
    m_lanes.next_due = step.events == 0 ? step.next_due : 0;
    keys = step.keys + play_events(step.events, frame, shifted_rounds);
  }
  if (!m_lanes.final_pending.empty()) take_final_segments(frame);
  m_counters.keys_read += keys;
  return keys;
}

// For the first `events` blocks read_play_step named: layouts for the
// segments opened, the keys it left (read_staged for lanes it declined,
// read_staged_rounds for lanes due again), and the lanes that finished.
// Returns the keys read.
uint32_t Player::play_events(uint32_t events, uint32_t frame, uint32_t shifted_rounds) {
  const StreamView& s = *m_stream;
  uint32_t keys = 0;
  for (uint32_t e = 0; e < events; ++e) {
    const PlayStepBlock& event = m_lanes.play_events[e];
    const uint32_t b = event.block;
    LaneCursors& c = m_lanes.cursors[b];
    SegmentLanes& lanes = m_lanes.blocks[b];
    if (event.declined != 0) {
      if (lanes.arrivals.any) shift_in_staged_keys(lanes);
      keys += read_staged(b, frame, shifted_rounds, event.declined);
      lanes.stale = true;
    } else {
      if (event.opened != 0) load_lane_layouts(c, event.opened, s.segments());
      if (event.more != 0) keys += read_staged_rounds(b, frame, shifted_rounds, event.more);
    }
    for (uint32_t done = lanes_finished(c) & ~event.finished_before; done != 0; done &= done - 1) {
      m_lanes.final_pending.push_back(b * kLanesPerBlock + static_cast<uint32_t>(std::countr_zero(done)));
    }
  }
  return keys;
}

// The first `shifted_rounds` (>= 1) keys of the lanes `due` of block `b`,
// staged and shifted in one at a time; a lane that needs more takes the
// rest through the ring. Returns the keys read. Play reads a block this
// way when read_play_step declines it.
uint32_t Player::read_staged(uint32_t b, uint32_t frame, uint32_t shifted_rounds, uint32_t due) {
  LaneCursors& c = m_lanes.cursors[b];
  note_needs(c, due);
  read_keys(b, due);
  const uint32_t keys = count_lanes(due);
  m_counters.keys_dequantized += keys;
  m_counters.window_updates += keys;
  return keys + read_staged_rounds(b, frame, shifted_rounds, lanes_due(c, frame));
}

// read_staged after each lane's first key: the lanes `more` of block `b`
// due again read rounds 2..`shifted_rounds` staged, and a lane that needs
// more than that takes the rest through the ring. Returns the keys read.
uint32_t Player::read_staged_rounds(uint32_t b, uint32_t frame, uint32_t shifted_rounds, uint32_t more) {
  LaneCursors& c = m_lanes.cursors[b];
  SegmentLanes& lanes = m_lanes.blocks[b];
  uint32_t keys = 0;
  // A few keys per lane are shifted in one at a time: a refill
  // dequantizes four keys per lane.
  for (uint32_t round = 1; round < shifted_rounds && more != 0; ++round) {
    note_needs(c, more);
    shift_in_staged_keys(lanes);
    read_keys(b, more);
    keys += count_lanes(more);
    more = lanes_due(c, frame);
  }
  m_counters.keys_dequantized += keys;
  m_counters.window_updates += keys;
  if (more != 0) {
    // More: the keys just staged move to ring slot 0, the first of each
    // lane's there; counts[l] starts as the keys lane l had read before them.
    uint32_t counts[kLanesPerBlock];
    uint32_t staged = 0;
    for (uint32_t l = 0; l < kLanesPerBlock; ++l) {
      const uint32_t took = lanes.arrivals.arrived[l] > 0.f ? 1u : 0u;
      counts[l] = c.keys_read[l] - took;
      staged += took;
    }
    m_ring.slot[0] = lanes.arrivals;
    clear_arrivals(lanes.arrivals);
    // The staged keys were counted as dequantized and shifted in; refill counts its own.
    m_counters.keys_dequantized -= staged;
    m_counters.window_updates -= staged;
    keys += read_through_ring(b, frame, 1, counts) - staged;
  }
  return keys;
}

// Reads the keys the lanes of block `b` need at or before `frame` into the
// ring from round `first_round` (1 when ring slot 0 holds each lane's first
// key already), and refills their windows from it. `counts[l]` holds the
// keys lane l had read before its first in the ring. Returns the keys read
// from there on.
uint32_t Player::read_through_ring(uint32_t b, uint32_t frame, uint32_t first_round,
                                   uint32_t (&counts)[kLanesPerBlock]) {
  static constexpr uint32_t kNoneForced[kWindowSize] = {};
  const LaneCursors& c = m_lanes.cursors[b];
  const uint32_t in_ring = read_into_ring(b, first_round, frame, kNoneForced);
  uint32_t total = 0;
  for (uint32_t l = 0; l < kLanesPerBlock; ++l) {
    counts[l] = c.keys_read[l] - counts[l];
    total += counts[l];
  }
  refill(m_lanes.blocks[b], counts);
  note_window_needs(m_lanes.blocks[b], in_ring);
  return total;
}

// refill_windows from the ring, counted: a window per lane that read keys,
// and the (at most four) keys it dequantized.
void Player::refill(SegmentLanes& lanes, const uint32_t (&counts)[kLanesPerBlock]) {
  refill_windows(lanes, m_ring, counts);
  for (const uint32_t n : counts) {
    m_counters.window_updates += n != 0 ? 1 : 0;
    m_counters.keys_dequantized += std::min(n, kWindowSize);
  }
}

// read_lane_rounds for block `block`, from round `round`.
uint32_t Player::read_into_ring(uint32_t block, uint32_t round, int64_t frame, const uint32_t (&forced)[kWindowSize]) {
  const StreamView& s = *m_stream;
  return read_lane_rounds(m_ring, m_lanes.cursors[block], round, forced, frame, key_stream(), s.segments());
}

void Player::advance_to(uint32_t frame, uint32_t shifted_rounds) {
  m_cursor_key_index += advance_lanes(frame, shifted_rounds);
}

// Every lane's window and cursor anew, then on to `frame` (kBeforeClip:
// nowhere, no key is due before frame 0), each block's keys through the
// ring: only the last four keys of each window are dequantized, once. A
// lane starts from its keys 0..2 (the restart window) or, restoring a jump
// state (`from_jump_state`) where its track had read kRestoreFromRunKeys
// keys or more, from the saved oldest key of its window.
// It then reads again the keys forward play had read by the jump frame (the
// three after the oldest, or those after key 2), and on, as play would,
// the keys needed at or before `frame`.
void Player::reset_lanes(int64_t frame, bool from_jump_state) {
  const StreamView& s = *m_stream;
  m_lanes.next_due = 0;
  for (uint32_t b = 0; b < m_lanes.blocks.size(); ++b) {
    SegmentLanes& lanes = m_lanes.blocks[b];
    LaneCursors& c = m_lanes.cursors[b];
    const uint32_t first = b * kLanesPerBlock;
    const uint32_t end = std::min<uint32_t>(first + kLanesPerBlock, static_cast<uint32_t>(m_lanes.tracks.size()));
    // Each lane's keys go to ring slot (i % 4) for the i-th of its
    // sequence: the saved oldest key first, or (one place on, so that the
    // keys read land where the copies they push out were) the restart
    // window after a place left empty. `counts` ends as each sequence's
    // length: the keys put here, plus those read.
    // Padding lanes take a window of zero keys, as clear_lanes left them, so
    // that no lane of a block keeps a key of its own (refill_windows then
    // looks at none).
    uint32_t counts[kLanesPerBlock] = {kWindowSize, kWindowSize, kWindowSize, kWindowSize,
                                       kWindowSize, kWindowSize, kWindowSize, kWindowSize};
    // Lanes that read a key again (one forward play had read by the jump
    // frame), per round 1..3, and how many keys that is.
    uint32_t forced[kWindowSize] = {};
    uint32_t total_reread = 0;
    // Lanes with keys left: their cursors are placed at their next key
    // (segment start and layout) once the block's lanes are set.
    uint32_t placed = 0;
    const auto read_again = [&](uint32_t lane, uint32_t keys) {
      keys = std::min(keys, kWindowSize - 1);
      for (uint32_t round = 1; round <= keys; ++round) forced[round] |= 1u << lane;
      total_reread += keys;
    };
    // Lanes whose jump state saves their window's oldest key: it goes to
    // ring slot 0 and their cursors to the key after it, and they read
    // again the three keys after it.
    uint32_t saved_keys_read[kLanesPerBlock] = {};
    uint32_t saved = 0;
    if (from_jump_state) {
      saved = read_saved_windows(m_lanes.saved_windows[b], jump_state_bytes(), m_restore_state_bit, m_restore_frame, c,
                                 m_ring.slot[0], saved_keys_read);
      for (uint32_t round = 1; round < kWindowSize; ++round) forced[round] = saved;
      const uint32_t saved_count = count_lanes(saved);
      total_reread += (kWindowSize - 1) * saved_count;
      m_counters.keys_read += saved_count;
      placed = saved;
      for (uint32_t bits = saved; bits != 0; bits &= bits - 1) counts[std::countr_zero(bits)] = 1;
    }
    // The others start from their keys 0..2 (window_key), and read again those forward
    // play had read after them by the jump frame.
    for (uint32_t l = first; l < end; ++l) {
      const uint32_t lane = l - first;
      if (((saved >> lane) & 1u) != 0) continue;
      const StreamTrack& track = s.tracks()[m_lanes.tracks[l]];
      const InitialKeys& initial = m_lanes.initial[l];
      for (uint32_t position = 0; position < kWindowSize; ++position) {
        put_key(m_ring.slot[(position + 1) % kKeysPerLane], lane, initial.keys[window_key(initial.count, position)]);
      }
      const uint32_t need = initial.keys[initial.count >= 2 ? initial.count - 2 : 0].frame;
      if (set_cursor(c, lane, track, initial.count, initial.keys[initial.count - 1], need)) placed |= 1u << lane;
      counts[lane] = kWindowSize + 1;
      const uint32_t had = saved_keys_read[lane];  // 0 unless restoring a streamed track
      read_again(lane, had > initial.count ? had - initial.count : 0);
      if (!from_jump_state) m_counters.keys_read += initial.count;
    }
    for (uint32_t lane = end - first; lane < kLanesPerBlock; ++lane) {
      for (LaneArrivals& slot : m_ring.slot) put_key(slot, lane, CodedKey{});
    }
    place_lane_cursors(c, placed, s.segments());
    uint32_t start[kLanesPerBlock];  // keys_read before reading (padding lanes never read)
    for (uint32_t lane = 0; lane < kLanesPerBlock; ++lane) start[lane] = c.keys_read[lane];
    const uint32_t read = read_into_ring(b, 1, frame, forced);
    uint32_t keys = 0;  // keys read, again or forward
    for (uint32_t lane = 0; lane < kLanesPerBlock; ++lane) {
      keys += c.keys_read[lane] - start[lane];
      counts[lane] += c.keys_read[lane] - start[lane];
    }
    clear_arrivals(lanes.arrivals);
    refill(lanes, counts);
    note_window_needs(lanes, read);
    m_counters.keys_read += keys;
    m_cursor_key_index += keys - total_reread;
    lanes.stale = true;
  }
  find_final_pending();
  if (frame >= 0) take_final_segments(static_cast<uint32_t>(frame));
}

void Player::restore(uint32_t jump_index, uint32_t frame) {
  const StreamView& s = *m_stream;
  const JumpFrame& jump = s.jump_frames()[jump_index];
  // reset_lanes reads the state block by block (read_saved_windows).
  m_restore_state_bit = jump.state_bit_offset;
  m_restore_frame = jump.frame;
  if (jump.stream_keys_read > m_cursor_key_index) m_counters.keys_skipped += jump.stream_keys_read - m_cursor_key_index;
  m_cursor_key_index = jump.stream_keys_read;
  m_last_need = jump.frame;
  ++m_counters.jump_frames_used;
  reset_lanes(frame, true);
}

void Player::seek_frame(float frame_time) {
  const StreamView& s = *m_stream;
  const float last = static_cast<float>(s.last_frame());
  if (!(frame_time > 0.f)) frame_time = 0.f;  // also maps NaN to frame 0
  if (frame_time > last) frame_time = last;
  const uint32_t frame = static_cast<uint32_t>(frame_time);
  const bool play = frame >= m_last_frame && frame - m_last_frame <= kPlayFrameStep;
  if (caches_keys()) {
    if (play) {
      const KeyCache::Play step = m_key_cache->play(m_lanes, frame);
      m_last_need = std::max(m_last_need, step.last_need);
      m_cursor_key_index += step.keys;
      m_counters.keys_read += step.keys;
      m_counters.window_updates += step.keys;  // a key shifted in, as reading the stream counts it
      if (!m_lanes.final_pending.empty()) take_final_segments(frame);
    } else {
      seek_cached(frame);
    }
    m_last_frame = frame;
    return;
  }

  // The nearest jump frame at or before `frame` (index+1; 0 means frame 0).
  uint32_t jump = 0;
  if (s.jump_interval_frames() > 0) {
    jump = frame / s.jump_interval_frames();
    if (jump > s.jump_frames().size()) jump = static_cast<uint32_t>(s.jump_frames().size());
  }
  if (frame < m_last_need) {
    if (jump == 0) {
      restart(frame);
      ++m_counters.restarts;
    } else {
      restore(jump - 1, frame);
    }
  } else if (jump > 0) {
    // Ahead: restore only when it reads fewer keys than reading forward.
    const JumpFrame& target = s.jump_frames()[jump - 1];
    if (target.frame > m_last_need && target.stream_keys_read > m_cursor_key_index &&
        target.stream_keys_read - m_cursor_key_index > m_restore_cost_keys) {
      restore(jump - 1, frame);
    }
  }
  // A restart or a restore has read up to `frame` already.
  advance_to(frame, play ? kPlayShiftedRounds : kSeekShiftedRounds);
  m_last_frame = frame;
}

}  // namespace ks
