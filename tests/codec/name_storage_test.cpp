// Names in the metadata (PackSettings::names, stream_format.h "Names"):
// name_hash is 32-bit FNV-1a; full, hash and none round-trip through
// StreamView with the names, the hashes or nothing, and bit-identical
// poses; the metadata shrinks from full to hash to none; pack refuses a
// hash collision and a clip without bone names to hash; the stream view
// refuses metadata that holds names and hashes, or too few or too many
// hashes; validate refuses a NameStorage out of range.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "keystream/codec/fit.h"
#include "keystream/codec/pack.h"
#include "keystream/runtime/player.h"
#include "keystream/runtime/stream_format.h"
#include "keystream/runtime/stream_metadata.h"
#include "keystream/runtime/stream_view.h"
#include "tests/codec/random_clip.h"
#include "tests/codec/rest_clip.h"
#include "tests/refused_mentioning.h"
#include "tests/runtime/stream_test_support.h"

namespace ks {
namespace {

using Bytes = std::vector<uint8_t>;
namespace ho = header_offset;

constexpr const char* kName = "names.ks";
constexpr const char* kSourceName = "clips/wave_source.glb";
constexpr NameStorage kModes[] = {NameStorage::kFull, NameStorage::kHash, NameStorage::kNone};

// Two bone names of one FNV-1a 32 hash (0xe33195d7), found by a birthday
// search in Python over "bone_" + 1..5 lowercase letters (the first pair the
// search met): h = 0x811c9dc5; per byte: h ^= byte; h = h * 0x01000193 mod 2^32.
constexpr std::string_view kCollidingA = "bone_jxfrw";
constexpr std::string_view kCollidingB = "bone_pkexa";

// The wave clip with bone names longer than 4 bytes (a name costs its length
// and 2 bytes in full, a hash 4), fitted once.
const FittedClip& wave() {
  static const FittedClip clip = [] {
    test::RandomClip source = test::make_wave_clip();
    source.skeleton.bone_names = {"pelvis_root", "upper_arm", "left_hand"};
    return test::fit_or_fail(source.skeleton, source.clip);
  }();
  return clip;
}

Result<Bytes> pack_as(const FittedClip& clip, NameStorage names, float jump_interval_s = 0.25f) {
  PackSettings settings;
  settings.jump_interval_s = jump_interval_s;
  settings.source_name = kSourceName;
  settings.names = names;
  return pack(clip, settings);
}

Bytes pack_or_fail(const FittedClip& clip, NameStorage names) {
  Result<Bytes> packed = pack_as(clip, names);
  EXPECT_TRUE(packed.ok()) << to_string(names) << ": " << packed.error();
  return packed.ok() ? std::move(packed).value() : Bytes{};
}

const Bytes& wave_stream(NameStorage names) {
  static const Bytes full = pack_or_fail(wave(), NameStorage::kFull);
  static const Bytes hash = pack_or_fail(wave(), NameStorage::kHash);
  static const Bytes none = pack_or_fail(wave(), NameStorage::kNone);
  return names == NameStorage::kFull ? full : names == NameStorage::kHash ? hash : none;
}

uint32_t metadata_bytes(const Bytes& bytes) {
  return static_cast<uint32_t>(bytes.size()) - test::get_u32(bytes, ho::kMetadataOffset);
}

std::vector<uint32_t> hashes_of(const std::vector<std::string>& names) {
  std::vector<uint32_t> out;
  for (const std::string& name : names) out.push_back(name_hash(name));
  return out;
}

using test::patched;

// Passes when both opens refuse `bytes`, naming the stream and every part.
::testing::AssertionResult refused_mentioning(const Bytes& bytes, std::initializer_list<std::string_view> parts) {
  return test::refused_by_both_opens(bytes, kName, parts);
}

// --- name_hash ---------------------------------------------------------------

TEST(NameHash, IsFnv1a32) {
  // Reference values (Python, as above; "" is the offset basis).
  static_assert(name_hash("") == 0x811c9dc5u);
  static_assert(name_hash("a") == 0xe40c292cu);
  static_assert(name_hash("foobar") == 0xbf9cf968u);
  EXPECT_EQ(name_hash(""), 0x811c9dc5u);
  EXPECT_EQ(name_hash("a"), 0xe40c292cu);
  EXPECT_EQ(name_hash("foobar"), 0xbf9cf968u);
  EXPECT_EQ(name_hash("root"), 0x20fd0e45u);
  // Bytes are hashed unsigned (a signed char would fold 0xff into 0xffffffff).
  EXPECT_EQ(name_hash("\xff"), 0x7a0b824eu);
  EXPECT_EQ(name_hash("\xc3\xa9"), 0x1e9de8c1u);  // "é" in UTF-8
  // Every byte counts, a NUL and the length too.
  EXPECT_NE(name_hash(std::string_view("a\0", 2)), name_hash("a"));
  EXPECT_NE(name_hash("ab"), name_hash("ba"));
  // The pair the collision tests use.
  EXPECT_EQ(name_hash(kCollidingA), 0xe33195d7u);
  EXPECT_EQ(name_hash(kCollidingB), 0xe33195d7u);
}

TEST(NameStorage, HasAName) {
  EXPECT_STREQ(to_string(NameStorage::kFull), "full");
  EXPECT_STREQ(to_string(NameStorage::kHash), "hash");
  EXPECT_STREQ(to_string(NameStorage::kNone), "none");
  EXPECT_EQ(PackSettings{}.names, NameStorage::kFull);
  EXPECT_EQ(tool_pack_settings().names, NameStorage::kFull);
}

// --- packing -------------------------------------------------------------------

TEST(NameStorage, EachModeRoundTripsThroughTheStreamView) {
  for (const NameStorage names : kModes) {
    SCOPED_TRACE(to_string(names));
    const Bytes& bytes = wave_stream(names);
    const Result<StreamView> opened = StreamView::open(bytes, kName, StreamCheck::kFull);
    ASSERT_TRUE(opened.ok()) << opened.error();
    const StreamMetadata& meta = opened.value().metadata();
    if (names == NameStorage::kFull) {
      EXPECT_EQ(meta.clip_name, "wave");
      EXPECT_EQ(meta.source_name, kSourceName);
      EXPECT_EQ(meta.bone_names, wave().bone_names);
      EXPECT_TRUE(meta.bone_name_hashes.empty());
    } else {
      EXPECT_EQ(meta.clip_name, "");
      EXPECT_EQ(meta.source_name, "");
      EXPECT_TRUE(meta.bone_names.empty());
      EXPECT_EQ(meta.bone_name_hashes,
                names == NameStorage::kHash ? hashes_of(wave().bone_names) : std::vector<uint32_t>{});
    }
    // The thresholds are stored whatever the names.
    EXPECT_EQ(meta.tolerance_m, wave().settings.tolerance_m);
    EXPECT_EQ(test::get_u32(bytes, test::get_u32(bytes, ho::kMetadataOffset)),
              names == NameStorage::kFull ? 3u : 0u);  // the name count
  }
  // hash: the extensions byte says so, the hashes end the stream (little-endian, in bone order).
  const Bytes& hash = wave_stream(NameStorage::kHash);
  const size_t hash_bytes = 4 * wave().bone_names.size();
  ASSERT_GT(hash.size(), hash_bytes + 1);
  EXPECT_EQ(hash[hash.size() - hash_bytes - 1], uint8_t{kMetadataNameHashes});
  for (size_t b = 0; b < wave().bone_names.size(); ++b) {
    EXPECT_EQ(test::get_u32(hash, static_cast<uint32_t>(hash.size() - hash_bytes + 4 * b)),
              name_hash(wave().bone_names[b]))
        << "bone " << b;
  }
  EXPECT_EQ(wave_stream(NameStorage::kFull).back(), 0u);
  EXPECT_EQ(wave_stream(NameStorage::kNone).back(), 0u);
}

TEST(NameStorage, OnlyTheMetadataDiffersAndThePosesAreBitIdentical) {
  const Bytes& full = wave_stream(NameStorage::kFull);
  const uint32_t metadata_at = test::get_u32(full, ho::kMetadataOffset);
  const Result<StreamView> full_view = StreamView::open(full, kName, StreamCheck::kFull);
  ASSERT_TRUE(full_view.ok()) << full_view.error();
  const size_t bones = wave().parents.size();
  for (const NameStorage names : {NameStorage::kHash, NameStorage::kNone}) {
    SCOPED_TRACE(to_string(names));
    const Bytes& bytes = wave_stream(names);
    ASSERT_EQ(test::get_u32(bytes, ho::kMetadataOffset), metadata_at);
    EXPECT_TRUE(std::equal(full.begin() + kHeaderSize, full.begin() + metadata_at, bytes.begin() + kHeaderSize))
        << "the tables and keys differ";
    const Result<StreamView> view = StreamView::open(bytes, kName, StreamCheck::kFull);
    ASSERT_TRUE(view.ok()) << view.error();
    Player reference(full_view.value()), player(view.value());
    std::vector<Transform> expected(bones), pose(bones);
    for (uint32_t i = 0; i <= 2 * (wave().frame_count - 1); ++i) {
      const float t = 0.5f * static_cast<float>(i);
      reference.sample_frame(t, expected);
      player.sample_frame(t, pose);
      EXPECT_TRUE(test::same_bits(pose, expected)) << "frame time " << t;
      EXPECT_TRUE(test::matches_fitted(wave(), pose, t));
    }
  }
}

TEST(NameStorage, TheMetadataShrinksFromFullToHashToNone) {
  const uint32_t full = metadata_bytes(wave_stream(NameStorage::kFull));
  const uint32_t hash = metadata_bytes(wave_stream(NameStorage::kHash));
  const uint32_t none = metadata_bytes(wave_stream(NameStorage::kNone));
  EXPECT_GT(full, hash);
  EXPECT_GT(hash, none);
  // Exactly: full adds the clip's and source's names and each bone's (u16
  // length and bytes); hash a u32 per bone.
  uint32_t names = static_cast<uint32_t>(std::string_view("wave").size() + std::string_view(kSourceName).size());
  for (const std::string& name : wave().bone_names) names += 2 + static_cast<uint32_t>(name.size());
  EXPECT_EQ(full - none, names);
  EXPECT_EQ(hash - none, 4 * static_cast<uint32_t>(wave().bone_names.size()));
  EXPECT_EQ(wave_stream(NameStorage::kFull).size() - wave_stream(NameStorage::kNone).size(), names);
}

TEST(NameStorage, HashesFollowTheRestValuesAndScalarTracksKeepTheirNames) {
  // rest_clip() with rest tracks skipped, two scalar tracks and a bone
  // tolerance: every extension before the hashes, the override by index.
  test::RandomClip source = test::rest_clip();
  test::add_random_scalar_tracks(source.clip, 5, 2);
  FitSettings fit;
  fit.rest_tracks = RestTracks::kSkip;
  fit.bone_tolerances = {{"arm", 0.0005f, 0.f}};
  const Result<FittedClip> fitted = fit_clip(source.skeleton, source.clip, fit, 1);
  ASSERT_TRUE(fitted.ok()) << fitted.error();
  std::vector<Bytes> streams;
  for (const NameStorage names : kModes) {
    SCOPED_TRACE(to_string(names));
    Result<Bytes> packed = pack_as(fitted.value(), names);
    ASSERT_TRUE(packed.ok()) << packed.error();
    streams.push_back(std::move(packed).value());
    const Result<StreamView> opened = StreamView::open(streams.back(), kName, StreamCheck::kFull);
    ASSERT_TRUE(opened.ok()) << opened.error();
    const StreamMetadata& meta = opened.value().metadata();
    EXPECT_EQ(meta.rest_values.size(), test::kRestClipRestValueCount);
    ASSERT_EQ(meta.scalars.size(), 2u);
    EXPECT_EQ(meta.scalars[0].name, "curve0");
    EXPECT_EQ(meta.scalars[1].name, "curve1");
    ASSERT_EQ(meta.bone_tolerances.size(), 1u);
    EXPECT_EQ(meta.bone_tolerances[0].bone, 2u);
    EXPECT_EQ(meta.bone_names.size(), names == NameStorage::kFull ? 5u : 0u);
    EXPECT_EQ(meta.bone_name_hashes,
              names == NameStorage::kHash ? hashes_of(source.skeleton.bone_names) : std::vector<uint32_t>{});
  }
  // The same rest values in each; in hash the hashes come after them.
  std::vector<StreamView> views;
  for (const Bytes& stream : streams) {
    Result<StreamView> opened = StreamView::open(stream, kName);
    ASSERT_TRUE(opened.ok()) << opened.error();
    views.push_back(std::move(opened).value());
  }
  EXPECT_EQ(views[1].metadata().rest_values, views[0].metadata().rest_values);
  EXPECT_EQ(views[2].metadata().rest_values, views[0].metadata().rest_values);
  const Bytes& hash = streams[1];
  const size_t hash_bytes = 4 * source.skeleton.bone_count();
  const size_t rest_bytes = 4 * test::kRestClipRestValueCount;
  EXPECT_EQ(std::memcmp(hash.data() + hash.size() - hash_bytes - rest_bytes, views[0].metadata().rest_values.data(),
                        rest_bytes),
            0);
  EXPECT_EQ(test::get_u32(hash, static_cast<uint32_t>(hash.size() - hash_bytes)), name_hash("root"));
  // Poses and scalar values agree across the modes.
  const size_t bones = source.skeleton.bone_count();
  Player players[3] = {Player(views[0]), Player(views[1]), Player(views[2])};
  const size_t value_count = players[0].scalar_value_count();
  ASSERT_GT(value_count, 0u);
  for (uint32_t f = 0; f < source.clip.frame_count; ++f) {
    std::vector<Transform> expected(bones), pose(bones);
    std::vector<float> expected_values(value_count), values(value_count);
    players[0].sample_frame(static_cast<float>(f), expected, expected_values);
    for (size_t i = 1; i < 3; ++i) {
      players[i].sample_frame(static_cast<float>(f), pose, values);
      EXPECT_TRUE(test::same_bits(pose, expected)) << "mode " << i << ", frame " << f;
      EXPECT_EQ(std::memcmp(values.data(), expected_values.data(), values.size() * sizeof(float)), 0)
          << "mode " << i << ", frame " << f;
    }
  }
}

TEST(NameStorage, ZstdStreamsCarryTheHashesToo) {
  PackSettings settings;
  settings.zstd = true;
  settings.zstd_level = 3;
  settings.names = NameStorage::kHash;
  const Result<Bytes> packed = pack(wave(), settings);
  ASSERT_TRUE(packed.ok()) << packed.error();
  const Result<StreamView> opened = StreamView::open(packed.value(), kName, StreamCheck::kFull);
  ASSERT_TRUE(opened.ok()) << opened.error();
  EXPECT_EQ(opened.value().metadata().bone_name_hashes, hashes_of(wave().bone_names));
}

// --- refusals --------------------------------------------------------------------

TEST(NameStorage, PackRefusesTwoBoneNamesOfOneHash) {
  FittedClip clip = wave();
  clip.bone_names = {std::string(kCollidingA), "upper_arm", std::string(kCollidingB)};
  const Result<Bytes> refused = pack_as(clip, NameStorage::kHash);
  EXPECT_TRUE(test::refused_mentioning(
      refused, {"fitted clip \"wave\": ", "bones \"bone_jxfrw\" and \"bone_pkexa\" have the same name hash",
                "store full names"}));
  // Full names and none store no hashes: the clip packs.
  EXPECT_TRUE(pack_as(clip, NameStorage::kFull).ok());
  EXPECT_TRUE(pack_as(clip, NameStorage::kNone).ok());
}

TEST(NameStorage, PackRefusesToHashAClipWithoutBoneNames) {
  FittedClip clip = wave();
  clip.bone_names.clear();
  EXPECT_TRUE(test::refused_mentioning(pack_as(clip, NameStorage::kHash),
                                       {"fitted clip \"wave\": ", "has no bone names to hash"}));
  for (const NameStorage names : {NameStorage::kFull, NameStorage::kNone}) {
    SCOPED_TRACE(to_string(names));
    const Result<Bytes> packed = pack_as(clip, names);
    ASSERT_TRUE(packed.ok()) << packed.error();
    const Result<StreamView> opened = StreamView::open(packed.value(), kName, StreamCheck::kFull);
    ASSERT_TRUE(opened.ok()) << opened.error();
    EXPECT_TRUE(opened.value().metadata().bone_names.empty());
    EXPECT_TRUE(opened.value().metadata().bone_name_hashes.empty());
  }
}

TEST(NameStorage, ValidateRefusesAnUnknownMode) {
  for (const uint8_t value : {uint8_t{3}, uint8_t{0xFF}}) {
    SCOPED_TRACE(static_cast<int>(value));
    PackSettings settings;
    settings.names = static_cast<NameStorage>(value);
    EXPECT_TRUE(test::refused_mentioning(settings.validate(), {"names are neither full, hash nor none"}));
    EXPECT_TRUE(test::refused_mentioning(pack(wave(), settings), {"pack settings: ", "names"}));
    EXPECT_STREQ(to_string(settings.names), "unknown");
  }
  for (const NameStorage names : kModes) {
    PackSettings settings;
    settings.names = names;
    EXPECT_TRUE(settings.validate().ok()) << to_string(names);
  }
}

// --- malformed metadata ------------------------------------------------------------

TEST(NameStorageMalformed, NamesAndHashesTogetherAreRefused) {
  // The full stream's extensions byte (its last) given the hashes, and the hashes after it.
  const Bytes& full = wave_stream(NameStorage::kFull);
  ASSERT_EQ(full.back(), 0u);
  const std::vector<uint32_t> hashes = hashes_of(wave().bone_names);
  const Bytes both = patched(full, [&](Bytes& b) {
    b.back() = kMetadataNameHashes;
    const auto* h = reinterpret_cast<const uint8_t*>(hashes.data());
    b.insert(b.end(), h, h + 4 * hashes.size());
  });
  EXPECT_TRUE(refused_mentioning(both, {"metadata holds both bone names and name hashes"}));
  // parse_stream_metadata alone says the same.
  const uint32_t at = test::get_u32(both, ho::kMetadataOffset);
  EXPECT_TRUE(test::refused_mentioning(
      parse_stream_metadata(std::span(both).subspan(at), static_cast<uint32_t>(hashes.size()), 0, 0),
      {"metadata holds both bone names and name hashes"}));
}

TEST(NameStorageMalformed, TooFewHashesAreRefused) {
  const Bytes& hash = wave_stream(NameStorage::kHash);
  const size_t hash_bytes = 4 * wave().bone_names.size();
  for (const size_t cut : {size_t{1}, size_t{4}, hash_bytes}) {
    SCOPED_TRACE(cut);
    const Bytes cut_short = patched(hash, [&](Bytes& b) { b.resize(b.size() - cut); });
    EXPECT_TRUE(refused_mentioning(cut_short, {"metadata is truncated at the bone name hashes"}));
  }
  // The metadata of three bones' hashes, read for more bones.
  const uint32_t at = test::get_u32(hash, ho::kMetadataOffset);
  const std::span<const uint8_t> section = std::span(hash).subspan(at);
  const Result<StreamMetadata> read = parse_stream_metadata(section, 3, 0, 0);
  ASSERT_TRUE(read.ok()) << read.error();
  EXPECT_EQ(read.value().bone_name_hashes, hashes_of(wave().bone_names));
  for (const uint32_t bones : {4u, 1000u, 0xFFFFu}) {
    EXPECT_TRUE(test::refused_mentioning(parse_stream_metadata(section, bones, 0, 0),
                                         {"metadata is truncated at the bone name hashes"}))
        << bones;
  }
  EXPECT_TRUE(test::refused_mentioning(parse_stream_metadata(section, 2, 0, 0), {"metadata has 4 trailing bytes"}));
}

TEST(NameStorageMalformed, HashesWithoutTheExtensionOrOneTooManyAreRefused) {
  const Bytes& hash = wave_stream(NameStorage::kHash);
  const size_t hash_bytes = 4 * wave().bone_names.size();
  const Bytes cleared = patched(hash, [&](Bytes& b) { b[b.size() - hash_bytes - 1] = 0; });
  EXPECT_TRUE(refused_mentioning(cleared, {"metadata has 12 trailing bytes"}));
  const Bytes extra = patched(hash, [&](Bytes& b) {
    const uint32_t h = name_hash("extra");
    const auto* p = reinterpret_cast<const uint8_t*>(&h);
    b.insert(b.end(), p, p + 4);
  });
  EXPECT_TRUE(refused_mentioning(extra, {"metadata has 4 trailing bytes"}));
  // A bit past the known ones is still unknown.
  const Bytes unknown = patched(hash, [&](Bytes& b) { b[b.size() - hash_bytes - 1] |= uint8_t{1u << 4}; });
  EXPECT_TRUE(refused_mentioning(unknown, {"metadata holds unknown extensions (24)"}));
}

TEST(NameStorageMalformed, AnyHashValueIsAccepted) {
  // The hashes are an engine's to match: the stream view checks their count, not their values.
  const Bytes& hash = wave_stream(NameStorage::kHash);
  const Bytes changed = patched(hash, [](Bytes& b) { test::set_u32(b, static_cast<uint32_t>(b.size() - 4), 0u); });
  const Result<StreamView> opened = StreamView::open(changed, kName, StreamCheck::kFull);
  ASSERT_TRUE(opened.ok()) << opened.error();
  EXPECT_EQ(opened.value().metadata().bone_name_hashes.back(), 0u);
}

}  // namespace
}  // namespace ks
