#pragma once
// The windows of format v12's sag segments (core/runtime/sag_segment.h) at
// a random frame, one track at a time with the scalar reader, for
// keystream-key-layout-probe: what a seek costs to reach every track's
// four keys when no key decodes through another.

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "core/runtime/sag_segment.h"
#include "core/runtime/stream_format.h"

namespace ks {

/// A track's keys as sag segments in a shared buffer.
struct SagTrack {
  BisectionTrackCoding coding;
  BisectionKey initial[kInitialKeysPerTrack];
  uint32_t key_count = 0;
  std::vector<uint64_t> start_bit;     // each segment's, in the shared buffer
  std::vector<uint32_t> anchor_frame;  // each segment's last key's frame
};

class SagSeeker {
 public:
  SagSeeker(std::span<const SagTrack> tracks, std::span<const uint8_t> bytes) : m_tracks(tracks), m_bytes(bytes) {}

  /// Keys i-1..i+2 of track `t`, i its last key at or before `frame`
  /// (clamped to the track's keys): what a player's window holds.
  void window(size_t t, uint32_t frame, BisectionKey (&out)[kWindowSize]) {
    const SagTrack& track = m_tracks[t];
    m_loaded_count = 0;
    const std::vector<uint32_t>& anchors = track.anchor_frame;
    const uint32_t j = static_cast<uint32_t>(std::upper_bound(anchors.begin(), anchors.end(), frame) - anchors.begin());
    int64_t last = int64_t{track.key_count} - 1;
    if (j < anchors.size()) {
      const Loaded& s = load(track, j);
      BitReader reader(m_bytes);
      const uint32_t p = find_in_sag_segment(reader, s.head, frame);
      last = int64_t{kInitialKeysPerTrack} + int64_t{j} * kKeysPerSegment - 1 + p;
      while (last > 0 && last < int64_t{kInitialKeysPerTrack} && track.initial[last].frame > frame) --last;
    }
    for (int64_t w = 0; w < int64_t{kWindowSize}; ++w) {
      const int64_t k = std::clamp<int64_t>(last - 1 + w, 0, int64_t{track.key_count} - 1);
      out[w] = key(track, static_cast<uint32_t>(k));
    }
  }

 private:
  struct Loaded {
    uint32_t index = 0;
    SagSegmentHead head;
  };

  const Loaded& load(const SagTrack& track, uint32_t index) {
    if (const Loaded* s = loaded(index)) return *s;
    Loaded& s = m_loaded[m_loaded_count < kLoaded ? m_loaded_count++ : 0];
    s.index = index;
    BisectionKey before = track.initial[kInitialKeysPerTrack - 1];
    if (index > 0) {
      BitReader previous(m_bytes, track.start_bit[index - 1]);
      before = read_sag_anchor(previous, track.coding);
    }
    const uint32_t count =
        std::min<uint32_t>(kKeysPerSegment, track.key_count - kInitialKeysPerTrack - index * kKeysPerSegment);
    BitReader reader(m_bytes, track.start_bit[index]);
    s.head = read_sag_head(reader, track.coding, count, before);
    return s;
  }

  BisectionKey key(const SagTrack& track, uint32_t k) {
    if (k < kInitialKeysPerTrack) return track.initial[k];
    const uint32_t index = (k - kInitialKeysPerTrack) / kKeysPerSegment;
    const uint32_t position = k - kInitialKeysPerTrack - index * kKeysPerSegment + 1;
    // A segment's anchor is the next one's key before: no head to read.
    if (position == kKeysPerSegment) {
      if (const Loaded* next = loaded(index + 1)) return next->head.before;
    }
    const Loaded& s = load(track, index);
    BitReader reader(m_bytes);
    return read_sag_key(reader, s.head, position);
  }

  const Loaded* loaded(uint32_t index) const {
    for (uint32_t i = 0; i < m_loaded_count; ++i) {
      if (m_loaded[i].index == index) return &m_loaded[i];
    }
    return nullptr;
  }

  static constexpr uint32_t kLoaded = 3;  // a window spans at most three segments
  std::span<const SagTrack> m_tracks;
  std::span<const uint8_t> m_bytes;
  Loaded m_loaded[kLoaded];
  uint32_t m_loaded_count = 0;
};

}  // namespace ks
