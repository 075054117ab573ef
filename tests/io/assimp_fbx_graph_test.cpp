// Tests for core/io/assimp_fbx_graph.h and the FBX checks of assimp_guard.h
// that use it: ASCII FBX files made here, with the counts, depths and keys
// around each limit.
#include "keystream/io/assimp_fbx_graph.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "keystream/io/assimp_guard.h"
#include "tests/refused_mentioning.h"

namespace ks::assimp {
namespace {

// An ASCII FBX of `bones` LimbNodes, each the child of the one before when
// `chain`, else all children of the first; one curve on the last bone with
// `keys` keys.
std::string ascii_rig(size_t bones, bool chain, size_t keys) {
  std::string fbx = "; FBX 7.4.0 project file\nObjects:  {\n\tAnimationStack: 7, \"AnimStack::walk\", \"\" {\n\t}\n";
  for (size_t b = 0; b < bones; ++b) {
    fbx += "\tModel: " + std::to_string(1000 + b) + ", \"Model::b" + std::to_string(b) + "\", \"LimbNode\" {\n\t}\n";
  }
  fbx += "\tAnimationCurveNode: 5, \"AnimCurveNode::R\", \"\" {\n\t}\n";
  fbx += "\tAnimationCurve: 6, \"AnimCurve::\", \"\" {\n\t\tKeyTime: *" + std::to_string(keys) + " {\n\t\t\ta: ";
  for (size_t k = 0; k < keys; ++k) fbx += (k ? "," : "") + std::to_string(k * 1539538600);
  fbx += "\n\t\t}\n\t}\n}\nConnections:  {\n";
  for (size_t b = 0; b < bones; ++b) {
    const size_t parent = b == 0 ? 0 : chain ? 1000 + b - 1 : 1000;
    fbx += "\tC: \"OO\"," + std::to_string(1000 + b) + "," + std::to_string(parent) + "\n";
  }
  fbx += "\tC: \"OP\",5," + std::to_string(1000 + bones - 1) + ", \"Lcl Rotation\"\n";
  fbx += "\tC: \"OP\",6,5, \"d|X\"\n}\n";
  return fbx;
}

Status check(const std::string& fbx, std::string& rewritten, GuardFindings* findings = nullptr,
             uint64_t max_bone_frames = kDefaultMaxBoneFrames) {
  return check_input(fbx, ".fbx", rewritten, max_bone_frames, findings);
}

TEST(FbxGraph, ChainsUpToTheDepthLimitPassAndDeeperOnesAreRefusedWithTheLimit) {
  std::string rewritten;
  EXPECT_TRUE(check(ascii_rig(kMaxFbxDepth, true, 2), rewritten).ok());
  EXPECT_TRUE(test::refused_mentioning(check(ascii_rig(kMaxFbxDepth + 1, true, 2), rewritten),
                                       {"nested more than 1024 deep", "1025 levels down"}));
}

TEST(FbxGraph, ModelsUpToTheCountLimitPassAndMoreAreRefusedWithCountAndLimit) {
  std::string rewritten;
  EXPECT_TRUE(check(ascii_rig(kMaxFbxModels, false, 2), rewritten).ok());
  EXPECT_TRUE(test::refused_mentioning(check(ascii_rig(kMaxFbxModels + 1, false, 2), rewritten),
                                       {"16385 models", "at most 16384"}));
}

TEST(FbxGraph, ModelsLinkedInALoopAreRefused) {
  FbxGraph graph;
  graph.add_model(1, "a\0\1Model");
  graph.add_model(2, "b\0\1Model");
  graph.add_link(1, 2, "");
  graph.add_link(2, 1, "");
  EXPECT_TRUE(test::refused_mentioning(graph.check(kDefaultMaxBoneFrames), {"loop"}));
}

TEST(FbxGraph, LinksBeforeTheirModelsStillCountForDepth) {
  FbxGraph graph;
  for (uint64_t b = 1; b <= kMaxFbxDepth + 1; ++b) graph.add_link(b + 1, b, "");
  for (uint64_t b = 1; b <= kMaxFbxDepth + 1; ++b) graph.add_model(b, "m");
  EXPECT_TRUE(test::refused_mentioning(graph.check(kDefaultMaxBoneFrames), {"nested more than 1024"}));
}

TEST(FbxGraph, ACurveWithMoreKeysThanTheBoneFrameLimitAllowsIsRefusedBeforeAssimp) {
  std::string rewritten;
  EXPECT_TRUE(check(ascii_rig(3, true, 100), rewritten, nullptr, 100).ok());
  EXPECT_TRUE(test::refused_mentioning(check(ascii_rig(3, true, 101), rewritten, nullptr, 100),
                                       {"101 keys", "more than the limit of 100", "--max-bone-frames"}));
}

TEST(FbxGraph, CurvesWithoutKeysAreHiddenFromAssimpWithAWarningNamingWhatTheyAnimate) {
  const std::string fbx = ascii_rig(3, true, 0);
  std::string rewritten;
  GuardFindings findings;
  ASSERT_TRUE(check(fbx, rewritten, &findings).ok());
  ASSERT_EQ(rewritten.size(), fbx.size());
  EXPECT_EQ(rewritten.find("AnimationCurve:"), std::string::npos);
  EXPECT_NE(rewritten.find("AnimationCurvX:"), std::string::npos);
  EXPECT_NE(rewritten.find("AnimationCurveNode:"), std::string::npos);  // the node is kept
  ASSERT_EQ(findings.warnings.size(), 1u);
  EXPECT_NE(findings.warnings[0].find("1 FBX animation curve has no keys (b2 Lcl Rotation)"), std::string::npos)
      << findings.warnings[0];
  EXPECT_EQ(findings.still_takes, std::vector<std::string>{"walk"});  // its only curve: a still take
}

TEST(FbxGraph, CurvesWithKeysLeaveTheFileAsItIs) {
  std::string rewritten;
  GuardFindings findings;
  ASSERT_TRUE(check(ascii_rig(3, true, 2), rewritten, &findings).ok());
  EXPECT_TRUE(rewritten.empty());
  EXPECT_TRUE(findings.warnings.empty());
  EXPECT_TRUE(findings.still_takes.empty());
}

}  // namespace
}  // namespace ks::assimp
