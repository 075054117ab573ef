// A .glb's container (gltf_schema.h check_glb_container): a broken header or
// chunk is refused saying what is wrong, "truncated" where the file is cut
// short, instead of tinygltf's one "Invalid glTF binary" for all of them.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "keystream/io/gltf_import.h"
#include "keystream/io/gltf_schema.h"
#include "tests/io/gltf_test_files.h"
#include "tests/temp_dir.h"

namespace ks {
namespace {

std::string valid_glb() {
  const test::GltfDocument doc = test::make_skinned_document();
  nlohmann::json json = nlohmann::json::parse(doc.text());
  json["buffers"][0].erase("uri");
  return test::make_glb(json.dump(), doc.buffer.bytes);
}

void set_u32(std::string& bytes, size_t at, uint32_t v) { std::memcpy(bytes.data() + at, &v, 4); }

::testing::AssertionResult refused_with(const std::string& bytes, const std::string& part) {
  const Status s = gltf::check_glb_container(bytes);
  if (s) return ::testing::AssertionFailure() << "accepted";
  if (s.error().find(part) == std::string::npos) return ::testing::AssertionFailure() << s.error();
  return ::testing::AssertionSuccess();
}

TEST(GlbContainer, AcceptsAWellFormedFile) {
  const std::string glb = valid_glb();
  EXPECT_TRUE(gltf::check_glb_container(glb).ok());
  test::TempDir dir;
  const std::filesystem::path path = dir / "walk.glb";
  std::ofstream(path, std::ios::binary) << glb;
  const Result<ImportedClip> r = import_gltf(path, {});
  EXPECT_TRUE(r.ok()) << r.error();
}

TEST(GlbContainer, SaysTruncatedWhereverTheFileIsCutShort) {
  const std::string glb = valid_glb();
  EXPECT_TRUE(refused_with(glb.substr(0, 7), "truncated: 7 bytes, shorter than the 12-byte GLB header"));
  // Cut anywhere after the header (its length then claims more).
  for (const size_t size : {size_t{12}, size_t{16}, size_t{40}, glb.size() - 1}) {
    EXPECT_TRUE(refused_with(glb.substr(0, size), "truncated: the GLB header says " + std::to_string(glb.size()) +
                                                      " bytes, the file has " + std::to_string(size)))
        << size;
  }
  // Cut, with the header's length made to agree: the chunk that runs out.
  std::string cut = glb.substr(0, glb.size() - 10);
  set_u32(cut, 8, static_cast<uint32_t>(cut.size()));
  EXPECT_TRUE(refused_with(cut, "truncated: the BIN chunk of"));
  EXPECT_TRUE(refused_with(cut, "runs 10 bytes past the end of the file"));
  std::string json_cut = glb.substr(0, 30);
  set_u32(json_cut, 8, 30);
  EXPECT_TRUE(refused_with(json_cut, "truncated: the JSON chunk of"));
  std::string header_only = glb.substr(0, 12);
  set_u32(header_only, 8, 12);
  EXPECT_TRUE(refused_with(header_only, "truncated: the GLB has no JSON chunk"));
}

TEST(GlbContainer, RefusesAWrongVersionLengthOrChunkType) {
  std::string glb = valid_glb();
  std::string version = glb;
  set_u32(version, 4, 1);
  EXPECT_TRUE(refused_with(version, "GLB version 1; only version 2 is read"));
  std::string longer = glb + "xxxx";
  EXPECT_TRUE(refused_with(longer, "(bytes after the end)"));
  std::string not_json = glb;
  std::memcpy(not_json.data() + 16, "BIN\0", 4);
  EXPECT_TRUE(refused_with(not_json, "the first GLB chunk is not JSON"));
  // Through the importer, naming the file.
  test::TempDir dir;
  const std::filesystem::path path = dir / "cut.glb";
  std::ofstream(path, std::ios::binary) << glb.substr(0, glb.size() / 2);
  const Result<ImportedClip> r = import_gltf(path, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().rfind(path.string() + ": not a readable glTF 2.0 file: truncated: the GLB header says", 0), 0u)
      << r.error();
}

}  // namespace
}  // namespace ks
