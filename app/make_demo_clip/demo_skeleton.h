#pragma once
// The demo character's 24-bone skeleton: bone indices, proportions and the
// bind pose. Conventions: metres, Y up, the character faces +Z, so its left
// is +X. Every bone's bind frame has -Y pointing down the limb (+Z for the
// feet) and +Z forward; the upper arms are the only bones with a rest
// rotation.

#include <array>
#include <span>
#include <string>
#include <vector>

#include "demo_math.h"

namespace ks::demo {

inline constexpr int kRoot = 0;
inline constexpr int kHips = 1;
inline constexpr int kSpine = 2;
inline constexpr int kChest = 3;
inline constexpr int kNeck = 4;
inline constexpr int kHead = 5;
inline constexpr int kBoneCount = 24;

/// The bones of one side. `sign` is +1 on the left (+X) and -1 on the right,
/// so one piece of code poses both sides as mirror images.
struct Side {
  double sign;
  const char* prefix;
  int clavicle, upper_arm, forearm, hand, fingers;
  int thigh, shin, foot, toes;
};
inline constexpr Side kLeft{+1.0, "left_", 6, 7, 8, 9, 10, 16, 17, 18, 19};
inline constexpr Side kRight{-1.0, "right_", 11, 12, 13, 14, 15, 20, 21, 22, 23};
inline constexpr std::array<Side, 2> kSides{kLeft, kRight};

// Proportions of a 1.76 m figure (top of the hair), metres.
inline constexpr double kHipsHeight = 1.00;   // pelvis centre above the ground, standing
inline constexpr double kThighLength = 0.44;  // hip joint to knee
inline constexpr double kShinLength = 0.44;   // knee to ankle
inline constexpr double kAnkleHeight = 0.07;  // ankle above the sole
inline constexpr double kUpperArmLength = 0.29;
inline constexpr double kForearmLength = 0.25;
inline constexpr double kPalmLength = 0.095;    // wrist to knuckles
inline const Vec kHipOffset{0.09, -0.05, 0.0};  // hip joint from the pelvis centre (left side)
inline const Vec kToeJoint{0.0, -0.05, 0.13};   // ball of the foot from the ankle
inline const double kArmAbduction = deg(8.0);   // bind pose arms hang slightly out, clear of the torso

/// Bone names, parents and local bind pose, one entry per bone.
struct Skeleton {
  std::vector<std::string> names;
  std::vector<int> parents;  // parents before children
  std::vector<Rigid> rest;   // local bind pose
};

/// `left`, a point or offset given for the left side, on `side`.
Vec mirrored(Vec left, const Side& side);

/// The skeleton, bones numbered as the constants above say.
Skeleton make_skeleton();

/// Model-space transforms of every bone from local ones.
std::vector<Rigid> to_model_space(const Skeleton& skeleton, std::span<const Rigid> local);

}  // namespace ks::demo
