// The stream format (core/runtime/stream_format.h) and the committed golden
// streams that pin it: tests/golden/stream_v11.ks (and its zstd twin) must
// keep opening and decoding to the committed poses byte for byte, and
// packing the same fitted input must keep producing them. A failure here
// means the format changed: bump kStreamVersion and add new golden files
// (tests/golden/README.md). Versions 9 and 10 are still read and must keep
// decoding to their poses; versions 1 to 8 are refused with a message to
// recompress.

#include "keystream/runtime/stream_format.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "keystream/codec/key_cost.h"
#include "keystream/codec/pack.h"
#include "keystream/codec/quantize.h"
#include "keystream/io/file_io.h"
#include "keystream/runtime/player.h"
#include "keystream/runtime/stream_key_layout.h"
#include "keystream/runtime/stream_view.h"
#include "tests/golden/golden_clip.h"

namespace ks {
namespace {

const std::filesystem::path kGolden = KS_GOLDEN_DIR;

std::vector<uint8_t> read_golden(const char* name) {
  const Result<std::string> text = read_file(kGolden / name);
  EXPECT_TRUE(text.ok()) << text.error();
  return text.ok() ? std::vector<uint8_t>(text.value().begin(), text.value().end()) : std::vector<uint8_t>{};
}

TEST(StreamFormat, HeaderLayoutIsVersionEleven) {
  EXPECT_EQ(kStreamVersion, 11u);
  EXPECT_EQ(kOldestReadStreamVersion, 9u);
  EXPECT_EQ(kInterpolationStreamVersion, 10u);
  EXPECT_EQ(kRestTrackStreamVersion, 11u);
  // The 2-bit coding field holds every TrackCoding, rest the last of them;
  // the rest values are the third metadata extension.
  EXPECT_EQ(static_cast<uint32_t>(TrackCoding::kRest), 3u);
  EXPECT_STREQ(to_string(TrackCoding::kRest), "rest");
  EXPECT_EQ(uint32_t{kMetadataRestValues}, 4u);
  // The interpolation field holds every Interpolation, and one value more
  // that the reader refuses.
  EXPECT_EQ(kInterpolationBits, 2u);
  EXPECT_GE(1u << kInterpolationBits, kInterpolationCount);
  EXPECT_EQ(kHeaderSize, 64u);
  EXPECT_EQ(header_offset::kChecksum + 4, header_offset::kKeyWidthsOffset);
  EXPECT_EQ(header_offset::kKeyWidthsOffset + 4, kHeaderSize);
  EXPECT_EQ(kKnownStreamFlags, uint32_t{kFlagZstdKeyStream} | kFlagAdditive);
  const char magic[4] = {'K', 'S', 'T', 'R'};
  EXPECT_EQ(std::memcmp(&kStreamMagic, magic, 4), 0);
  // The widest absolute code holds every code a key may have.
  EXPECT_EQ(kMaxAbsoluteCodeBits, bits_for(kMaxCodeMagnitude) + 1);
  EXPECT_LE(kMaxAbsoluteCodeBits, (1u << kAbsoluteWidthBits) - 1);
  EXPECT_LE(kMaxRiceParameter, (1u << kRiceParameterBits) - 1);
  // A stream key's widths hold the largest difference of two codes in range
  // and of two frames, and a whole key's bits fit StreamKeyLayout::key_bits.
  EXPECT_EQ(kMaxCodeDifferenceBits, std::bit_width(zigzag(-2 * kMaxCodeMagnitude)));
  EXPECT_EQ(kMaxCodeDifferenceBits, std::bit_width(zigzag(2 * kMaxCodeMagnitude)));
  EXPECT_EQ(kMaxFrameDifferenceBits, std::bit_width(65534u));
  EXPECT_LE(kMaxCodeDifferenceBits, (1u << kSegmentWidthBits) - 1);
  EXPECT_LE(kMaxFrameDifferenceBits + 4 * kMaxCodeDifferenceBits + 1, 255u);
  EXPECT_GE(uint64_t{1} << kKeyCountBits, 2 * uint64_t{65535} + 1);
  // A jump state's frame difference may be as wide as a frame.
  EXPECT_GE((1u << kJumpFrameDifferenceWidthBits) - 1, kFrameBits);
}

TEST(OldStreams, AreRefusedWithAMessageToRecompress) {
  for (const char* name :
       {"stream_v1.ks", "stream_v2.ks", "stream_v2_zstd.ks", "stream_v3.ks", "stream_v3_zstd.ks", "stream_v4.ks",
        "stream_v4_zstd.ks", "stream_v5.ks", "stream_v5_zstd.ks", "stream_v6.ks", "stream_v6_zstd.ks", "stream_v7.ks",
        "stream_v7_zstd.ks", "stream_v8.ks", "stream_v8_zstd.ks"}) {
    SCOPED_TRACE(name);
    const std::vector<uint8_t> stream = read_golden(name);
    ASSERT_GE(stream.size(), kHeaderSize);
    const Result<StreamView> view = StreamView::open(stream, name);
    ASSERT_FALSE(view.ok());
    const std::string version(1, name[8]);
    EXPECT_EQ(view.error().rfind(std::string(name) + ": ", 0), 0u) << view.error();
    EXPECT_NE(view.error().find("format version " + version), std::string::npos) << view.error();
    EXPECT_NE(view.error().find("this build reads version " + std::to_string(kStreamVersion)), std::string::npos)
        << view.error();
    EXPECT_NE(view.error().find("recompress"), std::string::npos) << view.error();
  }
}

// Every committed stream this build reads, with its poses file: the current
// version's, version 10's (no rest tracks) and version 9's (its tracks all
// Hermite).
struct GoldenFile {
  const char* stream;
  const char* poses;
  uint16_t version;
};
constexpr GoldenFile kGoldenFiles[] = {
    {"stream_v11.ks", "stream_v11_poses.bin", 11},
    {"stream_v11_zstd.ks", "stream_v11_poses.bin", 11},
    {"stream_v10.ks", "stream_v10_poses.bin", 10},
    {"stream_v10_zstd.ks", "stream_v10_poses.bin", 10},
    {"stream_v9.ks", "stream_v9_poses.bin", 9},
    {"stream_v9_zstd.ks", "stream_v9_poses.bin", 9},
};

// The fitted clip behind a version's poses.
FittedClip golden_clip(uint16_t version) {
  if (version == kStreamVersion) return golden::make_clip();
  return version == 10 ? golden::make_version_ten_clip() : golden::make_version_nine_clip();
}

TEST(GoldenStream, OpensAndDecodesToTheCommittedPoses) {
  for (const GoldenFile& file : kGoldenFiles) {
    SCOPED_TRACE(file.stream);
    const std::vector<uint8_t> stream = read_golden(file.stream);
    const std::vector<uint8_t> poses = read_golden(file.poses);
    const Result<StreamView> view = StreamView::open(stream, file.stream, StreamCheck::kFull);
    ASSERT_TRUE(view.ok()) << view.error();
    EXPECT_EQ(view.value().version(), file.version);
    EXPECT_EQ(view.value().frame_count(), golden::kFrameCount);
    EXPECT_EQ(view.value().bone_count(), golden::kBoneCount);
    EXPECT_EQ(view.value().scalar_track_count(), golden::kScalarTrackCount);
    // Version 9 carries no interpolation: its tracks read as Hermite.
    // Versions 9 and 10 have no rest tracks: theirs are constant.
    const FittedClip clip = golden_clip(file.version);
    ASSERT_EQ(view.value().tracks().size(), clip.tracks.size());
    for (size_t t = 0; t < clip.tracks.size(); ++t) {
      EXPECT_EQ(view.value().tracks()[t].interpolation, clip.tracks[t].interpolation) << "track " << t;
      EXPECT_EQ(view.value().tracks()[t].coding, clip.tracks[t].coding) << "track " << t;
    }
    const std::vector<float> times = golden::frame_times();
    ASSERT_EQ(poses.size(), times.size() * golden::kFrameTimeBytes);
    // With the key cache (this small clip's default) and reading the key
    // stream, whose seeks back restore jump frames.
    for (const size_t key_cache_bytes : {Player::kDefaultKeyCacheBytes, size_t{0}}) {
      SCOPED_TRACE(key_cache_bytes == 0 ? "reading the key stream" : "from the key cache");
      const std::vector<uint8_t> decoded = golden::poses_bytes(view.value(), key_cache_bytes);
      ASSERT_EQ(decoded.size(), poses.size());
      const size_t stride = golden::kFrameTimeBytes;
      for (size_t i = 0; i < times.size(); ++i) {
        EXPECT_EQ(std::memcmp(decoded.data() + i * stride, poses.data() + i * stride, stride), 0)
            << "frame time " << times[i];
      }
      // In reverse order (every sample a seek back) too, the scalar values with the bones.
      Player player(view.value(), key_cache_bytes);
      EXPECT_EQ(player.caches_keys(), key_cache_bytes != 0);
      ASSERT_EQ(player.scalar_value_count(), golden::kScalarValueCount);
      std::vector<Transform> pose(golden::kBoneCount);
      std::vector<float> scalar_values(golden::kScalarValueCount);
      for (size_t i = times.size(); i-- > 0;) {
        player.sample_frame(times[i], pose, scalar_values);
        const uint8_t* committed = poses.data() + i * stride;
        EXPECT_EQ(std::memcmp(pose.data(), committed, golden::kPoseBytes), 0) << "frame time " << times[i];
        EXPECT_EQ(std::memcmp(scalar_values.data(), committed + golden::kPoseBytes,
                              golden::kScalarValueCount * sizeof(float)),
                  0)
            << "scalar values at frame time " << times[i];
      }
      if (key_cache_bytes == 0) {
        EXPECT_GT(player.counters().jump_frames_used, 0u);
      }
    }
  }
}

// Checks that `poses` are `clip`'s fitted curves at every frame time, bit for bit.
void expect_fitted_curves(const FittedClip& clip, const std::vector<uint8_t>& poses) {
  const std::vector<float> times = golden::frame_times();
  ASSERT_EQ(poses.size(), times.size() * golden::kFrameTimeBytes);
  for (size_t i = 0; i < times.size(); ++i) {
    const uint8_t* committed = poses.data() + i * golden::kFrameTimeBytes;
    for (size_t b = 0; b < golden::kBoneCount; ++b) {
      float expected[3][4];
      for (uint32_t kind = 0; kind < 3; ++kind) evaluate_fitted(clip.tracks[3 * b + kind], times[i], expected[kind]);
      const Transform reference{{expected[0][0], expected[0][1], expected[0][2]},
                                {expected[1][0], expected[1][1], expected[1][2], expected[1][3]},
                                {expected[2][0], expected[2][1], expected[2][2]}};
      EXPECT_EQ(std::memcmp(&reference, committed + b * sizeof(Transform), sizeof(Transform)), 0)
          << "frame time " << times[i] << " bone " << b;
    }
    size_t offset = golden::kPoseBytes;
    for (uint32_t s = 0; s < golden::kScalarTrackCount; ++s) {
      float expected[4];
      evaluate_fitted(clip.tracks[clip.bone_track_count() + s], times[i], expected);
      const size_t bytes = clip.scalars[s].components * sizeof(float);
      EXPECT_EQ(std::memcmp(expected, committed + offset, bytes), 0) << "frame time " << times[i] << " scalar " << s;
      offset += bytes;
    }
    EXPECT_EQ(offset, golden::kFrameTimeBytes);
  }
}

TEST(GoldenStream, DecodesToTheFittedCurves) {
  // The committed poses are the fitted clip's curves, bit for bit: the
  // bones', then each scalar track's components (its curve has four floats).
  for (const GoldenFile& file : kGoldenFiles) {
    if (std::string(file.stream).find("zstd") != std::string::npos) continue;  // the same poses
    SCOPED_TRACE(file.poses);
    expect_fitted_curves(golden_clip(file.version), read_golden(file.poses));
  }
}

TEST(GoldenStream, CarriesItsMetadata) {
  const FittedClip clip = golden::make_clip();
  for (const char* name : {"stream_v11.ks", "stream_v11_zstd.ks", "stream_v10.ks", "stream_v10_zstd.ks", "stream_v9.ks",
                           "stream_v9_zstd.ks"}) {
    SCOPED_TRACE(name);
    const std::vector<uint8_t> stream = read_golden(name);
    const Result<StreamView> view = StreamView::open(stream);
    ASSERT_TRUE(view.ok()) << view.error();
    const StreamMetadata& meta = view.value().metadata();
    EXPECT_EQ(meta.clip_name, "golden");
    EXPECT_EQ(meta.source_name, "golden_clip.h");
    EXPECT_EQ(meta.bone_names, clip.bone_names);
    EXPECT_FALSE(meta.local_mode);
    EXPECT_EQ(meta.tolerance_m, clip.settings.tolerance_m);
    EXPECT_EQ(meta.shell_distance_m, clip.settings.shell_distance_m);
    EXPECT_EQ(meta.translation_error_m, clip.settings.translation_error_m);
    EXPECT_EQ(meta.rotation_error_deg, clip.settings.rotation_error_deg);
    EXPECT_EQ(meta.scale_error, clip.settings.scale_error);
    ASSERT_EQ(meta.bone_tolerances.size(), 1u);
    EXPECT_EQ(meta.bone_tolerances[0].bone, 2u);  // "right"
    EXPECT_EQ(meta.bone_tolerances[0].tolerance_m, 0.0005f);
    EXPECT_EQ(meta.bone_tolerances[0].shell_distance_m, 0.1f);
    EXPECT_EQ(view.value().key_stream_compressed(), std::string(name).find("zstd") != std::string::npos);
    EXPECT_EQ(view.value().key_stream_frame().empty(), !view.value().key_stream_compressed());
    // The scalar tracks' part: the default precision and each track as packed.
    EXPECT_EQ(meta.scalar_precision, kDefaultScalarPrecision);
    EXPECT_EQ(meta.scalar_precision, clip.settings.scalar_precision);
    ASSERT_EQ(meta.scalars.size(), golden::kScalarTrackCount);
    for (size_t s = 0; s < meta.scalars.size(); ++s) {
      SCOPED_TRACE(clip.scalars[s].name);
      EXPECT_EQ(meta.scalars[s].name, clip.scalars[s].name);
      EXPECT_EQ(meta.scalars[s].precision, clip.scalars[s].precision);
      EXPECT_EQ(meta.scalars[s].target, static_cast<uint8_t>(clip.scalars[s].target));
      EXPECT_EQ(meta.scalars[s].node, clip.scalars[s].node);
      EXPECT_EQ(meta.scalars[s].target_index, clip.scalars[s].target_index);
    }
    // Spelled out, so a change of golden_clip.h shows here too.
    EXPECT_EQ(meta.scalars[2].name, "smile");
    EXPECT_EQ(meta.scalars[2].target, static_cast<uint8_t>(ScalarTarget::kMorphWeight));
    EXPECT_EQ(meta.scalars[2].node, "face");
    EXPECT_EQ(meta.scalars[2].target_index, 3u);
    EXPECT_EQ(meta.scalars[3].name, "bounds");
    EXPECT_EQ(meta.scalars[3].precision, 0.01f);
    EXPECT_EQ(meta.scalars[3].target, static_cast<uint8_t>(ScalarTarget::kCurve));
    // Not additive.
    EXPECT_FALSE(view.value().additive());
    EXPECT_EQ(meta.additive_base, AdditiveBase::kNone);
    EXPECT_TRUE(meta.additive_base_name.empty());
    // Version 11's rest values: bone 2's scale, then bone 3's rotation, as
    // the constants of versions 9 and 10 held them. Those have none.
    if (view.value().version() < kRestTrackStreamVersion) {
      EXPECT_TRUE(meta.rest_values.empty());
      continue;
    }
    const std::vector<float> rest = {2.f, 0.5f, 1.25f, 0.36f, 0.48f, 0.f, 0.8f};
    EXPECT_EQ(meta.rest_values, rest);
    ASSERT_EQ(meta.rest_values.size(), golden::kRestValueCount);
    size_t at = 0;
    for (const uint32_t t : golden::kRestTracks) {
      const StreamTrack& track = view.value().tracks()[t];
      EXPECT_EQ(track.coding, TrackCoding::kRest) << "track " << t;
      const size_t components = track.kind == TrackKind::kRotation ? 4 : 3;
      EXPECT_EQ(std::memcmp(track.quantization.constant, meta.rest_values.data() + at, components * sizeof(float)), 0)
          << "track " << t;
      at += components;
    }
  }
}

TEST(GoldenStream, PackingTheGoldenClipReproducesTheCommittedBytes) {
  for (const bool zstd : {false, true}) {
    const char* name = zstd ? "stream_v11_zstd.ks" : "stream_v11.ks";
    SCOPED_TRACE(name);
    const std::vector<uint8_t> committed = read_golden(name);
    const Result<std::vector<uint8_t>> packed = pack(golden::make_clip(), golden::pack_settings(zstd));
    ASSERT_TRUE(packed.ok()) << packed.error();
    ASSERT_EQ(packed.value().size(), committed.size());
    for (size_t i = 0; i < committed.size(); ++i) {
      ASSERT_EQ(packed.value()[i], committed[i]) << "first difference at byte " << i;
    }
  }
}

TEST(GoldenStream, CoversTheFormatsFeatures) {
  const std::vector<uint8_t> stream = read_golden("stream_v11.ks");
  const Result<StreamView> opened = StreamView::open(stream);
  ASSERT_TRUE(opened.ok()) << opened.error();
  const StreamView& view = opened.value();
  EXPECT_EQ(view.jump_frames().size(), 3u);  // frames 8, 16, 24
  EXPECT_GT(view.stream_key_count(), 0u);
  EXPECT_EQ(view.animated_track_count(), 9u + 3u);  // the bones', the scalar tracks'
  EXPECT_EQ(view.streamed_track_count(), 7u + 3u);
  uint32_t codings[4] = {0, 0, 0, 0};
  uint32_t rotation_codings[2] = {0, 0};
  bool partial_vec3 = false;
  for (const StreamTrack& track : view.bone_tracks()) {
    ++codings[static_cast<int>(track.coding)];
    if (track.coding != TrackCoding::kAnimated) continue;
    if (track.kind == TrackKind::kRotation) ++rotation_codings[static_cast<int>(track.quantization.rotation)];
    if (track.kind != TrackKind::kRotation && track.quantization.coded_mask != 0b111) partial_vec3 = true;
  }
  EXPECT_EQ(codings[0], 3u);  // identity
  EXPECT_EQ(codings[1], 1u);  // constant
  EXPECT_EQ(codings[2], 9u);  // animated
  EXPECT_EQ(codings[3], 2u);  // rest (version 11): a vec3 and a rotation
  EXPECT_EQ(view.bone_tracks()[golden::kRestTracks[0]].kind, TrackKind::kScale);
  EXPECT_EQ(view.bone_tracks()[golden::kRestTracks[1]].kind, TrackKind::kRotation);
  EXPECT_EQ(view.metadata().rest_values.size(), golden::kRestValueCount);
  EXPECT_EQ(rotation_codings[0], 2u);
  EXPECT_EQ(rotation_codings[1], 2u);
  EXPECT_TRUE(partial_vec3);
  // Some rotation keys cross hemispheres, so the player negates them; some
  // key differences are large enough for a Rice escape.
  int negated = 0, escapes = 0;
  for (const FittedTrack& track : golden::make_clip().tracks) {
    if (track.coding != TrackCoding::kAnimated) continue;
    const KeyCoding coding = choose_key_coding(track);
    for (size_t k = 0; k < track.keys.size(); ++k) {
      const FittedKey& key = track.keys[k];
      const CurveKey raw = decode_key(track.kind, track.quantization, key.codes, key.frame);
      if (std::memcmp(raw.value, key.decoded.value, sizeof raw.value) != 0) ++negated;
      for (int c = 0; c < 4 && k > 0; ++c) {
        if (!track.quantization.coded(c)) continue;
        const uint32_t v = zigzag(key.codes[c] - track.keys[k - 1].codes[c]);
        if ((v >> coding.value_rice[c]) >= kRiceEscapeZeros) ++escapes;
      }
    }
  }
  EXPECT_GT(negated, 0);
  EXPECT_GT(escapes, 0);
  // Stream keys in more than one segment; a segment whose keys are wider
  // than one 57-bit load (read field by field); one with a field of 0 bits.
  uint32_t most_segments = 0, widest_key = 0;
  bool empty_field = false;
  for (const FittedTrack& track : golden::make_clip().tracks) {
    if (track.coding != TrackCoding::kAnimated) continue;
    const KeyCoding coding = choose_key_coding(track);
    const uint32_t segments = segment_count(static_cast<uint32_t>(track.keys.size()));
    most_segments = std::max(most_segments, segments);
    for (uint32_t s = 0; s < segments; ++s) {
      const std::array<uint32_t, kKeyFields> widths = segment_widths(track, coding, s);
      widest_key = std::max<uint32_t>(widest_key, make_stream_key_layout(widths.data(), coding.negation_bits).key_bits);
      for (uint32_t c = 0; c < 4; ++c) empty_field = empty_field || (track.quantization.coded(static_cast<int>(c)) && widths[c + 1] == 0);
    }
  }
  EXPECT_GE(most_segments, 2u);
  EXPECT_GT(widest_key, 57u);
  EXPECT_TRUE(empty_field);
  // Jump states of both kinds: a window still holding an initial key (and
  // one of a track that saves oldest keys, its fields zeros), and one saved
  // as its oldest key, which sits before its jump frame.
  uint32_t from_initial = 0, from_run = 0, before_jump = 0, zero_fields = 0;
  for (const JumpFrame& jump : view.jump_frames()) {
    for (const FittedTrack& track : golden::make_clip().tracks) {
      if (track.coding != TrackCoding::kAnimated || track.keys.size() <= kInitialKeysPerTrack) continue;
      uint32_t read = kInitialKeysPerTrack;
      while (read < track.keys.size() && track.keys[read - 2].frame <= jump.frame) ++read;
      ++(read >= kRestoreFromRunKeys ? from_run : from_initial);
      if (read < kRestoreFromRunKeys && saves_oldest_key(static_cast<uint32_t>(track.keys.size()))) ++zero_fields;
      if (read >= kRestoreFromRunKeys && track.keys[read - kWindowSize].frame < jump.frame) ++before_jump;
    }
  }
  EXPECT_GT(from_initial, 0u);
  EXPECT_GT(from_run, 0u);
  EXPECT_GT(before_jump, 0u);
  EXPECT_GT(zero_fields, 0u);
  // Scalar tracks: identity (a morph weight at rest); a constant float3; an
  // animated float with streamed keys and a discontinuity; an animated float4
  // with a constant component and negative codes; an animated float2. Morph
  // weights and user curves.
  const FittedClip clip = golden::make_clip();
  const std::span<const StreamTrack> scalars = view.scalar_tracks();
  ASSERT_EQ(scalars.size(), golden::kScalarTrackCount);
  for (uint32_t s = 0; s < scalars.size(); ++s) {
    EXPECT_EQ(scalars[s].kind, TrackKind::kScalar);
    EXPECT_EQ(scalars[s].bone, s);
    EXPECT_EQ(uint32_t{scalars[s].components}, clip.scalars[s].components);
  }
  EXPECT_EQ(scalars[0].coding, TrackCoding::kIdentity);
  EXPECT_EQ(uint32_t{scalars[0].components}, 1u);
  EXPECT_EQ(scalars[1].coding, TrackCoding::kConstant);
  EXPECT_EQ(uint32_t{scalars[1].components}, 3u);
  EXPECT_EQ(scalars[1].quantization.constant[1], -0.5f);
  EXPECT_EQ(scalars[1].quantization.constant[3], 0.f);
  EXPECT_EQ(scalars[2].coding, TrackCoding::kAnimated);
  EXPECT_EQ(uint32_t{scalars[2].components}, 1u);
  EXPECT_GT(scalars[2].key_count, kInitialKeysPerTrack + 1);
  EXPECT_EQ(scalars[3].coding, TrackCoding::kAnimated);
  EXPECT_EQ(uint32_t{scalars[3].components}, 4u);
  EXPECT_EQ(scalars[3].quantization.coded_mask, 0b1011);
  EXPECT_EQ(scalars[3].quantization.constant[2], 1.5f);
  EXPECT_GT(scalars[3].key_count, kInitialKeysPerTrack);
  EXPECT_EQ(scalars[4].coding, TrackCoding::kAnimated);
  EXPECT_EQ(uint32_t{scalars[4].components}, 2u);
  EXPECT_EQ(scalars[4].quantization.coded_mask, 0b0011);
  const auto has_discontinuity = [](const FittedTrack& track) {
    for (size_t k = 1; k < track.keys.size(); ++k) {
      if (track.keys[k].frame == track.keys[k - 1].frame) return true;
    }
    return false;
  };
  EXPECT_TRUE(has_discontinuity(clip.tracks[clip.bone_track_count() + 2]));
  int32_t least_code = 0;
  for (const FittedKey& key : clip.tracks[clip.bone_track_count() + 3].keys) {
    for (int c = 0; c < 4; ++c) least_code = std::min(least_code, key.codes[c]);
  }
  EXPECT_LT(least_code, 0);
  uint32_t targets[2] = {0, 0};
  for (const FittedScalar& scalar : clip.scalars) ++targets[static_cast<int>(scalar.target)];
  EXPECT_GT(targets[static_cast<int>(ScalarTarget::kCurve)], 0u);
  EXPECT_GT(targets[static_cast<int>(ScalarTarget::kMorphWeight)], 0u);
  // Interpolations (version 10): a step translation, a linear rotation and
  // a linear scalar track, all with stream keys; every other track Hermite.
  uint32_t interpolations[kInterpolationCount] = {0, 0, 0};
  for (const StreamTrack& track : view.tracks()) {
    if (track.coding == TrackCoding::kAnimated) ++interpolations[static_cast<int>(track.interpolation)];
  }
  EXPECT_EQ(interpolations[static_cast<int>(Interpolation::kHermite)], 12u - 3u);
  EXPECT_EQ(interpolations[static_cast<int>(Interpolation::kLinear)], 2u);
  EXPECT_EQ(interpolations[static_cast<int>(Interpolation::kStep)], 1u);
  const StreamTrack& step_track = view.bone_tracks()[golden::kStepTrack];
  EXPECT_EQ(step_track.interpolation, Interpolation::kStep);
  EXPECT_EQ(step_track.kind, TrackKind::kTranslation);
  EXPECT_GT(step_track.key_count, kInitialKeysPerTrack);
  const StreamTrack& linear_track = view.bone_tracks()[golden::kLinearTrack];
  EXPECT_EQ(linear_track.interpolation, Interpolation::kLinear);
  EXPECT_EQ(linear_track.kind, TrackKind::kRotation);
  EXPECT_GT(linear_track.key_count, kInitialKeysPerTrack);
  EXPECT_EQ(scalars[golden::kLinearScalar].interpolation, Interpolation::kLinear);
  EXPECT_GT(scalars[golden::kLinearScalar].key_count, kInitialKeysPerTrack);
  // The step track's keys make the step show: at every frame time (between
  // keys, at a key's own frame, at the last frame) the committed pose holds
  // the last key at or before it, bit for bit; its last two keys differ, with
  // frame times between them, so the last frame is where the last key starts.
  const FittedTrack& step = clip.tracks[golden::kStepTrack];
  const size_t last = step.keys.size() - 1;
  EXPECT_EQ(step.keys[last].frame, golden::kFrameCount - 1);
  EXPECT_GT(step.keys[last].frame, step.keys[last - 1].frame + 1);
  EXPECT_NE(std::memcmp(step.keys[last].decoded.value, step.keys[last - 1].decoded.value, 3 * sizeof(float)), 0);
  EXPECT_TRUE(has_discontinuity(step));
  const std::vector<uint8_t> poses = read_golden("stream_v11_poses.bin");
  const std::vector<float> times = golden::frame_times();
  ASSERT_EQ(poses.size(), times.size() * golden::kFrameTimeBytes);
  const size_t step_bone = golden::kStepTrack / 3;
  for (size_t i = 0; i < times.size(); ++i) {
    size_t held = 0;
    while (held < last && static_cast<float>(step.keys[held + 1].frame) <= times[i]) ++held;
    const uint8_t* translation = poses.data() + i * golden::kFrameTimeBytes + step_bone * sizeof(Transform);
    EXPECT_EQ(std::memcmp(translation, step.keys[held].decoded.value, 3 * sizeof(float)), 0)
        << "frame time " << times[i] << " key " << held;
  }
  // The linear scalar track runs straight from key to key.
  const FittedTrack& smile = clip.tracks[clip.bone_track_count() + golden::kLinearScalar];
  ASSERT_EQ(clip.scalars[golden::kLinearScalar].components, 1u);
  for (size_t i = 0; i < times.size(); ++i) {
    size_t k = 0;
    while (k + 2 < smile.keys.size() && static_cast<float>(smile.keys[k + 1].frame) <= times[i]) ++k;
    const float p = smile.keys[k].decoded.value[0], q = smile.keys[k + 1].decoded.value[0];
    const float u = (times[i] - static_cast<float>(smile.keys[k].frame)) /
                    static_cast<float>(smile.keys[k + 1].frame - smile.keys[k].frame);
    float value;
    std::memcpy(
        &value,
        poses.data() + i * golden::kFrameTimeBytes + golden::kPoseBytes + golden::kLinearScalarValue * sizeof(float),
        sizeof value);
    EXPECT_NEAR(value, p + u * (q - p), 1e-6f) << "frame time " << times[i];
  }
}

TEST(GoldenStream, VersionEightDecodesToVersionSevensPoses) {
  // The jump states' layout changed, not the keys or the curves.
  EXPECT_EQ(read_golden("stream_v8_poses.bin"), read_golden("stream_v7_poses.bin"));
}

// The floats of bone track t (translation, rotation, scale) in a Transform.
constexpr size_t kTrackFloatsAt[3] = {0, 3, 7};
constexpr size_t kTrackFloats[3] = {3, 4, 3};

TEST(GoldenStream, VersionElevenDecodesToVersionTensPoses) {
  // Version 11 made two constant tracks rest tracks with the same values
  // (now in the metadata): every frame time's floats are version 10's byte
  // for byte.
  const std::vector<uint8_t> v10 = read_golden("stream_v10_poses.bin");
  const std::vector<uint8_t> v11 = read_golden("stream_v11_poses.bin");
  ASSERT_EQ(v10.size(), golden::frame_times().size() * golden::kFrameTimeBytes);
  EXPECT_EQ(v11, v10);
  // The stream itself is smaller by the rest tracks' table values and larger
  // by the same values in the metadata: an engine that strips the metadata
  // keeps 7 floats less.
  const Result<StreamView> ten = StreamView::open(read_golden("stream_v10.ks"));
  const std::vector<uint8_t> v11_stream = read_golden("stream_v11.ks");
  const Result<StreamView> eleven = StreamView::open(v11_stream);
  ASSERT_TRUE(ten.ok()) << ten.error();
  ASSERT_TRUE(eleven.ok()) << eleven.error();
  EXPECT_LT(eleven.value().table_bytes(), ten.value().table_bytes());
  EXPECT_GE(ten.value().table_bytes() - eleven.value().table_bytes(), golden::kRestValueCount * sizeof(float) - 1);
}

TEST(GoldenStream, VersionTenDecodesToVersionNinesPoses) {
  // Version 10 made three tracks linear or step and left their keys, and
  // every other track, as they were: each frame time's floats are version
  // 9's byte for byte but for those tracks', which differ somewhere.
  const std::vector<uint8_t> v9 = read_golden("stream_v9_poses.bin");
  const std::vector<uint8_t> v10 = read_golden("stream_v10_poses.bin");
  const std::vector<float> times = golden::frame_times();
  ASSERT_EQ(v9.size(), times.size() * golden::kFrameTimeBytes);
  ASSERT_EQ(v10.size(), v9.size());
  uint32_t step_differs = 0, linear_differs = 0, scalar_differs = 0;
  for (size_t i = 0; i < times.size(); ++i) {
    const size_t at = i * golden::kFrameTimeBytes;
    for (uint32_t t = 0; t < 3 * golden::kBoneCount; ++t) {
      const size_t offset = at + (t / 3) * sizeof(Transform) + kTrackFloatsAt[t % 3] * sizeof(float);
      const bool same = std::memcmp(v10.data() + offset, v9.data() + offset, kTrackFloats[t % 3] * sizeof(float)) == 0;
      if (t == golden::kStepTrack) {
        step_differs += same ? 0 : 1;
      } else if (t == golden::kLinearTrack) {
        linear_differs += same ? 0 : 1;
      } else {
        EXPECT_TRUE(same) << "frame time " << times[i] << " track " << t;
      }
    }
    for (size_t v = 0; v < golden::kScalarValueCount; ++v) {
      const size_t offset = at + golden::kPoseBytes + v * sizeof(float);
      const bool same = std::memcmp(v10.data() + offset, v9.data() + offset, sizeof(float)) == 0;
      if (v == golden::kLinearScalarValue) {
        scalar_differs += same ? 0 : 1;
      } else {
        EXPECT_TRUE(same) << "frame time " << times[i] << " scalar value " << v;
      }
    }
  }
  EXPECT_GT(step_differs, 0u);
  EXPECT_GT(linear_differs, 0u);
  EXPECT_GT(scalar_differs, 0u);
}

TEST(GoldenStream, VersionNineDecodesToVersionEightsPoses) {
  // Version 9 added scalar tracks after the bones' tracks, which did not
  // change: each frame time's bone floats are version 8's pose byte for byte.
  const std::vector<uint8_t> v8 = read_golden("stream_v8_poses.bin");
  const std::vector<uint8_t> v9 = read_golden("stream_v9_poses.bin");
  const std::vector<float> times = golden::frame_times();
  ASSERT_EQ(v8.size(), times.size() * golden::kPoseBytes);
  ASSERT_EQ(v9.size(), times.size() * golden::kFrameTimeBytes);
  for (size_t i = 0; i < times.size(); ++i) {
    EXPECT_EQ(
        std::memcmp(v9.data() + i * golden::kFrameTimeBytes, v8.data() + i * golden::kPoseBytes, golden::kPoseBytes), 0)
        << "frame time " << times[i];
  }
}

}  // namespace
}  // namespace ks
