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

TEST(StreamFormat, HeaderLayoutIsVersionOne) {
  EXPECT_EQ(kStreamVersion, 1u);
  EXPECT_EQ(kHeaderSize, 80u);
  EXPECT_EQ(header_offset::kChecksum + 4, header_offset::kReserved);
  EXPECT_EQ(header_offset::kReserved + 4, kHeaderSize);
  const char magic[4] = {'K', 'S', 'T', 'R'};
  EXPECT_EQ(std::memcmp(&kStreamMagic, magic, 4), 0);
}

TEST(GoldenStream, OpensAndDecodesToTheCommittedPoses) {
  const std::vector<uint8_t> stream = read_golden("stream_v1.ks");
  const std::vector<uint8_t> poses = read_golden("stream_v1_poses.bin");
  const Result<StreamView> view = StreamView::open(stream, "stream_v1.ks");
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

TEST(GoldenStream, PackingTheGoldenClipReproducesTheCommittedBytes) {
  const std::vector<uint8_t> committed = read_golden("stream_v1.ks");
  PackSettings settings;
  settings.jump_interval_s = golden::kJumpIntervalS;
  const Result<std::vector<uint8_t>> packed = pack(golden::make_clip(), settings);
  ASSERT_TRUE(packed.ok()) << packed.error();
  ASSERT_EQ(packed.value().size(), committed.size());
  for (size_t i = 0; i < committed.size(); ++i) {
    ASSERT_EQ(packed.value()[i], committed[i]) << "first difference at byte " << i;
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
