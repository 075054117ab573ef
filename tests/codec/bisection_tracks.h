#pragma once
// Random tracks written as bisection or sag segments, for the tests of the
// segment writers and readers (bisection_segment.h, bisection_lanes.h,
// sag_segment.h).

#include <algorithm>
#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include "keystream/codec/bisection_segment_writer.h"
#include "keystream/codec/sag_segment_writer.h"
#include "keystream/runtime/bisection_segment.h"
#include "keystream/runtime/quantization.h"

namespace ks::test {

inline bool same_key(const BisectionKey& a, const BisectionKey& b) {
  return a.frame == b.frame && std::equal(a.codes, a.codes + 4, b.codes) && a.negated == b.negated;
}

struct RandomTrack {
  BisectionTrackCoding coding;
  std::vector<BisectionKey> keys;  // key 2 first, then the stream keys
};

// A track as the fitter makes them: frames non-decreasing (repeated at a
// discontinuity, long gaps now and then), codes a random walk with rare
// jumps across the whole range, some keys negated.
inline RandomTrack random_track(std::mt19937& rng, uint32_t stream_keys) {
  RandomTrack t;
  t.coding.coded_mask = static_cast<uint8_t>(std::uniform_int_distribution<int>(1, 15)(rng));
  t.coding.frame_bits = 16;
  t.coding.negation_bits = rng() % 3 == 0;
  const int32_t range = rng() % 4 == 0 ? kMaxCodeMagnitude : static_cast<int32_t>(1 << (rng() % 20));
  uint32_t frame = rng() % 100;
  int32_t codes[4] = {};
  for (int32_t& c : codes) c = std::uniform_int_distribution<int32_t>(-range, range)(rng);
  std::uniform_int_distribution<int32_t> step(-40, 40);
  for (uint32_t k = 0; k <= stream_keys; ++k) {
    const uint32_t kind = rng() % 20;
    frame += kind == 0 ? 0 : (kind == 1 ? rng() % 3000 : 1 + rng() % 4);
    frame = std::min<uint32_t>(frame, 65535);
    BisectionKey key;
    key.frame = frame;
    for (uint32_t c = 0; c < 4; ++c) {
      if (((t.coding.coded_mask >> c) & 1u) == 0) continue;
      codes[c] = rng() % 50 == 0 ? std::uniform_int_distribution<int32_t>(-range, range)(rng)
                                 : std::clamp(codes[c] + step(rng), -range, range);
      key.codes[c] = codes[c];
    }
    key.negated = t.coding.negation_bits && rng() % 2 == 0;
    t.keys.push_back(key);
  }
  uint32_t largest = 0;
  for (const BisectionKey& key : t.keys) {
    for (const int32_t c : key.codes) largest = std::max(largest, static_cast<uint32_t>(c < 0 ? -int64_t{c} : c));
  }
  t.coding.absolute_bits = static_cast<uint8_t>(bits_for(largest) + 1);
  return t;
}

// A track's stream keys written segment by segment, and where each is.
struct WrittenSegment {
  size_t first = 0;  // its first key's index in RandomTrack::keys
  uint32_t count = 0;
  uint64_t start_bit = 0;
};
struct WrittenTrack {
  std::vector<uint8_t> bytes;
  uint64_t bits = 0;
  std::vector<WrittenSegment> segments;
};
using SegmentWriter = void (*)(BitWriter&, const BisectionTrackCoding&, std::span<const BisectionKey>,
                               const BisectionKey&);
inline WrittenTrack write_track(const RandomTrack& t, SegmentWriter write_segment = write_bisection_segment) {
  BitWriter out;
  WrittenTrack written;
  for (size_t s = 1; s < t.keys.size(); s += kKeysPerSegment) {
    const uint32_t count = static_cast<uint32_t>(std::min<size_t>(kKeysPerSegment, t.keys.size() - s));
    written.segments.push_back({s, count, out.size_bits()});
    write_segment(out, t.coding, std::span(t.keys).subspan(s, count), t.keys[s - 1]);
  }
  written.bytes = out.bytes();
  written.bits = out.size_bits();
  return written;
}

// The last position (0..count) of `segment` whose key's frame is at or
// before `frame`: what a reader's search must find.
inline uint32_t last_position_at(const RandomTrack& t, const WrittenSegment& segment, uint32_t frame) {
  uint32_t found = 0;
  for (uint32_t p = 1; p <= segment.count; ++p) {
    if (t.keys[segment.first + p - 1].frame <= frame) found = p;
  }
  return found;
}

// A frame from the key before `segment` to just past its last key.
inline uint32_t random_frame_in(std::mt19937& rng, const RandomTrack& t, const WrittenSegment& segment) {
  const uint32_t lo = t.keys[segment.first - 1].frame, hi = t.keys[segment.first + segment.count - 1].frame + 2;
  return lo + rng() % (hi - lo + 1);
}

// Any coding a forged stream could claim.
inline BisectionTrackCoding random_coding(std::mt19937& rng) {
  BisectionTrackCoding coding;
  coding.coded_mask = static_cast<uint8_t>(rng() % 16);
  coding.absolute_bits = static_cast<uint8_t>(1 + rng() % kMaxAbsoluteCodeBits);
  coding.frame_bits = static_cast<uint8_t>(rng() % 17);
  coding.negation_bits = rng() % 2 == 0;
  return coding;
}

}  // namespace ks::test
