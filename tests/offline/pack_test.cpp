#include "core/offline/pack.h"

#include <gtest/gtest.h>

#include <cmath>
#include <initializer_list>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "core/offline/bit_writer.h"
#include "core/runtime/bit_reader.h"
#include "core/runtime/checksum.h"
#include "core/runtime/stream_format.h"
#include "core/runtime/stream_view.h"
#include "tests/runtime/stream_test_support.h"

namespace ks {
namespace {

using test::get_u32;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

// Passes when `result` is a refusal whose message contains every part.
template <class T>
::testing::AssertionResult refused_mentioning(const Result<T>& result, std::initializer_list<std::string_view> parts) {
  if (result.ok()) return ::testing::AssertionFailure() << "accepted";
  for (std::string_view part : parts) {
    if (result.error().find(part) == std::string::npos) {
      return ::testing::AssertionFailure()
             << "message \"" << result.error() << "\" does not mention \"" << part << "\"";
    }
  }
  return ::testing::AssertionSuccess();
}

const FittedClip& wave() {
  static const FittedClip clip = [] {
    const test::RandomClip source = test::make_wave_clip();
    return test::fit_or_fail(source.skeleton, source.clip);
  }();
  return clip;
}

// Index of the first track of `clip` of `kind` with at least `keys` keys.
size_t track_with_keys(const FittedClip& clip, TrackKind kind, size_t keys) {
  for (size_t t = 0; t < clip.tracks.size(); ++t) {
    if (clip.tracks[t].kind == kind && clip.tracks[t].keys.size() >= keys) return t;
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

TEST(Pack, RefusesNoKeysOrTooMany) {
  FittedClip clip = wave();
  clip.tracks[0].keys.clear();
  EXPECT_TRUE(refused_mentioning(pack(clip, {}), {"track 0", "no keys or too many"}));
  clip = wave();
  std::vector<FittedKey>& keys = clip.tracks[0].keys;
  keys.assign(2 * clip.frame_count + 1, keys[0]);
  EXPECT_TRUE(refused_mentioning(pack(clip, {}), {"track 0", "no keys or too many"}));
}

TEST(Pack, RefusesCodeWiderThanItsWidth) {
  FittedClip clip = wave();
  const size_t r = track_with_keys(clip, TrackKind::kRotation, 2);
  clip.tracks[r].keys[1].code |= uint64_t{1} << rotation_code_bits(clip.tracks[r].quantization.rotation_bits);
  EXPECT_TRUE(refused_mentioning(pack(clip, {}), {"track " + std::to_string(r), "code wider than its bit width"}));
  clip = wave();
  const size_t v = track_with_keys(clip, TrackKind::kTranslation, 2);
  clip.tracks[v].keys[1].code |= uint64_t{1} << 48;
  EXPECT_TRUE(refused_mentioning(pack(clip, {}), {"track " + std::to_string(v), "code wider than 48 bits"}));
}

TEST(Pack, RefusesRotationBitsOutOfRange) {
  for (const uint32_t bits : {kMinRotationBits - 1, kMaxRotationBits + 1}) {
    FittedClip clip = wave();
    clip.tracks[1].quantization.rotation_bits = bits;
    EXPECT_TRUE(refused_mentioning(pack(clip, {}), {"track 1", "rotation bit width"})) << bits;
  }
}

TEST(Pack, RefusesInvalidRange) {
  for (const float bad : {kNaN, kInf, -1.f}) {
    FittedClip clip = wave();
    clip.tracks[3].quantization.range_extent[1] = bad;
    EXPECT_TRUE(refused_mentioning(pack(clip, {}), {"track 3", "invalid range"})) << bad;
  }
  FittedClip clip = wave();
  clip.tracks[5].quantization.range_min[0] = 3e38f;
  clip.tracks[5].quantization.range_extent[0] = 3e38f;  // min + extent overflows
  EXPECT_TRUE(refused_mentioning(pack(clip, {}), {"track 5", "invalid range"}));
}

TEST(Pack, WritesAHeaderThatDescribesTheStream) {
  const std::vector<uint8_t> bytes = test::pack_or_fail(wave(), 0.25f);
  ASSERT_GE(bytes.size(), kHeaderSize);
  using namespace header_offset;
  EXPECT_EQ(get_u32(bytes, kMagic), kStreamMagic);
  EXPECT_EQ(bytes[kVersion] | bytes[kVersion + 1] << 8, kStreamVersion);
  EXPECT_EQ(get_u32(bytes, kFrameCount), wave().frame_count);
  EXPECT_EQ(get_u32(bytes, kBoneCount), 3u);
  EXPECT_EQ(get_u32(bytes, kTrackCount), 9u);
  EXPECT_EQ(get_u32(bytes, kTotalKeyCount), wave().key_count());
  EXPECT_EQ(get_u32(bytes, kTotalSize), bytes.size());
  EXPECT_GE(get_u32(bytes, kMetadataOffset), get_u32(bytes, kJumpStatesOffset));
  EXPECT_LT(get_u32(bytes, kMetadataOffset), bytes.size());
  EXPECT_EQ(get_u32(bytes, kBoneTableOffset), kHeaderSize);
  std::vector<uint8_t> zeroed = bytes;
  test::set_u32(zeroed, kChecksum, 0);
  EXPECT_EQ(get_u32(bytes, kChecksum), crc32(zeroed));
  // Packing is deterministic.
  EXPECT_EQ(test::pack_or_fail(wave(), 0.25f), bytes);
}

TEST(Pack, WritesTheFixedRangeFlag) {
  FittedClip clip = wave();
  clip.settings.quantization.range_mode = RangeMode::kFixed;
  const std::vector<uint8_t> bytes = test::pack_or_fail(clip, 1.f);
  EXPECT_EQ(bytes[header_offset::kFlags], kFlagFixedRange);
  EXPECT_EQ(test::pack_or_fail(wave(), 1.f)[header_offset::kFlags], 0);
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
    EXPECT_EQ(get_u32(bytes, header_offset::kJumpFrameCount), c.jumps);
    const Result<StreamView> view = StreamView::open(bytes);
    ASSERT_TRUE(view.ok()) << view.error();
    ASSERT_EQ(view.value().jump_frames().size(), c.jumps);
    for (uint32_t j = 0; j < c.jumps; ++j) {
      EXPECT_EQ(view.value().jump_frames()[j].frame, (j + 1) * c.interval_frames);
      EXPECT_LE(view.value().jump_frames()[j].frame, clip.frame_count - 1);
    }
  }
}

// The value bits pack writes for `code`: the rotation code, or the vec3
// components whose range is not empty.
uint64_t stored_value(const FittedTrack& track, uint64_t code) {
  if (track.kind == TrackKind::kRotation) return code;
  BitWriter writer;
  for (int c = 0; c < 3; ++c) {
    const uint32_t bits = vec3_component_bits(track.quantization, c);
    if (bits > 0) writer.write((code >> (16 * c)) & 0xFFFFu, bits);
  }
  BitReader reader(writer.bytes());
  return reader.read64(static_cast<uint32_t>(writer.size_bits()));
}

// Decodes the initial keys and the key stream with a BitReader and checks
// every key against the fitted clip, the order of the key stream (by need
// frame, then track, then key) and the jump index.
void check_key_layout(const FittedClip& clip, float jump_interval_s) {
  const std::vector<uint8_t> bytes = test::pack_or_fail(clip, jump_interval_s);
  const Result<StreamView> opened = StreamView::open(bytes);
  ASSERT_TRUE(opened.ok()) << opened.error();
  const StreamView& view = opened.value();
  const uint32_t track_count = static_cast<uint32_t>(clip.tracks.size());
  EXPECT_EQ(view.track_id_bits(), bits_for(track_count - 1));

  BitReader initial(view.initial_keys());
  std::vector<uint32_t> next_key(track_count);
  for (uint32_t t = 0; t < track_count; ++t) {
    const FittedTrack& track = clip.tracks[t];
    const uint32_t value_bits = view.tracks()[t].value_bits;
    for (uint32_t k = 0; k < track.keys.size() && k < kInitialKeysPerTrack; ++k) {
      if (k > 0) {
        ASSERT_EQ(initial.read(kFrameBits), track.keys[k].frame) << "track " << t << " key " << k;
      }
      ASSERT_EQ(initial.read64(value_bits), stored_value(track, track.keys[k].code)) << "track " << t << " key " << k;
      next_key[t] = k + 1;
    }
  }
  EXPECT_FALSE(initial.overrun());

  BitReader stream(view.key_stream());
  uint32_t previous_need = 0, previous_track = 0;
  std::vector<uint32_t> needs;  // need frame of each stream key
  for (uint32_t i = 0; i < view.stream_key_count(); ++i) {
    const uint32_t t = stream.read(bits_for(track_count - 1));
    ASSERT_LT(t, track_count) << "entry " << i;
    const FittedTrack& track = clip.tracks[t];
    const uint32_t k = next_key[t]++;
    ASSERT_LT(k, track.keys.size()) << "entry " << i;
    EXPECT_EQ(stream.read(kFrameBits), track.keys[k].frame) << "entry " << i;
    EXPECT_EQ(stream.read64(view.tracks()[t].value_bits), stored_value(track, track.keys[k].code)) << "entry " << i;
    const uint32_t need = track.keys[k - 2].frame;
    EXPECT_TRUE(need > previous_need || (need == previous_need && t >= previous_track))
        << "entry " << i << " (track " << t << ", need " << need << ") after track " << previous_track << ", need "
        << previous_need;
    previous_need = need;
    previous_track = t;
    needs.push_back(need);
  }
  EXPECT_EQ(stream.position(), view.key_stream_bits());
  EXPECT_FALSE(stream.overrun());
  for (uint32_t t = 0; t < track_count; ++t) EXPECT_EQ(next_key[t], clip.tracks[t].keys.size()) << "track " << t;

  // Each jump frame resumes at the first key needed after it.
  for (const JumpFrame& jump : view.jump_frames()) {
    uint32_t expected = 0;
    while (expected < needs.size() && needs[expected] <= jump.frame) ++expected;
    EXPECT_EQ(jump.stream_key_index, expected) << "jump frame at " << jump.frame;
  }
}

TEST(Pack, KeyStreamIsSortedByNeedFrameThenTrack) {
  for (const float j : {0.f, 0.25f, 1.f}) {
    SCOPED_TRACE(j);
    check_key_layout(wave(), j);
  }
}

TEST(Pack, KeyStreamLayoutOfRandomFittedClips) {
  for (uint32_t seed = 1; seed <= 60; ++seed) {
    SCOPED_TRACE(seed);
    check_key_layout(test::make_random_fitted_clip(seed), seed % 3 == 0 ? 0.f : 0.1f * static_cast<float>(seed % 7));
    if (HasFatalFailure()) return;
  }
}

}  // namespace
}  // namespace ks
