#pragma once
// The demo character's two animations as poses, one local transform per bone
// at each frame. The legs are posed by inverse kinematics from foot targets
// so that planted feet stay planted; the rest is forward kinematics from
// periodic curves.

#include <vector>

#include "demo_math.h"
#include "demo_skeleton.h"

namespace ks::demo {

inline constexpr double kSampleRate = 30.0;  // Hz, both animations

// Walk: a 1.1 s cycle (33 frames) at 1.2 m/s, so a 1.32 m stride, the
// cadence and step length of an unhurried adult.
inline constexpr int kWalkCycleFrames = 33;
inline constexpr int kWalkCycles = 2;

// Idle: 6 s, one slow weight shift and two breaths.
inline constexpr int kIdleFrames = 180;

/// The walk at `frame` (kSampleRate frames per second, a cycle every
/// kWalkCycleFrames), moving along +Z.
std::vector<Rigid> walk_pose(const Skeleton& skeleton, int frame);

/// Standing idle at `frame`; frame kIdleFrames is frame 0 again.
std::vector<Rigid> idle_pose(const Skeleton& skeleton, int frame);

}  // namespace ks::demo
