#include "demo_skeleton.h"

#include <cassert>
#include <utility>

namespace ks::demo {

Vec mirrored(Vec left, const Side& side) {
  return {left.x * side.sign, left.y, left.z};
}

Skeleton make_skeleton() {
  Skeleton skeleton;
  const auto add = [&skeleton](std::string name, int parent, Vec translation, Rot rotation = kIdentity) {
    skeleton.names.push_back(std::move(name));
    skeleton.parents.push_back(parent);
    skeleton.rest.push_back({translation, rotation});
    return static_cast<int>(skeleton.names.size()) - 1;
  };
  [[maybe_unused]] int bone = add("root", -1, {0.0, 0.0, 0.0});
  bone = add("hips", kRoot, {0.0, kHipsHeight, 0.0});
  bone = add("spine", kHips, {0.0, 0.10, -0.01});
  bone = add("chest", kSpine, {0.0, 0.17, -0.01});
  bone = add("neck", kChest, {0.0, 0.21, 0.01});
  bone = add("head", kNeck, {0.0, 0.09, 0.01});
  assert(bone == kHead);
  for (const Side& side : kSides) {
    const std::string p = side.prefix;
    bone = add(p + "clavicle", kChest, mirrored({0.025, 0.14, 0.0}, side));
    bone = add(p + "upper_arm", side.clavicle, mirrored({0.155, 0.0, -0.01}, side), rot_z(side.sign * kArmAbduction));
    bone = add(p + "forearm", side.upper_arm, {0.0, -kUpperArmLength, 0.0});
    bone = add(p + "hand", side.forearm, {0.0, -kForearmLength, 0.0});
    bone = add(p + "fingers", side.hand, {0.0, -kPalmLength, 0.0});
    assert(bone == side.fingers);
  }
  for (const Side& side : kSides) {
    const std::string p = side.prefix;
    bone = add(p + "thigh", kHips, mirrored(kHipOffset, side));
    bone = add(p + "shin", side.thigh, {0.0, -kThighLength, 0.0});
    bone = add(p + "foot", side.shin, {0.0, -kShinLength, 0.0});
    bone = add(p + "toes", side.foot, kToeJoint);
    assert(bone == side.toes);
  }
  assert(static_cast<int>(skeleton.names.size()) == kBoneCount);
  return skeleton;
}

std::vector<Rigid> to_model_space(const Skeleton& skeleton, std::span<const Rigid> local) {
  std::vector<Rigid> model(local.size());
  for (size_t i = 0; i < local.size(); ++i) {
    const int parent = skeleton.parents[i];
    model[i] = parent < 0 ? local[i] : model[static_cast<size_t>(parent)] * local[i];
  }
  return model;
}

}  // namespace ks::demo
