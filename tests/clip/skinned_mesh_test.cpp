#include "keystream/clip/skinned_mesh.h"

#include <gtest/gtest.h>

#include <initializer_list>
#include <limits>
#include <string>
#include <string_view>

#include "tests/refused_mentioning.h"

namespace ks {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr size_t kBones = 3;

using test::refused_mentioning;

// A unit quad of two triangles, blended across bones 0 to 2.
SkinnedMesh make_quad() {
  SkinnedMesh m;
  m.positions = {{0.f, 0.f, 0.f}, {1.f, 0.f, 0.f}, {0.f, 1.f, 0.f}, {1.f, 1.f, 0.f}};
  m.normals.assign(4, Vec3{0.f, 0.f, 1.f});
  m.colors.assign(4, Vec3{0.8f, 0.5f, 0.2f});
  m.joints = {{0, 0, 0, 0}, {0, 1, 0, 0}, {1, 2, 0, 0}, {2, 1, 0, 0}};
  m.weights = {{1.f, 0.f, 0.f, 0.f}, {0.5f, 0.5f, 0.f, 0.f}, {0.25f, 0.75f, 0.f, 0.f}, {0.6f, 0.3f, 0.1f, 0.f}};
  m.indices = {0, 1, 2, 2, 1, 3};
  return m;
}

TEST(SkinnedMeshValidate, AcceptsValidMesh) {
  const SkinnedMesh m = make_quad();
  EXPECT_EQ(m.vertex_count(), 4u);
  const Status status = m.validate(kBones);
  EXPECT_TRUE(status.ok()) << status.error();
}

TEST(SkinnedMeshValidate, AcceptsEmptyMesh) {
  const Status status = SkinnedMesh{}.validate(kBones);
  EXPECT_TRUE(status.ok()) << status.error();
}

TEST(SkinnedMeshValidate, RefusesNormalCountMismatch) {
  SkinnedMesh m = make_quad();
  m.normals.pop_back();
  EXPECT_TRUE(refused_mentioning(m.validate(kBones), {"4 positions", "3 normals"}));
}

TEST(SkinnedMeshValidate, RefusesColourCountMismatch) {
  SkinnedMesh m = make_quad();
  m.colors.push_back({});
  EXPECT_TRUE(refused_mentioning(m.validate(kBones), {"4 positions", "5 colours"}));
}

TEST(SkinnedMeshValidate, RefusesJointCountMismatch) {
  SkinnedMesh m = make_quad();
  m.joints.clear();
  EXPECT_TRUE(refused_mentioning(m.validate(kBones), {"4 positions", "0 joint sets"}));
}

TEST(SkinnedMeshValidate, RefusesWeightCountMismatch) {
  SkinnedMesh m = make_quad();
  m.weights.pop_back();
  EXPECT_TRUE(refused_mentioning(m.validate(kBones), {"4 positions", "3 weight sets"}));
}

TEST(SkinnedMeshValidate, RefusesNonFinitePosition) {
  SkinnedMesh m = make_quad();
  m.positions[2].y = kNaN;
  EXPECT_TRUE(refused_mentioning(m.validate(kBones), {"vertex 2", "not finite"}));
}

TEST(SkinnedMeshValidate, RefusesNonFiniteNormal) {
  SkinnedMesh m = make_quad();
  m.normals[1].z = kInf;
  EXPECT_TRUE(refused_mentioning(m.validate(kBones), {"vertex 1", "not finite"}));
}

TEST(SkinnedMeshValidate, RefusesNonFiniteColour) {
  SkinnedMesh m = make_quad();
  m.colors[3].x = -kInf;
  EXPECT_TRUE(refused_mentioning(m.validate(kBones), {"vertex 3", "not finite"}));
}

TEST(SkinnedMeshValidate, RefusesJointThatIsNotABone) {
  SkinnedMesh m = make_quad();
  m.joints[3][1] = static_cast<uint16_t>(kBones);  // one past the last bone
  EXPECT_TRUE(refused_mentioning(m.validate(kBones), {"vertex 3", "joint 3", "3 bones"}));
}

TEST(SkinnedMeshValidate, RefusesUnweightedJointThatIsNotABone) {
  SkinnedMesh m = make_quad();
  m.joints[0][3] = 500;  // weight 0, but still an index into the skeleton
  EXPECT_TRUE(refused_mentioning(m.validate(kBones), {"vertex 0", "joint 500"}));
}

TEST(SkinnedMeshValidate, RefusesNegativeWeight) {
  SkinnedMesh m = make_quad();
  m.weights[1] = {1.5f, -0.5f, 0.f, 0.f};  // sums to 1
  EXPECT_TRUE(refused_mentioning(m.validate(kBones), {"vertex 1", "negative"}));
}

TEST(SkinnedMeshValidate, RefusesNonFiniteWeight) {
  SkinnedMesh m = make_quad();
  m.weights[2][3] = kNaN;
  EXPECT_TRUE(refused_mentioning(m.validate(kBones), {"vertex 2", "weight"}));
}

TEST(SkinnedMeshValidate, RefusesWeightsNotSummingToOne) {
  SkinnedMesh m = make_quad();
  m.weights[2] = {0.25f, 0.7f, 0.f, 0.f};
  EXPECT_TRUE(refused_mentioning(m.validate(kBones), {"vertex 2", "sum to 0.95"}));
  m.weights[2] = {0.f, 0.f, 0.f, 0.f};
  EXPECT_TRUE(refused_mentioning(m.validate(kBones), {"vertex 2", "sum to 0"}));
  m.weights[2] = {1.f, 1.f, 0.f, 0.f};
  EXPECT_TRUE(refused_mentioning(m.validate(kBones), {"vertex 2", "sum to 2"}));
}

TEST(SkinnedMeshValidate, AcceptsWeightSumWithin1e3) {
  SkinnedMesh m = make_quad();
  m.weights[2] = {0.25f, 0.7505f, 0.f, 0.f};
  const Status status = m.validate(kBones);
  EXPECT_TRUE(status.ok()) << status.error();
}

TEST(SkinnedMeshValidate, RefusesIndicesNotInThrees) {
  SkinnedMesh m = make_quad();
  m.indices.pop_back();
  EXPECT_TRUE(refused_mentioning(m.validate(kBones), {"5 indices", "multiple of 3"}));
}

TEST(SkinnedMeshValidate, RefusesIndexPastLastVertex) {
  SkinnedMesh m = make_quad();
  m.indices[4] = 4;
  EXPECT_TRUE(refused_mentioning(m.validate(kBones), {"index 4 is 4", "4 vertices"}));
}

// The quad with a 2 x 1 texture on its first triangle and none on its second.
SkinnedMesh make_textured_quad() {
  SkinnedMesh m = make_quad();
  m.uvs = {{0.f, 0.f}, {1.f, 0.f}, {0.f, 1.f}, {1.f, 1.f}};
  m.textures.push_back({2, 1, std::vector<uint8_t>(8, 255)});
  m.parts = {{0, 3, 0}, {3, 3, -1}};
  return m;
}

TEST(SkinnedMeshValidate, AcceptsATexturedMesh) {
  const Status status = make_textured_quad().validate(kBones);
  EXPECT_TRUE(status.ok()) << status.error();
}

TEST(SkinnedMeshValidate, RefusesUvCountMismatchAndNonFiniteUvs) {
  SkinnedMesh m = make_textured_quad();
  m.uvs.pop_back();
  EXPECT_TRUE(refused_mentioning(m.validate(kBones), {"4 positions", "3 uvs"}));
  m = make_textured_quad();
  m.uvs[2][1] = kNaN;
  EXPECT_TRUE(refused_mentioning(m.validate(kBones), {"vertex 2", "uv"}));
}

TEST(SkinnedMeshValidate, RefusesATextureWhoseBytesAreNotItsSize) {
  SkinnedMesh m = make_textured_quad();
  m.textures[0].rgba.pop_back();
  EXPECT_TRUE(refused_mentioning(m.validate(kBones), {"texture 0", "2 x 1", "7 bytes"}));
}

TEST(SkinnedMeshValidate, RefusesPartsOutsideTheIndicesOrOffTriangles) {
  SkinnedMesh m = make_textured_quad();
  m.parts[1].index_count = 6;
  EXPECT_TRUE(refused_mentioning(m.validate(kBones), {"part 1", "not whole triangles of the 6"}));
  m = make_textured_quad();
  m.parts[0] = {1, 3, 0};
  EXPECT_TRUE(refused_mentioning(m.validate(kBones), {"part 0"}));
}

TEST(SkinnedMeshValidate, RefusesAPartNamingNoTextureOrTexturedWithoutUvs) {
  SkinnedMesh m = make_textured_quad();
  m.parts[1].texture = 1;
  EXPECT_TRUE(refused_mentioning(m.validate(kBones), {"part 1", "texture 1 of 1"}));
  m = make_textured_quad();
  m.parts[1].texture = -2;
  EXPECT_TRUE(refused_mentioning(m.validate(kBones), {"part 1", "texture -2"}));
  m = make_textured_quad();
  m.uvs.clear();
  EXPECT_TRUE(refused_mentioning(m.validate(kBones), {"part 0", "no uvs"}));
}

// The quad with a target moving vertices 1 and 2 (normals too).
SkinnedMesh make_morphed_quad() {
  SkinnedMesh m = make_quad();
  MorphTarget& target = m.morph_targets.emplace_back();
  target.name = "smile";
  target.node = "face";
  target.first_vertex = 1;
  target.position_deltas = {{0.f, 0.1f, 0.f}, {0.f, 0.2f, 0.f}};
  target.normal_deltas = {{0.f, 0.f, 0.f}, {0.1f, 0.f, 0.f}};
  return m;
}

TEST(SkinnedMeshValidate, AcceptsMorphTargetsWithAndWithoutNormals) {
  SkinnedMesh m = make_morphed_quad();
  Status status = m.validate(kBones);
  EXPECT_TRUE(status.ok()) << status.error();
  m.morph_targets[0].normal_deltas.clear();
  status = m.validate(kBones);
  EXPECT_TRUE(status.ok()) << status.error();
}

TEST(SkinnedMeshValidate, RefusesAMorphTargetPastTheVertices) {
  SkinnedMesh m = make_morphed_quad();
  m.morph_targets[0].first_vertex = 3;
  EXPECT_TRUE(refused_mentioning(m.validate(kBones), {"morph target 0", "3 + 2", "4"}));
  m.morph_targets[0].first_vertex = 0xffffffffu;  // first + run would wrap around in 32 bits
  EXPECT_TRUE(refused_mentioning(m.validate(kBones), {"morph target 0", "4294967295 + 2"}));
}

TEST(SkinnedMeshValidate, RefusesMorphNormalsThatAreNotOnePerPosition) {
  SkinnedMesh m = make_morphed_quad();
  m.morph_targets[0].normal_deltas.pop_back();
  EXPECT_TRUE(refused_mentioning(m.validate(kBones), {"morph target 0", "2 position deltas but 1 normal deltas"}));
}

TEST(SkinnedMeshValidate, RefusesNonFiniteMorphDeltasAndWeights) {
  for (const float bad : {kNaN, kInf}) {
    SkinnedMesh m = make_morphed_quad();
    m.morph_targets[0].position_deltas[1].y = bad;
    EXPECT_TRUE(refused_mentioning(m.validate(kBones), {"morph target 0", "vertex 2", "not finite"}));
    m = make_morphed_quad();
    m.morph_targets[0].normal_deltas[0].z = bad;
    EXPECT_TRUE(refused_mentioning(m.validate(kBones), {"morph target 0", "vertex 1", "not finite"}));
    m = make_morphed_quad();
    m.morph_targets[0].default_weight = bad;
    EXPECT_TRUE(refused_mentioning(m.validate(kBones), {"morph target 0", "default weight"}));
  }
}

}  // namespace
}  // namespace ks
