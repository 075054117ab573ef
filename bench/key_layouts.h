#pragma once
// The layouts keystream-key-layout-probe weighs for a track's stream keys
// (key_layout_probe.cpp lists them): the bits each would take, counted or
// written from the fitted keys, and the track laid out in bisection and sag
// segments for the seekers (bisection_seekers.h, sag_seeker.h).

#include <cstdint>
#include <vector>

#include "keystream/codec/fit.h"
#include "keystream/runtime/bisection_segment.h"
#include "keystream/runtime/stream_format.h"

namespace ks {

// A track laid out in bisection segments, for counting what a seek decodes:
// its initial keys, and per segment where it starts and its anchor's frame
// (what StreamView::open would keep beside its segment table).
struct BisectionTrack {
  BisectionTrackCoding coding;
  BisectionKey initial[kInitialKeysPerTrack];
  uint32_t key_count = 0;
  std::vector<uint64_t> start_bit;
  std::vector<uint32_t> anchor_frame;
  std::vector<uint8_t> bytes;
  // The same keys as sag segments (sag_segment.h), by its writer.
  std::vector<uint64_t> sag_start_bit;
  std::vector<uint8_t> sag_bytes;
};

struct LayoutBits {
  uint64_t delta = 0, anchored = 0, bisection = 0, ranged = 0, chord = 0, chord2 = 0, sag = 0, sag_written = 0,
           sag_masked = 0;
};

/// Counts `track`'s stream keys in every layout and lays them out in
/// bisection and sag segments (`laid_out`; nothing for a track of three
/// keys or fewer).
LayoutBits track_bits(const FittedTrack& track, uint32_t frame_count, BisectionTrack& laid_out);

}  // namespace ks
