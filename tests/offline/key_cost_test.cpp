// The bits key_cost.h counts for a candidate layout (segmented_key_bits)
// on a track worked out by hand.

#include "core/offline/key_cost.h"

#include <gtest/gtest.h>

namespace ks {
namespace {

// A translation track coding x and y: frames 0, 1, 3, 4, 10; x codes
// 0, 3, 1, 1, -4; y always 5.
FittedTrack hand_track() {
  FittedTrack track;
  track.kind = TrackKind::kTranslation;
  track.coding = TrackCoding::kAnimated;
  track.quantization.coded_mask = 0b011;
  const uint16_t frames[] = {0, 1, 3, 4, 10};
  const int32_t x[] = {0, 3, 1, 1, -4};
  for (int k = 0; k < 5; ++k) {
    FittedKey key;
    key.frame = frames[k];
    key.codes[0] = x[k];
    key.codes[1] = 5;
    track.keys.push_back(key);
  }
  return track;
}

TEST(SegmentedKeyBits, CountsEachSegmentsWidthsAndItsKeysAtThoseWidths) {
  const FittedTrack track = hand_track();
  KeyCoding coding;
  coding.absolute_bits = 8;
  coding.frame_delta_min = 1;
  // Key 0: two absolute codes, 16 bits. Segments of two keys:
  // keys 1-2: frame differences past the minimum 0, 1 (width 1); x
  //   differences 3, -2 zigzag to 6, 3 (width 3); y 0 (width 0): three
  //   5-bit widths, then two keys of 4 bits: 23.
  // keys 3-4: frames 0, 5 (width 3); x 0, -5 -> 0, 9 (width 4); y 0:
  //   15 + 2 * 7 = 29.
  EXPECT_EQ(segmented_key_bits(track, coding, 2), 16u + 23u + 29u);
  // One segment of four: frames width 3, x width 4 (largest zigzag 9), y 0.
  EXPECT_EQ(segmented_key_bits(track, coding, 16), 16u + 15u + 4u * 7u);
  // A "negated" bit on every key, key 0 included.
  coding.negation_bits = true;
  EXPECT_EQ(segmented_key_bits(track, coding, 2), 16u + 23u + 29u + 5u);
}

TEST(SegmentedKeyBits, ATrackOfOneKeyIsItsAbsoluteCodes) {
  FittedTrack track = hand_track();
  track.keys.resize(1);
  KeyCoding coding;
  coding.absolute_bits = 11;
  EXPECT_EQ(segmented_key_bits(track, coding, 16), 22u);
}

}  // namespace
}  // namespace ks
