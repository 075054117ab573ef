// The studio's additive base (app/studio/settings/additive_choice.h): no base fits
// the clip as imported, a base fits a copy and leaves the imported clip;
// an animation of the open file is spelled so that FILE#ANIMATION reads it
// back; a base of the previous file does not follow another file.

#include "app/studio/settings/additive_choice.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tests/app/demo_clip.h"

namespace ks::studio {
namespace {

const std::filesystem::path kDemo = KS_ASSETS_DIR "/demo_walk.glb";

TEST(ClipToFit, NoBaseIsTheImportedClipItself) {
  const std::shared_ptr<const ImportedClip> imported = demo_clip();
  Result<std::shared_ptr<const ImportedClip>> fitted = clip_to_fit(imported, {}, {});
  ASSERT_TRUE(fitted.ok()) << fitted.error();
  EXPECT_EQ(fitted.value(), imported);
}

TEST(ClipToFit, ABaseMakesAnAdditiveCopyAndLeavesTheImportedClip) {
  const std::shared_ptr<const ImportedClip> imported = demo_clip();
  for (const AdditiveBase base : {AdditiveBase::kFirstFrame, AdditiveBase::kBindPose}) {
    Result<std::shared_ptr<const ImportedClip>> fitted = clip_to_fit(imported, {base, {}, {}}, {});
    ASSERT_TRUE(fitted.ok()) << fitted.error();
    EXPECT_NE(fitted.value(), imported);
    EXPECT_EQ(fitted.value()->clip.additive_base.kind, base);
    EXPECT_EQ(fitted.value()->mesh.has_value(), imported->mesh.has_value());  // the viewport still skins it
    EXPECT_FALSE(imported->clip.additive_base.additive());
  }
}

TEST(ClipToFit, AnAnimationOfTheOpenFileIsRecordedByFileAndName) {
  const std::shared_ptr<const ImportedClip> imported = demo_clip();
  const AdditiveBaseSpec spec = file_animation_base(kDemo, imported->animation_names, 0);
  Result<std::shared_ptr<const ImportedClip>> fitted = clip_to_fit(imported, spec, {});
  ASSERT_TRUE(fitted.ok()) << fitted.error();
  const AdditiveBasePoses& base = fitted.value()->clip.additive_base;
  EXPECT_EQ(base.kind, AdditiveBase::kClip);
  EXPECT_EQ(base.name.rfind(std::filesystem::absolute(kDemo).lexically_normal().string(), 0), 0u) << base.name;
  EXPECT_EQ(base.poses.size(), size_t{imported->clip.frame_count} * imported->skeleton.bone_count());
}

TEST(ClipToFit, RefusesABaseThatCannotBeMadeNamingIt) {
  const AdditiveBaseSpec spec{AdditiveBase::kClip, kDemo, "no such animation"};
  Result<std::shared_ptr<const ImportedClip>> fitted = clip_to_fit(demo_clip(), spec, {});
  ASSERT_FALSE(fitted.ok());
  EXPECT_NE(fitted.error().find("no such animation"), std::string::npos) << fitted.error();
}

TEST(FileAnimationBase, NamesTheAnimationWhenTheNameReadsBackElseItsIndex) {
  const std::vector<std::string> names = {"Walk", "12", "a#b", ""};
  const std::filesystem::path path = "clips/../walk.glb";
  const std::filesystem::path absolute = std::filesystem::absolute("walk.glb");
  const AdditiveBaseSpec walk = file_animation_base(path, names, 0);
  EXPECT_EQ(walk.base, AdditiveBase::kClip);
  EXPECT_EQ(walk.file, absolute);
  EXPECT_EQ(walk.animation, "Walk");
  EXPECT_EQ(file_animation_base(path, names, 1).animation, "1");  // digits would read as index 12
  EXPECT_EQ(file_animation_base(path, names, 2).animation, "2");  // FILE#a#b splits at the last '#'
  EXPECT_EQ(file_animation_base(path, names, 3).animation, "3");
  for (int i = 0; i < 4; ++i) EXPECT_EQ(file_animation_index(file_animation_base(path, names, i), path, names), i);
}

TEST(FileAnimationIndex, IsMinusOneForAnotherFileOrKind) {
  const std::vector<std::string> names = {"Walk", "Run"};
  const AdditiveBaseSpec run = file_animation_base("walk.glb", names, 1);
  EXPECT_EQ(file_animation_index(run, "./walk.glb", names), 1);
  EXPECT_EQ(file_animation_index(run, "run.glb", names), -1);
  EXPECT_EQ(file_animation_index({AdditiveBase::kFirstFrame, {}, {}}, "walk.glb", names), -1);
  EXPECT_EQ(file_animation_index({AdditiveBase::kClip, "walk.glb", "Jump"}, "walk.glb", names), -1);
  EXPECT_EQ(file_animation_index({AdditiveBase::kClip, "walk.glb", "7"}, "walk.glb", names), -1);
}

TEST(BaseAfterOpen, AnAnimationOfThePreviousFileDoesNotFollowAnotherFile) {
  const AdditiveBaseSpec of_walk{AdditiveBase::kClip, std::filesystem::absolute("walk.glb"), "Idle"};
  EXPECT_EQ(base_after_open(of_walk, "walk.glb", "run.glb").base, AdditiveBase::kNone);
  EXPECT_EQ(base_after_open(of_walk, "walk.glb", "./walk.glb").animation, "Idle");  // another animation of it
  const AdditiveBaseSpec other{AdditiveBase::kClip, "/clips/idle.glb", "Idle"};
  EXPECT_EQ(base_after_open(other, "walk.glb", "run.glb").file, other.file);
  EXPECT_EQ(base_after_open({AdditiveBase::kFirstFrame, {}, {}}, "walk.glb", "run.glb").base,
            AdditiveBase::kFirstFrame);
}

TEST(AdditiveLabel, NamesTheBaseAsTheCommandLineDoes) {
  EXPECT_EQ(additive_label({}), "");
  EXPECT_EQ(additive_label({AdditiveBase::kFirstFrame, {}, {Transform{}}}), "additive to first-frame");
  EXPECT_EQ(additive_label({AdditiveBase::kBindPose, {}, {Transform{}}}), "additive to bind-pose");
  EXPECT_EQ(additive_label({AdditiveBase::kClip, "/clips/robot.glb#Robot_Idle", {Transform{}}}),
            "additive to robot.glb#Robot_Idle");
}

}  // namespace
}  // namespace ks::studio
