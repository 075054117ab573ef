// The bits key_cost.h counts for a track worked out by hand: as the stream
// writes its keys (format version 5) and as Rice-coded differences only.

#include "keystream/codec/key_cost.h"

#include <gtest/gtest.h>

namespace ks {
namespace {

// A translation track of 20 keys coding x and y, one key per frame. x rises
// by 1 per key but falls by 4 at key 10 and stays put at key 19; y is
// always 5.
FittedTrack hand_track() {
  FittedTrack track;
  track.kind = TrackKind::kTranslation;
  track.coding = TrackCoding::kAnimated;
  track.quantization.coded_mask = 0b011;
  int32_t x = 0;
  for (uint32_t k = 0; k < 20; ++k) {
    if (k > 0) x += k == 10 ? -4 : (k == 19 ? 0 : 1);
    FittedKey key;
    key.frame = k;
    key.codes[0] = x;
    key.codes[1] = 5;
    track.keys.push_back(key);
  }
  return track;
}

KeyCoding hand_coding() {
  KeyCoding coding;
  coding.absolute_bits = 8;
  coding.frame_delta_min = 1;
  coding.frame_rice = 0;
  coding.value_rice[0] = 1;
  coding.value_rice[1] = 0;
  return coding;
}

TEST(KeyBits, SegmentWidthsAreWhatTheLargestDifferenceOfTheSegmentNeeds) {
  const FittedTrack track = hand_track();
  // Segment 0 is keys 3..18: frame differences past the minimum are 0;
  // x differences 1 zigzag to 2 and -4 (key 10) to 7: 3 bits; y 0.
  EXPECT_EQ(segment_widths(track, hand_coding(), 0), (std::array<uint32_t, kKeyFields>{0, 3, 0, 0, 0}));
  // Segment 1 is key 19 alone, which changes nothing.
  EXPECT_EQ(segment_widths(track, hand_coding(), 1), (std::array<uint32_t, kKeyFields>{0, 0, 0, 0, 0}));
}

TEST(KeyBits, CountKeyZeroAbsoluteKeysOneAndTwoRiceAndStreamKeysAtTheirSegmentsWidths) {
  const FittedTrack track = hand_track();
  KeyCoding coding = hand_coding();
  // Key 0: two 8-bit codes, 16. Keys 1 and 2 (Rice): frame 0 in 1 bit, x 2
  // with k = 1 in 3 bits, y 0 in 1 bit: 5 each, 10. Segment 0: three 5-bit
  // widths, then 16 keys of 3 bits: 15 + 48. Segment 1: 15 + one key of 0
  // bits.
  EXPECT_EQ(key_bits(track, coding), 16u + 10u + 15u + 48u + 15u);
  // A "negated" bit on every key, key 0 included.
  coding.negation_bits = true;
  EXPECT_EQ(key_bits(track, coding), 16u + 10u + 15u + 48u + 15u + 20u);
}

TEST(KeyBits, RiceOnlyCountsEveryKeyAfterTheFirstAsARiceCode) {
  const FittedTrack track = hand_track();
  // Keys 1..18 but 10: 5 bits each (17 keys); key 10: x 7 with k = 1 is a
  // quotient of 3, 5 bits, so 7; key 19: x 0 in 2 bits, so 4.
  EXPECT_EQ(rice_key_bits(track, hand_coding()), 16u + 17u * 5u + 7u + 4u);
}

TEST(KeyBits, ATrackOfThreeKeysOrFewerHasNoSegments) {
  FittedTrack track = hand_track();
  track.keys.resize(3);
  EXPECT_EQ(key_bits(track, hand_coding()), 16u + 10u);
  track.keys.resize(1);
  EXPECT_EQ(key_bits(track, hand_coding()), 16u);
}

}  // namespace
}  // namespace ks
