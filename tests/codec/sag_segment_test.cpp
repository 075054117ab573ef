#include "keystream/runtime/sag_segment.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "keystream/codec/sag_segment_writer.h"
#include "keystream/runtime/quantization.h"
#include "tests/codec/bisection_tracks.h"

namespace ks {
namespace {

using namespace test;

// Every position but the anchor's and the sag key's has one record, in
// order, and the sag key sits in the middle.
TEST(SagSegment, RecordsNumberTheOtherPositionsInOrder) {
  EXPECT_EQ(sag_position(1), 0u);
  EXPECT_EQ(sag_position(2), 1u);
  EXPECT_EQ(sag_position(16), 8u);
  for (uint32_t count = 3; count <= kKeysPerSegment; ++count) {
    std::vector<uint32_t> records;
    for (uint32_t p = 1; p < count; ++p) {
      if (p != sag_position(count)) records.push_back(sag_record_of(p, count));
    }
    ASSERT_EQ(records.size(), count - 2);
    for (uint32_t r = 0; r < records.size(); ++r) EXPECT_EQ(records[r], r) << "count " << count;
  }
}

// The guesses: frames spread evenly, the chord through the ends, the bend
// through the sag key, and bounds held at the extremes and for forged
// frames out of order.
TEST(SagSegment, GuessesFollowTheChordAndItsBend) {
  EXPECT_EQ(sag_frame_guess(10, 26, 8, 16), 18u);
  EXPECT_EQ(sag_frame_guess(0, 3, 1, 2), 2u);     // 1.5 rounds up
  EXPECT_EQ(sag_frame_guess(10, 4, 3, 16), 10u);  // forged order: the key before
  BisectionKey before, anchor, sag;
  before.frame = 0;
  anchor.frame = 10;
  sag.frame = 5;
  before.codes[0] = 100;
  anchor.codes[0] = 200;
  sag.codes[0] = 170;  // 20 over the chord at its middle
  const SagCurve straight = make_sag_curve(before, anchor, sag, false);
  EXPECT_EQ(sag_code_guess(straight, 0, 5), 150);
  EXPECT_EQ(sag_code_guess(straight, 0, 10), 200);
  EXPECT_EQ(sag_code_guess(straight, 0, 40), 200);  // past the anchor: held there
  const SagCurve bent = make_sag_curve(before, anchor, sag, true);
  EXPECT_EQ(sag_code_guess(bent, 0, 5), 170);
  EXPECT_EQ(sag_code_guess(bent, 0, 0), 100);
  EXPECT_EQ(sag_code_guess(bent, 0, 10), 200);
  EXPECT_EQ(sag_code_guess(bent, 0, 2), 100 + 20 + 13);  // 20 + 20 x 0.16 / 0.25 = 32.8
  // A sag key at the very end bends nothing.
  sag.frame = 10;
  EXPECT_EQ(sag_code_guess(make_sag_curve(before, anchor, sag, true), 0, 5), 150);
  // The whole code range, the sag key at the far end of it: held within.
  before.codes[0] = -kMaxCodeMagnitude;
  anchor.codes[0] = -kMaxCodeMagnitude;
  sag.frame = 5;
  sag.codes[0] = kMaxCodeMagnitude;
  const SagCurve steep = make_sag_curve(before, anchor, sag, true);
  for (uint32_t f = 0; f <= 10; ++f) {
    EXPECT_LE(sag_code_guess(steep, 0, f), kMaxCodeMagnitude);
    EXPECT_GE(sag_code_guess(steep, 0, f), -kMaxCodeMagnitude);
  }
}

// Every key reads back as written, from the whole segment and one by one,
// over random tracks of every segment length.
TEST(SagSegment, EveryKeyReadsBackAsWritten) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 400; ++trial) {
    const RandomTrack t = random_track(rng, 1 + rng() % 70);
    const WrittenTrack written = write_track(t, write_sag_segment);
    BitReader reader(written.bytes);
    BisectionKey before = t.keys[0];
    for (const WrittenSegment& segment : written.segments) {
      ASSERT_EQ(reader.position(), segment.start_bit);
      BisectionKey decoded[kKeysPerSegment + 1];
      read_sag_segment(reader, t.coding, segment.count, before, decoded);
      BitReader alone(written.bytes, segment.start_bit);
      const SagSegmentHead head = read_sag_head(alone, t.coding, segment.count, before);
      for (uint32_t p = 1; p <= segment.count; ++p) {
        const BisectionKey& key = t.keys[segment.first + p - 1];
        ASSERT_TRUE(same_key(decoded[p], key)) << "trial " << trial << " key " << segment.first + p - 1;
        ASSERT_TRUE(same_key(read_sag_key(alone, head, p), key)) << "trial " << trial << " position " << p;
        ASSERT_EQ(read_sag_frame(alone, head, p), key.frame);
      }
      before = decoded[segment.count];
    }
    EXPECT_EQ(reader.position(), written.bits);
    EXPECT_FALSE(reader.overrun());
  }
}

// The search finds the last key at or before a frame, as a scan of the
// whole segment does.
TEST(SagSegment, SearchFindsTheKeyAtAFrame) {
  std::mt19937 rng(23);
  for (int trial = 0; trial < 300; ++trial) {
    const RandomTrack t = random_track(rng, 1 + rng() % 40);
    const WrittenTrack written = write_track(t, write_sag_segment);
    for (const WrittenSegment& segment : written.segments) {
      const BisectionKey& before = t.keys[segment.first - 1];
      BitReader reader(written.bytes, segment.start_bit);
      const SagSegmentHead head = read_sag_head(reader, t.coding, segment.count, before);
      for (uint32_t probe = 0; probe < 12; ++probe) {
        const uint32_t frame = random_frame_in(rng, t, segment);
        ASSERT_EQ(find_in_sag_segment(reader, head, frame), last_position_at(t, segment, frame))
            << "trial " << trial << " frame " << frame;
      }
    }
  }
}

// Where keys follow a smooth curve (random parabolas), sag segments take
// fewer bits than v11's differences from the key before: the layout's
// reason, checked so that a worse guess fails.
TEST(SagSegment, SmoothTracksCostNoMoreThanDifferences) {
  std::mt19937 rng(3);
  uint64_t sag_bits = 0, difference_bits = 0;
  for (int trial = 0; trial < 50; ++trial) {
    RandomTrack t;
    t.coding.coded_mask = 7;
    t.coding.frame_bits = 16;
    t.coding.absolute_bits = 22;
    const double a = std::uniform_real_distribution<double>(-30.0, 30.0)(rng);
    const double b = std::uniform_real_distribution<double>(-2000.0, 2000.0)(rng);
    for (uint32_t k = 0; k < 120; ++k) {
      BisectionKey key;
      key.frame = 2 * k;
      for (uint32_t c = 0; c < 3; ++c) {
        const double x = static_cast<double>(k) + 10.0 * c;
        key.codes[c] = static_cast<int32_t>(std::lround(a * x * x + b * x)) % (1 << 20);
      }
      t.keys.push_back(key);
    }
    sag_bits += write_track(t, write_sag_segment).bits;
    // Each key as its difference from the one before, in the widths the
    // largest needs per segment: what v11 stores.
    for (size_t s = 1; s < t.keys.size(); s += kKeysPerSegment) {
      const size_t e = std::min(t.keys.size(), s + kKeysPerSegment);
      uint32_t widths[kKeyFields] = {};
      for (size_t i = s; i < e; ++i) {
        widths[0] = std::max(widths[0], bits_for(t.keys[i].frame - t.keys[i - 1].frame));
        for (uint32_t c = 0; c < 3; ++c) {
          widths[c + 1] = std::max(widths[c + 1], bits_for(zigzag(t.keys[i].codes[c] - t.keys[i - 1].codes[c])));
        }
      }
      uint32_t per_key = 0;
      for (const uint32_t w : widths) per_key += w;
      difference_bits += segment_width_bits(t.coding.coded_mask) + (e - s) * per_key;
    }
  }
  EXPECT_LT(sag_bits, difference_bits);
}

// Bytes that are no segment: reading them neither crashes nor reads out of
// bounds (the sanitizer build checks), whatever the widths claim.
TEST(SagSegment, ArbitraryBytesReadSafely) {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<uint8_t> bytes(1 + rng() % 64);
    for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng());
    const BisectionTrackCoding coding = random_coding(rng);
    const uint32_t count = 1 + rng() % kKeysPerSegment;
    BisectionKey before;
    before.frame = rng() % 70000;
    for (int32_t& c : before.codes)
      c = std::uniform_int_distribution<int32_t>(-kMaxCodeMagnitude, kMaxCodeMagnitude)(rng);
    BitReader reader(bytes);
    BisectionKey keys[kKeysPerSegment + 1];
    read_sag_segment(reader, coding, count, before, keys);
    BitReader again(bytes);
    const SagSegmentHead head = read_sag_head(again, coding, count, before);
    const uint32_t found = find_in_sag_segment(again, head, static_cast<uint32_t>(rng()));
    EXPECT_LE(found, count);
  }
}

}  // namespace
}  // namespace ks
