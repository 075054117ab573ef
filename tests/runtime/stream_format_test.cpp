// The stream format (core/runtime/stream_format.h) and the committed golden
// streams that pin it: tests/golden/stream_v9.ks (and its zstd twin) must
// keep opening and decoding to the committed poses byte for byte, and
// packing the same fitted input must keep producing them. A failure here
// means the format changed: bump kStreamVersion and add new golden files
// (tests/golden/README.md). Versions 1 to 8 are refused with a message to
// recompress.

#include "core/runtime/stream_format.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "core/io/file_io.h"
#include "core/codec/key_cost.h"
#include "core/codec/pack.h"
#include "core/codec/quantize.h"
#include "core/runtime/player.h"
#include "core/runtime/stream_key_layout.h"
#include "core/runtime/stream_view.h"
#include "tests/golden/golden_clip.h"

namespace ks {
namespace {

const std::filesystem::path kGolden = KS_GOLDEN_DIR;

std::vector<uint8_t> read_golden(const char* name) {
  const Result<std::string> text = read_file(kGolden / name);
  EXPECT_TRUE(text.ok()) << text.error();
  return text.ok() ? std::vector<uint8_t>(text.value().begin(), text.value().end()) : std::vector<uint8_t>{};
}

TEST(StreamFormat, HeaderLayoutIsVersionNine) {
  EXPECT_EQ(kStreamVersion, 9u);
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

// Every committed stream of the current version, with its poses file.
struct GoldenFile {
  const char* stream;
  const char* poses;
};
constexpr GoldenFile kGoldenFiles[] = {
    {"stream_v9.ks", "stream_v9_poses.bin"},
    {"stream_v9_zstd.ks", "stream_v9_poses.bin"},
};

TEST(GoldenStream, OpensAndDecodesToTheCommittedPoses) {
  for (const GoldenFile& file : kGoldenFiles) {
    SCOPED_TRACE(file.stream);
    const std::vector<uint8_t> stream = read_golden(file.stream);
    const std::vector<uint8_t> poses = read_golden(file.poses);
    const Result<StreamView> view = StreamView::open(stream, file.stream, StreamCheck::kFull);
    ASSERT_TRUE(view.ok()) << view.error();
    EXPECT_EQ(view.value().version(), 9u);
    EXPECT_EQ(view.value().frame_count(), golden::kFrameCount);
    EXPECT_EQ(view.value().bone_count(), golden::kBoneCount);
    EXPECT_EQ(view.value().scalar_track_count(), golden::kScalarTrackCount);
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

TEST(GoldenStream, DecodesToTheFittedCurves) {
  // The committed poses are the fitted clip's curves, bit for bit: the
  // bones', then each scalar track's components (its curve has four floats).
  const FittedClip clip = golden::make_clip();
  const std::vector<uint8_t> poses = read_golden("stream_v9_poses.bin");
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

TEST(GoldenStream, CarriesItsMetadata) {
  const FittedClip clip = golden::make_clip();
  for (const char* name : {"stream_v9.ks", "stream_v9_zstd.ks"}) {
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
  }
}

TEST(GoldenStream, PackingTheGoldenClipReproducesTheCommittedBytes) {
  for (const bool zstd : {false, true}) {
    const char* name = zstd ? "stream_v9_zstd.ks" : "stream_v9.ks";
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
  const std::vector<uint8_t> stream = read_golden("stream_v9.ks");
  const Result<StreamView> opened = StreamView::open(stream);
  ASSERT_TRUE(opened.ok()) << opened.error();
  const StreamView& view = opened.value();
  EXPECT_EQ(view.jump_frames().size(), 3u);  // frames 8, 16, 24
  EXPECT_GT(view.stream_key_count(), 0u);
  EXPECT_EQ(view.animated_track_count(), 9u + 3u);  // the bones', the scalar tracks'
  EXPECT_EQ(view.streamed_track_count(), 7u + 3u);
  uint32_t codings[3] = {0, 0, 0};
  uint32_t rotation_codings[2] = {0, 0};
  bool partial_vec3 = false;
  for (const StreamTrack& track : view.bone_tracks()) {
    ++codings[static_cast<int>(track.coding)];
    if (track.coding != TrackCoding::kAnimated) continue;
    if (track.kind == TrackKind::kRotation) ++rotation_codings[static_cast<int>(track.quantization.rotation)];
    if (track.kind != TrackKind::kRotation && track.quantization.coded_mask != 0b111) partial_vec3 = true;
  }
  EXPECT_EQ(codings[0], 3u);  // identity
  EXPECT_EQ(codings[1], 3u);  // constant
  EXPECT_EQ(codings[2], 9u);  // animated
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
}

TEST(GoldenStream, VersionEightDecodesToVersionSevensPoses) {
  // The jump states' layout changed, not the keys or the curves.
  EXPECT_EQ(read_golden("stream_v8_poses.bin"), read_golden("stream_v7_poses.bin"));
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
