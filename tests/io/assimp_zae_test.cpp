// Tests for core/io/assimp_zae.h: the Collada document of a .zae found as
// assimp finds it, read within bounds, and refused with the reason when the
// archive is broken or claims more than it can hold; and a .zae imported as
// its document is, through the same guard.
#include "keystream/io/assimp_zae.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "keystream/io/assimp_guard.h"
#include "keystream/io/file_io.h"
#include "keystream/io/import.h"
#include "tests/refused_mentioning.h"
#include "tests/temp_dir.h"

namespace ks {
namespace {

namespace fs = std::filesystem;
const fs::path kModels = KS_ASSIMP_MODELS_DIR;

std::string read_bytes(const fs::path& path) {
  Result<std::string> bytes = read_file(path);
  EXPECT_TRUE(bytes.ok()) << bytes.error();
  return bytes.ok() ? bytes.value() : std::string{};
}

uint32_t crc32_of(const std::string& bytes) {
  uint32_t crc = 0xffffffffu;
  for (const char c : bytes) {
    crc ^= static_cast<unsigned char>(c);
    for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

// An entry of a hand-made archive: its bytes are stored as they are; the
// method and claimed size written into the central directory may lie.
struct ZipEntry {
  ZipEntry(std::string entry_name, std::string entry_bytes, uint16_t entry_method = 0,
           std::optional<uint32_t> claimed = std::nullopt)
      : name(std::move(entry_name)), bytes(std::move(entry_bytes)), method(entry_method), claimed_size(claimed) {}
  std::string name, bytes;
  uint16_t method;  // 0 stored, 8 deflated
  std::optional<uint32_t> claimed_size;
};

void put(std::string& out, uint32_t value, int width) {
  for (int b = 0; b < width; ++b) out += static_cast<char>((value >> (8 * b)) & 0xff);
}

std::string make_zip(const std::vector<ZipEntry>& entries) {
  std::string zip, directory;
  for (const ZipEntry& e : entries) {
    const uint32_t local = static_cast<uint32_t>(zip.size());
    const uint32_t crc = crc32_of(e.bytes), stored = static_cast<uint32_t>(e.bytes.size());
    const uint32_t size = e.claimed_size.value_or(stored);
    put(zip, 0x04034b50, 4), put(zip, 20, 2), put(zip, 0, 2), put(zip, e.method, 2), put(zip, 0, 4);
    put(zip, crc, 4), put(zip, stored, 4), put(zip, size, 4), put(zip, static_cast<uint32_t>(e.name.size()), 2);
    put(zip, 0, 2);
    zip += e.name + e.bytes;
    put(directory, 0x02014b50, 4), put(directory, 20, 2), put(directory, 20, 2), put(directory, 0, 2);
    put(directory, e.method, 2), put(directory, 0, 4), put(directory, crc, 4), put(directory, stored, 4);
    put(directory, size, 4), put(directory, static_cast<uint32_t>(e.name.size()), 2), put(directory, 0, 2);
    put(directory, 0, 2), put(directory, 0, 2), put(directory, 0, 2), put(directory, 0, 4), put(directory, local, 4);
    directory += e.name;
  }
  const uint32_t at = static_cast<uint32_t>(zip.size());
  zip += directory;
  put(zip, 0x06054b50, 4), put(zip, 0, 2), put(zip, 0, 2), put(zip, static_cast<uint32_t>(entries.size()), 2);
  put(zip, static_cast<uint32_t>(entries.size()), 2), put(zip, static_cast<uint32_t>(directory.size()), 4);
  put(zip, at, 4), put(zip, 0, 2);
  return zip;
}

#define REQUIRE_MODELS() \
  if (!fs::is_directory(kModels / "Collada")) GTEST_SKIP() << "assimp-testmodels is not installed at " << kModels

TEST(AssimpZae, FindsTheDocumentItsManifestNamesOrElseTheFirstDae) {
  const std::string manifest = "<?xml version=\"1.0\"?>\n<dae_root>./my%20scene.dae</dae_root>\n";
  Result<std::string> named = assimp::read_zae_document(make_zip(
      {{"a.dae", "<COLLADA>a</COLLADA>"}, {"manifest.xml", manifest}, {"my scene.dae", "<COLLADA>b</COLLADA>"}}));
  ASSERT_TRUE(named.ok()) << named.error();
  EXPECT_EQ(named.value(), "<COLLADA>b</COLLADA>");
  Result<std::string> first = assimp::read_zae_document(
      make_zip({{"textures/eye.png", "png"}, {"z.DAE", "<COLLADA>z</COLLADA>"}, {"b.dae", "<COLLADA>b</COLLADA>"}}));
  ASSERT_TRUE(first.ok()) << first.error();
  EXPECT_EQ(first.value(), "<COLLADA>b</COLLADA>");
}

TEST(AssimpZae, ReadsTheDeflatedDocumentsOfTheTestModels) {
  REQUIRE_MODELS();
  const struct {
    const char* zae;
    const char* dae;
  } models[] = {{"duck.zae", "duck zae.dae"}, {"duck_nomanifest.zae", "duckzae.dae"}, {"human.zae", "human.dae"}};
  for (const auto& m : models) {
    SCOPED_TRACE(m.zae);
    Result<std::string> document = assimp::read_zae_document(read_bytes(kModels / "Collada" / m.zae));
    ASSERT_TRUE(document.ok()) << document.error();
    EXPECT_TRUE(document.value().starts_with("<?xml")) << document.value().substr(0, 40);
    EXPECT_NE(document.value().find("<COLLADA"), std::string::npos);
  }
}

TEST(AssimpZae, RefusesBrokenArchivesAndClaimsTheirBytesCannotHold) {
  const std::string dae = "<COLLADA></COLLADA>";
  const struct {
    const char* name;
    std::string zip;
    const char* problem;
  } cases[] = {
      {"not a zip", "<COLLADA></COLLADA> and then some more text", "no end of central directory"},
      {"tiny", "PK", "cut off"},
      {"no document", make_zip({{"readme.txt", "hello"}}), "no .dae document"},
      {"manifest names nothing", make_zip({{"manifest.xml", "<x/>"}, {"a.dae", dae}}), "names no <dae_root>"},
      {"manifest names a missing entry", make_zip({{"manifest.xml", "<dae_root>b.dae</dae_root>"}, {"a.dae", dae}}),
       "no entry 'b.dae'"},
      // 64 stored bytes cannot inflate to 100 MB: refused before anything is allocated.
      {"deflate bomb", make_zip({{"a.dae", std::string(64, 'x'), 8, 100'000'000u}}), "claims 100000000 bytes"},
      {"stored size mismatch", make_zip({{"a.dae", dae, 0, 5000u}}), "more than its 19 stored bytes"},
      {"method", make_zip({{"a.dae", dae, 12}}), "method 12"},
      {"not deflate data", make_zip({{"a.dae", std::string(64, '\xff'), 8}}), "does not inflate"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_TRUE(test::refused_mentioning(assimp::read_zae_document(c.zip), {c.problem}));
  }
  // Entries that each could come from their stored bytes but together claim
  // more than an input may have.
  const std::string block(200'000, 'x');
  EXPECT_TRUE(test::refused_mentioning(
      assimp::read_zae_document(make_zip({{"a.dae", block, 8, 200'000'000u}, {"b.png", block, 8, 200'000'000u}})),
      {"entries claim more than the 256 MiB"}));
  // A flipped byte fails the CRC.
  std::string zip = make_zip({{"a.dae", dae}});
  zip[zip.find("</COLLADA>") + 2] = 'X';
  EXPECT_TRUE(test::refused_mentioning(assimp::read_zae_document(zip), {"CRC-32"}));
  // The central directory pointing past the file.
  zip = make_zip({{"a.dae", dae}});
  zip[zip.size() - 6] = '\x7f';
  EXPECT_TRUE(test::refused_mentioning(assimp::read_zae_document(zip), {"central directory lies outside the file"}));
}

TEST(AssimpZae, ImportsAZaeAsItsDocumentThroughTheGuard) {
  REQUIRE_MODELS();
  test::TempDir dir;
  const std::string dae = read_bytes(kModels / "Collada/box_nested_animation.dae");
  const fs::path zae = dir.path() / "box.zae";
  std::ofstream(zae, std::ios::binary) << make_zip(
      {{"manifest.xml", "<dae_root>./box%20nested.dae</dae_root>"}, {"box nested.dae", dae}});
  Result<ImportedClip> zipped = import_clip(zae);
  Result<ImportedClip> plain = import_clip(kModels / "Collada/box_nested_animation.dae");
  ASSERT_TRUE(zipped.ok()) << zipped.error();
  ASSERT_TRUE(plain.ok()) << plain.error();
  EXPECT_EQ(zipped.value().skeleton.bone_count(), plain.value().skeleton.bone_count());
  EXPECT_EQ(zipped.value().clip.frame_count, plain.value().clip.frame_count);
  EXPECT_EQ(zipped.value().animation_names, plain.value().animation_names);
  EXPECT_EQ(zipped.value().source, zae);

  // The guard reads the document: one nested too deep is refused by it.
  std::string deep = "<?xml version=\"1.0\"?><COLLADA>";
  for (int i = 0; i < 20000; ++i) deep += "<node>";
  const fs::path deep_zae = dir.path() / "deep.zae";
  std::ofstream(deep_zae, std::ios::binary) << make_zip({{"deep.dae", deep}});
  EXPECT_TRUE(
      test::refused_mentioning(import_clip(deep_zae), {deep_zae.string(), "Collada document", "nested more than 256"}));

  // The test models' .zae files are read by assimp, and hold no animation.
  for (const char* file : {"duck.zae", "duck_nomanifest.zae", "human.zae"}) {
    const fs::path path = kModels / "Collada" / file;
    EXPECT_TRUE(test::refused_mentioning(import_clip(path), {path.string(), "no animations"}));
  }
  std::string rewritten;
  EXPECT_TRUE(test::refused_mentioning(assimp::check_input("PK\3\4 not really", ".zae", rewritten),
                                       {"no end of central directory"}));
}

}  // namespace
}  // namespace ks
