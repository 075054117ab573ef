#include "demo_character.h"

// Everything is computed in double and rounded to float only when written, so
// that the output does not depend on how a compiler orders float arithmetic.
// Only the ordered containers of tinygltf (std::map) are used, and every
// buffer byte is written explicitly (padding is zeroed), so the file is the
// same on every build.
//
// The character's parts are built in demo_skeleton (bones, conventions),
// demo_mesh (the body) and demo_motion (walk and idle); this file assembles
// them into the glTF model.

#include <array>
#include <cassert>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "demo_math.h"
#include "demo_mesh.h"
#include "demo_motion.h"
#include "demo_skeleton.h"
#include "gltf_accessors.h"

namespace ks::demo {
namespace {

/// One primitive's vertex streams, gathered from the parts of its material.
struct PrimitiveData {
  std::vector<float> positions, normals, weights;
  std::vector<uint8_t> joints;
  std::vector<uint16_t> indices;
};

void append_part(PrimitiveData& primitive, const Part& part) {
  const size_t base = primitive.positions.size() / 3;
  for (size_t i = 0; i < part.positions.size(); ++i) {
    push(primitive.positions, part.positions[i]);
    push(primitive.normals, part.normals[i]);
    // Weights rounded to float, the largest absorbing the rounding so the
    // four stored floats still sum to 1.
    const Influences& influences = part.influences[i];
    std::array<float, 4> weight{};
    for (size_t k = 1; k < 4; ++k) weight[k] = static_cast<float>(influences.weights[k]);
    weight[0] = 1.0f - (weight[1] + weight[2] + weight[3]);
    for (size_t k = 0; k < 4; ++k) {
      primitive.joints.push_back(static_cast<uint8_t>(influences.bones[k]));
      primitive.weights.push_back(weight[k]);
    }
  }
  for (uint32_t index : part.indices) {
    assert(base + index <= UINT16_MAX);
    primitive.indices.push_back(static_cast<uint16_t>(base + index));
  }
}

int add_material(tinygltf::Model& model, const char* name, std::array<double, 3> base_color, double roughness) {
  tinygltf::Material material;
  material.name = name;
  material.pbrMetallicRoughness.baseColorFactor = {base_color[0], base_color[1], base_color[2], 1.0};
  material.pbrMetallicRoughness.metallicFactor = 0.0;
  material.pbrMetallicRoughness.roughnessFactor = roughness;
  model.materials.push_back(material);
  return static_cast<int>(model.materials.size()) - 1;
}

void add_materials(tinygltf::Model& model) {
  // Linear base colours; indices follow enum Material.
  add_material(model, "skin", {0.80, 0.52, 0.38}, 0.7);
  add_material(model, "shirt", {0.12, 0.33, 0.72}, 0.85);
  add_material(model, "trousers", {0.16, 0.17, 0.21}, 0.9);
  add_material(model, "shoes", {0.30, 0.14, 0.06}, 0.6);
  add_material(model, "hair", {0.16, 0.09, 0.05}, 0.8);
  add_material(model, "eyes", {0.03, 0.03, 0.03}, 0.3);
  assert(model.materials.size() == static_cast<size_t>(kMaterialCount));
}

void add_mesh(tinygltf::Model& model, const std::vector<Rigid>& bind_model) {
  std::array<PrimitiveData, kMaterialCount> primitives;
  for (const Part& part : build_body(bind_model)) append_part(primitives[static_cast<size_t>(part.material)], part);
  tinygltf::Mesh mesh;
  mesh.name = "demo_character";
  for (size_t m = 0; m < primitives.size(); ++m) {
    const PrimitiveData& data = primitives[m];
    tinygltf::Primitive primitive;
    primitive.attributes["POSITION"] =
        add_float_accessor(model, data.positions, TINYGLTF_TYPE_VEC3, 3, TINYGLTF_TARGET_ARRAY_BUFFER, true);
    primitive.attributes["NORMAL"] =
        add_float_accessor(model, data.normals, TINYGLTF_TYPE_VEC3, 3, TINYGLTF_TARGET_ARRAY_BUFFER, false);
    primitive.attributes["JOINTS_0"] = add_integer_accessor(model, data.joints, TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE,
                                                            TINYGLTF_TYPE_VEC4, 4, TINYGLTF_TARGET_ARRAY_BUFFER);
    primitive.attributes["WEIGHTS_0"] =
        add_float_accessor(model, data.weights, TINYGLTF_TYPE_VEC4, 4, TINYGLTF_TARGET_ARRAY_BUFFER, false);
    primitive.indices = add_integer_accessor(model, data.indices, TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT,
                                             TINYGLTF_TYPE_SCALAR, 1, TINYGLTF_TARGET_ELEMENT_ARRAY_BUFFER);
    primitive.material = static_cast<int>(m);
    primitive.mode = TINYGLTF_MODE_TRIANGLES;
    mesh.primitives.push_back(primitive);
  }
  model.meshes.push_back(mesh);
}

/// Bone nodes 0..kBoneCount-1 with their rest TRS, children in bone order.
void add_bone_nodes(tinygltf::Model& model, const Skeleton& skeleton) {
  for (size_t i = 0; i < skeleton.names.size(); ++i) {
    tinygltf::Node node;
    node.name = skeleton.names[i];
    const Rigid& rest = skeleton.rest[i];
    if (rest.translation != Vec{0.0}) node.translation = {rest.translation.x, rest.translation.y, rest.translation.z};
    if (rest.rotation != kIdentity)
      node.rotation = {rest.rotation.x, rest.rotation.y, rest.rotation.z, rest.rotation.w};
    model.nodes.push_back(node);
  }
  for (size_t i = 0; i < skeleton.parents.size(); ++i) {
    if (skeleton.parents[i] >= 0)
      model.nodes[static_cast<size_t>(skeleton.parents[i])].children.push_back(static_cast<int>(i));
  }
}

void add_skin(tinygltf::Model& model, const std::vector<Rigid>& bind_model) {
  // Inverse bind matrices, column-major as glTF stores them.
  std::vector<float> matrices;
  for (const Rigid& bind : bind_model) {
    const Rigid inv = inverse(bind);
    const glm::dmat3 r = glm::mat3_cast(inv.rotation);
    for (int column = 0; column < 3; ++column)
      matrices.insert(matrices.end(), {static_cast<float>(r[column][0]), static_cast<float>(r[column][1]),
                                       static_cast<float>(r[column][2]), 0.0f});
    push(matrices, inv.translation);
    matrices.push_back(1.0f);
  }
  tinygltf::Skin skin;
  skin.name = "demo_character";
  skin.inverseBindMatrices = add_float_accessor(model, matrices, TINYGLTF_TYPE_MAT4, 16, 0, false);
  for (int i = 0; i < kBoneCount; ++i) skin.joints.push_back(i);
  skin.skeleton = kRoot;
  model.skins.push_back(skin);
}

/// Adds an animation sampled from `pose_at(frame)` for frames 0..last_frame:
/// translation channels for `translated` bones, rotation channels for all
/// but the root. Rotations are kept in one hemisphere from key to key.
template <class PoseAt>
void add_animation(tinygltf::Model& model, const char* name, int last_frame, std::span<const int> translated,
                   PoseAt pose_at) {
  std::vector<float> times;
  std::vector<std::vector<Rigid>> poses;
  for (int frame = 0; frame <= last_frame; ++frame) {
    times.push_back(static_cast<float>(frame / kSampleRate));
    poses.push_back(pose_at(frame));
  }
  tinygltf::Animation animation;
  animation.name = name;
  const int input = add_float_accessor(model, times, TINYGLTF_TYPE_SCALAR, 1, 0, true);
  const auto add_channel = [&](int bone, const char* path, const std::vector<float>& values, int type, int components) {
    tinygltf::AnimationSampler sampler;
    sampler.input = input;
    sampler.output = add_float_accessor(model, values, type, components, 0, false);
    sampler.interpolation = "LINEAR";
    animation.samplers.push_back(sampler);
    tinygltf::AnimationChannel channel;
    channel.sampler = static_cast<int>(animation.samplers.size()) - 1;
    channel.target_node = bone;
    channel.target_path = path;
    animation.channels.push_back(channel);
  };
  for (int bone : translated) {
    std::vector<float> values;
    for (const auto& pose : poses) push(values, pose[static_cast<size_t>(bone)].translation);
    add_channel(bone, "translation", values, TINYGLTF_TYPE_VEC3, 3);
  }
  for (int bone = kHips; bone < kBoneCount; ++bone) {
    std::vector<float> values;
    Rot previous = kIdentity;
    for (const auto& pose : poses) {
      Rot q = glm::normalize(pose[static_cast<size_t>(bone)].rotation);
      if (glm::dot(q, previous) < 0.0) q = -q;
      push(values, q);
      previous = q;
    }
    add_channel(bone, "rotation", values, TINYGLTF_TYPE_VEC4, 4);
  }
  model.animations.push_back(animation);
}

}  // namespace

tinygltf::Model build_demo_model() {
  const Skeleton skeleton = make_skeleton();
  const std::vector<Rigid> bind_model = to_model_space(skeleton, skeleton.rest);

  tinygltf::Model model;
  model.asset.version = "2.0";
  model.asset.generator = "keystream make_demo_clip";
  model.asset.copyright =
      "Generated procedurally by the keystream project (app/make_demo_clip); no third-party content.";
  tinygltf::Value::Object extras;
  extras["source"] = tinygltf::Value(std::string("app/make_demo_clip/demo_character.cpp"));
  extras["regenerate"] = tinygltf::Value(std::string("make_demo_clip assets/demo_walk.glb"));
  model.asset.extras = tinygltf::Value(extras);
  model.buffers.emplace_back();

  add_materials(model);
  add_bone_nodes(model, skeleton);
  add_mesh(model, bind_model);
  add_skin(model, bind_model);

  // The skinned mesh node sits at the scene root beside the skeleton: glTF
  // ignores a skinned mesh node's own transform, so it is identity anyway.
  tinygltf::Node body;
  body.name = "body";
  body.mesh = 0;
  body.skin = 0;
  model.nodes.push_back(body);
  tinygltf::Scene scene;
  scene.name = "demo";
  scene.nodes = {kRoot, static_cast<int>(model.nodes.size()) - 1};
  model.scenes.push_back(scene);
  model.defaultScene = 0;

  const int walk_translated[] = {kRoot, kHips};
  add_animation(model, "walk", kWalkCycleFrames * kWalkCycles, walk_translated,
                [&skeleton](int frame) { return walk_pose(skeleton, frame); });
  const int idle_translated[] = {kHips};
  add_animation(model, "idle", kIdleFrames, idle_translated,
                [&skeleton](int frame) { return idle_pose(skeleton, frame); });
  return model;
}

}  // namespace ks::demo
