// Rest tracks in the stream and the player (format version 11,
// TrackCoding::kRest): their records are 2 bits, their values in the
// metadata's rest values extension; StreamView reads them into each rest
// track's constant and checks them as constants; the Player returns them
// until Player::set_rest_pose gives it the engine's; a stream that gets any
// of this wrong is refused with a message naming the problem.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "keystream/codec/fit.h"
#include "keystream/codec/pack.h"
#include "keystream/runtime/player.h"
#include "keystream/runtime/stream_format.h"
#include "keystream/runtime/stream_metadata.h"
#include "keystream/runtime/stream_view.h"
#include "tests/codec/rest_clip.h"
#include "tests/runtime/stream_test_support.h"

namespace ks {
namespace {

using Bytes = std::vector<uint8_t>;
namespace ho = header_offset;

constexpr const char* kName = "rest.ks";
constexpr uint32_t kRestValueBytes = test::kRestClipRestValueCount * sizeof(float);

const test::RandomClip& source() {
  static const test::RandomClip clip = test::rest_clip();
  return clip;
}

FittedClip fit(RestTracks rest_tracks) {
  FitSettings settings;
  settings.rest_tracks = rest_tracks;
  Result<FittedClip> fitted = fit_clip(source().skeleton, source().clip, settings, 1);
  EXPECT_TRUE(fitted.ok()) << fitted.error();
  return fitted.ok() ? std::move(fitted.value()) : FittedClip{};
}

// rest_clip() fitted in object space with its rest tracks skipped (and
// kept), packed with a jump frame every 0.25 s.
const FittedClip& skip_fit() {
  static const FittedClip clip = fit(RestTracks::kSkip);
  return clip;
}
const Bytes& skip_stream() {
  static const Bytes bytes = test::pack_or_fail(skip_fit(), 0.25f);
  return bytes;
}
const Bytes& keep_stream() {
  static const Bytes bytes = test::pack_or_fail(fit(RestTracks::kKeep), 0.25f);
  return bytes;
}

using test::patched;

// Passes when both opens refuse `bytes`, naming the stream and every part.
::testing::AssertionResult refused_mentioning(const Bytes& bytes, std::initializer_list<std::string_view> parts) {
  return test::refused_by_both_opens(bytes, kName, parts);
}

// The rest values the skeleton gives rest_clip()'s rest tracks, in track order.
std::vector<float> expected_rest_values() {
  std::vector<float> values;
  for (const uint32_t t : test::kRestClipRestTracks) {
    float v[4];
    track_value(source().skeleton.rest_pose[t / 3], static_cast<TrackKind>(t % 3), v);
    values.insert(values.end(), v, v + (t % 3 == 1 ? 4 : 3));
  }
  return values;
}

// The floats of bone track kind k within a Transform.
const float* field(const Transform& t, uint32_t k) {
  return k == 0 ? &t.translation.x : (k == 1 ? &t.rotation.x : &t.scale.x);
}
size_t field_bytes(uint32_t k) {
  return (k == 1 ? 4 : 3) * sizeof(float);
}

bool is_rest_track(uint32_t t) {
  return std::find(std::begin(test::kRestClipRestTracks), std::end(test::kRestClipRestTracks), t) !=
         std::end(test::kRestClipRestTracks);
}

// Another rest pose: every bone moved, turned and scaled away from rest_clip()'s.
std::vector<Transform> other_rest_pose() {
  std::vector<Transform> pose = source().skeleton.rest_pose;
  for (size_t b = 0; b < pose.size(); ++b) {
    const float k = static_cast<float>(b + 1);
    pose[b].translation = pose[b].translation + Vec3{0.1f * k, -0.2f, 0.05f * k};
    pose[b].rotation = normalize(pose[b].rotation * quat_from_axis_angle({0.f, 0.6f, 0.8f}, 0.3f * k));
    pose[b].scale = pose[b].scale * 1.5f;
  }
  return pose;
}

// Every half frame over the clip.
std::vector<float> frame_times() {
  std::vector<float> times;
  for (uint32_t i = 0; i <= 2 * (source().clip.frame_count - 1); ++i) times.push_back(0.5f * static_cast<float>(i));
  return times;
}

// --- the stream ----------------------------------------------------------------

TEST(RestTrackStream, ReadsTheRestTracksAndTheirValues) {
  const Result<StreamView> opened = StreamView::open(skip_stream(), kName, StreamCheck::kFull);
  ASSERT_TRUE(opened.ok()) << opened.error();
  const StreamView& view = opened.value();
  EXPECT_EQ(view.version(), kRestTrackStreamVersion);
  ASSERT_EQ(view.tracks().size(), 15u);
  const std::vector<float> expected = expected_rest_values();
  EXPECT_EQ(view.metadata().rest_values, expected);
  size_t at = 0;
  for (uint32_t t = 0; t < view.tracks().size(); ++t) {
    const StreamTrack& track = view.tracks()[t];
    EXPECT_EQ(track.coding == TrackCoding::kRest, is_rest_track(t)) << "track " << t;
    EXPECT_EQ(track.coding, skip_fit().tracks[t].coding) << "track " << t;
    if (track.coding != TrackCoding::kRest) continue;
    // The metadata's values, in track order, are the track's constant.
    EXPECT_EQ(track.key_count, 0u);
    const size_t bytes = field_bytes(t % 3);
    EXPECT_EQ(std::memcmp(track.quantization.constant, expected.data() + at, bytes), 0) << "track " << t;
    at += bytes / sizeof(float);
  }
  EXPECT_EQ(at, expected.size());
  // A rest track's record is its coding alone: 2 bits.
  const test::TableLayout layout = test::table_layout(skip_stream());
  ASSERT_EQ(layout.tracks.size(), 15u);
  for (const uint32_t t : test::kRestClipRestTracks) {
    EXPECT_EQ(layout.tracks[t].coding, TrackCoding::kRest);
    const uint64_t next = t + 1 < layout.tracks.size() ? layout.tracks[t + 1].coding_bit : layout.scalar_flag_bit;
    EXPECT_EQ(next - layout.tracks[t].coding_bit, 2u) << "track " << t;
  }
  EXPECT_EQ(view.table_bytes(), (layout.end_bit + 7) / 8);
  // The metadata ends with the extensions byte, rest values set, and the values.
  const Bytes& bytes = skip_stream();
  EXPECT_EQ(bytes[bytes.size() - kRestValueBytes - 1], uint8_t{kMetadataRestValues});
  EXPECT_EQ(std::memcmp(bytes.data() + bytes.size() - kRestValueBytes, expected.data(), kRestValueBytes), 0);
  // Without rest tracks the metadata holds none.
  const Result<StreamView> keep = StreamView::open(keep_stream(), kName, StreamCheck::kFull);
  ASSERT_TRUE(keep.ok()) << keep.error();
  EXPECT_TRUE(keep.value().metadata().rest_values.empty());
  EXPECT_EQ(keep_stream().back(), 0u);
}

TEST(RestTrackStream, TheMetadataParserWantsTheRestValuesExactly) {
  // parse_stream_metadata alone: the section of skip_stream() holds the 17
  // values of its rest tracks, and only for that many.
  const Bytes& bytes = skip_stream();
  const uint32_t at = test::get_u32(bytes, ho::kMetadataOffset);
  const std::span<const uint8_t> section(bytes.data() + at, bytes.size() - at);
  const uint32_t bones = static_cast<uint32_t>(source().skeleton.bone_count());
  const Result<StreamMetadata> read = parse_stream_metadata(section, bones, 0, test::kRestClipRestValueCount);
  ASSERT_TRUE(read.ok()) << read.error();
  EXPECT_EQ(read.value().rest_values, expected_rest_values());
  struct Case {
    uint32_t count;
    const char* message;
  };
  for (const Case c : {Case{0, "metadata holds rest values, but the stream has no rest tracks"},
                       Case{test::kRestClipRestValueCount - 1, "metadata has 4 trailing bytes"},
                       Case{test::kRestClipRestValueCount + 1, "metadata is truncated at the rest values"},
                       Case{0xFFFFFFFFu, "metadata is truncated at the rest values"}}) {
    const Result<StreamMetadata> refused = parse_stream_metadata(section, bones, 0, c.count);
    ASSERT_FALSE(refused.ok()) << c.count;
    EXPECT_NE(refused.error().find(c.message), std::string::npos) << refused.error();
  }
  // The section of a stream without rest tracks, asked for some.
  const uint32_t keep_at = test::get_u32(keep_stream(), ho::kMetadataOffset);
  const std::span<const uint8_t> keep_section(keep_stream().data() + keep_at, keep_stream().size() - keep_at);
  ASSERT_TRUE(parse_stream_metadata(keep_section, bones, 0, 0).ok());
  const Result<StreamMetadata> missing = parse_stream_metadata(keep_section, bones, 0, 3);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().find("metadata holds no values for the stream's rest tracks"), std::string::npos)
      << missing.error();
}

// --- the player ----------------------------------------------------------------

TEST(RestTrackPlayer, ReturnsTheRestValuesAtEveryFrame) {
  const Result<StreamView> opened = StreamView::open(skip_stream(), kName, StreamCheck::kFull);
  ASSERT_TRUE(opened.ok()) << opened.error();
  const std::vector<Transform>& rest = source().skeleton.rest_pose;
  for (const size_t cache : {Player::kDefaultKeyCacheBytes, size_t{0}}) {
    SCOPED_TRACE(cache == 0 ? "reading the key stream" : "from the key cache");
    Player player(opened.value(), cache);
    std::vector<Transform> pose(rest.size());
    for (const float t : frame_times()) {
      player.sample_frame(t, pose);
      EXPECT_TRUE(test::matches_fitted(skip_fit(), pose, t));
      for (const uint32_t track : test::kRestClipRestTracks) {
        const uint32_t b = track / 3, k = track % 3;
        EXPECT_EQ(std::memcmp(field(pose[b], k), field(rest[b], k), field_bytes(k)), 0)
            << "track " << track << " at frame time " << t;
      }
    }
  }
  // The stream with the rest tracks kept decodes the same poses.
  const Result<StreamView> keep = StreamView::open(keep_stream(), kName, StreamCheck::kFull);
  ASSERT_TRUE(keep.ok()) << keep.error();
  Player skip_player(opened.value()), keep_player(keep.value());
  test::expect_same_poses(skip_player, keep_player, frame_times(), rest.size());
}

TEST(RestTrackPlayer, SetRestPoseChangesTheRestTracksAlone) {
  const Result<StreamView> opened = StreamView::open(skip_stream(), kName, StreamCheck::kFull);
  ASSERT_TRUE(opened.ok()) << opened.error();
  const StreamView& view = opened.value();
  const std::vector<Transform> other = other_rest_pose();
  const size_t bones = other.size();
  Player plain(view), engine(view);
  EXPECT_TRUE(engine.set_rest_pose(other));
  std::vector<Transform> before(bones), after(bones);
  for (const float t : frame_times()) {
    plain.sample_frame(t, before);
    engine.sample_frame(t, after);
    for (uint32_t track = 0; track < 3 * bones; ++track) {
      const uint32_t b = track / 3, k = track % 3;
      const Transform& expected = is_rest_track(track) ? other[b] : before[b];
      EXPECT_EQ(std::memcmp(field(after[b], k), field(expected, k), field_bytes(k)), 0)
          << "track " << track << " at frame time " << t;
    }
  }
  // The other rest pose differs in every field, so the rest tracks did change.
  plain.sample_frame(0.f, before);
  engine.sample_frame(0.f, after);
  for (const uint32_t track : test::kRestClipRestTracks) {
    EXPECT_NE(
        std::memcmp(field(after[track / 3], track % 3), field(before[track / 3], track % 3), field_bytes(track % 3)), 0)
        << "track " << track;
  }
  // A pose of another bone count is refused and changes nothing.
  const std::vector<Transform> reference = after;
  std::vector<Transform> wrong = other_rest_pose();
  for (Transform& t : wrong) t.translation = t.translation + Vec3{9.f, 9.f, 9.f};
  for (const size_t count : {size_t{0}, bones - 1, bones + 1}) {
    std::vector<Transform> sized(count);
    for (size_t b = 0; b < count; ++b) sized[b] = wrong[b % bones];
    EXPECT_FALSE(engine.set_rest_pose(sized)) << count << " bones";
    engine.sample_frame(0.f, after);
    EXPECT_TRUE(test::same_bits(after, reference)) << count << " bones";
  }
  // The skeleton's own rest pose gives back what the metadata holds.
  EXPECT_TRUE(engine.set_rest_pose(source().skeleton.rest_pose));
  test::expect_same_poses(plain, engine, frame_times(), bones);
  // A stream without rest tracks takes any pose of its bone count and plays on unchanged.
  const Result<StreamView> keep = StreamView::open(keep_stream(), kName, StreamCheck::kFull);
  ASSERT_TRUE(keep.ok()) << keep.error();
  Player keep_plain(keep.value()), keep_engine(keep.value());
  EXPECT_TRUE(keep_engine.set_rest_pose(other));
  EXPECT_FALSE(keep_engine.set_rest_pose(std::span<const Transform>(other).first(bones - 1)));
  test::expect_same_poses(keep_plain, keep_engine, frame_times(), bones);
}

TEST(RestTrackPlayer, SeeksAndPlayAgreeAfterSetRestPose) {
  const Result<StreamView> opened = StreamView::open(skip_stream(), kName, StreamCheck::kFull);
  ASSERT_TRUE(opened.ok()) << opened.error();
  const StreamView& view = opened.value();
  ASSERT_GT(view.jump_frames().size(), 0u);
  const std::vector<Transform> other = other_rest_pose();
  const size_t bones = other.size();
  const std::vector<float> times = frame_times();
  // Played forward, with the pose given first.
  Player played(view);
  ASSERT_TRUE(played.set_rest_pose(other));
  std::vector<std::vector<Transform>> expected(times.size(), std::vector<Transform>(bones));
  for (size_t i = 0; i < times.size(); ++i) played.sample_frame(times[i], expected[i]);
  // Seeking back and forth (from the key cache and reading the key stream,
  // which restores jump frames), the pose given after the player has
  // played; and played on from a pose given halfway.
  for (const size_t cache : {Player::kDefaultKeyCacheBytes, size_t{0}}) {
    SCOPED_TRACE(cache == 0 ? "reading the key stream" : "from the key cache");
    Player seeking(view, cache);
    std::vector<Transform> pose(bones);
    seeking.sample_frame(17.f, pose);
    ASSERT_TRUE(seeking.set_rest_pose(other));
    test::TestRandom rng(7);
    for (uint32_t n = 0; n < 3 * times.size(); ++n) {
      const size_t i = rng.integer(0, static_cast<uint32_t>(times.size()) - 1);
      seeking.sample_frame(times[i], pose);
      EXPECT_TRUE(test::same_bits(pose, expected[i])) << "frame time " << times[i];
    }
    for (size_t i = times.size(); i-- > 0;) {
      seeking.sample_frame(times[i], pose);
      EXPECT_TRUE(test::same_bits(pose, expected[i])) << "backward, frame time " << times[i];
    }
    Player halfway(view, cache);
    for (size_t i = 0; i < times.size(); ++i) {
      if (i == times.size() / 2) {
        ASSERT_TRUE(halfway.set_rest_pose(other));
      }
      halfway.sample_frame(times[i], pose);
      if (i >= times.size() / 2) {
        EXPECT_TRUE(test::same_bits(pose, expected[i])) << "played on, frame time " << times[i];
      }
    }
    // In seconds, looping past the end, as an engine samples.
    seeking.set_looping(true);
    const float rate = view.sample_rate_hz();
    for (size_t i = 0; i < times.size(); i += 3) {
      seeking.sample(times[i] / rate + view.duration_s() * 2.f, pose);
      Player fresh(view, cache);
      ASSERT_TRUE(fresh.set_rest_pose(other));
      std::vector<Transform> fresh_pose(bones);
      fresh.sample_frame(seeking.frame_time_at(times[i] / rate + view.duration_s() * 2.f), fresh_pose);
      EXPECT_TRUE(test::same_bits(pose, fresh_pose)) << "looping, frame time " << times[i];
    }
  }
  // A copy of a player keeps the pose it was given.
  Player copy = played;
  std::vector<Transform> pose(bones);
  copy.sample_frame(times[5], pose);
  EXPECT_TRUE(test::same_bits(pose, expected[5]));
}

// --- malformed streams ----------------------------------------------------------

TEST(RestTrackMalformed, VersionTenKnowsNoRestCoding) {
  // The first rest track, 3 (bone 1's translation), read by version 10's rules.
  const Bytes ten = patched(skip_stream(), [](Bytes& b) { test::set_u16(b, ho::kVersion, 10); });
  EXPECT_TRUE(refused_mentioning(ten, {"track 3 has the unknown coding 3"}));
}

TEST(RestTrackMalformed, AnAdditiveStreamHasNoRestTracks) {
  // Its bones hold differences to a base, whose rest is the identity.
  const Bytes additive = patched(skip_stream(), [](Bytes& b) {
    const uint16_t flags = static_cast<uint16_t>(test::get_u32(b, ho::kFlags) & 0xFFFFu);
    test::set_u16(b, ho::kFlags, static_cast<uint16_t>(flags | kFlagAdditive));
  });
  EXPECT_TRUE(refused_mentioning(additive, {"track 3 is a rest track, which an additive stream cannot have"}));
}

TEST(RestTrackMalformed, RestValuesWithoutRestTracksAreRefused) {
  // keep_stream()'s metadata ends with its extensions byte: none.
  ASSERT_EQ(keep_stream().back(), 0u);
  const Bytes flagged = patched(keep_stream(), [](Bytes& b) {
    if (!b.empty()) b.back() = kMetadataRestValues;
  });
  EXPECT_TRUE(refused_mentioning(flagged, {"metadata holds rest values, but the stream has no rest tracks"}));
  // With values after it too.
  const std::vector<float> values = expected_rest_values();
  const Bytes with_values = patched(keep_stream(), [&](Bytes& b) {
    if (!b.empty()) b.back() = kMetadataRestValues;
    const auto* v = reinterpret_cast<const uint8_t*>(values.data());
    b.insert(b.end(), v, v + kRestValueBytes);
  });
  EXPECT_TRUE(refused_mentioning(with_values, {"metadata holds rest values, but the stream has no rest tracks"}));
}

TEST(RestTrackMalformed, RestTracksWithoutTheirValuesAreRefused) {
  const Bytes& skip = skip_stream();
  const size_t extensions = skip.size() - kRestValueBytes - 1;
  ASSERT_EQ(skip[extensions], uint8_t{kMetadataRestValues});
  // The extension cleared, its values dropped or left as trailing bytes.
  const Bytes dropped = patched(skip, [&](Bytes& b) {
    b[extensions] = 0;
    b.resize(extensions + 1);
  });
  EXPECT_TRUE(refused_mentioning(dropped, {"metadata holds no values for the stream's rest tracks"}));
  const Bytes cleared = patched(skip, [&](Bytes& b) { b[extensions] = 0; });
  EXPECT_TRUE(refused_mentioning(cleared, {"metadata holds no values for the stream's rest tracks"}));
  // One rest track more than the metadata holds values for: bone 0's
  // identity scale (track 2) coded rest.
  const test::TableLayout layout = test::table_layout(skip);
  ASSERT_EQ(layout.tracks[2].coding, TrackCoding::kIdentity);
  const Bytes one_more = patched(skip, [&](Bytes& b) { test::write_bits(b, layout.tracks[2].coding_bit, 3, 2); });
  EXPECT_TRUE(refused_mentioning(one_more, {"metadata is truncated at the rest values"}));
}

TEST(RestTrackMalformed, TruncatedOrLongerRestValuesAreRefused) {
  for (const uint32_t cut : {1u, 3u, 4u, 5u, kRestValueBytes - 1, kRestValueBytes}) {
    SCOPED_TRACE(::testing::Message() << cut << " bytes cut");
    const Bytes truncated = patched(skip_stream(), [&](Bytes& b) { b.resize(b.size() - cut); });
    EXPECT_TRUE(refused_mentioning(truncated, {"metadata is truncated at the rest values"}));
  }
  const Bytes longer = patched(skip_stream(), [](Bytes& b) { b.insert(b.end(), 4, uint8_t{0}); });
  EXPECT_TRUE(refused_mentioning(longer, {"metadata has 4 trailing bytes"}));
}

TEST(RestTrackMalformed, RestValuesAreCheckedAsConstants) {
  // The values in track order: tracks 3, 5, 6 (3 floats each), 7 (a
  // rotation, floats 9..12), 13 (a rotation, floats 13..16).
  const size_t values_at = skip_stream().size() - kRestValueBytes;
  const auto with_value = [&](size_t index, float value) {
    return patched(skip_stream(),
                   [&](Bytes& b) { test::set_f32(b, static_cast<uint32_t>(values_at + 4 * index), value); });
  };
  // An untouched copy opens.
  ASSERT_TRUE(StreamView::open(with_value(0, expected_rest_values()[0]), kName, StreamCheck::kFull).ok());
  for (const float bad : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                          -std::numeric_limits<float>::infinity()}) {
    SCOPED_TRACE(bad);
    EXPECT_TRUE(
        refused_mentioning(with_value(1, bad), {"rest track 3 has a constant value that is not a finite number"}));
    EXPECT_TRUE(
        refused_mentioning(with_value(8, bad), {"rest track 6 has a constant value that is not a finite number"}));
    EXPECT_TRUE(
        refused_mentioning(with_value(16, bad), {"rest track 13 has a constant value that is not a finite number"}));
  }
  // A rotation of length 2, or 0: no pose an engine could use.
  const Bytes doubled = patched(skip_stream(), [&](Bytes& b) {
    for (size_t i = 9; i < 13; ++i) {
      float v;
      std::memcpy(&v, b.data() + values_at + 4 * i, 4);
      test::set_f32(b, static_cast<uint32_t>(values_at + 4 * i), 2.f * v);
    }
  });
  EXPECT_TRUE(
      refused_mentioning(doubled, {"rest track 7 has a constant rotation of length 2.0", "not a unit quaternion"}));
  const Bytes zero = patched(skip_stream(), [&](Bytes& b) {
    for (size_t i = 13; i < 17; ++i) test::set_f32(b, static_cast<uint32_t>(values_at + 4 * i), 0.f);
  });
  EXPECT_TRUE(
      refused_mentioning(zero, {"rest track 13 has a constant rotation of length 0.0", "not a unit quaternion"}));
  // A translation or scale rest value may be any finite number.
  const Bytes far_bytes = with_value(0, -1e30f);  // outlives the view, which borrows it
  const Result<StreamView> far = StreamView::open(far_bytes, kName, StreamCheck::kFull);
  ASSERT_TRUE(far.ok()) << far.error();
  EXPECT_EQ(far.value().tracks()[3].quantization.constant[0], -1e30f);
}

}  // namespace
}  // namespace ks
