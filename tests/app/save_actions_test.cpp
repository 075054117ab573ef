// What the studio's File menu writes (app/studio/io/save_actions.h): the names
// the dialogs start from, the stream saved byte for byte as fitted (and
// loadable), the decoded animation exported onto the source's mesh, and
// failures that name the file and leave an existing file as it was.

#include "app/studio/io/save_actions.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "keystream/io/file_io.h"
#include "keystream/io/import.h"
#include "keystream/io/stream_file.h"
#include "tests/app/demo_clip.h"
#include "tests/temp_dir.h"

namespace ks::studio {
namespace {

std::shared_ptr<const FitResult> demo_fit() {
  static const std::shared_ptr<const FitResult> result = run_fit(demo_clip(), CodecSettings{}, 1, 2);
  return result;
}

TEST(SaveActions, DefaultNamesSitBesideTheSourceAndNeverOnIt) {
  EXPECT_EQ(default_stream_path("/clips/walk.glb"), "/clips/walk.ks");
  EXPECT_EQ(default_stream_path("/clips/take.BVH"), "/clips/take.ks");
  EXPECT_EQ(default_stream_path("/clips/walk.ks"), "/clips/walk.refit.ks");
  EXPECT_EQ(default_stream_path("walk.glb"), "walk.ks");
  EXPECT_EQ(default_glb_path("/clips/walk.glb"), "/clips/walk.decoded.glb");
  EXPECT_EQ(default_glb_path("/clips/take.bvh"), "/clips/take.decoded.glb");
}

TEST(SaveActions, SavesTheFittedStreamByteForByte) {
  test::TempDir dir;
  const std::shared_ptr<const FitResult> fit = demo_fit();
  ASSERT_TRUE(fit->error.empty()) << fit->error;
  Result<size_t> written = save_stream(*fit, dir / "walk.ks");
  ASSERT_TRUE(written.ok()) << written.error();
  EXPECT_EQ(written.value(), fit->stream.size());
  Result<std::string> bytes = read_file(dir / "walk.ks");
  ASSERT_TRUE(bytes.ok()) << bytes.error();
  EXPECT_EQ(bytes.value(), std::string(fit->stream.begin(), fit->stream.end()));
  Result<std::unique_ptr<StreamFile>> loaded = load_stream_file(dir / "walk.ks");
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  EXPECT_EQ(loaded.value()->view.bone_count(), demo_clip()->skeleton.bone_count());
}

TEST(SaveActions, ExportsTheDecodedAnimationOntoTheSourceMesh) {
  test::TempDir dir;
  std::vector<std::string> warnings;
  Result<size_t> written = export_decoded_glb(*demo_fit(), dir / "walk.decoded.glb", false, warnings);
  ASSERT_TRUE(written.ok()) << written.error();
  EXPECT_TRUE(warnings.empty());
  Result<ImportedClip> back = import_clip(dir / "walk.decoded.glb");
  ASSERT_TRUE(back.ok()) << back.error();
  ASSERT_TRUE(back.value().mesh.has_value());
  EXPECT_EQ(back.value().mesh->vertex_count(), demo_clip()->mesh->vertex_count());
  EXPECT_EQ(back.value().clip.frame_count, demo_clip()->clip.frame_count);
  EXPECT_EQ(back.value().skeleton.bone_names, demo_clip()->skeleton.bone_names);
}

TEST(SaveActions, AFailedWriteNamesTheFileAndKeepsWhatWasThere) {
  test::TempDir dir;
  const std::filesystem::path nowhere = dir / "no such folder" / "walk.ks";
  Result<size_t> written = save_stream(*demo_fit(), nowhere);
  ASSERT_FALSE(written.ok());
  EXPECT_NE(written.error().find("no such folder"), std::string::npos) << written.error();
  // A folder where the file should go: refused, the folder left alone.
  std::filesystem::create_directories(dir / "taken.glb");
  std::vector<std::string> warnings;
  Result<size_t> exported = export_decoded_glb(*demo_fit(), dir / "taken.glb", false, warnings);
  ASSERT_FALSE(exported.ok());
  EXPECT_NE(exported.error().find("taken.glb"), std::string::npos) << exported.error();
  EXPECT_TRUE(std::filesystem::is_directory(dir / "taken.glb"));
}

}  // namespace
}  // namespace ks::studio
