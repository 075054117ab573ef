// Override files and entries (core/io/override_file.h): NAME=MM[@CM] divides
// into metres, and a file read without an option names the file alone.

#include "keystream/io/override_file.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "tests/refused_mentioning.h"
#include "tests/temp_dir.h"

namespace ks {
namespace {

using test::refused_mentioning;

TEST(ParseBoneTolerance, DividesIntoMetres) {
  const Result<BoneTolerance> o = parse_bone_tolerance(" left hand = 0.3 @ 4 ");
  ASSERT_TRUE(o) << o.error();
  EXPECT_EQ(o.value().bone, "left hand");
  EXPECT_EQ(o.value().tolerance_m, 0.3f / 1000.f);
  EXPECT_EQ(o.value().shell_distance_m, 4.f / 100.f);
  const Result<BoneTolerance> inherited = parse_bone_tolerance("a=b=2");  // split at the last '='
  ASSERT_TRUE(inherited) << inherited.error();
  EXPECT_EQ(inherited.value().bone, "a=b");
  EXPECT_EQ(inherited.value().shell_distance_m, 0.f);
}

TEST(ParseBoneTolerance, RefusesWhatIsNotAnEntry) {
  EXPECT_TRUE(refused_mentioning(parse_bone_tolerance("head"), {"no '='"}));
  EXPECT_TRUE(refused_mentioning(parse_bone_tolerance(" =1"), {"names no bone"}));
  EXPECT_TRUE(refused_mentioning(parse_bone_tolerance("head=0"), {"\"head\"", "millimetres"}));
  EXPECT_TRUE(refused_mentioning(parse_bone_tolerance("head=1@-2"), {"\"head\"", "centimetres"}));
}

TEST(ReadOverrideFile, WithoutAnOptionNamesTheFileAlone) {
  const test::TempDir dir;
  const std::string path = (dir / "t.txt").string();
  std::ofstream(path) << "# comment\nhead=1 # trailing\n\n  hand#1=2\nbad\n";
  std::vector<std::pair<std::string, uint32_t>> entries;
  const Status s = read_override_file("", path, "tolerance", [&](std::string_view entry, uint32_t line) -> Status {
    entries.emplace_back(entry, line);
    if (entry == "bad") return Error{"stop"};
    return {};
  });
  EXPECT_EQ(s.error(), "stop");
  EXPECT_EQ(entries, (std::vector<std::pair<std::string, uint32_t>>{{"head=1", 2}, {"hand#1=2", 4}, {"bad", 5}}));
  const Status missing = read_override_file("", (dir / "absent.txt").string(), "tolerance",
                                            [](std::string_view, uint32_t) { return Status{}; });
  EXPECT_EQ(missing.error(), (dir / "absent.txt").string() + ": no such file");
  std::ofstream(path) << std::string(5000, 'N') << "=1\n";
  const Status long_line =
      read_override_file("", path, "tolerance", [](std::string_view, uint32_t) { return Status{}; });
  EXPECT_TRUE(refused_mentioning(long_line, {path + ":1: the line is 5002 bytes"}));
}

}  // namespace
}  // namespace ks
