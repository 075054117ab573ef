#pragma once
// The windows of sag segments (core/runtime/sag_segment.h) at a random
// frame, one track at a time, for keystream-key-layout-probe: what a seek
// costs to reach every track's four keys when no key decodes through
// another. SagSeeker uses the reference reader; SagLeanSeeker reads as a
// player would (docs/benchmarks.md, "What reaching a window costs in sag
// segments").

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "keystream/runtime/sag_segment.h"
#include "keystream/runtime/stream_format.h"

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

/// The same windows as SagSeeker, read as a player would: fields by plain
/// 64-bit loads from a buffer padded by 8 bytes (no bounds checks), each
/// head read once per track and seek.
class SagLeanSeeker {
 public:
  SagLeanSeeker(std::span<const SagTrack> tracks, std::span<const uint8_t> padded_bytes)
      : m_tracks(tracks), m_bytes(padded_bytes.data()) {}

  void window(size_t t, uint32_t frame, BisectionKey (&out)[kWindowSize]) {
    const SagTrack& track = m_tracks[t];
    const std::vector<uint32_t>& anchors = track.anchor_frame;
    const uint32_t segments = static_cast<uint32_t>(anchors.size());
    uint32_t j = static_cast<uint32_t>(std::upper_bound(anchors.begin(), anchors.end(), frame) - anchors.begin());
    // The key at or before `frame`: position p of segment j (p = 0: the key
    // before it), or past the last anchor, the last key.
    uint32_t p;
    if (j == segments) {
      j = segments - 1;
      head(track, j, m_head[1]);
      p = m_head[1].count;
    } else {
      head(track, j, m_head[1]);
      p = find(m_head[1], frame);
      if (j == 0 && p == 0) {
        // Among keys 0..2: the window from the initial keys and the segment's first.
        int64_t last = kInitialKeysPerTrack - 1;
        while (last > 0 && track.initial[last].frame > frame) --last;
        for (int64_t w = 0; w < int64_t{kWindowSize}; ++w) {
          const int64_t k = std::clamp<int64_t>(last - 1 + w, 0, int64_t{track.key_count} - 1);
          out[w] = k < int64_t{kInitialKeysPerTrack} ? track.initial[k]
                                                     : key(m_head[1], uint32_t(k) - kInitialKeysPerTrack + 1);
        }
        return;
      }
    }
    const Head& here = m_head[1];
    const int64_t last_key = int64_t{track.key_count} - 1;
    const int64_t at = int64_t{kInitialKeysPerTrack} + int64_t{j} * kKeysPerSegment - 1 + p;  // key index
    bool have_previous = false, have_next = false;
    for (int64_t w = 0; w < int64_t{kWindowSize}; ++w) {
      const int64_t k = std::min(at - 1 + w, last_key);
      const int64_t position = int64_t{p} - 1 + w - (at - 1 + w - k);  // clamped keys repeat the last
      if (position >= 0 && position <= int64_t{here.count}) {
        out[w] = key(here, static_cast<uint32_t>(position));
      } else if (position < 0) {  // the previous segment's last but one
        if (j == 0) {
          out[w] = track.initial[kInitialKeysPerTrack - 2];
          continue;
        }
        if (!have_previous) head(track, j - 1, m_head[0]), have_previous = true;
        out[w] = key(m_head[0], m_head[0].count - 1);
      } else {  // the next segment's
        if (!have_next) head_after(track, j + 1, here.anchor, m_head[2]), have_next = true;
        out[w] = key(m_head[2], static_cast<uint32_t>(position) - here.count);
      }
    }
  }

 private:
  // The guesses a record is coded against, the fraction along the chord
  // worked out once per key. A component not coded has codes 0 (the guess
  // from keys of 0 is 0).
  struct ChordGuess {
    const BisectionKey& before;
    const BisectionKey& anchor;
    uint8_t coded_mask;
    uint32_t at(uint32_t frame) const { return frame; }
    bool needed(uint32_t c) const { return ((coded_mask >> c) & 1u) != 0; }
    int32_t operator()(uint32_t c, uint32_t frame) const {
      return bisection_code_guess(before.codes[c], anchor.codes[c], before.frame, anchor.frame, frame);
    }
  };
  struct BentGuess {
    const SagCurve& curve;
    uint8_t coded_mask;
    float at(uint32_t frame) const { return sag_fraction(curve, frame); }
    bool needed(uint32_t c) const { return ((coded_mask >> c) & 1u) != 0; }
    int32_t operator()(uint32_t c, float u) const { return sag_code_guess_at(curve, c, u); }
  };

  struct Head {
    uint8_t coded_mask = 0;
    uint32_t count = 0;
    BisectionKey before, anchor, sag;
    SagCurve curve;
    StreamKeyLayout records;
    uint64_t records_bit = 0;
  };

  uint64_t bits_at(uint64_t bit) const {
    uint64_t word;
    std::memcpy(&word, m_bytes + (bit >> 3), 8);
    return word >> (bit & 7u);
  }
  uint32_t field(uint64_t& bit, uint32_t width) const {
    const uint32_t value = static_cast<uint32_t>(bits_at(bit) & ((uint64_t{1} << width) - 1u));
    bit += width;
    return value;
  }
  BisectionKey anchor_at(const SagTrack& track, uint64_t& bit) const {
    BisectionKey a;
    a.frame = field(bit, track.coding.frame_bits);
    for (uint32_t c = 0; c < 4; ++c) {
      if (((track.coding.coded_mask >> c) & 1u) != 0) {
        a.codes[c] = sign_extend(field(bit, track.coding.absolute_bits), track.coding.absolute_bits);
      }
    }
    a.negated = track.coding.negation_bits && field(bit, 1) != 0;
    return a;
  }
  StreamKeyLayout widths_at(const SagTrack& track, uint64_t& bit) const {
    uint32_t w[kKeyFields];
    w[0] = field(bit, kSegmentWidthBits);
    for (uint32_t c = 0; c < 4; ++c)
      w[c + 1] = ((track.coding.coded_mask >> c) & 1u) != 0 ? field(bit, kSegmentWidthBits) : 0;
    return make_stream_key_layout(w, track.coding.negation_bits);
  }
  // A record's key from one load (records of at most 57 bits; wider ones field by field).
  template <class Guess>
  BisectionKey record(uint64_t bit, const StreamKeyLayout& layout, uint32_t frame_guess, Guess guess) const {
    const uint64_t one_load = bits_at(bit);
    const bool wide = layout.key_bits > 57;
    const auto field_of = [&](uint32_t shift) { return wide ? bits_at(bit + shift) : one_load >> shift; };
    BisectionKey key;
    key.frame = frame_guess +
                static_cast<uint32_t>(unzigzag(static_cast<uint32_t>(field_of(layout.shift[0])) & layout.mask[0]));
    const auto at = guess.at(key.frame);
    for (uint32_t c = 0; c < 4; ++c) {
      if (!guess.needed(c)) continue;  // not coded: 0
      const uint32_t residual = static_cast<uint32_t>(field_of(layout.shift[c + 1])) & layout.mask[c + 1];
      key.codes[c] =
          static_cast<int32_t>(static_cast<uint32_t>(guess(c, at)) + static_cast<uint32_t>(unzigzag(residual)));
    }
    key.negated = (field_of(layout.negation_shift) & layout.negation_mask) != 0;
    return key;
  }
  void head(const SagTrack& track, uint32_t j, Head& h) const {
    BisectionKey before = track.initial[kInitialKeysPerTrack - 1];
    if (j > 0) {
      uint64_t bit = track.start_bit[j - 1];
      before = anchor_at(track, bit);
    }
    head_after(track, j, before, h);
  }
  void head_after(const SagTrack& track, uint32_t j, const BisectionKey& before, Head& h) const {
    h.count = std::min<uint32_t>(kKeysPerSegment, track.key_count - kInitialKeysPerTrack - j * kKeysPerSegment);
    h.coded_mask = track.coding.coded_mask;
    h.before = before;
    uint64_t bit = track.start_bit[j];
    h.anchor = anchor_at(track, bit);
    const uint32_t sag = sag_position(h.count);
    if (sag != 0) {
      const StreamKeyLayout layout = widths_at(track, bit);
      h.sag = record(bit, layout, sag_frame_guess(before.frame, h.anchor.frame, sag, h.count),
                     ChordGuess{before, h.anchor, track.coding.coded_mask});
      bit += layout.key_bits;
    }
    h.curve = make_sag_curve(before, h.anchor, h.sag, sag != 0);
    if (h.count >= 3) h.records = widths_at(track, bit);
    h.records_bit = bit;
  }
  uint32_t frame_at(const Head& h, uint32_t position) const {
    if (position == 0) return h.before.frame;
    if (position == h.count) return h.anchor.frame;
    if (position == sag_position(h.count)) return h.sag.frame;
    const uint64_t bits = bits_at(h.records_bit + uint64_t{sag_record_of(position, h.count)} * h.records.key_bits);
    return sag_frame_guess(h.before.frame, h.anchor.frame, position, h.count) +
           static_cast<uint32_t>(unzigzag(static_cast<uint32_t>(bits) & h.records.mask[0]));
  }
  uint32_t find(const Head& h, uint32_t frame) const {
    if (h.anchor.frame <= frame) return h.count;
    uint32_t left = 0, right = h.count;
    while (right - left >= 2) {
      const uint32_t middle = (left + right) / 2;
      if (frame_at(h, middle) <= frame)
        left = middle;
      else
        right = middle;
    }
    return left;
  }
  BisectionKey key(const Head& h, uint32_t position) const {
    if (position == 0) return h.before;
    if (position == h.count) return h.anchor;
    if (position == sag_position(h.count)) return h.sag;
    return record(h.records_bit + uint64_t{sag_record_of(position, h.count)} * h.records.key_bits, h.records,
                  sag_frame_guess(h.before.frame, h.anchor.frame, position, h.count), BentGuess{h.curve, h.coded_mask});
  }

  std::span<const SagTrack> m_tracks;
  const uint8_t* m_bytes;
  Head m_head[3];  // the previous segment's, the frame's, the next one's
};

}  // namespace ks
