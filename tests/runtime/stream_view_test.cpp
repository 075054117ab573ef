#include "keystream/runtime/stream_view.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "keystream/codec/key_cost.h"
#include "keystream/runtime/player.h"
#include "keystream/runtime/stream_format.h"
#include "tests/runtime/stream_test_support.h"

namespace ks {
namespace {

using test::get_u32;
using test::set_u16;
using test::set_u32;
using test::StoredKey;
using test::StoredKeys;
using test::TableLayout;
using Bytes = std::vector<uint8_t>;
namespace ho = header_offset;

constexpr const char* kName = "walk.ks";
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

// Passes when `result` is a refusal naming the stream and containing every part.
::testing::AssertionResult refused_mentioning(const Result<StreamView>& result,
                                              std::initializer_list<std::string_view> parts) {
  return test::refused_mentioning(result, kName, parts);
}

// Every refusal test checks everything open() can check.
Result<StreamView> open(const Bytes& bytes) {
  return StreamView::open(bytes, kName, StreamCheck::kFull);
}

// The fitted wave clip (3 bones, 40 frames at 30 Hz; every track animated
// but the identity scales of bones 0 and 1; bone 0's translation codes x and
// y only) and its stream with a jump frame every 8 frames (0.25 s): jump
// frames at 8, 16, 24 and 32.
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
// The same without jump frames: keys can be rewritten without moving any.
const Bytes& plain() {
  static const Bytes bytes = test::pack_or_fail(fitted(), 0.f);
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
const TableLayout& layout() {
  static const TableLayout l = test::table_layout(valid());
  return l;
}

// Inserts `count` zero bytes at `at`, moving every section that starts at or
// after it, and fixes the size and checksum: the section ending at `at` grows.
Bytes insert_bytes(const Bytes& original, uint32_t at, uint32_t count) {
  return test::splice(original, at, 0, Bytes(count, 0));
}

// `base` (valid() by default) with `patch` applied and the checksum fixed.
template <class Patch>
Bytes patched(Patch patch, const Bytes& base = valid()) {
  Bytes bytes = base;
  patch(bytes);
  test::fix_checksum(bytes);
  return bytes;
}

// The first track of `kind` with at least `keys` keys.
uint32_t animated_track(TrackKind kind, size_t keys) {
  for (uint32_t t = 0; t < fitted().tracks.size(); ++t) {
    const FittedTrack& track = fitted().tracks[t];
    if (track.kind == kind && track.coding == TrackCoding::kAnimated && track.keys.size() >= keys) return t;
  }
  ADD_FAILURE() << "no animated track of kind " << static_cast<int>(kind) << " with " << keys << " keys";
  return 0;
}

TEST(StreamViewOpen, ATrackRecordIsSmall) {
  // One per track, 150,000 for a rig of 50,000 bones: a constant track's
  // value shares the record's quantization (stream_view.h).
  EXPECT_LE(sizeof(StreamTrack), 72u);
}

TEST(StreamViewOpen, OpensAValidStream) {
  const Result<StreamView> result = open(valid());
  ASSERT_TRUE(result.ok()) << result.error();
  const StreamView& view = result.value();
  const FittedClip& clip = fitted();
  EXPECT_EQ(view.version(), kStreamVersion);
  EXPECT_EQ(view.frame_count(), 40u);
  EXPECT_EQ(view.last_frame(), 39u);
  EXPECT_EQ(view.sample_rate_hz(), 30.f);
  EXPECT_FLOAT_EQ(view.duration_s(), 39.f / 30.f);
  EXPECT_EQ(view.bone_count(), 3u);
  EXPECT_EQ(std::vector<int32_t>(view.parents().begin(), view.parents().end()), (std::vector<int32_t>{-1, 0, 1}));
  EXPECT_EQ(view.flags(), 0u);
  ASSERT_EQ(view.tracks().size(), 9u);
  uint32_t animated = 0, streamed = 0, max_keys = 0;
  bool kinds_streamed[3] = {false, false, false};
  for (uint32_t t = 0; t < 9; ++t) {
    const StreamTrack& track = view.tracks()[t];
    const FittedTrack& source = clip.tracks[t];
    EXPECT_EQ(track.kind, static_cast<TrackKind>(t % 3));
    EXPECT_EQ(track.bone, t / 3);
    EXPECT_EQ(track.coding, source.coding) << "track " << t;
    if (source.coding != TrackCoding::kAnimated) {
      EXPECT_EQ(track.key_count, 0u);
      continue;
    }
    ++animated;
    EXPECT_EQ(track.key_count, source.keys.size());
    EXPECT_EQ(track.quantization.step, source.quantization.step);
    EXPECT_EQ(track.quantization.coded_mask, source.quantization.coded_mask);
    EXPECT_EQ(track.key_coding, choose_key_coding(source));
    max_keys = std::max(max_keys, track.key_count);
    if (track.key_count > kInitialKeysPerTrack) {
      ++streamed;
      kinds_streamed[t % 3] = true;
    }
  }
  EXPECT_EQ(view.animated_track_count(), animated);
  EXPECT_EQ(view.streamed_track_count(), streamed);
  // The tests below need streamed tracks of every kind, an identity track
  // and a vec3 track with a constant component.
  EXPECT_TRUE(kinds_streamed[0] && kinds_streamed[1] && kinds_streamed[2]);
  EXPECT_EQ(clip.tracks[2].coding, TrackCoding::kIdentity);
  EXPECT_EQ(clip.tracks[0].quantization.coded_mask, 0b011);
  EXPECT_EQ(view.total_key_count(), clip.key_count());
  EXPECT_EQ(view.stream_key_count(), get_u32(valid(), ho::kStreamKeyCount));
  EXPECT_EQ(view.key_index_bits(), bits_for(max_keys));
  EXPECT_EQ(view.jump_interval_frames(), 8u);
  ASSERT_EQ(view.jump_frames().size(), 4u);
  EXPECT_EQ(view.jump_frames()[3].frame, 32u);
  EXPECT_EQ(view.table_bytes(), get_u32(valid(), ho::kKeyWidthsOffset));
  EXPECT_EQ((layout().end_bit + 7) / 8, view.table_bytes());
  EXPECT_EQ(view.bytes().data(), valid().data());  // a view, not a copy
  EXPECT_GT(view.jump_frame_bytes(), 4 * kJumpIndexEntrySize);
  EXPECT_FALSE(view.key_stream_compressed());
  EXPECT_TRUE(view.key_stream_frame().empty());
  EXPECT_EQ(view.run_starts().size(), view.animated_track_count() + 1u);
  EXPECT_EQ(view.run_starts().back(), view.key_stream_bits());
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
  for (const uint16_t version :
       {uint16_t{0}, uint16_t{1}, uint16_t{2}, uint16_t{3}, uint16_t{4}, uint16_t{5}, uint16_t{6}, uint16_t{7},
        uint16_t{8}}) {
    const Bytes bytes = patched([&](Bytes& b) { set_u16(b, ho::kVersion, version); });
    EXPECT_TRUE(refused_mentioning(open(bytes), {"format version " + std::to_string(version) + " is no longer read",
                                                 "reads version 11", "recompress"}));
  }
  for (const uint16_t version : {uint16_t{12}, uint16_t{0xFFFF}}) {
    const Bytes bytes = patched([&](Bytes& b) { set_u16(b, ho::kVersion, version); });
    EXPECT_TRUE(refused_mentioning(open(bytes), {"format version " + std::to_string(version),
                                                 "written by a newer keystream", "reads version 11"}));
  }
  // Version 9 is still read (ReadsVersionNine); written over a version 11
  // stream it misreads the tables, but never refuses the version.
  const Result<StreamView> nine = open(patched([](Bytes& b) { set_u16(b, ho::kVersion, 9); }));
  if (!nine.ok()) {
    EXPECT_EQ(nine.error().find("format version"), std::string::npos) << nine.error();
  }
  // Version 10 is still read (ReadsVersionTen): a version 11 stream without
  // rest tracks is a version 10 stream but for the version field.
  const Result<StreamView> ten = open(patched([](Bytes& b) { set_u16(b, ho::kVersion, 10); }));
  ASSERT_TRUE(ten.ok()) << ten.error();
  EXPECT_EQ(ten.value().version(), 10u);
}

// Both streams (of the 3-bone test clip) play the same bits every half frame.
void expect_same_poses(const StreamView& a, const StreamView& b) {
  Player player_a(a), player_b(b);
  std::vector<float> times;
  for (float t = 0.f; t <= 39.f; t += 0.5f) times.push_back(t);
  test::expect_same_poses(player_a, player_b, times, 3);
}

TEST(StreamViewOpen, ReadsVersionNine) {
  // Version 9 had no interpolation fields: the same stream written that
  // way opens, every track Hermite, and plays the same poses. (valid() is a
  // version 11 stream without rest tracks, whose tables are version 10's.)
  for (const Bytes* base : {&valid(), &plain()}) {
    ASSERT_EQ(test::table_layout(*base).version, kStreamVersion);
    for (const Bytes& newer : {*base, test::as_version_ten(*base)}) {
      SCOPED_TRACE(::testing::Message() << "from version " << test::table_layout(newer).version);
      const Bytes nine = test::as_version_nine(newer);
      EXPECT_LT(nine.size(), newer.size());  // 2 bits less per animated track
      const Result<StreamView> view = open(nine);
      ASSERT_TRUE(view.ok()) << view.error();
      EXPECT_EQ(view.value().version(), 9u);
      const Result<StreamView> current = open(newer);
      ASSERT_TRUE(current.ok()) << current.error();
      ASSERT_EQ(view.value().tracks().size(), current.value().tracks().size());
      for (const StreamTrack& track : view.value().tracks()) EXPECT_EQ(track.interpolation, Interpolation::kHermite);
      EXPECT_EQ(view.value().table_bytes(), (test::table_layout(nine).end_bit + 7) / 8);
      expect_same_poses(view.value(), current.value());
    }
  }
}

TEST(StreamViewOpen, ReadsVersionTen) {
  // Version 10 had no rest tracks; a version 11 stream without them has
  // its layout: written as version 10, it opens, with the same tracks, and
  // plays the same poses.
  for (const Bytes* base : {&valid(), &plain()}) {
    const Bytes ten = test::as_version_ten(*base);
    EXPECT_EQ(ten.size(), base->size());
    const Result<StreamView> view = open(ten);
    ASSERT_TRUE(view.ok()) << view.error();
    EXPECT_EQ(view.value().version(), 10u);
    const Result<StreamView> eleven = open(*base);
    ASSERT_TRUE(eleven.ok()) << eleven.error();
    ASSERT_EQ(view.value().tracks().size(), eleven.value().tracks().size());
    for (size_t t = 0; t < view.value().tracks().size(); ++t) {
      EXPECT_EQ(view.value().tracks()[t].coding, eleven.value().tracks()[t].coding) << "track " << t;
      EXPECT_EQ(view.value().tracks()[t].interpolation, eleven.value().tracks()[t].interpolation) << "track " << t;
    }
    EXPECT_TRUE(view.value().metadata().rest_values.empty());
    expect_same_poses(view.value(), eleven.value());
  }
}

TEST(StreamViewOpen, ReadsEachInterpolationAndRefusesAnUnknownOne) {
  // Each animated track's 2 bits after its key count: 0..2 read back, 3
  // refused naming the track.
  const TableLayout& l = layout();
  for (uint32_t t = 0; t < l.tracks.size(); ++t) {
    if (l.tracks[t].coding != TrackCoding::kAnimated) {
      EXPECT_EQ(l.tracks[t].interpolation_bit, 0u);
      continue;
    }
    SCOPED_TRACE(::testing::Message() << "track " << t);
    EXPECT_EQ(l.tracks[t].interpolation_bit, l.tracks[t].key_count_bit + kKeyCountBits);
    EXPECT_EQ(l.tracks[t].interpolation, Interpolation::kHermite);
    for (const Interpolation interpolation : {Interpolation::kHermite, Interpolation::kLinear, Interpolation::kStep}) {
      const Result<StreamView> view = open(patched([&](Bytes& b) {
        test::write_bits(b, l.tracks[t].interpolation_bit, static_cast<uint32_t>(interpolation), kInterpolationBits);
      }));
      ASSERT_TRUE(view.ok()) << view.error();
      EXPECT_EQ(view.value().tracks()[t].interpolation, interpolation);
    }
    EXPECT_TRUE(refused_mentioning(
        open(patched([&](Bytes& b) { test::write_bits(b, l.tracks[t].interpolation_bit, 3, kInterpolationBits); })),
        {"track " + std::to_string(t) + " has the unknown interpolation 3"}));
  }
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
    std::string message;
  };
  const uint32_t section_bits = (get_u32(valid(), ho::kJumpIndexOffset) - get_u32(valid(), ho::kKeyStreamOffset)) * 8;
  for (const Case& c : {
           Case{ho::kFrameCount, 1, "frame count 1 is outside 2..65535"},
           Case{ho::kFrameCount, 65536, "frame count 65536 is outside 2..65535"},
           Case{ho::kBoneCount, 0, "bone count 0 is outside 1..65535"},
           Case{ho::kBoneCount, 70000, "bone count 70000 is outside 1..65535"},
           Case{ho::kBoneCount, 4000, "tables (" + std::to_string(valid_view().table_bytes() - kHeaderSize) +
                                          " bytes) are too short for 4000 bones"},
           Case{ho::kStreamKeyCount, get_u32(valid(), ho::kStreamKeyCount) - 1, "the key stream should hold"},
           Case{ho::kKeyStreamBits, section_bits + 1,
                "key stream is " + std::to_string(section_bits + 1) + " bits, its keys' widths add up to " +
                    std::to_string(get_u32(valid(), ho::kKeyStreamBits))},
           Case{ho::kKeyStreamBits, 0xFFFFFFF0u, "key stream is 4294967280 bits, its keys' widths add up to"},
           Case{ho::kJumpIntervalFrames, 0, "jump index is 16 bytes, expected 4 for each of 0 jump frames"},
           Case{ho::kJumpIntervalFrames, 7, "jump index is 16 bytes, expected 4 for each of 5 jump frames"},
       }) {
    SCOPED_TRACE(c.message);
    const Bytes bytes = patched([&](Bytes& b) { set_u32(b, c.offset, c.value); });
    EXPECT_TRUE(refused_mentioning(open(bytes), {c.message}));
  }
  EXPECT_TRUE(refused_mentioning(open(patched([](Bytes& b) { set_u16(b, ho::kFlags, 8); })), {"unknown flags set (8)"}));
  for (const float rate : {0.f, -30.f, kNaN, kInf}) {
    const Bytes bytes = patched([&](Bytes& b) { test::set_f32(b, ho::kSampleRate, rate); });
    EXPECT_TRUE(refused_mentioning(open(bytes), {"sample rate is not a positive number"})) << rate;
  }
}

TEST(StreamViewOpen, RefusesSectionOffsetsOutOfOrderOrPastTheEnd) {
  const uint32_t initial = get_u32(valid(), ho::kInitialKeysOffset);
  const uint32_t stream = get_u32(valid(), ho::kKeyStreamOffset);
  const uint32_t size = static_cast<uint32_t>(valid().size());
  const Bytes swapped = patched([&](Bytes& b) {
    set_u32(b, ho::kInitialKeysOffset, stream);
    set_u32(b, ho::kKeyStreamOffset, initial);
  });
  EXPECT_TRUE(refused_mentioning(open(swapped), {"section offsets are out of order or past the end"}));
  for (const uint32_t field : {ho::kKeyWidthsOffset, ho::kInitialKeysOffset, ho::kKeyStreamOffset,
                               ho::kJumpIndexOffset, ho::kJumpStatesOffset, ho::kMetadataOffset}) {
    SCOPED_TRACE(field);
    for (const uint32_t value : {size + 1, 0xFFFFFFFFu}) {
      const Bytes bytes = patched([&](Bytes& b) { set_u32(b, field, value); });
      EXPECT_TRUE(refused_mentioning(open(bytes), {"section offsets are out of order or past the end"}));
    }
  }
  const Bytes inside_header = patched([](Bytes& b) { set_u32(b, ho::kInitialKeysOffset, 8); });
  EXPECT_TRUE(refused_mentioning(open(inside_header), {"section offsets are out of order"}));
}

TEST(StreamViewOpen, RefusesBoneParentAfterChild) {
  // Parent fields hold parent + 1 (0 for a root) in bits_for(bone count) bits.
  const TableLayout& l = layout();
  ASSERT_EQ(l.parent_bits, 2u);
  EXPECT_TRUE(refused_mentioning(open(patched([&](Bytes& b) { test::write_bits(b, l.parent_bit(1), 2, 2); })),
                                 {"bone 1 has parent 1, which does not come before it"}));
  EXPECT_TRUE(refused_mentioning(open(patched([&](Bytes& b) { test::write_bits(b, l.parent_bit(0), 3, 2); })),
                                 {"bone 0 has parent 2, which does not come before it"}));
  // A root anywhere is fine.
  const Result<StreamView> rooted = open(patched([&](Bytes& b) { test::write_bits(b, l.parent_bit(2), 0, 2); }));
  ASSERT_TRUE(rooted.ok()) << rooted.error();
  EXPECT_EQ(rooted.value().parents()[2], -1);
}

TEST(StreamViewOpen, RefusesBadTrackRecords) {
  const TableLayout& l = layout();
  const uint32_t t = animated_track(TrackKind::kTranslation, 4);
  const uint32_t r = animated_track(TrackKind::kRotation, 4);
  const std::string track = "track " + std::to_string(t);
  auto changed = [&](uint64_t bit, uint64_t value, uint32_t bits) {
    return open(patched([&](Bytes& b) { test::write_bits(b, bit, value, bits); }));
  };
  // Coding 3 (rest) is unknown to version 10, on any track: an animated
  // one and an identity one, whose record it would otherwise end as well.
  ASSERT_EQ(l.tracks[2].coding, TrackCoding::kIdentity);
  for (const uint32_t track_index : {0u, 2u}) {
    EXPECT_TRUE(refused_mentioning(open(patched([&](Bytes& b) {
                                     set_u16(b, ho::kVersion, 10);
                                     test::write_bits(b, l.tracks[track_index].coding_bit, 3, 2);
                                   })),
                                   {"track " + std::to_string(track_index) + " has the unknown coding 3"}));
  }
  // In version 11 it is a bone track's rest coding, whose value the
  // metadata must then hold: valid() has no rest tracks, so none.
  EXPECT_TRUE(refused_mentioning(changed(l.tracks[2].coding_bit, 3, 2),
                                 {"metadata holds no values for the stream's rest tracks"}));
  // A scalar track has no rest value: coding 3 is unknown there in version
  // 11 too. fitted() with an identity (all 0) and a constant scalar track.
  {
    FittedClip clip = fitted();
    for (uint32_t s = 0; s < 2; ++s) {
      clip.scalars.push_back(
          {"curve" + std::to_string(s), s + 1, kDefaultScalarPrecision, ScalarTarget::kCurve, "", 0});
      FittedTrack& scalar = clip.tracks.emplace_back();
      scalar.bone = s;
      scalar.kind = TrackKind::kScalar;
      scalar.coding = s == 0 ? TrackCoding::kIdentity : TrackCoding::kConstant;
      scalar.quantization.constant[0] = s == 0 ? 0.f : 0.25f;
      scalar.quantization.constant[1] = s == 0 ? 0.f : -4.f;
    }
    const Bytes scalars = test::pack_or_fail(clip, 0.25f);
    ASSERT_TRUE(open(scalars).ok());
    const TableLayout sl = test::table_layout(scalars);
    ASSERT_EQ(sl.scalar_count, 2u);
    ASSERT_EQ(sl.tracks.size(), 9u + 2u);
    EXPECT_EQ(open(scalars).value().table_bytes(), (sl.end_bit + 7) / 8);
    for (const uint32_t s : {9u, 10u}) {
      EXPECT_EQ(sl.tracks[s].kind, TrackKind::kScalar);
      EXPECT_TRUE(refused_mentioning(
          open(patched([&](Bytes& b) { test::write_bits(b, sl.tracks[s].coding_bit, 3, 2); }, scalars)),
          {"track " + std::to_string(s) + " has the unknown coding 3"}));
    }
  }
  const uint32_t keys = l.tracks[t].key_count;
  for (const uint32_t count : {0u, 1u, 81u, (1u << kKeyCountBits) - 1}) {
    EXPECT_TRUE(refused_mentioning(changed(l.tracks[t].key_count_bit, count, kKeyCountBits),
                                   {track + " has " + std::to_string(count) + " keys, outside 2..80"}));
  }
  // A count in range that disagrees with the header's.
  EXPECT_TRUE(refused_mentioning(changed(l.tracks[t].key_count_bit, keys + 1, kKeyCountBits),
                                 {"the key stream should hold", "the header says"}));
  EXPECT_TRUE(refused_mentioning(changed(l.tracks[t].mask_bit, 0, 3), {track + " is animated but codes no component"}));
  for (const float bad : {0.f, -0.001f, kNaN, kInf, 1e30f}) {
    EXPECT_TRUE(refused_mentioning(changed(l.tracks[t].step_bit, std::bit_cast<uint32_t>(bad), 32),
                                   {track + " has the invalid step"}))
        << bad;
  }
  // A rotation code step above 2 makes every key but 0 a component beyond 2.
  EXPECT_TRUE(refused_mentioning(changed(l.tracks[r].step_bit, std::bit_cast<uint32_t>(2.5f), 32),
                                 {"track " + std::to_string(r) + " has the invalid step"}));
  for (const uint32_t width : {0u, kMaxAbsoluteCodeBits + 1, 31u}) {
    EXPECT_TRUE(refused_mentioning(changed(l.tracks[t].absolute_bits_bit, width, kAbsoluteWidthBits),
                                   {track + " has an absolute code width of " + std::to_string(width) + " bits",
                                    "outside 1..25"}));
  }
  for (const uint32_t k : {kMaxRiceParameter + 1, 31u}) {
    EXPECT_TRUE(refused_mentioning(changed(l.tracks[t].value_rice_bit[0], k, kRiceParameterBits),
                                   {track + " has a Rice parameter above 26"}));
    EXPECT_TRUE(refused_mentioning(changed(l.tracks[r].frame_rice_bit, k, kRiceParameterBits),
                                   {"track " + std::to_string(r) + " has a Rice parameter above 26"}));
  }
  // Bone 0's translation does not code z: its value is a float in the table.
  ASSERT_FALSE(l.tracks[0].coded(2));
  for (const float bad : {kNaN, kInf}) {
    EXPECT_TRUE(refused_mentioning(changed(l.tracks[0].constant_bit[2], std::bit_cast<uint32_t>(bad), 32),
                                   {"track 0 has a constant component that is not a finite number"}));
  }
  // Padding after the last record, and records cut short.
  EXPECT_TRUE(
      refused_mentioning(open(insert_bytes(valid(), get_u32(valid(), ho::kKeyWidthsOffset), 1)), {"tables have trailing bytes"}));
  EXPECT_TRUE(refused_mentioning(
      open(patched([](Bytes& b) { set_u32(b, ho::kKeyWidthsOffset, get_u32(b, ho::kKeyWidthsOffset) - 8); })),
      {"tables are truncated at track"}));
}

TEST(StreamViewOpen, RefusesAConstantThatIsNotFinite) {
  FittedClip clip = fitted();
  FittedTrack& scale = clip.tracks[2];
  scale.coding = TrackCoding::kConstant;
  scale.keys.clear();
  scale.quantization = {};
  scale.quantization.constant[0] = scale.quantization.constant[2] = 1.f;
  scale.quantization.constant[1] = 2.5f;
  const Bytes bytes = test::pack_or_fail(clip, 0.25f);
  const test::TableLayout l = test::table_layout(bytes);
  ASSERT_EQ(l.tracks[2].coding, TrackCoding::kConstant);
  const Result<StreamView> view = open(bytes);
  ASSERT_TRUE(view.ok()) << view.error();
  EXPECT_EQ(view.value().tracks()[2].quantization.constant[1], 2.5f);
  for (const float bad : {kNaN, -kInf}) {
    EXPECT_TRUE(refused_mentioning(
        open(patched([&](Bytes& b) { test::write_bits(b, l.tracks[2].constant_bit[1], std::bit_cast<uint32_t>(bad), 32); },
                     bytes)),
        {"track 2 has a constant value that is not a finite number"}));
  }
}

TEST(StreamViewOpen, RefusesAConstantRotationThatIsNotAUnitQuaternion) {
  // The player returns a constant as stored: a stored rotation of length 2
  // (or 0) would be a pose no engine can use (fuzz/README.md's contract).
  FittedClip clip = fitted();
  FittedTrack& rotation = clip.tracks[1];
  rotation.coding = TrackCoding::kConstant;
  rotation.quantization = {};
  rotation.keys.clear();
  const float unit[4] = {0.f, 0.6f, 0.f, 0.8f};
  std::copy(unit, unit + 4, rotation.quantization.constant);
  const Bytes bytes = test::pack_or_fail(clip, 0.25f);
  const test::TableLayout l = test::table_layout(bytes);
  ASSERT_EQ(l.tracks[1].coding, TrackCoding::kConstant);
  ASSERT_TRUE(open(bytes).ok());
  for (const float w : {2.f, 0.f}) {
    SCOPED_TRACE(w);
    EXPECT_TRUE(refused_mentioning(
        open(patched([&](Bytes& b) {
               test::write_bits(b, l.tracks[1].constant_bit[1], 0, 32);
               test::write_bits(b, l.tracks[1].constant_bit[3], std::bit_cast<uint32_t>(w), 32);
             },
             bytes)),
        {"track 1"}));
  }
}

// --- keys: rewritten through an independent encoder -------------------------------

// plain()'s keys, and plain() re-encoded from keys changed by `change`.
template <class Change>
Bytes with_changed_keys(Change change) {
  const TableLayout l = test::table_layout(plain());
  StoredKeys keys = test::stored_keys(plain(), l);
  change(keys);
  return test::with_keys(plain(), l, keys);
}

// The same, with track `t`'s table allowing keys at one frame (frame delta
// minimum 0): only then can a stream key, whose frame difference is an
// unsigned field, stay at the frame of the key before it.
template <class Change>
Bytes with_changed_discontinuous_keys(uint32_t t, Change change) {
  TableLayout l = test::table_layout(plain());
  StoredKeys keys = test::stored_keys(plain(), l);
  change(keys);
  Bytes base = plain();
  test::write_bits(base, l.tracks[t].frame_delta_min_bit, 0, 1);
  l.tracks[t].key_coding.frame_delta_min = 0;
  return test::with_keys(base, l, keys);
}

TEST(StreamViewOpen, TheTestEncoderReproducesThePackedKeys) {
  // What the tests below change is the packed stream and nothing else.
  const TableLayout l = test::table_layout(plain());
  const StoredKeys keys = test::stored_keys(plain(), l);
  EXPECT_EQ(keys.stream.size(), get_u32(plain(), ho::kStreamKeyCount));
  EXPECT_EQ(keys.stream_bits, get_u32(plain(), ho::kKeyStreamBits));
  for (uint32_t t = 0; t < fitted().tracks.size(); ++t) {
    const FittedTrack& track = fitted().tracks[t];
    if (track.coding != TrackCoding::kAnimated) continue;
    ASSERT_EQ(keys.tracks[t].size(), track.keys.size()) << "track " << t;
    for (size_t k = 0; k < track.keys.size(); ++k) {
      EXPECT_EQ(keys.tracks[t][k].frame, track.keys[k].frame);
      EXPECT_EQ(std::memcmp(keys.tracks[t][k].codes, track.keys[k].codes, sizeof track.keys[k].codes), 0);
    }
  }
  EXPECT_EQ(with_changed_keys([](StoredKeys&) {}), plain());
}

TEST(StreamViewOpen, RefusesKeysPastTheLastFrameOrGoingBack) {
  const uint32_t t = animated_track(TrackKind::kRotation, 8);
  const std::vector<FittedKey>& fitted_keys = fitted().tracks[t].keys;
  const size_t last = fitted_keys.size() - 1;
  const std::string track = "track " + std::to_string(t);
  EXPECT_TRUE(refused_mentioning(open(with_changed_keys([&](StoredKeys& k) { k.tracks[t].back().frame = 40; })),
                                 {track + " key " + std::to_string(last) + " is at frame 40, past the last frame 39"}));
  // The last key at the frame of the key before it, short of the last frame.
  const uint32_t early = fitted_keys[last - 1].frame;
  ASSERT_LT(early, 39u);
  EXPECT_TRUE(refused_mentioning(
      open(with_changed_discontinuous_keys(t, [&](StoredKeys& k) { k.tracks[t].back().frame = early; })),
      {"is the last key but is at frame " + std::to_string(early) + ", not the last frame 39"}));
  // Key 2 (Rice coded, in the initial keys) one frame before key 1: the
  // frame difference wraps (an escape).
  const uint32_t frame1 = fitted_keys[1].frame;
  ASSERT_GT(frame1, 0u);
  EXPECT_TRUE(refused_mentioning(open(with_changed_keys([&](StoredKeys& k) { k.tracks[t][2].frame = frame1 - 1; })),
                                 {track + " key 2 is at frame " + std::to_string(frame1 - 1) +
                                  ", before the key it follows (frame " + std::to_string(frame1) + ")"}));
  // A stream key's frame difference is a field of at most 16 bits: going
  // back, it wraps to a difference no frame needs, refused with its
  // segment's widths before any key is read.
  const uint32_t frame4 = fitted_keys[4].frame;
  EXPECT_TRUE(refused_mentioning(open(with_changed_keys([&](StoredKeys& k) { k.tracks[t][5].frame = frame4 - 1; })),
                                 {track + " segment 0 has a key field 31 bits wide, more than a difference needs"}));
}

TEST(StreamViewOpen, RefusesThreeKeysAtOneFrame) {
  // In the initial keys: keys 1 and 2 of a track moved to frame 0.
  const uint32_t t = animated_track(TrackKind::kTranslation, 8);
  EXPECT_TRUE(refused_mentioning(open(with_changed_keys([&](StoredKeys& k) {
                                   k.tracks[t][1].frame = 0;
                                   k.tracks[t][2].frame = 0;
                                 })),
                                 {"track " + std::to_string(t) + " key 2 is the third key at frame 0"}));
  // In the key stream: keys 3 and 4 moved to key 2's frame.
  const uint32_t r = animated_track(TrackKind::kRotation, 8);
  const uint16_t frame = fitted().tracks[r].keys[2].frame;
  EXPECT_TRUE(refused_mentioning(open(with_changed_discontinuous_keys(r, [&](StoredKeys& k) {
                                   k.tracks[r][3].frame = frame;
                                   k.tracks[r][4].frame = frame;
                                 })),
                                 {"track " + std::to_string(r) + " key 4 is the third key at frame " + std::to_string(frame)}));
}

TEST(StreamViewOpen, RefusesCodesOutOfRange) {
  const uint32_t t = animated_track(TrackKind::kTranslation, 8);
  for (const int32_t code : {kMaxCodeMagnitude + 1, -kMaxCodeMagnitude - 1}) {
    EXPECT_TRUE(refused_mentioning(open(with_changed_keys([&](StoredKeys& k) { k.tracks[t][5].codes[0] = code; })),
                                   {"track " + std::to_string(t) + " key 5 has a code out of range (" +
                                    std::to_string(code) + ")"}));
  }
  // In a Rice-coded key, any code: the difference escapes.
  const int32_t lowest = std::numeric_limits<int32_t>::min();
  EXPECT_TRUE(refused_mentioning(open(with_changed_keys([&](StoredKeys& k) { k.tracks[t][1].codes[0] = lowest; })),
                                 {"track " + std::to_string(t) + " key 1 has a code out of range (" +
                                  std::to_string(lowest) + ")"}));
  // In a stream key, a difference no two codes in range have is refused
  // with its segment's widths.
  EXPECT_TRUE(refused_mentioning(open(with_changed_keys([&](StoredKeys& k) { k.tracks[t][5].codes[0] = lowest; })),
                                 {"track " + std::to_string(t) + " segment 0 has a key field 31 bits wide"}));
  // Codes within range, but a rotation component beyond 2.
  const uint32_t r = animated_track(TrackKind::kRotation, 8);
  const float step = fitted().tracks[r].quantization.step;
  const int32_t beyond = static_cast<int32_t>(std::ceil(2.01f / step));
  ASSERT_LE(beyond, kMaxCodeMagnitude);
  EXPECT_TRUE(refused_mentioning(open(with_changed_keys([&](StoredKeys& k) { k.tracks[r][6].codes[1] = -beyond; })),
                                 {"track " + std::to_string(r) + " key 6 has a code out of range (" +
                                  std::to_string(-beyond) + ")"}));
  // The same in an initial key.
  EXPECT_TRUE(refused_mentioning(open(with_changed_keys([&](StoredKeys& k) { k.tracks[r][1].codes[2] = beyond; })),
                                 {"track " + std::to_string(r) + " key 1 has a code out of range"}));
}

TEST(StreamViewOpen, RefusesKeyWidthsWiderThanADifference) {
  // The first segment's widths of an animated translation: its frame width,
  // then one per coded component (the first is component 0).
  const TableLayout& l = layout();
  const uint32_t t = animated_track(TrackKind::kTranslation, 8);
  ASSERT_TRUE(l.tracks[t].coded(0));
  uint64_t bit = uint64_t{get_u32(valid(), ho::kKeyWidthsOffset)} * 8;
  for (uint32_t u = 0; u < t; ++u) {
    const test::TrackRecord& r = l.tracks[u];
    if (r.coding != TrackCoding::kAnimated || r.key_count <= kInitialKeysPerTrack) continue;
    const uint64_t segments = (r.key_count - kInitialKeysPerTrack + test::kTestKeysPerSegment - 1) / test::kTestKeysPerSegment;
    uint64_t fields = 1;
    for (int c = 0; c < 4; ++c) fields += r.coded(c) ? 1 : 0;
    bit += segments * fields * 5;
  }
  const std::string segment = "track " + std::to_string(t) + " segment 0 has a key field ";
  EXPECT_TRUE(refused_mentioning(open(patched([&](Bytes& b) { test::write_bits(b, bit, 17, 5); })),
                                 {segment + "17 bits wide, more than a difference needs"}));
  EXPECT_TRUE(refused_mentioning(open(patched([&](Bytes& b) { test::write_bits(b, bit + 5, 27, 5); })),
                                 {segment + "27 bits wide, more than a difference needs"}));
  // Within range but not the keys' widths: the key stream's length says so.
  const uint32_t frame_width = static_cast<uint32_t>(BitReader(valid(), bit).read(5));
  EXPECT_TRUE(refused_mentioning(open(patched([&](Bytes& b) { test::write_bits(b, bit, frame_width + 1, 5); })),
                                 {"its keys' widths add up to"}));
}

TEST(StreamViewOpen, RefusesKeyStreamWithTooFewOrTooManyBits) {
  // Every stream key is as long as its segment's widths say: the key stream
  // must be exactly their sum, one bit more or less is refused before any
  // key is read (on many streams).
  for (uint32_t seed = 1; seed <= 100; ++seed) {
    SCOPED_TRACE(seed);
    const Bytes original = test::pack_or_fail(test::make_random_fitted_clip(seed), 0.2f);
    const uint32_t bits = get_u32(original, ho::kKeyStreamBits);
    if (bits == 0) continue;
    for (const uint32_t wrong : {bits - 1, bits + 1}) {
      Bytes bytes = original;
      set_u32(bytes, ho::kKeyStreamBits, wrong);
      test::fix_checksum(bytes);
      EXPECT_TRUE(refused_mentioning(open(bytes), {"key stream is " + std::to_string(wrong) +
                                                   " bits, its keys' widths add up to " + std::to_string(bits)}));
    }
  }
}

// --- jump frames ------------------------------------------------------------------

TEST(StreamViewOpen, RefusesJumpIndexInconsistentWithItsStates) {
  const StreamView& view = valid_view();
  const uint32_t index = get_u32(valid(), ho::kJumpIndexOffset);
  const JumpFrame& jump1 = view.jump_frames()[1];
  ASSERT_GT(jump1.stream_keys_read, 0u);
  // The keys read it counts must be its tracks' counts added up.
  EXPECT_TRUE(refused_mentioning(
      open(patched([&](Bytes& b) { set_u32(b, index + kJumpIndexEntrySize, jump1.stream_keys_read - 1); })),
      {"jump frame 1 says " + std::to_string(jump1.stream_keys_read - 1) + " stream keys are read",
       "add up to " + std::to_string(jump1.stream_keys_read)}));
}

TEST(StreamViewOpen, RefusesJumpStatesShorterThanTheirLayout) {
  // Every state is jump_state_bits() long: a section one byte short of the
  // jump frames' states is refused before any state is read.
  const StreamView& view = valid_view();
  const uint32_t metadata = get_u32(valid(), ho::kMetadataOffset);
  EXPECT_TRUE(refused_mentioning(
      open(test::splice(valid(), metadata - 1, 1, {})),
      {"jump states are too short for " + std::to_string(view.jump_frames().size()) + " jump frames of " +
       std::to_string(view.jump_state_bits()) + " bits"}));
}

TEST(StreamViewOpen, RefusesAKeySavedBeforeATrackHasOne) {
  // Every state has the same layout: a track that saves oldest keys has
  // their fields in every state, zeros while it has read fewer than
  // kRestoreFromRunKeys keys, so that a state reads one way only. Random
  // clips with jump frames every few frames have such states.
  uint32_t refused = 0;
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    SCOPED_TRACE(seed);
    const Bytes bytes = test::pack_or_fail(test::make_random_fitted_clip(seed), 0.05f);
    const Result<StreamView> view = open(bytes);
    ASSERT_TRUE(view.ok()) << view.error();
    const test::TableLayout tables = test::table_layout(bytes);
    const test::JumpStateLayout states = test::jump_state_layout(
        bytes, tables, static_cast<uint32_t>(view.value().jump_frames().size()), view.value().key_index_bits());
    for (uint32_t j = 0; j < states.count_bit.size(); ++j) {
      for (uint32_t t = 0; t < tables.tracks.size(); ++t) {
        const test::TrackRecord& record = tables.tracks[t];
        if (states.count_bit[j][t] == 0 || !saves_oldest_key(record.key_count)) continue;
        const uint32_t read = BitReader(bytes, states.count_bit[j][t]).read(view.value().key_index_bits());
        if (read >= kRestoreFromRunKeys) continue;
        // The last bit of the fields: the "negated" bit or the last code's top bit.
        uint32_t fields = states.frame_difference_bits[t] + (record.key_coding.negation_bits ? 1u : 0u);
        for (int c = 0; c < 4; ++c) fields += record.coded(c) ? record.key_coding.absolute_bits : 0u;
        const uint64_t bit = states.count_bit[j][t] + view.value().key_index_bits() + fields - 1;
        Bytes forged = bytes;
        forged[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
        test::fix_checksum(forged);
        EXPECT_TRUE(refused_mentioning(open(forged), {"jump frame " + std::to_string(j) + " saves a key for track " +
                                                      std::to_string(t) + ", which has read only " +
                                                      std::to_string(read) + " keys"}));
        ++refused;
      }
    }
  }
  EXPECT_GT(refused, 0u) << "no random clip has a state before a track's seventh key";
}

TEST(StreamViewOpen, RefusesJumpStatesInconsistentWithForwardPlay) {
  const StreamView& view = valid_view();
  const test::JumpStateLayout states =
      test::jump_state_layout(valid(), layout(), static_cast<uint32_t>(view.jump_frames().size()), view.key_index_bits());
  // The first jump frame that saves a window's oldest key, and its first such track.
  uint32_t j = 0, track = 0;
  while (j < states.count_bit.size()) {
    track = 0;
    while (track < states.first_frame_bit[j].size() && states.first_frame_bit[j][track] == 0) ++track;
    if (track < states.first_frame_bit[j].size()) break;
    ++j;
  }
  ASSERT_LT(j, states.count_bit.size()) << "no jump frame saves an oldest key";
  const StreamTrack& saved = view.tracks()[track];
  const std::string where = "jump frame " + std::to_string(j);
  const uint64_t count_bit = states.count_bit[j][track];
  const uint64_t frame_bit = states.first_frame_bit[j][track];
  EXPECT_EQ(frame_bit, count_bit + view.key_index_bits());
  const uint32_t difference_bits = states.frame_difference_bits[track];
  ASSERT_GT(difference_bits, 0u) << "the test clip's oldest keys all sit on their jump frames";
  const uint64_t code_bit = frame_bit + difference_bits;  // the lowest bit of the oldest key's first code
  const std::string state_problem = where + " (frame " + std::to_string(view.jump_frames()[j].frame) +
                                    ") does not hold the state forward play reaches for track " + std::to_string(track);
  EXPECT_TRUE(refused_mentioning(
      open(patched([&](Bytes& b) { b[code_bit / 8] ^= static_cast<uint8_t>(1u << (code_bit % 8)); })), {state_problem}));
  // The oldest key's frame, as a difference from the jump frame: one off is
  // another window; before frame 0, refused before any play.
  const uint32_t difference = BitReader(valid(), frame_bit).read(difference_bits);
  EXPECT_TRUE(refused_mentioning(
      open(patched([&](Bytes& b) { test::write_bits(b, frame_bit, difference ^ 1u, difference_bits); })),
      {state_problem}));
  const uint32_t largest_difference = (1u << difference_bits) - 1;  // what the field can hold
  if (largest_difference > view.jump_frames()[j].frame) {
    EXPECT_TRUE(refused_mentioning(
        open(patched([&](Bytes& b) { test::write_bits(b, frame_bit, largest_difference, difference_bits); })),
        {where + " holds a key " + std::to_string(largest_difference) + " frames before it, before frame 0, for track " +
         std::to_string(track)}));
  }
  // The track's width of frame differences: wider than a frame, refused; one
  // narrower, the states no longer parse as written.
  const uint64_t width_bit = states.frame_difference_width_bit[track];
  EXPECT_TRUE(refused_mentioning(
      open(patched([&](Bytes& b) { test::write_bits(b, width_bit, kFrameBits + 1, kJumpFrameDifferenceWidthBits); })),
      {"jump states give track " + std::to_string(track) + " frame differences 17 bits wide"}));
  EXPECT_FALSE(
      open(patched([&](Bytes& b) { test::write_bits(b, width_bit, difference_bits - 1, kJumpFrameDifferenceWidthBits); }))
          .ok());
  EXPECT_TRUE(
      refused_mentioning(open(patched([&](Bytes& b) { test::write_bits(b, count_bit, 2, view.key_index_bits()); })),
                         {where + " says track " + std::to_string(track) + " has read 2 of its " +
                          std::to_string(saved.key_count) + " keys"}));
  const uint32_t largest_count = (1u << view.key_index_bits()) - 1;  // what the field can hold
  if (largest_count > saved.key_count) {
    EXPECT_TRUE(refused_mentioning(
        open(patched([&](Bytes& b) { test::write_bits(b, count_bit, largest_count, view.key_index_bits()); })),
        {where + " says track " + std::to_string(track) + " has read " + std::to_string(largest_count)}));
  }
}

TEST(StreamViewOpen, RefusesJumpStatesWithAWrongNegationBit) {
  // A random clip whose quantized keys cross hemispheres: some rotation
  // tracks carry a "negated" bit per key, in the jump states too.
  for (uint32_t seed = 1; seed <= 8; ++seed) {
    SCOPED_TRACE(::testing::Message() << "random clip " << seed);
    const FittedClip clip = test::make_random_fitted_clip(seed);
    const Bytes bytes = test::pack_or_fail(clip, 0.25f);
    const Result<StreamView> view = open(bytes);
    ASSERT_TRUE(view.ok()) << view.error();
    const TableLayout tables = test::table_layout(bytes);
    const test::JumpStateLayout states = test::jump_state_layout(
        bytes, tables, static_cast<uint32_t>(view.value().jump_frames().size()), view.value().key_index_bits());
    int flipped = 0;
    for (uint32_t j = 0; j < states.negated_bit.size(); ++j) {
      for (uint32_t t = 0; t < states.negated_bit[j].size(); ++t) {
        const uint64_t bit = states.negated_bit[j][t];
        if (bit == 0) continue;
        SCOPED_TRACE(::testing::Message() << "jump frame " << j << " track " << t << " bit " << bit);
        Bytes b = bytes;
        b[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
        test::fix_checksum(b);
        EXPECT_TRUE(refused_mentioning(
            open(b), {"jump frame " + std::to_string(j),
                      "does not hold the state forward play reaches for track " + std::to_string(t)}));
        ++flipped;
      }
    }
    if (flipped > 0) return;
  }
  ADD_FAILURE() << "no random clip has a track with negation bits and a jump frame saving its oldest key";
}

TEST(StreamViewFastOpen, LetsAForgedKeyStreamThroughAndThePlayerStaysInBounds) {
  // The default open (an engine's load) does not read the key stream. Fill
  // it with random bits (the checksum fixed, as a forger would): the full
  // check refuses it, the fast one accepts it, and a Player reads it with
  // every seek without reading out of bounds (the sanitizer build), looping
  // or reading more keys than the tables promise per pass.
  for (const bool with_jumps : {false, true}) {
    const Bytes& original = with_jumps ? valid() : plain();
    const uint32_t begin = get_u32(original, ho::kKeyStreamOffset);
    const uint32_t end = get_u32(original, ho::kJumpIndexOffset);
    for (uint32_t seed = 1; seed <= 20; ++seed) {
      SCOPED_TRACE(::testing::Message() << (with_jumps ? "jump frames, " : "no jump frames, ") << "seed " << seed);
      std::mt19937 rng(seed);
      Bytes forged = original;
      for (uint32_t i = begin; i < end; ++i) forged[i] = static_cast<uint8_t>(rng() >> (seed % 3 == 0 ? 28 : 24));
      test::fix_checksum(forged);
      EXPECT_FALSE(open(forged).ok());
      const Result<StreamView> fast = StreamView::open(forged, kName);
      ASSERT_TRUE(fast.ok()) << fast.error();
      Player player(fast.value());
      std::vector<Transform> pose(fast.value().bone_count());
      const float last = static_cast<float>(fast.value().last_frame());
      uint64_t passes = 0;
      for (float t = 0.f; t <= last; t += 0.75f) player.sample_frame(t, pose);
      ++passes;
      for (int i = 0; i < 50; ++i) {
        player.sample_frame(std::uniform_real_distribution<float>(0.f, last)(rng), pose);
        ++passes;  // a seek may read from frame 0 again
      }
      EXPECT_LE(player.counters().keys_read, passes * fast.value().total_key_count());
    }
  }
}

TEST(StreamViewOpen, RefusesTrailingBytes) {
  const Bytes& b = valid();
  struct Case {
    uint32_t at;  // where the bytes go: the end of the section named by the message
    uint32_t count;
    const char* message;
  };
  for (const Case& c : {
           Case{get_u32(b, ho::kKeyWidthsOffset), 1, "tables have trailing bytes"},
           Case{get_u32(b, ho::kInitialKeysOffset), 1, "key widths section is"},
           Case{get_u32(b, ho::kKeyStreamOffset), 1, "initial keys section has trailing bytes"},
           Case{get_u32(b, ho::kJumpIndexOffset), 1, "key stream section is"},
           Case{get_u32(b, ho::kJumpStatesOffset), 4, "jump index is 20 bytes, expected 4 for each of 4 jump frames"},
           Case{get_u32(b, ho::kMetadataOffset), 1, "jump states section has trailing bytes"},
           Case{static_cast<uint32_t>(b.size()), 1, "metadata has 1 trailing bytes"},
       }) {
    SCOPED_TRACE(c.message);
    EXPECT_TRUE(refused_mentioning(open(insert_bytes(b, c.at, c.count)), {c.message}));
  }
}

TEST(StreamViewOpen, RefusesTruncatedInitialKeys) {
  // The initial keys cut short by moving the key stream's start back one byte.
  for (uint32_t seed = 1; seed <= 100; ++seed) {
    SCOPED_TRACE(seed);
    Bytes bytes = test::pack_or_fail(test::make_random_fitted_clip(seed), 0.2f);
    if (get_u32(bytes, ho::kKeyStreamOffset) == get_u32(bytes, ho::kInitialKeysOffset)) continue;  // nothing animated
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
  // Flips of a key the jump states also hold, of a table field or of a
  // count are refused; others (a key no jump frame saves, metadata, padding)
  // still make a valid stream, and those the player must decode.
  EXPECT_GT(accepted, 100);
  EXPECT_LT(accepted, 1900);
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
    const FittedClip clip = test::make_random_fitted_clip(seed);
    const Bytes bytes = test::pack_or_fail(clip, 0.2f, seed % 2 == 0);
    const Result<StreamView> result = StreamView::open(bytes);
    ASSERT_TRUE(result.ok()) << result.error();
    const StreamView& view = result.value();
    // The track table says what the fitted clip holds.
    for (uint32_t t = 0; t < clip.tracks.size(); ++t) {
      const FittedTrack& fitted = clip.tracks[t];
      const StreamTrack& track = view.tracks()[t];
      EXPECT_EQ(track.coding, fitted.coding) << "track " << t;
      if (fitted.coding != TrackCoding::kAnimated) {
        EXPECT_EQ(track.key_count, 0u);
        for (int c = 0; c < component_count(fitted.kind); ++c) {
          EXPECT_EQ(std::bit_cast<uint32_t>(track.quantization.constant[c]), std::bit_cast<uint32_t>(constant_value(fitted)[c]))
              << "track " << t << " component " << c;
        }
        continue;
      }
      EXPECT_EQ(track.key_count, fitted.keys.size());
      EXPECT_EQ(track.quantization.step, fitted.quantization.step);
      EXPECT_EQ(track.quantization.coded_mask, fitted.quantization.coded_mask);
      if (fitted.kind == TrackKind::kRotation) {
        EXPECT_EQ(track.quantization.rotation, fitted.quantization.rotation);
        if (fitted.quantization.rotation == RotationCoding::kRelative) {
          EXPECT_EQ(track.quantization.reference_code, fitted.quantization.reference_code);
          EXPECT_EQ(std::memcmp(track.quantization.reference, fitted.quantization.reference, 16), 0);
        }
      } else {
        for (int c = 0; c < 3; ++c) {
          if (!fitted.quantization.coded(c)) {
            EXPECT_EQ(track.quantization.constant[c], fitted.quantization.constant[c]);
          }
        }
      }
      EXPECT_EQ(track.key_coding, choose_key_coding(fitted));
    }
  }
}

}  // namespace
}  // namespace ks
