#include "keystream/codec/pack.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "keystream/codec/key_cost.h"
#include "keystream/runtime/bit_reader.h"
#include "keystream/runtime/checksum.h"
#include "keystream/runtime/stream_format.h"
#include "keystream/runtime/stream_view.h"
#include "tests/hostile_name.h"
#include "tests/refused_mentioning.h"
#include "tests/runtime/stream_test_support.h"

namespace ks {
namespace {

using test::get_u32;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

using test::refused_mentioning;

const FittedClip& wave() {
  static const FittedClip clip = [] {
    const test::RandomClip source = test::make_wave_clip();
    return test::fit_or_fail(source.skeleton, source.clip);
  }();
  return clip;
}

// Index of the first animated track of `clip` of `kind` with at least `keys` keys.
size_t track_with_keys(const FittedClip& clip, TrackKind kind, size_t keys) {
  for (size_t t = 0; t < clip.tracks.size(); ++t) {
    if (clip.tracks[t].kind == kind && clip.tracks[t].coding == TrackCoding::kAnimated &&
        clip.tracks[t].keys.size() >= keys) {
      return t;
    }
  }
  ADD_FAILURE() << "no track of kind " << static_cast<int>(kind) << " with " << keys << " keys";
  return 0;
}

TEST(PackSettingsValidate, RefusesNegativeOrNonFiniteInterval) {
  for (const float s : {-1.f, -1e-6f, kNaN, kInf, -kInf}) {
    SCOPED_TRACE(s);
    PackSettings settings;
    settings.jump_interval_s = s;
    EXPECT_TRUE(refused_mentioning(settings.validate(), {"jump interval"}));
    EXPECT_TRUE(refused_mentioning(pack(wave(), settings), {"pack settings", "jump interval"}));
  }
}

TEST(PackSettingsValidate, AcceptsZeroAndPositiveIntervals) {
  for (const float s : {0.f, 1e-6f, 0.25f, 1.f, 1e6f}) {
    PackSettings settings;
    settings.jump_interval_s = s;
    EXPECT_TRUE(settings.validate().ok()) << s;
  }
  EXPECT_EQ(PackSettings{}.jump_interval_s, 1.f);
}

TEST(JumpIntervalFrames, RoundsToFramesAtLeastOneOrNone) {
  EXPECT_EQ(jump_interval_frames(0.f, 30.f), 0u);
  EXPECT_EQ(jump_interval_frames(-1.f, 30.f), 0u);
  EXPECT_EQ(jump_interval_frames(kNaN, 30.f), 0u);
  EXPECT_EQ(jump_interval_frames(1e-9f, 30.f), 1u);
  EXPECT_EQ(jump_interval_frames(1.f / 30.f, 30.f), 1u);
  EXPECT_EQ(jump_interval_frames(0.25f, 30.f), 8u);  // 7.5 rounds to even
  EXPECT_EQ(jump_interval_frames(1.f, 30.f), 30u);
  EXPECT_EQ(jump_interval_frames(1.f, 120.f), 120u);
  EXPECT_EQ(jump_interval_frames(1e9f, 30.f), 65535u);
}

TEST(Pack, RefusesWrongTrackCount) {
  FittedClip clip = wave();
  clip.tracks.pop_back();
  EXPECT_TRUE(refused_mentioning(pack(clip, {}), {"\"wave\"", "three tracks per bone"}));
  clip = wave();
  clip.parents.clear();
  clip.tracks.clear();
  EXPECT_TRUE(refused_mentioning(pack(clip, {}), {"bone count"}));
}

TEST(Pack, RefusesTrackOfTheWrongKind) {
  FittedClip clip = wave();
  clip.tracks[4].kind = TrackKind::kScale;
  EXPECT_TRUE(refused_mentioning(pack(clip, {}), {"track 4", "wrong kind"}));
}

TEST(Pack, RefusesParentAfterChild) {
  FittedClip clip = wave();
  clip.parents[1] = 2;
  EXPECT_TRUE(refused_mentioning(pack(clip, {}), {"bone 1", "parent"}));
  clip.parents[1] = -2;
  EXPECT_TRUE(refused_mentioning(pack(clip, {}), {"bone 1", "parent"}));
}

TEST(Pack, RefusesBadFrameCountAndRate) {
  for (const uint32_t frames : {0u, 1u, 65536u}) {
    FittedClip clip = wave();
    clip.frame_count = frames;
    EXPECT_TRUE(refused_mentioning(pack(clip, {}), {"frame count"})) << frames;
  }
  for (const float rate : {0.f, -30.f, kNaN, kInf}) {
    FittedClip clip = wave();
    clip.sample_rate_hz = rate;
    EXPECT_TRUE(refused_mentioning(pack(clip, {}), {"sample rate"})) << rate;
  }
}

TEST(Pack, RefusesKeysOutOfOrder) {
  FittedClip clip = wave();
  const size_t t = track_with_keys(clip, TrackKind::kRotation, 4);
  std::vector<FittedKey>& keys = clip.tracks[t].keys;
  keys[2].frame = static_cast<uint16_t>(keys[1].frame - 1);
  EXPECT_TRUE(refused_mentioning(pack(clip, {}), {"track " + std::to_string(t) + " key 2", "out of order"}));
}

TEST(Pack, RefusesKeyPastTheLastFrame) {
  FittedClip clip = wave();
  const size_t t = track_with_keys(clip, TrackKind::kTranslation, 3);
  clip.tracks[t].keys.back().frame = static_cast<uint16_t>(clip.frame_count);
  EXPECT_TRUE(refused_mentioning(pack(clip, {}), {"track " + std::to_string(t), "last frame"}));
}

TEST(Pack, RefusesThreeKeysAtOneFrame) {
  FittedClip clip = wave();
  const size_t t = track_with_keys(clip, TrackKind::kRotation, 5);
  std::vector<FittedKey>& keys = clip.tracks[t].keys;
  keys[2].frame = keys[1].frame;
  keys[3].frame = keys[1].frame;
  EXPECT_TRUE(refused_mentioning(
      pack(clip, {}), {"track " + std::to_string(t), "three keys at frame " + std::to_string(keys[1].frame)}));
}

TEST(Pack, RefusesFirstKeyNotAtFrameZero) {
  FittedClip clip = wave();
  const size_t t = track_with_keys(clip, TrackKind::kScale, 2);
  clip.tracks[t].keys[0].frame = 1;
  EXPECT_TRUE(refused_mentioning(pack(clip, {}), {"track " + std::to_string(t), "does not start at frame 0"}));
}

TEST(Pack, RefusesLastKeyNotAtLastFrame) {
  FittedClip clip = wave();
  const size_t t = track_with_keys(clip, TrackKind::kRotation, 4);
  clip.tracks[t].keys.back().frame = static_cast<uint16_t>(clip.frame_count - 2);
  EXPECT_TRUE(refused_mentioning(pack(clip, {}), {"track " + std::to_string(t), "does not end at the last frame"}));
}

TEST(Pack, RefusesTooFewOrTooManyKeys) {
  FittedClip clip = wave();
  const size_t t = track_with_keys(clip, TrackKind::kTranslation, 2);
  clip.tracks[t].keys.resize(1);
  EXPECT_TRUE(refused_mentioning(pack(clip, {}), {"track " + std::to_string(t), "too few or too many keys"}));
  clip = wave();
  std::vector<FittedKey>& keys = clip.tracks[t].keys;
  keys.assign(2 * clip.frame_count + 1, keys[0]);
  EXPECT_TRUE(refused_mentioning(pack(clip, {}), {"track " + std::to_string(t), "too few or too many keys"}));
}

TEST(Pack, RefusesConstantTracksWithKeys) {
  FittedClip clip = wave();
  ASSERT_EQ(clip.tracks[2].coding, TrackCoding::kIdentity);
  ASSERT_TRUE(clip.tracks[2].keys.empty());
  clip.tracks[2].keys.push_back(clip.tracks[0].keys[0]);
  EXPECT_TRUE(refused_mentioning(pack(clip, {}), {"track 2 is constant but has 1 key"}));
  clip.tracks[2].keys.push_back(clip.tracks[0].keys[1]);
  EXPECT_TRUE(refused_mentioning(pack(clip, {}), {"track 2 is constant but has 2 keys"}));
}

TEST(Pack, RefusesAnIdentityTrackHoldingAnotherValue) {
  FittedClip clip = wave();
  clip.tracks[2].quantization.constant[1] = 1.0001f;
  EXPECT_TRUE(refused_mentioning(pack(clip, {}), {"track 2 is marked identity but holds another value"}));
  // The same value as a constant is fine, and decodes exactly.
  clip.tracks[2].coding = TrackCoding::kConstant;
  const std::vector<uint8_t> bytes = test::pack_or_fail(clip, 0.f);
  const Result<StreamView> view = StreamView::open(bytes);
  ASSERT_TRUE(view.ok()) << view.error();
  EXPECT_EQ(view.value().tracks()[2].quantization.constant[1], 1.0001f);
}

TEST(Pack, RefusesAConstantThatIsNotFinite) {
  for (const float bad : {kNaN, kInf, -kInf}) {
    FittedClip clip = wave();
    clip.tracks[2].coding = TrackCoding::kConstant;
    clip.tracks[2].quantization.constant[0] = bad;
    EXPECT_TRUE(refused_mentioning(pack(clip, {}), {"track 2 has a constant that is not finite"})) << bad;
  }
}

TEST(Pack, RefusesTheWrongCodedComponents) {
  FittedClip clip = wave();
  const size_t r = track_with_keys(clip, TrackKind::kRotation, 2);
  clip.tracks[r].quantization.coded_mask = 0b1111;  // relative rotations code x, y, z
  ASSERT_EQ(clip.tracks[r].quantization.rotation, RotationCoding::kRelative);
  EXPECT_TRUE(refused_mentioning(pack(clip, {}), {"track " + std::to_string(r), "codes the wrong components"}));
  clip = wave();
  clip.tracks[r].quantization.rotation = RotationCoding::kFull;  // full rotations code all four
  EXPECT_TRUE(refused_mentioning(pack(clip, {}), {"track " + std::to_string(r), "codes the wrong components"}));
  for (const uint8_t mask : {uint8_t{0}, uint8_t{0b1000}, uint8_t{0b10001}}) {
    clip = wave();
    const size_t v = track_with_keys(clip, TrackKind::kTranslation, 2);
    clip.tracks[v].quantization.coded_mask = mask;
    EXPECT_TRUE(refused_mentioning(pack(clip, {}), {"track " + std::to_string(v), "codes the wrong components"}))
        << int{mask};
  }
}

TEST(Pack, RefusesAnInvalidStep) {
  for (const float bad : {0.f, -1e-4f, kNaN, kInf}) {
    FittedClip clip = wave();
    const size_t v = track_with_keys(clip, TrackKind::kScale, 2);
    clip.tracks[v].quantization.step = bad;
    EXPECT_TRUE(refused_mentioning(pack(clip, {}), {"track " + std::to_string(v), "invalid step"})) << bad;
  }
}

TEST(Pack, RefusesACodeOutOfRange) {
  for (const int32_t code : {kMaxCodeMagnitude + 1, -kMaxCodeMagnitude - 1}) {
    FittedClip clip = wave();
    const size_t r = track_with_keys(clip, TrackKind::kRotation, 3);
    clip.tracks[r].keys[2].codes[1] = code;
    EXPECT_TRUE(refused_mentioning(pack(clip, {}), {"track " + std::to_string(r), "code out of range"})) << code;
  }
}

TEST(Pack, QuotesHostileClipAndBoneNamesAsShortPrintableExcerpts) {
  FittedClip clip = wave();
  clip.name = test::hostile_name();  // longer than a metadata string can be
  Result<std::vector<uint8_t>> packed = pack(clip, {});
  ASSERT_FALSE(packed.ok());
  EXPECT_TRUE(test::quotes_hostile_name_briefly(packed.error()));
  clip = wave();
  clip.settings.bone_tolerances = {{test::hostile_name(), 0.001f, 0.f}};  // no bone of the clip
  packed = pack(clip, {});
  ASSERT_FALSE(packed.ok());
  EXPECT_TRUE(test::quotes_hostile_name_briefly(packed.error()));
}

TEST(Pack, WritesAHeaderThatDescribesTheStream) {
  const std::vector<uint8_t> bytes = test::pack_or_fail(wave(), 0.25f);
  ASSERT_GE(bytes.size(), kHeaderSize);
  using namespace header_offset;
  EXPECT_EQ(get_u32(bytes, kMagic), kStreamMagic);
  EXPECT_EQ(bytes[kVersion] | bytes[kVersion + 1] << 8, kStreamVersion);
  EXPECT_EQ(bytes[kFlags] | bytes[kFlags + 1] << 8, 0);
  EXPECT_EQ(get_u32(bytes, kFrameCount), wave().frame_count);
  EXPECT_EQ(get_u32(bytes, kBoneCount), 3u);
  EXPECT_EQ(get_u32(bytes, kJumpIntervalFrames), 8u);
  EXPECT_EQ(get_u32(bytes, kTotalSize), bytes.size());
  size_t stream_keys = 0;
  for (const FittedTrack& t : wave().tracks) {
    if (t.coding == TrackCoding::kAnimated && t.keys.size() > kInitialKeysPerTrack) stream_keys += t.keys.size() - 3;
  }
  EXPECT_EQ(get_u32(bytes, kStreamKeyCount), stream_keys);
  // Sections in order, the tables right after the header.
  const uint32_t offsets[] = {kHeaderSize,
                              get_u32(bytes, kKeyWidthsOffset),
                              get_u32(bytes, kInitialKeysOffset),
                              get_u32(bytes, kKeyStreamOffset),
                              get_u32(bytes, kJumpIndexOffset),
                              get_u32(bytes, kJumpStatesOffset),
                              get_u32(bytes, kMetadataOffset),
                              static_cast<uint32_t>(bytes.size())};
  for (size_t i = 1; i < std::size(offsets); ++i) EXPECT_LE(offsets[i - 1], offsets[i]) << i;
  EXPECT_EQ(get_u32(bytes, kJumpStatesOffset) - get_u32(bytes, kJumpIndexOffset), 4 * kJumpIndexEntrySize);
  EXPECT_EQ(get_u32(bytes, kJumpIndexOffset) - get_u32(bytes, kKeyStreamOffset),
            (get_u32(bytes, kKeyStreamBits) + 7) / 8);
  EXPECT_EQ(get_u32(bytes, kChecksum), stream_checksum(bytes));
  // Packing is deterministic; zstd sets its flag.
  EXPECT_EQ(test::pack_or_fail(wave(), 0.25f), bytes);
  const std::vector<uint8_t> zstd = test::pack_or_fail(wave(), 0.25f, true);
  EXPECT_EQ(zstd[kFlags] | zstd[kFlags + 1] << 8, kFlagZstdKeyStream);
}

TEST(Pack, IdentityTracksCostNothingAndConstantsOnlyTheirFloats) {
  // The same clip with bone 0's identity scale, then as a constant.
  FittedClip clip = wave();
  ASSERT_EQ(clip.tracks[2].coding, TrackCoding::kIdentity);
  const std::vector<uint8_t> identity = test::pack_or_fail(clip, 0.f);
  clip.tracks[2].coding = TrackCoding::kConstant;
  const std::vector<uint8_t> constant = test::pack_or_fail(clip, 0.f);
  const uint32_t identity_tables = get_u32(identity, header_offset::kInitialKeysOffset);
  const uint32_t constant_tables = get_u32(constant, header_offset::kInitialKeysOffset);
  // Three f32 values: 96 bits more, in whole bytes of the tables.
  EXPECT_GE(constant_tables - identity_tables, 11u);
  EXPECT_LE(constant_tables - identity_tables, 13u);
  const test::TableLayout l = test::table_layout(identity);
  EXPECT_EQ(l.tracks[3].coding_bit - l.tracks[2].coding_bit, 2u);  // the coding field alone
}

TEST(Pack, JumpFrameCountMatchesTheInterval) {
  const FittedClip& clip = wave();  // 40 frames at 30 Hz: last frame 39
  struct Case {
    float seconds;
    uint32_t interval_frames;
    uint32_t jumps;
  };
  for (const Case c : {Case{0.f, 0, 0}, Case{1.f / 30.f, 1, 39}, Case{1e-6f, 1, 39}, Case{0.25f, 8, 4},
                       Case{1.f, 30, 1}, Case{1.3f, 39, 1}, Case{1.31f, 39, 1}, Case{4.f, 120, 0}}) {
    SCOPED_TRACE(c.seconds);
    const std::vector<uint8_t> bytes = test::pack_or_fail(clip, c.seconds);
    EXPECT_EQ(get_u32(bytes, header_offset::kJumpIntervalFrames), c.interval_frames);
    EXPECT_EQ(get_u32(bytes, header_offset::kJumpStatesOffset) - get_u32(bytes, header_offset::kJumpIndexOffset),
              c.jumps * kJumpIndexEntrySize);
    const Result<StreamView> view = StreamView::open(bytes);
    ASSERT_TRUE(view.ok()) << view.error();
    ASSERT_EQ(view.value().jump_frames().size(), c.jumps);
    for (uint32_t j = 0; j < c.jumps; ++j) {
      EXPECT_EQ(view.value().jump_frames()[j].frame, (j + 1) * c.interval_frames);
      EXPECT_LE(view.value().jump_frames()[j].frame, clip.frame_count - 1);
    }
  }
}

// Reads the tables, initial keys and key stream with the tests' own reader
// of the documented layout and checks every record and key against the
// fitted clip, the order of the key stream (by need frame, then track) and
// the jump index.
void check_layout(const FittedClip& clip, float jump_interval_s) {
  const std::vector<uint8_t> bytes = test::pack_or_fail(clip, jump_interval_s);
  const Result<StreamView> opened = StreamView::open(bytes);
  ASSERT_TRUE(opened.ok()) << opened.error();
  const StreamView& view = opened.value();
  const uint32_t track_count = static_cast<uint32_t>(clip.tracks.size());
  const test::TableLayout layout = test::table_layout(bytes);
  EXPECT_EQ((layout.end_bit + 7) / 8, get_u32(bytes, header_offset::kKeyWidthsOffset));
  BitReader parents(bytes, uint64_t{kHeaderSize} * 8);
  for (size_t b = 0; b < clip.parents.size(); ++b) {
    EXPECT_EQ(static_cast<int32_t>(parents.read(layout.parent_bits)) - 1, clip.parents[b]) << "bone " << b;
  }
  for (uint32_t t = 0; t < track_count; ++t) {
    const FittedTrack& track = clip.tracks[t];
    const test::TrackRecord& record = layout.tracks[t];
    SCOPED_TRACE(::testing::Message() << "track " << t);
    ASSERT_EQ(record.coding, track.coding);
    if (track.coding == TrackCoding::kConstant) {
      for (int c = 0; c < component_count(track.kind); ++c) {
        EXPECT_EQ(BitReader(bytes, record.constant_bit[c]).read(32), std::bit_cast<uint32_t>(constant_value(track)[c]));
      }
    }
    if (track.coding != TrackCoding::kAnimated) continue;
    EXPECT_EQ(record.key_count, track.keys.size());
    EXPECT_EQ(record.interpolation_bit, record.key_count_bit + kKeyCountBits);
    EXPECT_EQ(record.interpolation, track.interpolation);
    EXPECT_EQ(view.tracks()[t].interpolation, track.interpolation);
    EXPECT_EQ(record.coded_mask, track.quantization.coded_mask);
    EXPECT_EQ(record.step, track.quantization.step);
    EXPECT_EQ(record.key_coding, choose_key_coding(track));
    if (record.rotation_bit != 0) {
      EXPECT_EQ(record.rotation, track.quantization.rotation);
    }
    if (record.reference_bit != 0) {
      EXPECT_EQ(BitReader(bytes, record.reference_bit).read(kReferenceCodeBits), track.quantization.reference_code);
    }
    for (int c = 0; c < 3; ++c) {
      if (record.constant_bit[c] != 0) {
        EXPECT_EQ(BitReader(bytes, record.constant_bit[c]).read(32), std::bit_cast<uint32_t>(track.quantization.constant[c]));
      }
    }
  }
  const test::StoredKeys keys = test::stored_keys(bytes, layout);
  for (uint32_t t = 0; t < track_count; ++t) {
    const FittedTrack& track = clip.tracks[t];
    if (track.coding != TrackCoding::kAnimated) continue;
    ASSERT_EQ(keys.tracks[t].size(), track.keys.size()) << "track " << t;
    for (size_t k = 0; k < track.keys.size(); ++k) {
      EXPECT_EQ(keys.tracks[t][k].frame, track.keys[k].frame) << "track " << t << " key " << k;
      for (int c = 0; c < 4; ++c) {
        EXPECT_EQ(keys.tracks[t][k].codes[c], track.quantization.coded(c) ? track.keys[k].codes[c] : 0)
            << "track " << t << " key " << k << " component " << c;
      }
    }
  }
  // Each segment of stream keys is as wide as its largest difference needs,
  // field by field, and no wider.
  const std::vector<std::vector<test::SegmentWidths>> widths = test::stored_key_widths(bytes, layout);
  for (uint32_t t = 0; t < track_count; ++t) {
    const FittedTrack& track = clip.tracks[t];
    if (track.coding != TrackCoding::kAnimated) continue;
    const uint32_t delta_min = layout.tracks[t].key_coding.frame_delta_min;
    std::vector<test::SegmentWidths> expected;
    for (size_t k = kInitialKeysPerTrack; k < track.keys.size(); ++k) {
      if ((k - kInitialKeysPerTrack) % test::kTestKeysPerSegment == 0) expected.push_back({});
      test::SegmentWidths& w = expected.back();
      w[0] = std::max<uint32_t>(w[0], std::bit_width(track.keys[k].frame - track.keys[k - 1].frame - delta_min));
      for (int c = 0; c < 4; ++c) {
        if (!track.quantization.coded(c)) continue;
        const uint32_t field = zigzag(track.keys[k].codes[c] - track.keys[k - 1].codes[c]);
        w[c + 1] = std::max<uint32_t>(w[c + 1], std::bit_width(field));
      }
    }
    EXPECT_EQ(widths[t], expected) << "track " << t;
  }
  EXPECT_EQ((keys.initial_bits + 7) / 8, get_u32(bytes, header_offset::kKeyStreamOffset) -
                                             get_u32(bytes, header_offset::kInitialKeysOffset));
  EXPECT_EQ(keys.stream_bits, view.key_stream_bits());
  // Each track's stream keys in turn (its run), where the view says its run starts.
  uint32_t animated = 0;
  for (uint32_t t = 0; t < track_count; ++t) {
    if (clip.tracks[t].coding != TrackCoding::kAnimated) continue;
    const std::vector<test::StoredKey>& stored = keys.tracks[t];
    const uint64_t start = view.run_starts()[animated++];
    if (stored.size() > kInitialKeysPerTrack) {
      EXPECT_EQ(stored[kInitialKeysPerTrack].bit_offset, start) << "track " << t;
    }
    EXPECT_EQ(stored.size() > kInitialKeysPerTrack ? stored.back().bit_end : start, view.run_starts()[animated])
        << "track " << t;
    // Its segments, where the view says each starts: at the segment's first key.
    const uint32_t first_segment = view.first_segments()[animated - 1];
    const uint32_t segments = view.first_segments()[animated] - first_segment;
    ASSERT_EQ(segments, segment_count(static_cast<uint32_t>(stored.size()))) << "track " << t;
    for (uint32_t segment = 0; segment < segments; ++segment) {
      const StreamSegment& s = view.segments()[first_segment + segment];
      const test::StoredKey& first = stored[kInitialKeysPerTrack + segment * kKeysPerSegment];
      EXPECT_EQ(s.start_bit, first.bit_offset) << "track " << t << " segment " << segment;
      uint32_t key_bits = 0;
      for (uint32_t f = 0; f < kKeyFields; ++f) {
        EXPECT_EQ((s.widths >> (5 * f)) & 31u, widths[t][segment][f]) << "track " << t << " segment " << segment;
        key_bits += widths[t][segment][f];
      }
      const uint32_t negation = (s.widths >> 25) & 1u;
      EXPECT_EQ(negation, layout.tracks[t].key_coding.negation_bits ? 1u : 0u) << "track " << t;
      EXPECT_EQ(key_bits + negation, first.bit_end - first.bit_offset) << "track " << t << " segment " << segment;
    }
  }
  EXPECT_EQ(view.first_segments().size(), view.animated_track_count() + 1u);
  EXPECT_EQ(view.first_segments().back(), view.segments().size());
  // Each jump frame: per streamed track the keys read by then (key k is
  // needed at the frame of key k - 2), and from the seventh on the window's
  // oldest key, its frame as a difference from the jump frame in the
  // track's width: the bits the largest difference needs. Every state has
  // the same layout: a track saves the same fields in each, zeros until it
  // has an oldest key, at the same place.
  const test::JumpStateLayout states = test::jump_state_layout(
      bytes, layout, static_cast<uint32_t>(view.jump_frames().size()), view.key_index_bits());
  std::vector<uint32_t> largest_difference(track_count, 0);
  const uint64_t states_bit = uint64_t{get_u32(bytes, header_offset::kJumpStatesOffset)} * 8;
  for (uint32_t j = 0; j < view.jump_frames().size(); ++j) {
    const JumpFrame& jump = view.jump_frames()[j];
    if (j > 0) {
      EXPECT_EQ(jump.state_bit_offset - view.jump_frames()[j - 1].state_bit_offset, view.jump_state_bits());
    }
    uint32_t stream_keys_read = 0;
    uint32_t place = 0;
    for (uint32_t t = 0; t < track_count; ++t) {
      const FittedTrack& track = clip.tracks[t];
      if (track.coding != TrackCoding::kAnimated || track.keys.size() <= kInitialKeysPerTrack) continue;
      uint32_t read = kInitialKeysPerTrack;
      while (read < track.keys.size() && track.keys[read - 2].frame <= jump.frame) ++read;
      stream_keys_read += read - kInitialKeysPerTrack;
      EXPECT_EQ(states.count_bit[j][t], states_bit + jump.state_bit_offset + view.saved_window_offsets()[place++]);
      EXPECT_EQ(BitReader(bytes, states.count_bit[j][t]).read(view.key_index_bits()), read)
          << "jump frame " << j << " track " << t;
      if (read < kRestoreFromRunKeys) {
        EXPECT_EQ(states.first_frame_bit[j][t], 0u);
        if (!saves_oldest_key(static_cast<uint32_t>(track.keys.size()))) continue;
        const test::TrackRecord& record = layout.tracks[t];
        uint32_t zeros = states.frame_difference_bits[t] + (record.key_coding.negation_bits ? 1u : 0u);
        for (int c = 0; c < 4; ++c) zeros += record.coded(c) ? record.key_coding.absolute_bits : 0u;
        BitReader fields(bytes, states.count_bit[j][t] + view.key_index_bits());
        for (uint32_t bit = 0; bit < zeros; ++bit) {
          ASSERT_EQ(fields.read(1), 0u) << "jump frame " << j << " track " << t << " bit " << bit;
        }
        continue;
      }
      const uint32_t difference = jump.frame - track.keys[read - kWindowSize].frame;
      largest_difference[t] = std::max(largest_difference[t], difference);
      EXPECT_EQ(BitReader(bytes, states.first_frame_bit[j][t]).read(states.frame_difference_bits[t]), difference)
          << "jump frame " << j << " track " << t;
    }
    EXPECT_EQ(jump.stream_keys_read, stream_keys_read) << "jump frame at " << jump.frame;
  }
  for (uint32_t t = 0; t < track_count && !view.jump_frames().empty(); ++t) {
    if (clip.tracks[t].coding != TrackCoding::kAnimated || clip.tracks[t].keys.size() <= kInitialKeysPerTrack) continue;
    EXPECT_EQ(states.frame_difference_bits[t], bits_for(largest_difference[t])) << "track " << t;
  }
}

TEST(Pack, KeyStreamHoldsEachTracksKeysInTurn) {
  for (const float j : {0.f, 0.25f, 1.f}) {
    SCOPED_TRACE(j);
    check_layout(wave(), j);
  }
}

TEST(Pack, LayoutOfRandomFittedClips) {
  for (uint32_t seed = 1; seed <= 60; ++seed) {
    SCOPED_TRACE(seed);
    // Every interpolation, drawn without the clip's random numbers.
    FittedClip clip = test::make_random_fitted_clip(seed);
    for (size_t t = 0; t < clip.tracks.size(); ++t) {
      clip.tracks[t].interpolation = static_cast<Interpolation>((seed + t) % kInterpolationCount);
    }
    check_layout(clip, seed % 3 == 0 ? 0.f : 0.1f * static_cast<float>(seed % 7));
    if (HasFatalFailure()) return;
  }
}

TEST(Pack, InterpolationRoundTripsThroughTheStream) {
  // Each value on every animated track, and the three mixed, plain and with
  // zstd: StreamView reads back what the fitted tracks say.
  for (uint32_t mix = 0; mix <= kInterpolationCount; ++mix) {
    FittedClip clip = wave();
    for (size_t t = 0; t < clip.tracks.size(); ++t) {
      const uint32_t value = mix < kInterpolationCount ? mix : static_cast<uint32_t>(t % kInterpolationCount);
      clip.tracks[t].interpolation = static_cast<Interpolation>(value);
    }
    for (const bool zstd : {false, true}) {
      SCOPED_TRACE(::testing::Message() << "mix " << mix << (zstd ? " zstd" : ""));
      const std::vector<uint8_t> bytes = test::pack_or_fail(clip, 0.25f, zstd);
      const Result<StreamView> view = StreamView::open(bytes, "wave", StreamCheck::kFull);
      ASSERT_TRUE(view.ok()) << view.error();
      ASSERT_EQ(view.value().tracks().size(), clip.tracks.size());
      uint32_t animated = 0;
      for (size_t t = 0; t < clip.tracks.size(); ++t) {
        if (clip.tracks[t].coding != TrackCoding::kAnimated) continue;
        ++animated;
        EXPECT_EQ(view.value().tracks()[t].interpolation, clip.tracks[t].interpolation) << "track " << t;
      }
      EXPECT_GE(animated, kInterpolationCount);
    }
  }
}

TEST(Pack, RandomFittedClipsCoverTheFormat) {
  // What the layout test above relies on the random clips to hold.
  uint32_t codings[3] = {0, 0, 0}, rotations[2] = {0, 0}, partial = 0, escapes = 0, discontinuities = 0;
  for (uint32_t seed = 1; seed <= 60; ++seed) {
    for (const FittedTrack& track : test::make_random_fitted_clip(seed).tracks) {
      ++codings[static_cast<int>(track.coding)];
      if (track.coding != TrackCoding::kAnimated) continue;
      if (track.kind == TrackKind::kRotation) ++rotations[static_cast<int>(track.quantization.rotation)];
      if (track.kind != TrackKind::kRotation && track.quantization.coded_mask != 0b111) ++partial;
      const KeyCoding coding = choose_key_coding(track);
      for (size_t k = 1; k < track.keys.size(); ++k) {
        discontinuities += track.keys[k].frame == track.keys[k - 1].frame ? 1 : 0;
        for (int c = 0; c < 4; ++c) {
          if (!track.quantization.coded(c)) continue;
          const uint32_t v = zigzag(track.keys[k].codes[c] - track.keys[k - 1].codes[c]);
          escapes += (v >> coding.value_rice[c]) >= kRiceEscapeZeros ? 1 : 0;
        }
      }
    }
  }
  EXPECT_GT(codings[0], 0u);
  EXPECT_GT(codings[1], 0u);
  EXPECT_GT(codings[2], 0u);
  EXPECT_GT(rotations[0], 0u);
  EXPECT_GT(rotations[1], 0u);
  EXPECT_GT(partial, 0u);
  EXPECT_GT(escapes, 0u);
  EXPECT_GT(discontinuities, 0u);
}

}  // namespace
}  // namespace ks
