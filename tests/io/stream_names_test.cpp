// Stream file names of keystream compress --all-animations
// (core/io/stream_names.h): safe names, collisions made distinct by index,
// ignoring case.

#include "keystream/io/stream_names.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ks {
namespace {

using Names = std::vector<std::string>;

TEST(FileSafe, KeepsLettersDigitsDashAndUnderscore) {
  EXPECT_EQ(file_safe("Walk_Cycle-02"), "Walk_Cycle-02");
  EXPECT_EQ(file_safe("run/fast.v2 (loop)"), "run_fast_v2__loop_");
  EXPECT_EQ(file_safe("caf\xC3\xA9"), "caf__");  // every byte past ASCII
}

TEST(FileSafe, EmptyIsUnnamed) {
  EXPECT_EQ(file_safe(""), "unnamed");
}

TEST(Lowercase, LowersAsciiOnly) {
  EXPECT_EQ(lowercase("RUN_Fast-9"), "run_fast-9");
  EXPECT_EQ(lowercase("\xC3\x89"), "\xC3\x89");
}

TEST(AnimationFileNames, DistinctNamesAreKept) {
  EXPECT_EQ(animation_file_names({"Walk", "Run", ""}), (Names{"Walk", "Run", "unnamed"}));
  EXPECT_EQ(animation_file_names({}), Names{});
}

TEST(AnimationFileNames, NamesAlikeOnceSafeGetTheirIndex) {
  EXPECT_EQ(animation_file_names({"Run!", "Walk", "Run?"}), (Names{"Run__0", "Walk", "Run__2"}));
}

TEST(AnimationFileNames, NamesAlikeIgnoringCaseGetTheirIndex) {
  EXPECT_EQ(animation_file_names({"run", "RUN", "Idle"}), (Names{"run_0", "RUN_1", "Idle"}));
}

TEST(AnimationFileNames, EmptyNamesCollideAsUnnamed) {
  EXPECT_EQ(animation_file_names({"", "", "unnamed"}), (Names{"unnamed_0", "unnamed_1", "unnamed_2"}));
}

TEST(AnimationStreamPath, IsFolderStemPartKs) {
  EXPECT_EQ(animation_stream_path("out", "clips/hero.v2.glb", "Run__0"),
            std::filesystem::path("out/hero.v2.Run__0.ks"));
  EXPECT_EQ(animation_stream_path(".", "hero.fbx", "Idle"), std::filesystem::path("./hero.Idle.ks"));
}

}  // namespace
}  // namespace ks
