// Base colour textures for the studio (core/io/gltf_texture.h and
// ImportSettings::read_textures): the shared Fox is imported with its
// texture, uvs and parts; without read_textures nothing of them is read;
// a texture that cannot be used (an undecodable image, missing texture
// coordinates, an image file outside the folder) costs the texture, with a
// warning, never the clip.

#include "keystream/io/gltf_texture.h"

#include <gtest/gtest.h>
#include <tiny_gltf.h>

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
const fs::path kClips = KS_CLIPS_DIR;

// True when one of `warnings` holds `part`.
bool warned(const std::vector<std::string>& warnings, const std::string& part) {
  for (const std::string& w : warnings) {
    if (w.find(part) != std::string::npos) return true;
  }
  return false;
}

TEST(GltfTextures, FoxWearsItsBaseColourTexture) {
  ImportSettings settings;
  settings.read_textures = true;
  const Result<ImportedClip> r = import_gltf(kClips / "Fox.glb", settings);
  ASSERT_TRUE(r.ok()) << r.error();
  ASSERT_TRUE(r.value().mesh.has_value());
  const SkinnedMesh& mesh = *r.value().mesh;
  ASSERT_EQ(mesh.textures.size(), 1u);
  EXPECT_GT(mesh.textures[0].width, 1u);
  EXPECT_GT(mesh.textures[0].height, 1u);
  EXPECT_EQ(mesh.uvs.size(), mesh.vertex_count());
  ASSERT_FALSE(mesh.parts.empty());
  size_t covered = 0;
  for (const MeshPart& part : mesh.parts) {
    EXPECT_EQ(part.texture, 0);
    covered += part.index_count;
  }
  EXPECT_EQ(covered, mesh.indices.size());
  EXPECT_TRUE(mesh.validate(r.value().skeleton.bone_count()).ok());
  EXPECT_TRUE(r.value().warnings.empty()) << r.value().warnings.front();
}

TEST(GltfTextures, NothingOfThemWithoutReadTextures) {
  const Result<ImportedClip> r = import_gltf(kClips / "Fox.glb", {});
  ASSERT_TRUE(r.ok()) << r.error();
  ASSERT_TRUE(r.value().mesh.has_value());
  EXPECT_TRUE(r.value().mesh->textures.empty());
  EXPECT_TRUE(r.value().mesh->uvs.empty());
  EXPECT_TRUE(r.value().mesh->parts.empty());
}

// The skinned test document in `dir` with a material whose base colour
// texture is image 0 at `image_uri` (written by the caller, or not).
fs::path write_textured(const fs::path& dir, const std::string& image_uri) {
  const test::GltfDocument doc = test::make_skinned_document();
  nlohmann::json json = nlohmann::json::parse(doc.text());
  json["images"] = {{{"uri", image_uri}}};
  json["textures"] = {{{"source", 0}}};
  json["materials"] = {{{"pbrMetallicRoughness", {{"baseColorTexture", {{"index", 0}}}}}}};
  for (auto& mesh : json["meshes"]) {
    for (auto& primitive : mesh["primitives"]) primitive["material"] = 0;
  }
  const fs::path path = dir / "textured.gltf";
  std::ofstream(path, std::ios::binary) << json.dump();
  return path;
}

TEST(GltfTextures, AMaterialWithoutItsTexCoordsIsDrawnInItsBaseColour) {
  test::TempDir dir;
  std::ofstream(dir.path() / "skin.png", std::ios::binary) << "not a png";
  ImportSettings settings;
  settings.read_textures = true;
  const Result<ImportedClip> r = import_gltf(write_textured(dir.path(), "skin.png"), settings);
  ASSERT_TRUE(r.ok()) << r.error();
  ASSERT_TRUE(r.value().mesh.has_value());
  EXPECT_TRUE(r.value().mesh->textures.empty());
  EXPECT_TRUE(warned(r.value().warnings, "TEXCOORD_0, which it does not have")) << r.value().warnings.size();
}

TEST(GltfTextures, AnImageOutsideTheFolderCostsTheTexturesNotTheClip) {
  test::TempDir dir;
  ImportSettings settings;
  settings.read_textures = true;
  const Result<ImportedClip> r = import_gltf(write_textured(dir.path(), "../../../../../../etc/passwd"), settings);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_TRUE(warned(r.value().warnings, "textures not read")) << r.value().warnings.size();
  EXPECT_TRUE(warned(r.value().warnings, "leads outside"));
}

// decode_texture on images in memory, as the loader keeps them.
TEST(GltfTextures, DecodeRefusesGarbageOversizeAndMissingImagesSayingWhy) {
  tinygltf::Model model;
  model.images.resize(3);
  model.images[0].image = {'n', 'o', 't', ' ', 'a', 'n', ' ', 'i', 'm', 'a', 'g', 'e'};
  // A BMP header claiming 100,000 x 1 pixels: refused from the header, before any pixel is allocated.
  std::vector<unsigned char> bmp = {'B', 'M', 0, 0, 0, 0, 0, 0, 0, 0, 54, 0, 0, 0, 40, 0, 0, 0};
  const uint32_t width = 100000, height = 1;
  for (int i = 0; i < 4; ++i) bmp.push_back(static_cast<unsigned char>(width >> (8 * i)));
  for (int i = 0; i < 4; ++i) bmp.push_back(static_cast<unsigned char>(height >> (8 * i)));
  bmp.insert(bmp.end(), {1, 0, 24, 0, 0, 0, 0, 0});
  bmp.resize(64, 0);
  model.images[1].image = bmp;
  // Image 2 has neither bytes nor a buffer view.
  const Result<MeshTexture> garbage = gltf::decode_texture(model, 0);
  ASSERT_FALSE(garbage.ok());
  EXPECT_NE(garbage.error().find("image 0 is not an image"), std::string::npos) << garbage.error();
  const Result<MeshTexture> huge = gltf::decode_texture(model, 1);
  ASSERT_FALSE(huge.ok());
  EXPECT_NE(huge.error().find("100000 x 1 pixels, past 4096"), std::string::npos) << huge.error();
  const Result<MeshTexture> none = gltf::decode_texture(model, 2);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().find("was not read"), std::string::npos) << none.error();
  EXPECT_FALSE(gltf::decode_texture(model, 3).ok());
  EXPECT_FALSE(gltf::decode_texture(model, -1).ok());
}

// A 24-bit BMP of `width` x `height` pixels, every one (r, g, b).
std::vector<unsigned char> solid_bmp(uint32_t width, uint32_t height, unsigned char r, unsigned char g,
                                     unsigned char b) {
  const uint32_t row = (width * 3 + 3) / 4 * 4;
  const uint32_t size = 54 + row * height;
  std::vector<unsigned char> bmp(size, 0);
  const auto put = [&](size_t at, uint32_t v) {
    for (int i = 0; i < 4; ++i) bmp[at + static_cast<size_t>(i)] = static_cast<unsigned char>(v >> (8 * i));
  };
  bmp[0] = 'B';
  bmp[1] = 'M';
  put(2, size);
  put(10, 54);
  put(14, 40);
  put(18, width);
  put(22, height);
  bmp[26] = 1;
  bmp[28] = 24;
  for (uint32_t y = 0; y < height; ++y) {
    for (uint32_t x = 0; x < width; ++x) {
      const size_t at = 54 + size_t{y} * row + size_t{x} * 3;
      bmp[at] = b;
      bmp[at + 1] = g;
      bmp[at + 2] = r;
    }
  }
  return bmp;
}

TEST(GltfTextures, LargeTexturesAreKeptHalvedToTheKeptSide) {
  tinygltf::Model model;
  model.images.resize(1);
  model.images[0].image = solid_bmp(2 * gltf::kKeptTextureSide + 1, 3, 200, 100, 50);
  const Result<MeshTexture> texture = gltf::decode_texture(model, 0);
  ASSERT_TRUE(texture.ok()) << texture.error();
  EXPECT_EQ(texture.value().width, gltf::kKeptTextureSide);
  EXPECT_EQ(texture.value().height, 1u);
  ASSERT_EQ(texture.value().rgba.size(), size_t{gltf::kKeptTextureSide} * 4);
  EXPECT_EQ(texture.value().rgba[0], 200);
  EXPECT_EQ(texture.value().rgba[1], 100);
  EXPECT_EQ(texture.value().rgba[2], 50);
  EXPECT_EQ(texture.value().rgba[3], 255);
}

TEST(GltfTextures, ShrinkAveragesTwoByTwoAndFoldsOddEdges) {
  MeshTexture t{4, 2, std::vector<uint8_t>(32, 0)};
  // Red: 0, 4, 8, 12 on the first row, 16, 20, 24, 28 on the second.
  for (uint32_t p = 0; p < 8; ++p) t.rgba[p * 4] = static_cast<uint8_t>(4 * p);
  gltf::shrink_texture(t, 2);
  ASSERT_EQ(t.width, 2u);
  ASSERT_EQ(t.height, 1u);
  EXPECT_EQ(t.rgba[0], 10);  // (0 + 4 + 16 + 20) / 4
  EXPECT_EQ(t.rgba[4], 18);  // (8 + 12 + 24 + 28) / 4
  MeshTexture odd{3, 3, std::vector<uint8_t>(36, 90)};
  gltf::shrink_texture(odd, 1);
  EXPECT_EQ(odd.width, 1u);
  EXPECT_EQ(odd.height, 1u);
  EXPECT_EQ(odd.rgba, std::vector<uint8_t>(4, 90));
  MeshTexture small{2, 2, std::vector<uint8_t>(16, 7)};
  gltf::shrink_texture(small, 1024);  // within the side: untouched
  EXPECT_EQ(small.width, 2u);
}

}  // namespace
}  // namespace ks
