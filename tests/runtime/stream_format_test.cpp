// The stream format (core/runtime/stream_format.h) and the committed golden
// stream that pins it: tests/golden/stream_v1.ks must keep opening and
// decoding to the committed poses byte for byte, and packing the same fitted
// input must keep producing it. A failure here means the format changed:
// bump kStreamVersion and add a new golden file (tests/golden/README.md).

#include "core/runtime/stream_format.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "core/offline/file_io.h"
#include "core/offline/pack.h"
#include "core/offline/quantize.h"
#include "core/runtime/player.h"
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

TEST(StreamFormat, HeaderLayoutIsVersionTwo) {
  EXPECT_EQ(kStreamVersion, 2u);
  EXPECT_EQ(kOldestStreamVersion, 1u);
  EXPECT_EQ(kHeaderSize, 80u);
  EXPECT_EQ(header_offset::kChecksum + 4, header_offset::kMetadataOffset);
  EXPECT_EQ(header_offset::kMetadataOffset + 4, kHeaderSize);
  const char magic[4] = {'K', 'S', 'T', 'R'};
  EXPECT_EQ(std::memcmp(&kStreamMagic, magic, 4), 0);
}

// Every committed stream, with the poses file of its version.
struct GoldenFile {
  const char* stream;
  const char* poses;
};
constexpr GoldenFile kGoldenFiles[] = {
    {"stream_v1.ks", "stream_v1_poses.bin"},
    {"stream_v2.ks", "stream_v2_poses.bin"},
    {"stream_v2_zstd.ks", "stream_v2_poses.bin"},
};

TEST(GoldenStream, OpensAndDecodesToTheCommittedPoses) {
  for (const GoldenFile& file : kGoldenFiles) {
    SCOPED_TRACE(file.stream);
    const std::vector<uint8_t> stream = read_golden(file.stream);
    const std::vector<uint8_t> poses = read_golden(file.poses);
    const Result<StreamView> view = StreamView::open(stream, file.stream);
    ASSERT_TRUE(view.ok()) << view.error();
    EXPECT_EQ(view.value().frame_count(), golden::kFrameCount);
    EXPECT_EQ(view.value().bone_count(), golden::kBoneCount);
    const std::vector<float> times = golden::frame_times();
    ASSERT_EQ(poses.size(), times.size() * golden::kBoneCount * golden::kFloatsPerBone * sizeof(float));
    const std::vector<uint8_t> decoded = golden::poses_bytes(view.value());
    ASSERT_EQ(decoded.size(), poses.size());
    const size_t pose_bytes = golden::kBoneCount * sizeof(Transform);
    for (size_t i = 0; i < times.size(); ++i) {
      EXPECT_EQ(std::memcmp(decoded.data() + i * pose_bytes, poses.data() + i * pose_bytes, pose_bytes), 0)
          << "frame time " << times[i];
    }
    // In reverse order (every sample a seek back) too.
    Player player(view.value());
    std::vector<Transform> pose(golden::kBoneCount);
    for (size_t i = times.size(); i-- > 0;) {
      player.sample_frame(times[i], pose);
      EXPECT_EQ(std::memcmp(pose.data(), poses.data() + i * pose_bytes, pose_bytes), 0) << "frame time " << times[i];
    }
  }
}

TEST(GoldenStream, VersionOneHasNoMetadataAndVersionTwoHasIt) {
  const Result<StreamView> v1 = StreamView::open(read_golden("stream_v1.ks"));
  ASSERT_TRUE(v1.ok()) << v1.error();
  EXPECT_EQ(v1.value().version(), 1u);
  EXPECT_TRUE(v1.value().metadata().bone_names.empty());
  EXPECT_EQ(v1.value().metadata().rotation_error_deg, 0.f);
  for (const char* name : {"stream_v2.ks", "stream_v2_zstd.ks"}) {
    SCOPED_TRACE(name);
    const Result<StreamView> v2 = StreamView::open(read_golden(name));
    ASSERT_TRUE(v2.ok()) << v2.error();
    EXPECT_EQ(v2.value().version(), 2u);
    const StreamMetadata& meta = v2.value().metadata();
    EXPECT_EQ(meta.clip_name, "golden");
    EXPECT_EQ(meta.source_name, "golden_clip.h");
    EXPECT_EQ(meta.bone_names, golden::make_clip().bone_names);
    EXPECT_EQ(meta.translation_error_m, golden::make_clip().settings.translation_error_m);
    EXPECT_EQ(meta.rotation_error_deg, golden::make_clip().settings.rotation_error_deg);
    EXPECT_EQ(v2.value().key_stream_compressed(), std::string(name).find("zstd") != std::string::npos);
    EXPECT_EQ(v2.value().key_stream_blocks().size(), v2.value().jump_frames().size() + 1);
  }
}

TEST(GoldenStream, PackingTheGoldenClipReproducesTheCommittedBytes) {
  // Only the current version: the packer writes no other.
  for (const bool zstd : {false, true}) {
    const char* name = zstd ? "stream_v2_zstd.ks" : "stream_v2.ks";
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
  const std::vector<uint8_t> stream = read_golden("stream_v1.ks");
  const Result<StreamView> opened = StreamView::open(stream);
  ASSERT_TRUE(opened.ok()) << opened.error();
  const StreamView& view = opened.value();
  EXPECT_EQ(view.jump_frames().size(), 3u);  // frames 8, 16, 24
  EXPECT_GT(view.stream_key_count(), 0u);
  EXPECT_EQ(view.streamed_track_count(), 5u);
  uint32_t widths = 0;
  for (const StreamTrack& track : view.tracks()) {
    if (track.kind == TrackKind::kRotation) widths |= 1u << (track.quantization.rotation_bits - 10);
  }
  EXPECT_EQ(widths, (1u << 0) | (1u << 4) | (1u << 10));  // 10, 14 and 20 bits
  // Some rotation keys cross hemispheres, so the player negates them.
  int negated = 0;
  for (const FittedTrack& track : golden::make_clip().tracks) {
    if (track.kind != TrackKind::kRotation) continue;
    for (const FittedKey& key : track.keys) {
      const CurveKey raw = decode_rotation(key.code, track.quantization.rotation_bits, key.frame);
      if (std::memcmp(raw.value, key.decoded.value, sizeof raw.value) != 0) ++negated;
    }
  }
  EXPECT_GT(negated, 0);
}

}  // namespace
}  // namespace ks
