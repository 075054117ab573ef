// The Open dialog's choice (app/studio/io/open_choice.h): the animation list is
// the file under the cursor's, moving the cursor lists the new file and
// chooses its first animation, choices out of range are ignored, a file that
// cannot be listed says why; and a newly opened clip selects the bone of the
// same name, never the same index of another rig.

#include "app/studio/io/open_choice.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

namespace ks::studio {
namespace {

// Files and their animations, and how often each was listed.
struct FakeFiles {
  std::map<std::string, std::vector<std::string>> animations = {
      {"demo.glb", {"walk", "idle"}},
      {"lumberjack.glb", {"Walk", "Poses", "Chop"}},
      {"take.bvh", {}},
  };
  std::map<std::string, int> listed;

  OpenChoice::ListAnimations lister() {
    return [this](const std::filesystem::path& file) -> Result<std::vector<std::string>> {
      ++listed[file.string()];
      const auto found = animations.find(file.string());
      if (found == animations.end()) return Error{file.string() + ": cannot open: No such file or directory"};
      return found->second;
    };
  }
};

TEST(OpenChoice, ListsTheFileUnderTheCursorNotTheOpenOne) {
  FakeFiles files;
  OpenChoice choice(files.lister());
  choice.point_at_open("demo.glb", {"walk", "idle"}, 1);
  EXPECT_EQ(choice.animation(), 1);
  EXPECT_TRUE(files.listed.empty());  // the open clip's names are known
  choice.point_at("lumberjack.glb");
  EXPECT_EQ(choice.file(), "lumberjack.glb");
  EXPECT_EQ(choice.animations(), (std::vector<std::string>{"Walk", "Poses", "Chop"}));
  EXPECT_EQ(choice.animation(), 0);  // its first, not the index chosen in the other file
  choice.choose_animation(2);
  EXPECT_EQ(choice.animation(), 2);
}

TEST(OpenChoice, TheSameFileAgainKeepsItsChoiceWithoutListingAgain) {
  FakeFiles files;
  OpenChoice choice(files.lister());
  choice.point_at("lumberjack.glb");
  choice.choose_animation(1);
  choice.point_at("lumberjack.glb");
  EXPECT_EQ(choice.animation(), 1);
  EXPECT_EQ(files.listed["lumberjack.glb"], 1);
  choice.point_at("demo.glb");
  choice.point_at("lumberjack.glb");  // away and back: listed afresh, first chosen
  EXPECT_EQ(choice.animation(), 0);
  EXPECT_EQ(files.listed["lumberjack.glb"], 2);
}

TEST(OpenChoice, RefusesChoicesOutOfRange) {
  FakeFiles files;
  OpenChoice choice(files.lister());
  choice.point_at("demo.glb");
  choice.choose_animation(2);
  choice.choose_animation(-1);
  EXPECT_EQ(choice.animation(), 0);
  choice.point_at("take.bvh");
  EXPECT_TRUE(choice.animations().empty());
  choice.choose_animation(1);
  EXPECT_EQ(choice.animation(), 0);
}

TEST(OpenChoice, AFileThatCannotBeListedSaysWhy) {
  FakeFiles files;
  OpenChoice choice(files.lister());
  choice.point_at("missing.glb");
  EXPECT_EQ(choice.file(), "missing.glb");
  EXPECT_TRUE(choice.animations().empty());
  EXPECT_NE(choice.error().find("missing.glb"), std::string::npos);
  choice.point_at("demo.glb");
  EXPECT_TRUE(choice.error().empty());
  choice.point_at({});
  EXPECT_TRUE(choice.file().empty());
  EXPECT_TRUE(choice.animations().empty());
}

Skeleton rig(std::vector<std::string> names) {
  Skeleton s;
  s.bone_names = std::move(names);
  return s;
}

TEST(BoneAfterOpen, FollowsTheNameNotTheIndex) {
  const Skeleton demo = rig({"hips", "spine", "left_thigh"});
  const Skeleton lumberjack = rig({"root", "MCH-spine_09", "hips", "left_thigh", "right_thigh"});
  EXPECT_EQ(bone_after_open(&demo, 2, lumberjack), 3);  // left_thigh, not MCH-spine_09
  EXPECT_EQ(bone_after_open(&demo, 1, lumberjack), 0);  // no spine: the first bone
  EXPECT_EQ(bone_after_open(nullptr, 2, lumberjack), 0);
  EXPECT_EQ(bone_after_open(&demo, 7, lumberjack), 0);
  EXPECT_EQ(bone_after_open(&demo, -1, lumberjack), 0);
  EXPECT_EQ(bone_after_open(&demo, 2, demo), 2);  // the same rig: the same bone
}

}  // namespace
}  // namespace ks::studio
