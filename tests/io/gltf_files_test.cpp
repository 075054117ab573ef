// What a glTF may read besides itself (gltf_files.h): its buffers only from
// regular files in its own folder, exactly their declared bytes; images not
// at all when importing; every URI quoted short in a refusal.

#include "keystream/io/gltf_files.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "keystream/io/gltf_import.h"
#include "tests/io/gltf_test_files.h"
#include "tests/temp_dir.h"

namespace ks {
namespace {

namespace fs = std::filesystem;

void write_bytes(const fs::path& path, const std::vector<unsigned char>& bytes) {
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                              static_cast<std::streamsize>(bytes.size()));
}

// The skinned test document at `dir`/walk.gltf with its buffer in a file the
// URI `uri` names (written by the caller), and optionally an image.
fs::path write_with_buffer_uri(const fs::path& dir, const std::string& uri, const std::string& image_uri = "") {
  const test::GltfDocument doc = test::make_skinned_document();
  nlohmann::json json = nlohmann::json::parse(doc.text());
  json["buffers"][0]["uri"] = uri;
  if (!image_uri.empty()) json["images"] = {{{"uri", image_uri}}};
  const fs::path path = dir / "walk.gltf";
  std::ofstream(path, std::ios::binary) << json.dump();
  return path;
}

std::vector<unsigned char> buffer_bytes() { return test::make_skinned_document().buffer.bytes; }

::testing::AssertionResult refused_with(const Result<ImportedClip>& r, const std::string& part) {
  if (r.ok()) return ::testing::AssertionFailure() << "imported";
  if (r.error().find(part) == std::string::npos) return ::testing::AssertionFailure() << r.error();
  return ::testing::AssertionSuccess();
}

TEST(GltfFiles, ReadsABufferBesideTheFile) {
  test::TempDir dir;
  write_bytes(dir.path() / "walk bin.bin", buffer_bytes());
  // Percent-encoded, as a URI may be.
  const Result<ImportedClip> r = import_gltf(write_with_buffer_uri(dir.path(), "walk%20bin.bin"), {});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r.value().skeleton.bone_count(), 3u);
}

TEST(GltfFiles, RefusesBuffersOutsideTheFolderUnlessAllowed) {
  test::TempDir dir;
  const fs::path inner = dir.path() / "clips";
  fs::create_directories(inner);
  write_bytes(dir.path() / "outside.bin", buffer_bytes());
  const fs::path gltf = write_with_buffer_uri(inner, "../outside.bin");
  EXPECT_TRUE(refused_with(import_gltf(gltf, {}), "buffer 0's uri '../outside.bin' leads outside the glTF's folder"));
  ImportSettings allowed;
  allowed.allow_outside_uris = true;
  const Result<ImportedClip> r = import_gltf(gltf, allowed);
  EXPECT_TRUE(r.ok()) << r.error();

  // An absolute path, even to a file that is there.
  const std::string absolute = (dir.path() / "outside.bin").string();
  EXPECT_TRUE(refused_with(import_gltf(write_with_buffer_uri(inner, absolute), {}), "is an absolute path"));
  // A symbolic link inside the folder that leads out of it.
  fs::create_symlink(dir.path() / "outside.bin", inner / "link.bin");
  EXPECT_TRUE(refused_with(import_gltf(write_with_buffer_uri(inner, "link.bin"), {}),
                           "buffer 0's uri 'link.bin' leads outside the glTF's folder"));
  // /etc/passwd by any road.
  EXPECT_TRUE(refused_with(import_gltf(write_with_buffer_uri(inner, "../../../../../../../../etc/passwd"), {}),
                           "leads outside the glTF's folder"));
  // A URI with a scheme is never a file.
  EXPECT_TRUE(refused_with(import_gltf(write_with_buffer_uri(inner, "file:///etc/passwd"), {}),
                           "is not a file path: only files beside the glTF and data URIs are read"));
}

TEST(GltfFiles, RefusesABufferThatIsNotARegularFileWithoutWaitingOnIt) {
  test::TempDir dir;
  ASSERT_EQ(::mkfifo((dir.path() / "pipe.bin").c_str(), 0600), 0);
  EXPECT_TRUE(refused_with(import_gltf(write_with_buffer_uri(dir.path(), "pipe.bin"), {}),
                           "buffer 0's file 'pipe.bin' is a FIFO, not a file"));
  fs::create_directories(dir.path() / "folder.bin");
  EXPECT_TRUE(refused_with(import_gltf(write_with_buffer_uri(dir.path(), "folder.bin"), {}), "is a directory"));
  EXPECT_TRUE(refused_with(import_gltf(write_with_buffer_uri(dir.path(), "absent.bin"), {}),
                           "buffer 0's file 'absent.bin' does not exist"));
}

TEST(GltfFiles, ABufferMustHoldExactlyItsDeclaredBytes) {
  test::TempDir dir;
  std::vector<unsigned char> bytes = buffer_bytes();
  const std::string declared = std::to_string(bytes.size());
  bytes.push_back(0);
  write_bytes(dir.path() / "long.bin", bytes);
  EXPECT_TRUE(refused_with(import_gltf(write_with_buffer_uri(dir.path(), "long.bin"), {}),
                           "buffer 0's file 'long.bin' holds " + std::to_string(bytes.size()) +
                               " bytes, its byteLength says " + declared));
  bytes.resize(bytes.size() - 2);
  write_bytes(dir.path() / "short.bin", bytes);
  EXPECT_TRUE(refused_with(import_gltf(write_with_buffer_uri(dir.path(), "short.bin"), {}),
                           "holds " + std::to_string(bytes.size()) + " bytes, its byteLength says " + declared));
}

TEST(GltfFiles, ADataUriMustHoldItsDeclaredBytesAndIsNeverEchoedWhole) {
  test::TempDir dir;
  std::vector<unsigned char> bytes = buffer_bytes();
  bytes.resize(bytes.size() + 300000, 0);  // a long URI
  const std::string uri = "data:application/octet-stream;base64," + test::base64(bytes);
  const fs::path path = write_with_buffer_uri(dir.path(), uri);  // its byteLength is the real buffer's
  const Result<ImportedClip> r = import_gltf(path, {});
  EXPECT_TRUE(refused_with(r, "buffer 0's data URI holds " + std::to_string(bytes.size()) +
                                  " bytes, its byteLength says " + std::to_string(buffer_bytes().size())));
  EXPECT_LT(r.error().size(), 400u);
  EXPECT_TRUE(refused_with(import_gltf(write_with_buffer_uri(dir.path(), "data:text/plain;base64,AAAA"), {}),
                           "is not base64 application/octet-stream or application/gltf-buffer data"));
}

TEST(GltfFiles, ImportReadsNoImage) {
  test::TempDir dir;
  write_bytes(dir.path() / "walk.bin", buffer_bytes());
  // An image the importer would refuse to read, were it to read images: it
  // does not, so the file imports.
  const fs::path path = write_with_buffer_uri(dir.path(), "walk.bin", "../../../../../../etc/passwd");
  const Result<ImportedClip> r = import_gltf(path, {});
  EXPECT_TRUE(r.ok()) << r.error();
  // A reader that keeps images (an export) refuses it.
  const nlohmann::json document = nlohmann::json::parse(std::ifstream(path));
  const Result<gltf::ExternalFiles> plan = gltf::ExternalFiles::plan(document, path, {true, false});
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.error().find("image 0's uri '../../../../../../etc/passwd' leads outside"), std::string::npos)
      << plan.error();
  // Planned: the buffer, at its declared size, and no image.
  const Result<gltf::ExternalFiles> import_plan = gltf::ExternalFiles::plan(document, path, {false, false});
  ASSERT_TRUE(import_plan.ok()) << import_plan.error();
  ASSERT_EQ(import_plan.value().files().size(), 1u);
  EXPECT_EQ(import_plan.value().files().begin()->second, buffer_bytes().size());
}

TEST(GltfFiles, QuotesAHostileUriShortAndPrintable) {
  test::TempDir dir;
  const std::string uri = "\x1b[31m" + std::string(5000, 'a') + ".bin";
  const Result<ImportedClip> r = import_gltf(write_with_buffer_uri(dir.path(), uri), {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().find('\x1b'), std::string::npos) << r.error();
  EXPECT_LT(r.error().size(), 300u) << r.error();
  EXPECT_NE(r.error().find("buffer 0's "), std::string::npos) << r.error();
  EXPECT_NE(r.error().find("'\\x1b[31maaaa"), std::string::npos) << r.error();
}

TEST(GltfFiles, DecodesUrisAsTheLoaderDoes) {
  EXPECT_EQ(gltf::decode_uri("a%20b+c%2Fd%"), "a b c/d%");
  EXPECT_EQ(gltf::decode_uri("%41%zz"), std::string("A") + '\0');
}

}  // namespace
}  // namespace ks
