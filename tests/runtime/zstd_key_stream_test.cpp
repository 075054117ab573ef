// A zstd key stream (one frame, decompressed once by each player) and the
// metadata section. The player's properties on zstd streams are in
// player_test.cpp (every property runs on plain and zstd streams); here:
// what the frame costs, and every refusal of a zstd frame or the metadata.

#include <gtest/gtest.h>
#include <zstd.h>

#include <cmath>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "keystream/runtime/player.h"
#include "keystream/runtime/stream_format.h"
#include "keystream/runtime/stream_view.h"
#include "tests/runtime/stream_test_support.h"

namespace ks {
namespace {

namespace ho = header_offset;
using Bytes = std::vector<uint8_t>;
using test::get_u32;
using test::set_u32;

constexpr const char* kName = "walk_zstd.ks";

// Passes when opening `bytes` is refused with a message naming the stream and every part.
::testing::AssertionResult refused_mentioning(const Bytes& bytes, std::initializer_list<std::string_view> parts) {
  return test::refused_mentioning(StreamView::open(bytes, kName), kName, parts);
}

// A fitted wave clip (90 frames at 30 Hz), with names, packed with a jump
// frame every 0.5 s.
const FittedClip& wave() {
  static const FittedClip clip = [] {
    const test::RandomClip source = test::make_wave_clip(90);
    FittedClip fitted = test::fit_or_fail(source.skeleton, source.clip);
    return fitted;
  }();
  return clip;
}
const Bytes& zstd_stream() {
  static const Bytes bytes = test::pack_or_fail(wave(), 0.5f, true);
  return bytes;
}
const StreamView& zstd_view() {
  static const StreamView view = [] {
    Result<StreamView> opened = StreamView::open(zstd_stream(), kName);
    EXPECT_TRUE(opened.ok()) << opened.error();
    return opened.ok() ? std::move(opened.value()) : StreamView{};
  }();
  return view;
}

// Byte offset, from the start of the stream, of the key stream section: the
// frame's u32 size, then the frame.
uint32_t section_at(const Bytes& b) { return get_u32(b, ho::kKeyStreamOffset); }

// zstd_stream() with `patch` applied and the checksum fixed.
template <class Patch>
Bytes patched(Patch patch) {
  Bytes bytes = zstd_stream();
  patch(bytes);
  test::fix_checksum(bytes);
  return bytes;
}

// `base` with its key stream frame replaced by `frame` (size, offsets and checksum fixed).
Bytes with_frame(const Bytes& frame, const Bytes& base = zstd_stream()) {
  Bytes bytes = test::splice(base, section_at(base) + 4, get_u32(base, section_at(base)), frame);
  set_u32(bytes, section_at(bytes), static_cast<uint32_t>(frame.size()));
  test::fix_checksum(bytes);
  return bytes;
}

// The plain key stream, as the packer compressed it.
Bytes plain_key_stream() {
  const std::span<const uint8_t> frame = zstd_view().key_stream_frame();
  Bytes out(zstd_view().key_stream_bytes());
  const size_t n = ZSTD_decompress(out.data(), out.size(), frame.data(), frame.size());
  EXPECT_EQ(n, out.size());
  return out;
}

TEST(ZstdKeyStream, DecodesExactlyAsThePlainOne) {
  for (uint32_t seed = 1; seed <= 30; ++seed) {
    SCOPED_TRACE(seed);
    const FittedClip clip = test::make_random_fitted_clip(seed, 6, 200);
    for (const float jump : {0.f, 0.1f, 1.f}) {
      const Bytes plain_bytes = test::pack_or_fail(clip, jump, false);
      const Bytes zstd_bytes = test::pack_or_fail(clip, jump, true);
      const Result<StreamView> plain = StreamView::open(plain_bytes);
      const Result<StreamView> zstd = StreamView::open(zstd_bytes);
      ASSERT_TRUE(plain.ok()) << plain.error();
      ASSERT_TRUE(zstd.ok()) << zstd.error();
      // The frame is the plain key stream.
      Bytes bytes(zstd.value().key_stream_bytes());
      const std::span<const uint8_t> frame = zstd.value().key_stream_frame();
      ASSERT_EQ(ZSTD_decompress(bytes.data(), bytes.size(), frame.data(), frame.size()), bytes.size());
      ASSERT_TRUE(std::equal(bytes.begin(), bytes.end(), plain.value().key_stream().begin(),
                             plain.value().key_stream().end()));
      Player a(plain.value()), b(zstd.value());
      std::vector<Transform> pa(clip.parents.size()), pb(clip.parents.size());
      for (uint32_t f = 0; f <= plain.value().last_frame(); ++f) {
        a.sample_frame(static_cast<float>(f) + 0.5f, pa);
        b.sample_frame(static_cast<float>(f) + 0.5f, pb);
        ASSERT_TRUE(test::same_bits(pa, pb)) << "frame " << f;
      }
      EXPECT_EQ(a.counters().keys_read, b.counters().keys_read);
    }
  }
}

TEST(ZstdKeyStream, ThePlayerDecompressesItOnceAndOwnsItsCopy) {
  const StreamView& view = zstd_view();
  const Bytes plain_bytes = test::pack_or_fail(wave(), 0.5f, false);  // the view borrows them
  const Result<StreamView> plain = StreamView::open(plain_bytes);
  ASSERT_TRUE(plain.ok());
  // Reading the stream (no key cache).
  Player player(view, 0);
  EXPECT_EQ(player.counters().blocks_decompressed, 1u);
  std::vector<Transform> pose(view.bone_count());
  for (uint32_t f = 0; f <= view.last_frame(); ++f) player.sample_frame(static_cast<float>(f), pose);
  for (uint32_t j = 0; j < view.jump_frames().size(); ++j) player.sample_frame(static_cast<float>(j), pose);
  EXPECT_EQ(player.counters().blocks_decompressed, 1u);
  const Player plain_player(plain.value(), 0);
  // The decompressed key stream and 8 bytes of zeros after it, which the
  // lane readers' 64-bit loads may read past its last key.
  EXPECT_EQ(player.memory_bytes(), plain_player.memory_bytes() + view.key_stream_bytes() + 8);
  // With a key cache the player reads its keys once, then lets the copy go.
  const Player cached(view);
  ASSERT_TRUE(cached.caches_keys());
  EXPECT_EQ(cached.counters().blocks_decompressed, 1u);
  EXPECT_EQ(cached.memory_bytes(), Player(plain.value()).memory_bytes());
  // A copy decodes on its own (its own copy of the key stream).
  Player original(view, 0);
  std::vector<Transform> copied_pose(view.bone_count());
  original.sample_frame(40.f, pose);
  Player copy = original;
  original = Player(plain.value());  // the original's key stream is gone
  copy.sample_frame(41.f, copied_pose);
  Player reference(view);
  reference.sample_frame(41.f, pose);
  EXPECT_TRUE(test::same_bits(pose, copied_pose));
}

TEST(ZstdKeyStream, RefusesABrokenSection) {
  const Bytes& b = zstd_stream();
  const uint32_t frame_bytes = get_u32(b, section_at(b));
  EXPECT_TRUE(refused_mentioning(patched([&](Bytes& p) { set_u32(p, section_at(p), frame_bytes + 1); }),
                                 {"key stream's zstd frame is " + std::to_string(frame_bytes + 1) + " bytes",
                                  "its section holds " + std::to_string(frame_bytes)}));
  // A section too short for the size field: cut to 3 bytes by moving the jump index's start back.
  const Bytes cut = test::splice(b, section_at(b) + 3, frame_bytes + 1, {});
  EXPECT_TRUE(refused_mentioning(cut, {"key stream section is too short for its zstd frame's size"}));
}

TEST(ZstdKeyStream, RefusesBadFrames) {
  const Bytes plain = plain_key_stream();
  ASSERT_GT(plain.size(), 8u);
  // Not zstd at all.
  EXPECT_TRUE(refused_mentioning(with_frame(Bytes(12, 0xAB)), {"key stream is not a zstd frame"}));
  // A frame that does not declare its size (streaming, no pledged size).
  {
    ZSTD_CCtx* cctx = ZSTD_createCCtx();
    Bytes frame(ZSTD_compressBound(plain.size()) + 32);
    ZSTD_outBuffer out{frame.data(), frame.size(), 0};
    ZSTD_inBuffer in{plain.data(), plain.size(), 0};
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 0);
    ASSERT_EQ(ZSTD_compressStream2(cctx, &out, &in, ZSTD_e_end), 0u);
    ZSTD_freeCCtx(cctx);
    frame.resize(out.pos);
    EXPECT_TRUE(refused_mentioning(with_frame(frame), {"key stream's zstd frame does not declare its size"}));
  }
  // A frame of the wrong size.
  {
    const Bytes shorter(plain.begin(), plain.end() - 1);
    Bytes frame(ZSTD_compressBound(shorter.size()));
    frame.resize(ZSTD_compress(frame.data(), frame.size(), shorter.data(), shorter.size(), 3));
    EXPECT_TRUE(refused_mentioning(with_frame(frame), {"key stream's zstd frame declares " +
                                                           std::to_string(shorter.size()) + " bytes",
                                                       "its keys need " + std::to_string(plain.size())}));
  }
  // A frame that declares the right size but whose content is corrupt.
  {
    Bytes frame(ZSTD_compressBound(plain.size()));
    frame.resize(ZSTD_compress(frame.data(), frame.size(), plain.data(), plain.size(), 3));
    frame[frame.size() / 2 + 3] ^= 0x5A;
    frame.back() ^= 0xFF;
    // Either zstd notices, or the keys it decompresses break a rule (a
    // frame, a code, a run's length), or a jump frame holds another state.
    const Bytes bytes = with_frame(frame);
    const Result<StreamView> corrupt = StreamView::open(bytes, kName, StreamCheck::kFull);
    ASSERT_FALSE(corrupt.ok());
    EXPECT_TRUE(corrupt.error().find("key stream") != std::string::npos ||
                corrupt.error().find("track") != std::string::npos ||
                corrupt.error().find("jump frame") != std::string::npos)
        << corrupt.error();
    // An engine's load does not decompress: it lets the frame through, and
    // the player reads it (or the zeros of a frame that does not
    // decompress) without reading out of bounds or looping (the sanitizer
    // build checks the first, the test ending the second).
    const Result<StreamView> fast = StreamView::open(bytes, kName);
    ASSERT_TRUE(fast.ok()) << fast.error();
    Player player(fast.value());
    std::vector<Transform> pose(fast.value().bone_count());
    const float last = static_cast<float>(fast.value().last_frame());
    for (float t = last; t >= 0.f; t -= 0.37f) player.sample_frame(t, pose);
    for (float t = 0.f; t <= last; t += 0.5f) player.sample_frame(t, pose);
    EXPECT_LE(player.counters().keys_read, 100 * uint64_t{fast.value().total_key_count()});
  }
}

// A frame of zeros declaring exactly the size the keys need passes every
// check of sizes; what stops it is the expansion a frame may stand for
// (stream_format.h), checked before anything is allocated: an engine's player
// would otherwise allocate the claimed key stream, up to 256 MiB, for a file
// of a few kilobytes.
TEST(ZstdKeyStream, RefusesAFrameStandingForMoreThanItsBytesMayExpandTo) {
  const test::RandomClip source = test::make_wave_clip(1200);
  const FittedClip clip = test::fit_or_fail(source.skeleton, source.clip);
  const Bytes base = test::pack_or_fail(clip, 0.f, true);
  const Result<StreamView> view = StreamView::open(base, kName);
  ASSERT_TRUE(view.ok()) << view.error();
  const uint64_t need = view.value().key_stream_bytes();
  const Bytes zeros(need, 0);
  Bytes bomb(ZSTD_compressBound(zeros.size()));
  bomb.resize(ZSTD_compress(bomb.data(), bomb.size(), zeros.data(), zeros.size(), 19));
  ASSERT_GT(need, max_zstd_block_bytes(bomb.size())) << "the clip is too short to make the point";
  const Bytes bytes = with_frame(bomb, base);
  for (const StreamCheck check : {StreamCheck::kFast, StreamCheck::kFull}) {
    EXPECT_TRUE(test::refused_mentioning(StreamView::open(bytes, kName, check), kName,
                                         {"key stream needs " + std::to_string(need) + " bytes", "may expand to"}));
  }
  // The real frame is far from the bound.
  EXPECT_LT(need, max_zstd_block_bytes(get_u32(base, section_at(base))) / 8);
}

// The packer does not write what a reader refuses: keys that zstd shrinks
// beyond the bound (one small step back and forth, the same bits at every
// key) are an error, not a stream.
TEST(ZstdKeyStream, PackingRefusesZstdForDegenerateKeys) {
  FittedClip clip = test::make_random_fitted_clip(3, 6, 200);
  clip.frame_count = 3000;
  size_t keys = 0;
  for (FittedTrack& track : clip.tracks) {
    if (track.coding != TrackCoding::kAnimated) continue;
    const FittedKey first = track.keys.front();
    track.keys.clear();
    for (uint32_t f = 0; f < clip.frame_count; ++f) {
      FittedKey key = first;
      key.frame = static_cast<uint16_t>(f);
      for (int32_t& code : key.codes) code += static_cast<int32_t>(f % 2);
      track.keys.push_back(key);
    }
    keys += track.keys.size();
  }
  ASSERT_GT(keys, 4000u);
  PackSettings settings;
  settings.jump_interval_s = 0.f;
  settings.zstd = true;
  const Result<Bytes> packed = pack(clip, settings);
  ASSERT_FALSE(packed.ok());
  EXPECT_NE(packed.error().find("zstd compresses the key stream"), std::string::npos) << packed.error();
  EXPECT_NE(packed.error().find("without zstd"), std::string::npos) << packed.error();
  settings.zstd = false;
  EXPECT_TRUE(pack(clip, settings).ok());
}

// Metadata: the section after the jump states.
uint32_t metadata_offset() { return get_u32(zstd_stream(), ho::kMetadataOffset); }

TEST(StreamMetadata, HoldsTheNamesAndThresholds) {
  const StreamMetadata& meta = zstd_view().metadata();
  EXPECT_EQ(meta.clip_name, wave().name);
  EXPECT_EQ(meta.bone_names, wave().bone_names);
  EXPECT_EQ(meta.bone_names.size(), zstd_view().bone_count());
  EXPECT_FALSE(meta.local_mode);
  EXPECT_EQ(meta.tolerance_m, wave().settings.tolerance_m);
  EXPECT_EQ(meta.shell_distance_m, wave().settings.shell_distance_m);
  EXPECT_EQ(meta.translation_error_m, wave().settings.translation_error_m);
  EXPECT_EQ(meta.rotation_error_deg, wave().settings.rotation_error_deg);
  EXPECT_EQ(meta.scale_error, wave().settings.scale_error);
  EXPECT_TRUE(meta.bone_tolerances.empty());
}

TEST(StreamMetadata, HoldsTheModeAndTheBoneTolerances) {
  FittedClip clip = wave();
  clip.settings.error_mode = ErrorMode::kLocal;
  clip.settings.tolerance_m = 0.0003f;
  clip.settings.shell_distance_m = 0.05f;
  clip.settings.bone_tolerances = {BoneTolerance{clip.bone_names[2], 0.002f, 0.f},
                                   BoneTolerance{clip.bone_names[1], 0.0001f, 0.2f}};
  const Bytes bytes = test::pack_or_fail(clip, 0.5f);
  const Result<StreamView> view = StreamView::open(bytes);
  ASSERT_TRUE(view.ok()) << view.error();
  const StreamMetadata& meta = view.value().metadata();
  EXPECT_TRUE(meta.local_mode);
  EXPECT_EQ(meta.tolerance_m, 0.0003f);
  EXPECT_EQ(meta.shell_distance_m, 0.05f);
  ASSERT_EQ(meta.bone_tolerances.size(), 2u);
  EXPECT_EQ(meta.bone_tolerances[0].bone, 2u);
  EXPECT_EQ(meta.bone_tolerances[0].tolerance_m, 0.002f);
  EXPECT_EQ(meta.bone_tolerances[0].shell_distance_m, 0.f);
  EXPECT_EQ(meta.bone_tolerances[1].bone, 1u);
  EXPECT_EQ(meta.bone_tolerances[1].tolerance_m, 0.0001f);
  EXPECT_EQ(meta.bone_tolerances[1].shell_distance_m, 0.2f);
  // An override naming no bone of the clip cannot be written.
  clip.settings.bone_tolerances = {BoneTolerance{"nobody", 0.001f, 0.f}};
  const Result<Bytes> refused = pack(clip, PackSettings{});
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().find("\"nobody\""), std::string::npos) << refused.error();
}

TEST(StreamMetadata, RefusesBadMetadata) {
  // Layout: u32 name count, u8 mode, 5 x f32 tolerances, u32 override count, strings.
  const uint32_t m = metadata_offset();
  const uint32_t bones = zstd_view().bone_count();
  EXPECT_TRUE(refused_mentioning(patched([&](Bytes& p) { set_u32(p, m, bones + 1); }),
                                 {"metadata names " + std::to_string(bones + 1) + " bones, the stream has " +
                                  std::to_string(bones)}));
  EXPECT_TRUE(refused_mentioning(patched([&](Bytes& p) { p[m + 4] = 2; }), {"metadata holds the unknown error mode 2"}));
  for (uint32_t field = 0; field < 5; ++field) {
    for (const float bad : {std::nanf(""), -1.f, std::numeric_limits<float>::infinity()}) {
      SCOPED_TRACE(::testing::Message() << "field " << field << " = " << bad);
      EXPECT_TRUE(refused_mentioning(patched([&](Bytes& p) { test::set_f32(p, m + 5 + 4 * field, bad); }),
                                     {"metadata holds a tolerance that is not a number >= 0"}));
    }
  }
  EXPECT_TRUE(refused_mentioning(patched([&](Bytes& p) { set_u32(p, m + 25, bones + 1); }),
                                 {"metadata holds " + std::to_string(bones + 1) + " bone tolerances for " +
                                  std::to_string(bones) + " bones"}));
  // Two overrides the section has no bytes for (the one after the names is
  // the extensions byte).
  EXPECT_TRUE(refused_mentioning(patched([&](Bytes& p) { set_u32(p, m + 25, 2); }),
                                 {"too few for 2 bone tolerances"}));
  // The clip name's length runs past the section.
  EXPECT_TRUE(refused_mentioning(patched([&](Bytes& p) { test::set_u16(p, m + 29, 0xFFFF); }),
                                 {"metadata is truncated at the clip name"}));
  // A NUL inside the clip name.
  ASSERT_GT(wave().name.size(), 1u);
  EXPECT_TRUE(refused_mentioning(patched([&](Bytes& p) { p[m + 31] = 0; }),
                                 {"metadata: the clip name holds a NUL byte"}));
  // Cut inside the last bone name, and a section too short for its fixed fields.
  // Cut inside the last bone name: the clip's metadata ends with its
  // extensions byte (none).
  constexpr size_t kAfterNames = 1;
  Bytes cut = zstd_stream();
  cut.resize(cut.size() - kAfterNames - 1);
  test::fix_size_and_checksum(cut);
  EXPECT_TRUE(refused_mentioning(cut, {"metadata is truncated at the name of bone " + std::to_string(bones - 1)}));
  Bytes no_base = zstd_stream();
  no_base.pop_back();
  test::fix_size_and_checksum(no_base);
  EXPECT_TRUE(refused_mentioning(no_base, {"metadata is truncated at its extensions"}));
  // Bit 3 is the name hashes' (`--names hash`), which a stream with bone
  // names cannot have; bit 4 is unknown.
  EXPECT_TRUE(refused_mentioning(patched([&](Bytes& p) { p.back() = kMetadataNameHashes; }),
                                 {"metadata holds both bone names and name hashes"}));
  EXPECT_TRUE(refused_mentioning(patched([&](Bytes& p) { p.back() = 16; }), {"metadata holds unknown extensions (16)"}));
  // The rest values' extension (version 11) on a stream without rest tracks.
  EXPECT_TRUE(refused_mentioning(patched([&](Bytes& p) { p.back() = kMetadataRestValues; }),
                                 {"metadata holds rest values, but the stream has no rest tracks"}));
  Bytes tiny = zstd_stream();
  tiny.resize(m + 8);
  test::fix_size_and_checksum(tiny);
  EXPECT_TRUE(refused_mentioning(tiny, {"metadata is truncated (8 bytes)"}));
  // Metadata starting before the jump states end.
  EXPECT_TRUE(refused_mentioning(patched([&](Bytes& p) { set_u32(p, ho::kMetadataOffset, get_u32(p, ho::kJumpStatesOffset) - 1); }),
                                 {"section offsets are out of order"}));
}

TEST(StreamMetadata, RefusesAnInvalidBoneTolerance) {
  FittedClip clip = wave();
  clip.settings.bone_tolerances = {BoneTolerance{clip.bone_names[1], 0.002f, 0.1f}};
  const Bytes bytes = test::pack_or_fail(clip, 0.5f);
  // u16 bone, f32 tolerance, f32 distance; then the extensions byte.
  const uint32_t override_at = static_cast<uint32_t>(bytes.size()) - 10 - 1;
  auto changed = [&](auto patch) {
    Bytes b = bytes;
    patch(b);
    test::fix_checksum(b);
    return StreamView::open(b, kName);
  };
  EXPECT_TRUE(changed([](Bytes&) {}).ok());
  EXPECT_TRUE(test::refused_mentioning(changed([&](Bytes& b) { test::set_u16(b, override_at, 3); }), kName,
                                       {"metadata holds an invalid tolerance for bone 3"}));
  for (const float bad : {0.f, -1.f, std::nanf("")}) {
    EXPECT_TRUE(test::refused_mentioning(changed([&](Bytes& b) { test::set_f32(b, override_at + 2, bad); }), kName,
                                         {"invalid tolerance for bone 1"}))
        << bad;
  }
  EXPECT_TRUE(test::refused_mentioning(changed([&](Bytes& b) { test::set_f32(b, override_at + 6, -0.5f); }), kName,
                                       {"invalid tolerance for bone 1"}));
}

TEST(StreamMetadata, RefusesTwoTolerancesForOneBone) {
  FittedClip clip = wave();
  clip.settings.bone_tolerances = {BoneTolerance{clip.bone_names[1], 0.002f, 0.1f},
                                   BoneTolerance{clip.bone_names[2], 0.003f, 0.f}};
  Bytes bytes = test::pack_or_fail(clip, 0.5f);
  ASSERT_TRUE(StreamView::open(bytes, kName).ok());
  // The last override names the bone of the one before it.
  const uint32_t last = static_cast<uint32_t>(bytes.size()) - 10 - 1, before = last - 10;
  test::set_u16(bytes, last, static_cast<uint16_t>(bytes[before] | (bytes[before + 1] << 8)));
  test::fix_checksum(bytes);
  EXPECT_TRUE(test::refused_mentioning(StreamView::open(bytes, kName), kName, {"metadata holds two tolerances for bone"}));
}

TEST(StreamMetadata, NamesAreOptional) {
  FittedClip clip = wave();
  clip.bone_names.clear();
  const Bytes bytes = test::pack_or_fail(clip, 0.5f, true);
  const Result<StreamView> view = StreamView::open(bytes);
  ASSERT_TRUE(view.ok()) << view.error();
  EXPECT_TRUE(view.value().metadata().bone_names.empty());
  clip.bone_names = {"only one"};
  PackSettings settings;
  EXPECT_FALSE(pack(clip, settings).ok());
  clip.bone_names = wave().bone_names;
  clip.bone_names[0] = std::string("a\0b", 3);
  const Result<Bytes> with_nul = pack(clip, settings);
  ASSERT_FALSE(with_nul.ok());
  EXPECT_NE(with_nul.error().find("the name of bone 0 holds a NUL byte"), std::string::npos) << with_nul.error();
}

}  // namespace
}  // namespace ks
