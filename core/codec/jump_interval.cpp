#include "keystream/codec/jump_interval.h"

#include <algorithm>
#include <array>

#include "keystream/codec/key_cost.h"
#include "keystream/runtime/bit_reader.h"
#include "keystream/runtime/key_cache.h"
#include "keystream/runtime/player.h"
#include "keystream/runtime/stream_format.h"
#include "keystream/runtime/stream_key_layout.h"

namespace ks {

namespace {

// Keys of `track` read once every key needed at or before `frame` is: key k
// (k >= 3) is needed at the frame of key k - 2.
uint32_t keys_read_at(const FittedTrack& track, uint32_t frame) {
  const std::vector<FittedKey>& keys = track.keys;
  // Keys 0 .. n-3 are the ones whose frame is a need; count those <= frame.
  const auto needs_end = keys.end() - 2;
  const auto past = std::upper_bound(keys.begin() + 1, needs_end, frame,
                                     [](uint32_t f, const FittedKey& key) { return f < key.frame; });
  return static_cast<uint32_t>(past - keys.begin()) + 2;
}

}  // namespace

uint32_t saved_window_bits(const FittedTrack& track, const KeyCoding& coding, uint32_t key_index_bits,
                           uint32_t frame_difference_bits) {
  return saved_window_bits(static_cast<uint32_t>(track.keys.size()), key_index_bits, frame_difference_bits,
                           coding.absolute_bits, static_cast<uint32_t>(track.quantization.coded_count()),
                           coding.negation_bits);
}

uint32_t jump_frame_difference_bits(const FittedTrack& track, uint32_t interval_frames, uint32_t jump_count) {
  uint32_t largest = 0;
  for (uint32_t j = 1; j <= jump_count; ++j) {
    const uint32_t frame = j * interval_frames;
    const uint32_t read = keys_read_at(track, frame);
    if (read >= kRestoreFromRunKeys) largest = std::max(largest, frame - track.keys[read - kWindowSize].frame);
  }
  return bits_for(largest);
}

JumpIntervalCost jump_interval_cost(const FittedClip& clip, const std::vector<KeyCoding>& codings,
                                    uint32_t interval_frames) {
  JumpIntervalCost cost;
  cost.interval_frames = interval_frames;
  const uint32_t last = clip.frame_count - 1;
  uint32_t max_key_count = 0;
  uint32_t streamed = 0;
  // Stream keys needed at each frame, then at or before it.
  std::vector<uint64_t> needed_by(clip.frame_count + 1, 0);
  for (size_t t = 0; t < clip.tracks.size(); ++t) {
    const FittedTrack& track = clip.tracks[t];
    if (track.coding != TrackCoding::kAnimated) continue;
    max_key_count = std::max<uint32_t>(max_key_count, static_cast<uint32_t>(track.keys.size()));
    if (!is_streamed(track)) continue;
    ++streamed;
    for (size_t k = kInitialKeysPerTrack; k < track.keys.size(); ++k) ++needed_by[track.keys[k - 2].frame];
  }
  for (uint32_t f = 1; f <= last; ++f) needed_by[f] += needed_by[f - 1];

  const uint32_t key_index_bits = bits_for(max_key_count);
  const uint32_t jump_count = interval_frames == 0 ? 0 : last / interval_frames;
  uint64_t state_bits = 0;
  for (size_t t = 0; t < clip.tracks.size(); ++t) {
    const FittedTrack& track = clip.tracks[t];
    if (!is_streamed(track) || jump_count == 0) continue;
    const uint32_t difference_bits = jump_frame_difference_bits(track, interval_frames, jump_count);
    state_bits += kJumpFrameDifferenceWidthBits +
                  uint64_t{jump_count} * saved_window_bits(track, codings[t], key_index_bits, difference_bits);
  }
  cost.jump_frame_bytes = uint64_t{jump_count} * kJumpIndexEntrySize + (state_bits + 7) / 8;

  // A seek to frame f restores the last jump frame at or before it (or
  // restarts at frame 0) and reads the keys needed after it up to f.
  double forward = 0.0;
  for (uint32_t f = 0; f <= last; ++f) {
    const uint32_t jump = jump_count == 0 ? 0 : std::min(f / interval_frames, jump_count) * interval_frames;
    forward += static_cast<double>(needed_by[f] - (jump == 0 ? 0 : needed_by[jump]));
  }
  cost.seek_keys_forward = forward / static_cast<double>(clip.frame_count);
  cost.seek_cost = kRestoreCostPerStreamedTrack * streamed + cost.seek_keys_forward;
  return cost;
}

JumpIntervalCost choose_jump_interval(const FittedClip& clip, const std::vector<KeyCoding>& codings,
                                      uint64_t other_bytes) {
  const uint32_t last = clip.frame_count - 1;
  uint32_t streamed = 0;
  for (const FittedTrack& track : clip.tracks) streamed += is_streamed(track) ? 1 : 0;
  const double restore = kRestoreCostPerStreamedTrack * streamed;
  const double budget = kJumpFrameByteBudget * static_cast<double>(other_bytes);
  // A clip whose keys the default player caches never reads a jump frame.
  uint32_t keys = 0, animated = 0;
  for (const FittedTrack& track : clip.tracks) {
    if (track.coding != TrackCoding::kAnimated) continue;
    keys += static_cast<uint32_t>(track.keys.size());
    ++animated;
  }
  if (KeyCache::bytes_for(keys, animated, clip.frame_count) <= Player::kDefaultKeyCacheBytes) {
    return jump_interval_cost(clip, codings, 0);
  }
  // From no jump frames down to one per frame, in steps of about 1.4x: each
  // shorter interval costs more bytes and reads fewer keys forward.
  JumpIntervalCost chosen = jump_interval_cost(clip, codings, 0);
  if (chosen.seek_keys_forward <= restore) return chosen;
  for (double interval = last / 1.4142; interval >= 1.0; interval /= 1.4142) {
    const uint32_t frames = static_cast<uint32_t>(interval + 0.5);
    if (frames == chosen.interval_frames || frames >= last) continue;
    const JumpIntervalCost cost = jump_interval_cost(clip, codings, frames);
    if (static_cast<double>(cost.jump_frame_bytes) > budget) break;
    chosen = cost;
    if (cost.seek_keys_forward <= kStopAtRestoreShare * restore) break;
  }
  return chosen;
}

}  // namespace ks
