#include "keystream/runtime/key_cache.h"

#include <algorithm>
#include <bit>

#include "keystream/runtime/lane_reader.h"

namespace ks {

// The keys 0..2 of each lane as it starts, then the stream keys, read one per
// lane at a time from the cursors as the lanes start.
void KeyCache::fill(const LaneGroup& lanes, const StreamView& stream, std::span<const uint8_t> key_stream,
                    size_t max_bytes) {
  const uint32_t lane_count = static_cast<uint32_t>(lanes.tracks.size());
  size_t keys = 0;
  uint32_t most_lane_keys = 0;
  for (const uint32_t t : lanes.tracks) {
    keys += stream.tracks()[t].key_count;
    most_lane_keys = std::max(most_lane_keys, stream.tracks()[t].key_count);
  }
  m_keys.clear();
  m_first.clear();
  m_keys_by_frame.clear();
  // (At most 65,535 keys a lane, for the counts: a limit past 2 MiB.)
  if (lane_count == 0 || stream.frame_count() == 0 || bytes_for(stream) > max_bytes || most_lane_keys > UINT16_MAX) {
    return;
  }
  m_first.resize(lane_count + 1);
  m_keys.resize(keys);
  uint32_t next = 0;
  for (uint32_t l = 0; l < lane_count; ++l) {
    m_first[l] = next;
    next += stream.tracks()[lanes.tracks[l]].key_count;
  }
  m_first[lane_count] = next;
  const auto put = [&](uint32_t lane, uint32_t key, const int32_t(&codes)[4], int32_t frame, bool negated) {
    Key& cached = m_keys[m_first[lane] + key];
    dequantize_lane_key(lanes.start.blocks[lane / kLanesPerBlock], lane % kLanesPerBlock, codes, negated, cached.value);
    cached.frame = frame;
  };
  for (uint32_t l = 0; l < lane_count; ++l) {
    const InitialKeys& initial = lanes.initial[l];
    for (uint32_t k = 0; k < initial.count; ++k) {
      put(l, k, initial.keys[k].codes, static_cast<int32_t>(initial.keys[k].frame), initial.keys[k].negated);
    }
  }
  for (uint32_t b = 0; b < lanes.start.cursors.size(); ++b) {
    LaneCursors c = lanes.start.cursors[b];
    SegmentLanes scratch = lanes.start.blocks[b];
    for (uint32_t due = ~lanes_finished(c) & 0xFFu; due != 0; due = ~lanes_finished(c) & 0xFFu) {
      uint32_t key_of[kLanesPerBlock];
      for (uint32_t l = 0; l < kLanesPerBlock; ++l) key_of[l] = c.keys_read[l];
      clear_arrivals(scratch.arrivals);
      read_lane_keys(scratch, c, due, key_stream, stream.segments());
      for (uint32_t bits = due; bits != 0; bits &= bits - 1) {
        const uint32_t l = static_cast<uint32_t>(std::countr_zero(bits));
        const int32_t codes[4] = {c.codes[0][l], c.codes[1][l], c.codes[2][l], c.codes[3][l]};
        put(b * kLanesPerBlock + l, key_of[l], codes, c.frame[l], scratch.arrivals.sign[l] < 0.f);
      }
    }
  }
  // The counts, by one pass over each lane's keys (a forged stream's
  // frames may not be sorted: each count is still one of the lane's).
  m_frames = stream.frame_count();
  m_keys_by_frame.resize(size_t{lane_count} * m_frames);
  for (uint32_t l = 0; l < lane_count; ++l) {
    const uint32_t count = m_first[l + 1] - m_first[l];
    const Key* lane_keys = m_keys.data() + m_first[l];
    uint32_t at_or_before = 0;
    for (uint32_t f = 0; f < m_frames; ++f) {
      while (at_or_before < count && lane_keys[at_or_before].frame <= static_cast<int64_t>(f)) ++at_or_before;
      m_keys_by_frame[size_t{l} * m_frames + f] = static_cast<uint16_t>(at_or_before);
    }
  }
}

// Lane `l` of `block` and `c` as it stands once it has read `read` of its
// `count` keys `keys`: its window the last four of them (window_key), its
// cursor's counts and the need of its next key. Seeks and play faster than
// the keys both set lanes so.
void KeyCache::set_lane(SegmentLanes& block, LaneCursors& c, uint32_t l, const Key* keys, uint32_t count,
                        uint32_t read) {
  for (uint32_t position = 0; position < kKeysPerLane; ++position) {
    const Key& key = keys[window_key(read, position)];
    block.key_frame[position][l] = static_cast<float>(key.frame);
    for (int comp = 0; comp < kLaneComponents; ++comp) block.key_value[position][comp][l] = key.value[comp];
  }
  c.keys_read[l] = read;
  c.keys_left[l] = static_cast<int32_t>(count - read);
  c.need[l] = keys[read >= 2 ? read - 2 : 0].frame;
}

// A lane is set again only if the keys it has read by `frame` changed, if
// it has read its last key (play may have taken its final segment), or if
// its block holds staged keys (read, not yet in its window).
KeyCache::Seek KeyCache::seek(LaneGroup& lanes, uint32_t frame) const {
  const uint32_t lane_count = static_cast<uint32_t>(lanes.tracks.size());
  int64_t last_need = 0;
  uint32_t stream_keys = 0;
  for (uint32_t b = 0; b < lanes.blocks.size(); ++b) {
    SegmentLanes& block = lanes.blocks[b];
    LaneCursors& c = lanes.cursors[b];
    const bool staged = block.arrivals.any;
    bool changed = staged;
    const uint32_t end = std::min(lane_count, (b + 1) * kLanesPerBlock);
    for (uint32_t lane = b * kLanesPerBlock; lane < end; ++lane) {
      const uint32_t l = lane % kLanesPerBlock;
      const Key* keys = m_keys.data() + m_first[lane];
      const uint32_t count = m_first[lane + 1] - m_first[lane];
      const uint32_t initial = lanes.initial[lane].count;
      // Keys at or before `frame`, then the two after them.
      const uint32_t at_or_before = m_keys_by_frame[size_t{lane} * m_frames + std::min(frame, m_frames - 1)];
      const uint32_t read = std::min(count, std::max(initial, at_or_before + 2));
      stream_keys += read - initial;
      if (read > initial) last_need = std::max<int64_t>(last_need, keys[read >= 3 ? read - 3 : 0].frame);
      if (read == c.keys_read[l] && read < count && !staged) continue;
      changed = true;
      set_lane(block, c, l, keys, count, read);
    }
    if (changed) {
      clear_arrivals(block.arrivals);
      block.stale = true;
    }
  }
  Seek out;
  out.stream_keys = stream_keys;
  out.last_need = static_cast<uint32_t>(std::clamp<int64_t>(last_need, 0, UINT32_MAX));
  return out;
}

// A lane due one key (play at the clip's rate or slower) stages it, as a
// lane reader would, but as its value: the shift into the window is the
// block's, at its build. A lane due more (play faster than its keys) takes
// its window whole, as a seek does (take_window).
// A lane is due (lanes_due) only once it has read its initial keys, three
// (a track with fewer has none left): keys[was - 2] is one of them at
// least.
KeyCache::Play KeyCache::play(LaneGroup& lanes, uint32_t frame) const {
  const Key* const all_keys = m_keys.data();
  const uint32_t* const first = m_first.data();
  const int64_t now = frame;
  uint32_t taken = 0;
  int32_t latest_need = 0;
  const uint32_t block_count = static_cast<uint32_t>(lanes.blocks.size());
  for (uint32_t b = 0; b < block_count; ++b) {
    LaneCursors& c = lanes.cursors[b];
    uint32_t due = lanes_due(c, frame);
    if (due == 0) continue;
    SegmentLanes& block = lanes.blocks[b];
    LaneArrivals& staged = block.arrivals;
    // A lane holds one staged key at most.
    if (staged.any) shift_in_staged_keys(block);
    // Stale as well as staged: take_final_segments may shift the staged
    // keys in before the build.
    block.stale = true;
    for (; due != 0; due &= due - 1) {
      const uint32_t l = static_cast<uint32_t>(std::countr_zero(due));
      const uint32_t lane = b * kLanesPerBlock + l;
      const Key* const keys = all_keys + first[lane];
      const uint32_t was = c.keys_read[l];
      const int32_t left = c.keys_left[l];
      // The key after this one is due too when key was - 1, two before it, is at or before the frame.
      if (left > 1 && keys[was - 1].frame <= now) [[unlikely]] {
        taken += take_window(lanes, lane, now, latest_need);
        continue;
      }
      const Key& key = keys[was];
      for (int comp = 0; comp < kLaneComponents; ++comp) staged.code[comp][l] = key.value[comp];
      staged.frame[l] = static_cast<float>(key.frame);
      staged.arrived[l] = 1.f;
      staged.any = true;
      c.keys_read[l] = was + 1;
      c.keys_left[l] = left - 1;
      c.need[l] = keys[was - 1].frame;
      latest_need = std::max(latest_need, keys[was - 2].frame);
      ++taken;
      if (left == 1) lanes.final_pending.push_back(lane);
    }
  }
  return {taken, static_cast<uint32_t>(latest_need)};
}

// Lane `lane` (due) reads every key whose need is at or before `now` and
// takes the last four as its window. Returns the keys it read.
uint32_t KeyCache::take_window(LaneGroup& lanes, uint32_t lane, int64_t now, int32_t& latest_need) const {
  SegmentLanes& block = lanes.blocks[lane / kLanesPerBlock];
  LaneCursors& c = lanes.cursors[lane / kLanesPerBlock];
  const uint32_t l = lane % kLanesPerBlock;
  const Key* const keys = m_keys.data() + m_first[lane];
  const uint32_t count = m_first[lane + 1] - m_first[lane];
  const uint32_t was = c.keys_read[l];
  uint32_t read = was + 1;
  while (read < count && keys[read - 2].frame <= now) ++read;
  set_lane(block, c, l, keys, count, read);
  latest_need = std::max(latest_need, keys[read - 3].frame);
  if (read == count) lanes.final_pending.push_back(lane);
  return read - was;
}

}  // namespace ks
