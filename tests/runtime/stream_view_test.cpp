#include "core/runtime/stream_view.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "core/runtime/player.h"
#include "core/runtime/stream_format.h"
#include "tests/runtime/stream_test_support.h"

namespace ks {
namespace {

using test::get_u32;
using test::set_u16;
using test::set_u32;
using test::StreamEntry;
using Bytes = std::vector<uint8_t>;
namespace ho = header_offset;

constexpr const char* kName = "walk.ks";

// Passes when `result` is a refusal naming the stream and containing every part.
::testing::AssertionResult refused_mentioning(const Result<StreamView>& result,
                                              std::initializer_list<std::string_view> parts) {
  return test::refused_mentioning(result, kName, parts);
}

Result<StreamView> open(const Bytes& bytes) {
  return StreamView::open(bytes, kName);
}

// The fitted wave clip (3 bones, 40 frames at 30 Hz) and its stream with a
// jump frame every 8 frames (0.25 s): jump frames at 8, 16, 24 and 32.
const FittedClip& fitted() {
  static const FittedClip clip = [] {
    const test::RandomClip source = test::make_wave_clip();
    return test::fit_or_fail(source.skeleton, source.clip);
  }();
  return clip;
}
const Bytes& valid() {
  static const Bytes bytes = test::pack_or_fail(fitted(), 0.25f);
  return bytes;
}
// The view of valid() (which the static keeps alive).
const StreamView& valid_view() {
  static const StreamView view = [] {
    Result<StreamView> v = StreamView::open(valid());
    EXPECT_TRUE(v.ok()) << v.error();
    return std::move(v.value());
  }();
  return view;
}

// Byte offset of track t's record in the track table.
uint32_t track_record(const Bytes& bytes, uint32_t t) {
  uint32_t offset = get_u32(bytes, ho::kTrackTableOffset);
  for (uint32_t i = 0; i < t; ++i) offset += i % 3 == 1 ? kTrackRecordSize : kVec3TrackRecordSize;
  return offset;
}

// Bit offset (from the initial keys' start) of the frame of key k (1 or 2) of track t.
uint64_t initial_key_frame_bit(const StreamView& view, uint32_t t, uint32_t k) {
  uint64_t bit = 0;
  for (uint32_t i = 0; i <= t; ++i) {
    const StreamTrack& track = view.tracks()[i];
    const uint32_t count = std::min(track.key_count, kInitialKeysPerTrack);
    for (uint32_t j = 0; j < count; ++j) {
      if (i == t && j == k) return bit;
      bit += (j > 0 ? kFrameBits : 0) + track.value_bits;
    }
  }
  ADD_FAILURE() << "track " << t << " has no initial key " << k;
  return 0;
}

// Per entry of the key stream: the index of the key within its track.
std::vector<uint32_t> entry_key_indices(const StreamView& view, const std::vector<StreamEntry>& entries) {
  std::vector<uint32_t> next(view.tracks().size());
  for (size_t t = 0; t < next.size(); ++t) next[t] = std::min(view.tracks()[t].key_count, kInitialKeysPerTrack);
  std::vector<uint32_t> indices;
  for (const StreamEntry& e : entries) indices.push_back(next[e.track]++);
  return indices;
}

// Writes one key stream entry at `bit` (a bit offset into the key stream).
uint64_t write_entry(Bytes& bytes, const StreamView& view, uint64_t bit, const StreamEntry& e) {
  const uint64_t base = uint64_t{test::key_stream_offset(bytes)} * 8;
  test::write_bits(bytes, base + bit, e.track, view.track_id_bits());
  bit += view.track_id_bits();
  test::write_bits(bytes, base + bit, e.frame, kFrameBits);
  bit += kFrameBits;
  const uint32_t value_bits = view.tracks()[e.track].value_bits;
  test::write_bits(bytes, base + bit, e.value, value_bits);
  return bit + value_bits;
}

// Inserts `count` zero bytes at `at`, moving every section that starts at or
// after it, and fixes the size and checksum: the section ending at `at` grows.
Bytes insert_bytes(const Bytes& original, uint32_t at, uint32_t count) {
  return test::splice(original, at, 0, Bytes(count, 0));
}

// valid() with `patch` applied and the checksum fixed.
template <class Patch>
Bytes patched(Patch patch) {
  Bytes bytes = valid();
  patch(bytes);
  test::fix_checksum(bytes);
  return bytes;
}

TEST(StreamViewOpen, OpensAValidStream) {
  const Result<StreamView> result = open(valid());
  ASSERT_TRUE(result.ok()) << result.error();
  const StreamView& view = result.value();
  const FittedClip& clip = fitted();
  EXPECT_EQ(view.frame_count(), 40u);
  EXPECT_EQ(view.last_frame(), 39u);
  EXPECT_EQ(view.sample_rate_hz(), 30.f);
  EXPECT_FLOAT_EQ(view.duration_s(), 39.f / 30.f);
  EXPECT_EQ(view.bone_count(), 3u);
  EXPECT_EQ(std::vector<int32_t>(view.parents().begin(), view.parents().end()), (std::vector<int32_t>{-1, 0, 1}));
  EXPECT_EQ(view.flags(), 0u);
  ASSERT_EQ(view.tracks().size(), 9u);
  uint32_t streamed = 0;
  for (uint32_t t = 0; t < 9; ++t) {
    const StreamTrack& track = view.tracks()[t];
    EXPECT_EQ(track.kind, static_cast<TrackKind>(t % 3));
    EXPECT_EQ(track.bone, t / 3);
    EXPECT_EQ(track.key_count, clip.tracks[t].keys.size());
    EXPECT_EQ(track.quantization.rotation_bits, clip.tracks[t].quantization.rotation_bits);
    if (track.key_count > kInitialKeysPerTrack) ++streamed;
  }
  EXPECT_EQ(view.streamed_track_count(), streamed);
  EXPECT_GE(streamed, 4u);  // the tests below need streamed tracks of every kind
  EXPECT_EQ(view.total_key_count(), clip.key_count());
  EXPECT_EQ(view.jump_interval_frames(), 8u);
  ASSERT_EQ(view.jump_frames().size(), 4u);
  EXPECT_EQ(view.jump_frames()[3].frame, 32u);
  EXPECT_EQ(view.track_id_bits(), 4u);
  EXPECT_EQ(view.bytes().data(), valid().data());  // a view, not a copy
  EXPECT_GT(view.jump_frame_bytes(), 4 * kJumpIndexEntrySize);
}

TEST(StreamViewOpen, RefusesEveryTruncation) {
  const Bytes& bytes = valid();
  for (size_t n = 0; n < bytes.size(); ++n) {
    SCOPED_TRACE(n);
    // A copy of exactly n bytes, so a read past them is a heap overflow under ASan.
    const Bytes prefix(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n));
    if (n < kHeaderSize) {
      ASSERT_TRUE(refused_mentioning(open(prefix), {"truncated", std::to_string(n) + " bytes"}));
    } else {
      ASSERT_TRUE(refused_mentioning(open(prefix), {"size mismatch", "(truncated)"}));
      // The same prefix with a header that agrees with its size and checksum
      // reaches the section checks, which must refuse it too.
      Bytes consistent = prefix;
      test::fix_size_and_checksum(consistent);
      ASSERT_FALSE(open(consistent).ok());
    }
  }
}

TEST(StreamViewOpen, RefusesWrongMagic) {
  const Bytes bytes = patched([](Bytes& b) { b[0] = 'X'; });
  EXPECT_TRUE(refused_mentioning(open(bytes), {"not a keystream stream", "wrong magic"}));
}

TEST(StreamViewOpen, RefusesOtherVersions) {
  for (const uint16_t version : {uint16_t{0}, uint16_t{3}, uint16_t{0xFFFF}}) {
    const Bytes bytes = patched([&](Bytes& b) { set_u16(b, ho::kVersion, version); });
    EXPECT_TRUE(refused_mentioning(
        open(bytes), {"format version " + std::to_string(version) + " is not supported", "reads versions 1 to 2"}));
  }
  EXPECT_TRUE(refused_mentioning(open(patched([&](Bytes& b) { set_u16(b, ho::kVersion, 3); })),
                                 {"written by a newer keystream"}));
  // Read as version 1, the metadata offset is the reserved field that must be zero.
  EXPECT_TRUE(refused_mentioning(open(patched([&](Bytes& b) { set_u16(b, ho::kVersion, 1); })),
                                 {"reserved header field is not zero"}));
  // Version 1 knows no zstd flag.
  EXPECT_TRUE(refused_mentioning(open(patched([&](Bytes& b) {
                                   set_u16(b, ho::kVersion, 1);
                                   set_u32(b, ho::kMetadataOffset, 0);
                                   set_u16(b, ho::kFlags, kFlagZstdKeyStream);
                                 })),
                                 {"unknown flags set (2) for format version 1"}));
}

TEST(StreamViewOpen, RefusesBadChecksum) {
  Bytes bytes = valid();
  bytes[test::key_stream_offset(bytes) + 1] ^= 0x10;
  EXPECT_TRUE(refused_mentioning(open(bytes), {"checksum mismatch"}));
  bytes = valid();
  bytes[ho::kChecksum] ^= 1;
  EXPECT_TRUE(refused_mentioning(open(bytes), {"checksum mismatch"}));
}

TEST(StreamViewOpen, RefusesSizeMismatch) {
  Bytes longer = valid();
  longer.push_back(0);
  EXPECT_TRUE(refused_mentioning(open(longer), {"size mismatch", "header says " + std::to_string(valid().size()),
                                                "there are " + std::to_string(longer.size())}));
  const Bytes claims_more = patched([](Bytes& b) { set_u32(b, ho::kTotalSize, static_cast<uint32_t>(b.size() + 4)); });
  EXPECT_TRUE(refused_mentioning(open(claims_more), {"size mismatch", "(truncated)"}));
}

TEST(StreamViewOpen, RefusesHeaderFieldsOutOfRange) {
  struct Case {
    uint32_t offset;
    uint32_t value;
    const char* message;
  };
  const uint32_t jumps = get_u32(valid(), ho::kJumpFrameCount);
  const std::string past_section_bits =
      "for its " +
      std::to_string((get_u32(valid(), ho::kJumpIndexOffset) - get_u32(valid(), ho::kKeyStreamOffset)) * 8 + 1) +
      " bits";
  for (const Case& c : {
           Case{ho::kFrameCount, 1, "frame count 1 is outside 2..65535"},
           Case{ho::kFrameCount, 65536, "frame count 65536 is outside 2..65535"},
           Case{ho::kBoneCount, 0, "bone count 0 is outside 1..65535"},
           Case{ho::kBoneCount, 70000, "bone count 70000 is outside 1..65535"},
           Case{ho::kTrackCount, 8, "track count 8 is not three per bone"},
           Case{ho::kJumpFrameCount, jumps + 1, "does not match an interval of 8 frames (expected 4)"},
           Case{ho::kJumpIntervalFrames, 0, "jump frame count 4 does not match an interval of 0 frames"},
           Case{ho::kTotalKeyCount, get_u32(valid(), ho::kTotalKeyCount) + 1, "the header says"},
           Case{ho::kStreamKeyCount, get_u32(valid(), ho::kStreamKeyCount) - 1, "the key stream should hold"},
           Case{ho::kKeyStreamBits,
                (get_u32(valid(), ho::kJumpIndexOffset) - get_u32(valid(), ho::kKeyStreamOffset)) * 8 + 1,
                past_section_bits.c_str()},
       }) {
    SCOPED_TRACE(c.message);
    const Bytes bytes = patched([&](Bytes& b) { set_u32(b, c.offset, c.value); });
    EXPECT_TRUE(refused_mentioning(open(bytes), {c.message}));
  }
  EXPECT_TRUE(refused_mentioning(open(patched([](Bytes& b) { set_u16(b, ho::kFlags, 4); })), {"unknown flags set (4) for format version 2"}));
  for (const float rate :
       {0.f, -30.f, std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
    const Bytes bytes = patched([&](Bytes& b) { test::set_f32(b, ho::kSampleRate, rate); });
    EXPECT_TRUE(refused_mentioning(open(bytes), {"sample rate is not a positive number"})) << rate;
  }
}

TEST(StreamViewOpen, RefusesSectionOffsetsOutOfOrderOrPastTheEnd) {
  const uint32_t initial = get_u32(valid(), ho::kInitialKeysOffset);
  const uint32_t tracks = get_u32(valid(), ho::kTrackTableOffset);
  const uint32_t size = static_cast<uint32_t>(valid().size());
  const Bytes swapped = patched([&](Bytes& b) {
    set_u32(b, ho::kTrackTableOffset, initial);
    set_u32(b, ho::kInitialKeysOffset, tracks);
  });
  EXPECT_TRUE(refused_mentioning(open(swapped), {"section offsets are out of order or past the end"}));
  for (const uint32_t field : {ho::kBoneTableOffset, ho::kTrackTableOffset, ho::kInitialKeysOffset,
                               ho::kKeyStreamOffset, ho::kJumpIndexOffset, ho::kJumpStatesOffset}) {
    SCOPED_TRACE(field);
    for (const uint32_t value : {size + 1, 0xFFFFFFFFu}) {
      const Bytes bytes = patched([&](Bytes& b) { set_u32(b, field, value); });
      EXPECT_TRUE(refused_mentioning(open(bytes), {"section offsets are out of order or past the end"}));
    }
  }
  const Bytes gap = patched([](Bytes& b) { set_u32(b, ho::kBoneTableOffset, kHeaderSize + 4); });
  EXPECT_TRUE(refused_mentioning(open(gap), {"bone table does not follow the header"}));
  const Bytes inside_header = patched([](Bytes& b) { set_u32(b, ho::kBoneTableOffset, 8); });
  EXPECT_TRUE(refused_mentioning(open(inside_header), {"section offsets are out of order"}));
}

TEST(StreamViewOpen, RefusesBoneParentAfterChild) {
  const uint32_t table = get_u32(valid(), ho::kBoneTableOffset);
  EXPECT_TRUE(refused_mentioning(open(patched([&](Bytes& b) { set_u16(b, table + 2, 1); })),
                                 {"bone 1 has parent 1, which does not come before it"}));
  EXPECT_TRUE(refused_mentioning(open(patched([&](Bytes& b) { set_u16(b, table + 0, 2); })),
                                 {"bone 0 has parent 2, which does not come before it"}));
  // A root anywhere is fine.
  EXPECT_TRUE(open(patched([&](Bytes& b) { set_u16(b, table + 4, kNoParent); })).ok());
}

TEST(StreamViewOpen, RefusesBadTrackKindOrBone) {
  EXPECT_TRUE(refused_mentioning(open(patched([](Bytes& b) { b[track_record(b, 1) + 4] = 0; })),
                                 {"track 1 has kind 0, expected 1"}));
  EXPECT_TRUE(refused_mentioning(open(patched([](Bytes& b) { b[track_record(b, 2) + 4] = 7; })),
                                 {"track 2 has kind 7, expected 2"}));
  EXPECT_TRUE(refused_mentioning(open(patched([](Bytes& b) { set_u16(b, track_record(b, 4) + 6, 0); })),
                                 {"track 4 animates bone 0, expected 1"}));
}

TEST(StreamViewOpen, RefusesKeyCountZeroOrHuge) {
  for (const uint32_t count : {0u, 81u, 0xFFFFFFFFu}) {
    const Bytes bytes = patched([&](Bytes& b) { set_u32(b, track_record(b, 3), count); });
    EXPECT_TRUE(refused_mentioning(open(bytes), {"track 3 has " + std::to_string(count) + " keys, outside 1..80"}));
  }
  // A count in range that disagrees with the header's total.
  const Bytes one_more = patched([](Bytes& b) { set_u32(b, track_record(b, 3), get_u32(b, track_record(b, 3)) + 1); });
  EXPECT_TRUE(refused_mentioning(open(one_more), {"tracks hold", "the header says"}));
}

TEST(StreamViewOpen, RefusesRotationBitsOutOfRange) {
  for (const uint8_t bits : {uint8_t{0}, uint8_t{9}, uint8_t{21}, uint8_t{255}}) {
    const Bytes bytes = patched([&](Bytes& b) { b[track_record(b, 4) + 5] = bits; });
    EXPECT_TRUE(refused_mentioning(
        open(bytes), {"track 4 has " + std::to_string(bits) + "-bit rotation components", "outside 10..20"}));
  }
  EXPECT_TRUE(refused_mentioning(open(patched([](Bytes& b) { b[track_record(b, 3) + 5] = 10; })),
                                 {"track 3 is a vec3 track with a rotation bit width"}));
}

TEST(StreamViewOpen, RefusesInvalidQuantizationRange) {
  for (const float bad : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(), -1.f}) {
    const Bytes bytes = patched([&](Bytes& b) { test::set_f32(b, track_record(b, 5) + 8 + 12, bad); });
    EXPECT_TRUE(refused_mentioning(open(bytes), {"track 5 has an invalid quantization range"})) << bad;
  }
  const Bytes overflow = patched([](Bytes& b) {
    test::set_f32(b, track_record(b, 0) + 8, 3e38f);
    test::set_f32(b, track_record(b, 0) + 8 + 12, 3e38f);
  });
  EXPECT_TRUE(refused_mentioning(open(overflow), {"track 0 has an invalid quantization range"}));
}

TEST(StreamViewOpen, RefusesTrackIdOutOfRangeInTheKeyStream) {
  const StreamView& view = valid_view();
  for (const uint32_t id : {9u, 15u}) {
    const Bytes bytes = patched(
        [&](Bytes& b) { test::write_bits(b, uint64_t{test::key_stream_offset(b)} * 8, id, view.track_id_bits()); });
    EXPECT_TRUE(refused_mentioning(open(bytes), {"key stream entry 0 names track " + std::to_string(id) + " of 9"}));
  }
}

TEST(StreamViewOpen, RefusesKeyFramesOutOfOrderOrPastTheEnd) {
  const StreamView& view = valid_view();
  const std::vector<StreamEntry> entries = test::decode_key_stream(view);
  const std::vector<uint32_t> keys = entry_key_indices(view, entries);
  // The first entry whose track's previous key is past frame 0.
  size_t i = 0;
  while (i < entries.size() && fitted().tracks[entries[i].track].keys[keys[i] - 1].frame == 0) ++i;
  ASSERT_LT(i, entries.size());
  const StreamEntry e = entries[i];
  const uint32_t previous = fitted().tracks[e.track].keys[keys[i] - 1].frame;
  const std::string where = "track " + std::to_string(e.track) + " key " + std::to_string(keys[i]);
  StreamEntry back = e;
  back.frame = previous - 1;
  EXPECT_TRUE(refused_mentioning(open(patched([&](Bytes& b) { write_entry(b, view, e.bit_offset, back); })),
                                 {where + " is at frame " + std::to_string(previous - 1),
                                  "before the key it follows (frame " + std::to_string(previous) + ")"}));
  StreamEntry past = e;
  past.frame = 40;
  EXPECT_TRUE(refused_mentioning(open(patched([&](Bytes& b) { write_entry(b, view, e.bit_offset, past); })),
                                 {where + " is at frame 40, past the last frame 39"}));
  // The last key of a track moved off the last frame.
  size_t last = entries.size() - 1;
  StreamEntry early = entries[last];
  early.frame = 38;
  EXPECT_TRUE(refused_mentioning(open(patched([&](Bytes& b) { write_entry(b, view, early.bit_offset, early); })),
                                 {"track " + std::to_string(early.track) + " key " + std::to_string(keys[last]),
                                  "is the last key but is at frame 38"}));
  // Initial keys too: key 1 of track 1 after the last frame.
  const Bytes initial = patched([&](Bytes& b) {
    test::write_bits(b, uint64_t{get_u32(b, ho::kInitialKeysOffset)} * 8 + initial_key_frame_bit(view, 1, 1), 45,
                     kFrameBits);
  });
  EXPECT_TRUE(refused_mentioning(open(initial), {"track 1 key 1 is at frame 45, past the last frame 39"}));
}

TEST(StreamViewOpen, RefusesThreeKeysAtOneFrame) {
  const StreamView& view = valid_view();
  // In the initial keys: keys 1 and 2 of track 1 moved to frame 0, beside key 0.
  const Bytes initial = patched([&](Bytes& b) {
    const uint64_t base = uint64_t{get_u32(b, ho::kInitialKeysOffset)} * 8;
    test::write_bits(b, base + initial_key_frame_bit(view, 1, 1), 0, kFrameBits);
    test::write_bits(b, base + initial_key_frame_bit(view, 1, 2), 0, kFrameBits);
  });
  EXPECT_TRUE(refused_mentioning(open(initial), {"track 1 key 2 is the third key at frame 0"}));

  // In the key stream: keys 3 and 4 of a track with six keys or more moved to key 2's frame.
  const std::vector<StreamEntry> entries = test::decode_key_stream(view);
  const std::vector<uint32_t> keys = entry_key_indices(view, entries);
  uint32_t track = 0;
  while (track < 9 && fitted().tracks[track].keys.size() < 6) ++track;
  ASSERT_LT(track, 9u);
  const uint16_t frame = fitted().tracks[track].keys[2].frame;
  const Bytes stream = patched([&](Bytes& b) {
    for (size_t i = 0; i < entries.size(); ++i) {
      if (entries[i].track != track || (keys[i] != 3 && keys[i] != 4)) continue;
      StreamEntry moved = entries[i];
      moved.frame = frame;
      write_entry(b, view, moved.bit_offset, moved);
    }
  });
  EXPECT_TRUE(refused_mentioning(
      open(stream), {"track " + std::to_string(track) + " key 4 is the third key at frame " + std::to_string(frame)}));
}

TEST(StreamViewOpen, RefusesKeysOutOfNeedOrder) {
  const StreamView& view = valid_view();
  const std::vector<StreamEntry> entries = test::decode_key_stream(view);
  const std::vector<uint32_t> keys = entry_key_indices(view, entries);
  auto need = [&](size_t i) { return fitted().tracks[entries[i].track].keys[keys[i] - 2].frame; };
  bool swapped_needs = false, swapped_tracks = false;
  for (size_t i = 0; i + 1 < entries.size(); ++i) {
    if (entries[i].track == entries[i + 1].track) continue;
    const bool later_need = need(i) < need(i + 1);
    if ((later_need && swapped_needs) || (!later_need && swapped_tracks)) continue;
    // Entries i and i+1 trade places; their bits together keep their length.
    const Bytes bytes = patched([&](Bytes& b) {
      const uint64_t bit = write_entry(b, view, entries[i].bit_offset, entries[i + 1]);
      write_entry(b, view, bit, entries[i]);
    });
    SCOPED_TRACE(i);
    EXPECT_TRUE(refused_mentioning(
        open(bytes), {"key stream entry " + std::to_string(i + 1) + " (track " + std::to_string(entries[i].track) +
                          ", needed at frame " + std::to_string(need(i)) + ") is out of order",
                      "sorted by need frame, then track"}));
    (later_need ? swapped_needs : swapped_tracks) = true;
  }
  EXPECT_TRUE(swapped_needs);
  EXPECT_TRUE(swapped_tracks);  // two tracks needing keys at one frame, swapped
}

TEST(StreamViewOpen, RefusesKeyStreamWithTooFewOrTooManyBits) {
  // On many streams, since where the last key ends within its byte matters.
  for (uint32_t seed = 1; seed <= 100; ++seed) {
    SCOPED_TRACE(seed);
    const Bytes original = test::pack_or_fail(test::make_random_fitted_clip(seed), 0.2f);
    const uint32_t bits = get_u32(original, ho::kKeyStreamBits);
    if (bits == 0) continue;
    Bytes fewer = original;
    set_u32(fewer, ho::kKeyStreamBits, bits - 1);  // the last key does not fit
    test::fix_checksum(fewer);
    // A jump frame at the very end now points past it; else fewer bits fit
    // in one byte less, or the last key runs past them.
    const Result<StreamView> view = StreamView::open(original, kName);
    ASSERT_TRUE(view.ok()) << view.error();
    const bool jump_at_end =
        !view.value().jump_frames().empty() && view.value().jump_frames().back().stream_bit_offset == bits;
    EXPECT_TRUE(refused_mentioning(StreamView::open(fewer, kName),
                                   {jump_at_end    ? "points past the end of the key stream"
                                    : bits % 8 == 1 ? "key stream section is"
                                                    : "key stream is truncated at key stream entry"}));
    Bytes more = original;
    set_u32(more, ho::kKeyStreamBits, bits + 1);  // a bit past the last key, or past the section
    test::fix_checksum(more);
    // When every key already takes the most bits a key can, one more is
    // refused before the section is looked at.
    const Result<StreamView> opened_more = StreamView::open(more, kName);
    ASSERT_FALSE(opened_more.ok());
    const std::string expected = bits % 8 == 0 ? "key stream section is" : "bits past its last key";
    EXPECT_TRUE(opened_more.error().find(expected) != std::string::npos ||
                opened_more.error().find("keys can take") != std::string::npos)
        << opened_more.error();
  }
}

TEST(StreamViewOpen, RefusesJumpStateInconsistentWithForwardPlay) {
  const StreamView& view = valid_view();
  const uint32_t index = get_u32(valid(), ho::kJumpIndexOffset);
  const uint64_t states = uint64_t{get_u32(valid(), ho::kJumpStatesOffset)} * 8;
  // Jump frame 1 resuming one key early, or one bit off.
  const JumpFrame& jump1 = view.jump_frames()[1];
  ASSERT_GT(jump1.stream_key_index, 0u);
  // The keys before a jump frame must end where it resumes.
  EXPECT_TRUE(refused_mentioning(
      open(patched([&](Bytes& b) { set_u32(b, index + 12, jump1.stream_key_index - 1); })),
      {"jump frame 1 resumes at bit " + std::to_string(jump1.stream_bit_offset), "the keys before it end at bit"}));
  EXPECT_TRUE(refused_mentioning(
      open(patched([&](Bytes& b) { set_u32(b, index + 16, jump1.stream_bit_offset + 1); })),
      {"jump frame 1 resumes at bit " + std::to_string(jump1.stream_bit_offset + 1),
       "the keys before it end at bit " + std::to_string(jump1.stream_bit_offset)}));
  // A consistent position, but not the one forward play reaches at frame 16:
  // jump frame 1 resuming where jump frame 0 does.
  const JumpFrame& jump0 = view.jump_frames()[0];
  ASSERT_NE(jump0.stream_key_index, jump1.stream_key_index);
  EXPECT_TRUE(refused_mentioning(open(patched([&](Bytes& b) {
                                   set_u32(b, index + 12, jump0.stream_key_index);
                                   set_u32(b, index + 16, jump0.stream_bit_offset);
                                 })),
                                 {"jump frame 1 (frame 16) resumes at stream key " + std::to_string(jump0.stream_key_index),
                                  "forward play is at key " + std::to_string(jump1.stream_key_index)}));
  // Resuming before the jump frame ahead of it.
  EXPECT_TRUE(refused_mentioning(open(patched([&](Bytes& b) {
                                   set_u32(b, index + 12, jump0.stream_key_index - 1);
                                   set_u32(b, index + 16, jump0.stream_bit_offset - 1);
                                 })),
                                 {"jump frame 1 resumes the key stream before the jump frame ahead of it"}));
  EXPECT_TRUE(refused_mentioning(open(patched([&](Bytes& b) { set_u32(b, index + 12, view.stream_key_count() + 1); })),
                                 {"jump frame 1 points past the end of the key stream"}));
  EXPECT_TRUE(refused_mentioning(open(patched([&](Bytes& b) { set_u32(b, index + 20, jump1.state_bit_offset + 1); })),
                                 {"jump frame 1 has a state offset that does not follow the previous state"}));

  // Jump frame 0's saved window of the first streamed track: a flipped value
  // bit, a key count out of range, a frame past the end.
  uint32_t track = 0;
  while (view.tracks()[track].key_count <= kInitialKeysPerTrack) ++track;
  const StreamTrack& saved = view.tracks()[track];
  ASSERT_GT(saved.value_bits, 0u);
  const uint64_t count_bit = states + view.jump_frames()[0].state_bit_offset;
  const uint64_t frame_bit = count_bit + view.key_index_bits();
  const uint64_t value_bit = frame_bit + kFrameBits;
  const std::string state_problem =
      "jump frame 0 (frame 8) does not hold the state forward play reaches for track " + std::to_string(track);
  EXPECT_TRUE(refused_mentioning(
      open(patched([&](Bytes& b) { b[value_bit / 8] ^= static_cast<uint8_t>(1u << (value_bit % 8)); })),
      {state_problem}));
  const uint32_t saved_frame = BitReader(valid(), frame_bit).read(kFrameBits);
  EXPECT_TRUE(refused_mentioning(
      open(patched([&](Bytes& b) { test::write_bits(b, frame_bit, saved_frame ^ 1u, kFrameBits); })), {state_problem}));
  EXPECT_TRUE(refused_mentioning(open(patched([&](Bytes& b) { test::write_bits(b, frame_bit, 40, kFrameBits); })),
                                 {"jump frame 0 holds a key past the last frame for track " + std::to_string(track)}));
  EXPECT_TRUE(
      refused_mentioning(open(patched([&](Bytes& b) { test::write_bits(b, count_bit, 2, view.key_index_bits()); })),
                         {"jump frame 0 says track " + std::to_string(track) + " has read 2 of its " +
                          std::to_string(saved.key_count) + " keys"}));
  const uint32_t largest_count = (1u << view.key_index_bits()) - 1;  // what the field can hold
  if (largest_count > saved.key_count) {
    EXPECT_TRUE(refused_mentioning(
        open(patched([&](Bytes& b) { test::write_bits(b, count_bit, largest_count, view.key_index_bits()); })),
        {"jump frame 0 says track " + std::to_string(track) + " has read " + std::to_string(largest_count)}));
  }

  // The "negated by the hemisphere fix" bit of a saved rotation key.
  uint64_t bit = count_bit;
  bool flipped = false;
  for (uint32_t t = 0; t < view.tracks().size() && !flipped; ++t) {
    const StreamTrack& s = view.tracks()[t];
    if (s.key_count <= kInitialKeysPerTrack) continue;
    BitReader reader(valid(), bit);
    const uint32_t read = reader.read(view.key_index_bits());
    bit += view.key_index_bits();
    const uint32_t window = std::min(read, kWindowSize);
    const uint32_t key_bits = kFrameBits + s.value_bits + (s.kind == TrackKind::kRotation ? 1 : 0);
    if (s.kind == TrackKind::kRotation) {
      const uint64_t negate_bit = bit + key_bits - 1;  // the first saved key's flag
      EXPECT_TRUE(refused_mentioning(
          open(patched([&](Bytes& b) { b[negate_bit / 8] ^= static_cast<uint8_t>(1u << (negate_bit % 8)); })),
          {"jump frame 0 (frame 8) does not hold the state forward play reaches for track " + std::to_string(t)}));
      flipped = true;
    }
    bit += uint64_t{window} * key_bits;
  }
  EXPECT_TRUE(flipped);
}

TEST(StreamViewOpen, RefusesTrailingBytes) {
  const Bytes& b = valid();
  struct Case {
    uint32_t at;  // where the bytes go: the end of the section named by the message
    uint32_t count;
    const char* message;
  };
  for (const Case& c : {
           Case{get_u32(b, ho::kTrackTableOffset), 4, "bone table is 12 bytes, expected 2 per bone padded to 4"},
           Case{get_u32(b, ho::kInitialKeysOffset), 8, "track table has trailing bytes"},
           Case{get_u32(b, ho::kKeyStreamOffset), 1, "initial keys section has trailing bytes"},
           Case{get_u32(b, ho::kJumpIndexOffset), 1, "key stream section is"},
           Case{get_u32(b, ho::kJumpStatesOffset), 12, "jump index is 60 bytes, expected 12 for each of 4 jump frames"},
           Case{get_u32(b, ho::kMetadataOffset), 1, "jump states section has trailing bytes"},
           Case{static_cast<uint32_t>(b.size()), 1, "metadata has trailing bytes"},
       }) {
    SCOPED_TRACE(c.message);
    EXPECT_TRUE(refused_mentioning(open(insert_bytes(b, c.at, c.count)), {c.message}));
  }
}

TEST(StreamViewOpen, RefusesTruncatedSections) {
  // A section cut short by moving the next one's start back (the bytes in between change owner).
  const Bytes& b = valid();
  EXPECT_TRUE(refused_mentioning(
      open(patched([&](Bytes& p) { set_u32(p, ho::kInitialKeysOffset, get_u32(b, ho::kInitialKeysOffset) - 4); })),
      {"track table is truncated"}));
  for (uint32_t seed = 1; seed <= 100; ++seed) {
    SCOPED_TRACE(seed);
    Bytes bytes = test::pack_or_fail(test::make_random_fitted_clip(seed), 0.2f);
    set_u32(bytes, ho::kKeyStreamOffset, get_u32(bytes, ho::kKeyStreamOffset) - 1);
    test::fix_checksum(bytes);
    EXPECT_TRUE(refused_mentioning(StreamView::open(bytes, kName), {"initial keys are truncated"}));
  }
}

// Player of an accepted stream: every frame, fractional times and seeks both
// ways. Under the sanitizers a bad read or overflow is a failure.
void play_everything(const StreamView& view) {
  Player player(view);
  std::vector<Transform> pose(view.bone_count());
  for (uint32_t f = 0; f <= view.last_frame(); ++f) {
    player.sample_frame(static_cast<float>(f), pose);
    player.sample_frame(static_cast<float>(f) + 0.5f, pose);
  }
  for (uint32_t f = view.last_frame() + 1; f-- > 0;) player.sample_frame(static_cast<float>(f) + 0.25f, pose);
  player.sample(-1.f, pose);
  player.sample(1e9f, pose);
  player.set_looping(true);
  player.sample(123.4f, pose);
}

TEST(StreamViewOpen, SurvivesRandomCorruptionWithAFixedChecksum) {
  std::mt19937 rng(2024);
  const Bytes& b = valid();
  int accepted = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    Bytes bytes = b;
    const size_t at = rng() % bytes.size();
    if (trial % 2 == 0) {
      bytes[at] ^= static_cast<uint8_t>(1u << (rng() % 8));  // one bit
    } else {
      bytes[at] = static_cast<uint8_t>(rng());  // one byte
    }
    test::fix_checksum(bytes);
    const Result<StreamView> result = StreamView::open(bytes, kName);
    if (!result.ok()) {
      ASSERT_FALSE(result.error().empty());
      continue;
    }
    ++accepted;
    play_everything(result.value());
  }
  // Flips of a key value the jump states also hold are refused; many others
  // (values of keys no jump frame saves, padding) still make a valid stream,
  // and those the player must decode. About a quarter are accepted.
  EXPECT_GT(accepted, 200);
  EXPECT_LT(accepted, 2000);
}

TEST(StreamViewOpen, SurvivesRandomHeaderAndIndexFields) {
  // Every 32-bit field of the header and the jump index set to values near
  // the edges and at random, with a fixed checksum.
  std::mt19937 rng(99);
  const Bytes& b = valid();
  const uint32_t index_end = get_u32(b, ho::kJumpStatesOffset);
  std::vector<uint32_t> fields;
  for (uint32_t f = 0; f < kHeaderSize; f += 4) {
    if (f != ho::kChecksum) fields.push_back(f);
  }
  for (uint32_t f = get_u32(b, ho::kJumpIndexOffset); f + 4 <= index_end; f += 4) fields.push_back(f);
  for (const uint32_t field : fields) {
    const uint32_t original = get_u32(b, field);
    for (const uint32_t value : {0u, 1u, original - 1, original + 1, original * 2, 0x7FFFFFFFu, 0xFFFFFFFFu,
                                 static_cast<uint32_t>(rng()), static_cast<uint32_t>(rng() & 0xFFFF)}) {
      Bytes bytes = b;
      set_u32(bytes, field, value);
      test::fix_checksum(bytes);
      const Result<StreamView> result = StreamView::open(bytes, kName);
      if (result.ok()) play_everything(result.value());
    }
  }
}

TEST(StreamViewOpen, OpensStreamsOfRandomFittedClips) {
  for (uint32_t seed = 100; seed < 160; ++seed) {
    SCOPED_TRACE(seed);
    const Bytes bytes = test::pack_or_fail(test::make_random_fitted_clip(seed), 0.2f);
    const Result<StreamView> result = StreamView::open(bytes);
    ASSERT_TRUE(result.ok()) << result.error();
  }
}

}  // namespace
}  // namespace ks
