#include "demo_motion.h"

#include <algorithm>
#include <cmath>

namespace ks::demo {

namespace {

constexpr double kWalkSpeed = 1.2;                                    // m/s along +Z
constexpr double kWalkCycleSeconds = kWalkCycleFrames / kSampleRate;  // s
constexpr double kStanceEnd = 0.6;                                    // phase of toe-off; heel strike at 0
constexpr double kHeelRockerEnd = 0.1;       // phase at which the foot is flat after heel strike
constexpr double kHeelRiseStart = 0.35;      // phase at which the heel starts to lift
const double kHeelStrikePitch = deg(-15.0);  // foot pitch at heel strike (toes up)
const double kToeOffPitch = deg(55.0);       // foot pitch at toe-off (heel up)
const double kHeelStrikeToes = deg(-10.0);   // toes lifted at heel strike
constexpr double kFootReach = 0.30;          // flat-foot ankle ahead of the pelvis at heel strike, metres
constexpr double kFootTrackX = 0.08;         // plants left and right of the line of travel, metres
const double kToeOut = deg(6.0);

/// Where a foot is and how it is turned, in model space.
struct FootPose {
  Vec ankle;
  Rot rotation;      // of the foot bone
  double toe_pitch;  // toes bone about X, radians; negative bends the toes up
};

/// The foot planted with its flat-foot ankle at `plant`, rolled by `pitch`
/// about the ground contact it rolls on: the heel when the toes are up
/// (pitch < 0), the ball when the heel is up.
FootPose rolled_foot(Vec plant, double yaw, double pitch, double toe_pitch) {
  const Rot flat = rot_y(yaw);
  const Rot rotation = flat * rot_x(pitch);
  const Vec heel{0.0, -kAnkleHeight, -0.07};
  const Vec pivot = pitch < 0.0 ? heel : kToeJoint;
  return {plant + flat * pivot - rotation * pivot, rotation, toe_pitch};
}

/// Stance phase: 0 at heel strike, kStanceEnd at toe-off. The foot rocks
/// onto the heel, lies flat, then peels off over the ball with the toes
/// staying on the ground.
FootPose stance_foot(Vec plant, double yaw, double phase) {
  if (phase < kHeelRiseStart) {
    const double toes_up = 1.0 - smoothstep(0.0, kHeelRockerEnd, phase);
    return rolled_foot(plant, yaw, kHeelStrikePitch * toes_up, kHeelStrikeToes * toes_up);
  }
  const double pitch = kToeOffPitch * smoothstep(kHeelRiseStart, kStanceEnd, phase);
  return rolled_foot(plant, yaw, pitch, -pitch);
}

/// Swing phase, u from 0 (toe-off at `lift_plant`) to 1 (heel strike at
/// `land_plant`). Stance poses move with zero velocity at both events, so
/// the flat-ended curves here continue them smoothly.
FootPose swing_foot(Vec lift_plant, Vec land_plant, double yaw, double u, double side_sign) {
  const FootPose lift = stance_foot(lift_plant, yaw, kStanceEnd);
  const FootPose land = stance_foot(land_plant, yaw, 0.0);
  // The ankle rises behind the body (the knee folds), clears the ground
  // passing the other foot, and drops onto the heel.
  const Key height[] = {{0.0, lift.ankle.y}, {0.28, 0.25}, {0.55, 0.13}, {0.85, 0.10}, {1.0, land.ankle.y}};
  const Key pitch[] = {
      {0.0, kToeOffPitch}, {0.3, deg(20.0)}, {0.55, deg(-5.0)}, {0.85, deg(-14.0)}, {1.0, kHeelStrikePitch}};
  const Key toes[] = {
      {0.0, -kToeOffPitch}, {0.3, deg(-5.0)}, {0.6, 0.0}, {0.9, kHeelStrikeToes}, {1.0, kHeelStrikeToes}};
  const double forward = smoothstep(0.0, 1.0, u);
  const double outward = 0.015 * std::sin(kPi * u);  // swing wide of the standing foot
  const Vec ankle{lerp(lift.ankle.x, land.ankle.x, forward) + side_sign * outward, smooth_curve(height, u),
                  lerp(lift.ankle.z, land.ankle.z, forward)};
  return {ankle, rot_y(yaw) * rot_x(smooth_curve(pitch, u)), smooth_curve(toes, u)};
}

/// The walking foot of one side at `cycle` (walk cycles since the start;
/// the left heel strikes at whole cycles, the right half a cycle later).
FootPose walking_foot(const Side& side, double cycle) {
  const double offset = side.sign > 0.0 ? 0.0 : 0.5;
  const double step_cycle = cycle - offset;
  const double step = std::floor(step_cycle);
  const double phase = step_cycle - step;
  const double yaw = side.sign * kToeOut;
  const auto plant = [&](double heel_strike_cycle) {
    const double pelvis_z = kWalkSpeed * kWalkCycleSeconds * heel_strike_cycle;
    return Vec{side.sign * kFootTrackX, kAnkleHeight, pelvis_z + kFootReach};
  };
  const Vec current = plant(step + offset);
  if (phase < kStanceEnd) return stance_foot(current, yaw, phase);
  const double u = (phase - kStanceEnd) / (1.0 - kStanceEnd);
  return swing_foot(current, plant(step + offset + 1.0), yaw, u, side.sign);
}

/// The rotation whose columns are the bone's bind axes x and y (and x × y).
Rot rotation_from_axes(Vec x, Vec y) {
  return glm::quat_cast(glm::dmat3(x, y, glm::cross(x, y)));
}

/// Model-space rotations of thigh and shin.
struct LegRotations {
  Rot thigh;
  Rot shin;
};

/// Two-bone IK reaching from `hip` to `ankle`, the knee bending towards
/// `forward`. Near full extension the reach is eased in (soft IK), so the
/// knee slows into straightening instead of snapping straight, and an ankle
/// out of reach falls a little short rather than dragging the hip.
LegRotations solve_leg(Vec hip, Vec ankle, Vec forward) {
  const double reach = kThighLength + kShinLength;
  const double soft_start = 0.998 * reach;  // about 7 degrees of knee flexion
  const Vec to_ankle = ankle - hip;
  double distance = glm::length(to_ankle);
  const Vec direction = to_ankle / distance;
  if (distance > soft_start) {
    const double room = reach - soft_start;
    distance = soft_start + room * (1.0 - std::exp(-(distance - soft_start) / room));
  }
  const double cos_hip = std::clamp(
      (kThighLength * kThighLength + distance * distance - kShinLength * kShinLength) / (2.0 * kThighLength * distance),
      -1.0, 1.0);
  const Vec bend = glm::normalize(forward - direction * glm::dot(forward, direction));
  const Vec knee = hip + kThighLength * (cos_hip * direction + std::sqrt(1.0 - cos_hip * cos_hip) * bend);
  const Vec foot = hip + distance * direction;
  const Vec hinge = glm::normalize(glm::cross(bend, direction));
  return {rotation_from_axes(hinge, glm::normalize(hip - knee)),
          rotation_from_axes(hinge, glm::normalize(knee - foot))};
}

/// Sets the leg bones of `side` in `local` so the foot takes `foot`; the
/// root and hips of `local` must already be set.
void pose_leg(const Skeleton& skeleton, const Side& side, const FootPose& foot, std::vector<Rigid>& local) {
  const Rigid hips = local[kRoot] * local[kHips];
  const Vec hip = apply(hips, skeleton.rest[static_cast<size_t>(side.thigh)].translation);
  const Vec forward = glm::normalize(hips.rotation * kAxisZ + foot.rotation * kAxisZ);
  const LegRotations leg = solve_leg(hip, foot.ankle, forward);
  local[static_cast<size_t>(side.thigh)].rotation = glm::conjugate(hips.rotation) * leg.thigh;
  local[static_cast<size_t>(side.shin)].rotation = glm::conjugate(leg.thigh) * leg.shin;
  local[static_cast<size_t>(side.foot)].rotation = glm::conjugate(leg.shin) * foot.rotation;
  local[static_cast<size_t>(side.toes)].rotation = rot_x(foot.toe_pitch);
}

/// Sets neck and head so the head faces `head_target` (model space) whatever
/// the torso does, the neck taking part of the correction, as people keep
/// their gaze steady while walking.
void stabilise_head(std::vector<Rigid>& local, Rot head_target) {
  const Rot chest = local[kRoot].rotation * local[kHips].rotation * local[kSpine].rotation * local[kChest].rotation;
  const Rot neck_share = glm::slerp(kIdentity, glm::conjugate(chest) * head_target, 0.4);
  local[kNeck].rotation = neck_share;
  local[kHead].rotation = glm::conjugate(chest * neck_share) * head_target;
}

/// Arm and hand of one side. Angles in radians: `swing` forward at the
/// shoulder, `elbow` flexion, `wrist` and `curl` towards the palm (which
/// faces the thigh), `shrug` raising the shoulder.
struct ArmAngles {
  double swing, elbow, wrist, curl, shrug;
};

void pose_arm(const Skeleton& skeleton, const Side& side, const ArmAngles& arm, std::vector<Rigid>& local) {
  const auto bone = [&local](int index) -> Rigid& { return local[static_cast<size_t>(index)]; };
  // The shoulder comes forward a little with the arm.
  bone(side.clavicle).rotation = rot_z(side.sign * arm.shrug) * rot_y(-side.sign * 0.1 * arm.swing);
  bone(side.upper_arm).rotation = skeleton.rest[static_cast<size_t>(side.upper_arm)].rotation * rot_x(-arm.swing);
  bone(side.forearm).rotation = rot_x(-arm.elbow);
  bone(side.hand).rotation = rot_z(-side.sign * arm.wrist);
  bone(side.fingers).rotation = rot_z(-side.sign * arm.curl);
}

}  // namespace

/// The walk at `frame`. The root carries the steady forward motion; the
/// pelvis bobs twice a cycle (lowest at each heel strike), sways
/// over the standing leg, turns with the swinging leg and drops on its side;
/// the chest turns against the pelvis and the arms swing against the legs.
std::vector<Rigid> walk_pose(const Skeleton& skeleton, int frame) {
  std::vector<Rigid> local = skeleton.rest;
  const double cycle = frame / static_cast<double>(kWalkCycleFrames);
  const double phase = fraction(cycle);
  const double turn = 2.0 * kPi * phase;
  const double bob = -std::cos(2.0 * turn);  // -1 at each heel strike, +1 over the standing foot

  local[kRoot].translation = {0.0, 0.0, kWalkSpeed * kWalkCycleSeconds * cycle};

  const double pelvis_yaw = deg(-6.0) * std::cos(turn);                     // left hip forward at left heel strike
  const double pelvis_roll = deg(3.5) * std::sin(turn + 2.0 * kPi * 0.05);  // swing side drops
  local[kHips].translation = {0.022 * std::sin(turn - 2.0 * kPi * 0.05), kHipsHeight - 0.028 + 0.018 * bob,
                              0.008 * std::sin(2.0 * turn)};
  local[kHips].rotation = rot_y(pelvis_yaw) * rot_z(pelvis_roll) * rot_x(deg(4.0) + deg(1.0) * bob);

  // Chest counter-turns so the shoulders turn 4 degrees the other way; the
  // spine undoes most of the pelvic drop and tilt and leans the torso forward.
  const double counter_yaw = deg(10.0) * std::cos(turn);
  local[kSpine].rotation = rot_y(0.5 * counter_yaw) * rot_z(-0.6 * pelvis_roll) * rot_x(deg(-3.0) - deg(1.0) * bob);
  local[kChest].rotation = rot_y(0.5 * counter_yaw) * rot_z(-0.3 * pelvis_roll) * rot_x(deg(2.0) + deg(0.8) * bob);
  stabilise_head(local, rot_x(deg(3.0)));

  for (const Side& side : kSides) {
    // The arm swings with the opposite leg and a little behind it.
    const double arm_phase = turn - (side.sign > 0.0 ? kPi : 0.0) - 2.0 * kPi * 0.04;
    const double forward = std::cos(arm_phase);
    pose_arm(skeleton, side,
             {deg(2.0) + deg(16.0) * forward, deg(22.0) + deg(10.0) * std::cos(arm_phase - 0.3),
              deg(6.0) + deg(4.0) * std::cos(arm_phase - 0.6), deg(22.0), deg(1.0) + deg(1.0) * forward},
             local);
    pose_leg(skeleton, side, walking_foot(side, cycle), local);
  }
  return local;
}

/// Standing idle at `frame`: the weight drifts from foot to foot once, the
/// chest rises with two breaths, the head looks around a little.
std::vector<Rigid> idle_pose(const Skeleton& skeleton, int frame) {
  std::vector<Rigid> local = skeleton.rest;
  const double turn = 2.0 * kPi * frame / kIdleFrames;
  const double shift = std::sin(turn);                     // +1 with the weight on the left foot
  const double breath = 0.5 - 0.5 * std::cos(2.0 * turn);  // 0 exhaled, 1 inhaled

  const double pelvis_roll = deg(2.0) * shift;
  local[kHips].translation = {0.02 * shift, kHipsHeight - 0.008 - 0.004 * std::fabs(shift), 0.0};
  local[kHips].rotation = rot_y(deg(2.0) * std::sin(turn + 1.0)) * rot_z(pelvis_roll) * rot_x(deg(3.0));
  local[kSpine].rotation = rot_z(-0.7 * pelvis_roll) * rot_x(deg(-2.0) - deg(0.6) * breath);
  local[kChest].rotation = rot_z(-0.4 * pelvis_roll) * rot_x(deg(1.0) - deg(1.5) * breath);
  stabilise_head(local, rot_y(deg(10.0) * std::sin(turn + 2.0)) * rot_x(deg(4.0) + deg(2.0) * std::sin(2.0 * turn)));

  for (const Side& side : kSides) {
    const double sway = std::sin(turn + side.sign * 0.7);
    pose_arm(skeleton, side,
             {deg(2.0) + deg(2.0) * sway, deg(14.0) + deg(3.0) * sway, deg(8.0), deg(25.0) + deg(4.0) * breath,
              deg(1.5) * breath},
             local);
    // Feet stay where they stand, slightly apart and turned out.
    const Vec plant{side.sign * 0.11, kAnkleHeight, side.sign * 0.02};
    pose_leg(skeleton, side, rolled_foot(plant, side.sign * deg(9.0), 0.0, 0.0), local);
  }
  return local;
}

}  // namespace ks::demo
