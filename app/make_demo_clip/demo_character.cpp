#include "demo_character.h"

// Everything is computed in double and rounded to float only when written, so
// that the output does not depend on how a compiler orders float arithmetic.
// Only the ordered containers of tinygltf (std::map) are used, and every
// buffer byte is written explicitly (padding is zeroed), so the file is the
// same on every build.
//
// Conventions: metres, Y up, the character faces +Z, so its left is +X.
// Every bone's bind frame has -Y pointing down the limb (+Z for the feet)
// and +Z forward; the upper arms are the only bones with a rest rotation.

#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <glm/glm.hpp>
#include <glm/gtc/quaternion.hpp>
#include <numbers>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace ks::demo {
namespace {

using Vec = glm::dvec3;
using Rot = glm::dquat;

constexpr double kPi = std::numbers::pi;
constexpr double deg(double degrees) {
  return degrees * kPi / 180.0;
}

const Vec kAxisX{1.0, 0.0, 0.0};
const Vec kAxisY{0.0, 1.0, 0.0};
const Vec kAxisZ{0.0, 0.0, 1.0};
const Rot kIdentity{1.0, 0.0, 0.0, 0.0};  // glm order: w, x, y, z

Rot rot_x(double radians) {
  return glm::angleAxis(radians, kAxisX);
}
Rot rot_y(double radians) {
  return glm::angleAxis(radians, kAxisY);
}
Rot rot_z(double radians) {
  return glm::angleAxis(radians, kAxisZ);
}

double clamp01(double x) {
  return std::clamp(x, 0.0, 1.0);
}
/// 0 below edge0, 1 above edge1, a smooth S in between (zero slope at both ends).
double smoothstep(double edge0, double edge1, double x) {
  const double t = clamp01((x - edge0) / (edge1 - edge0));
  return t * t * (3.0 - 2.0 * t);
}
double lerp(double a, double b, double t) {
  return a + (b - a) * t;
}
/// x wrapped into 0..1.
double fraction(double x) {
  return x - std::floor(x);
}

/// A rotation and a translation: bone transforms never scale here.
struct Rigid {
  Vec translation{0.0};
  Rot rotation = kIdentity;
};

Rigid operator*(const Rigid& parent, const Rigid& child) {
  return {parent.translation + parent.rotation * child.translation, parent.rotation * child.rotation};
}
Rigid inverse(const Rigid& t) {
  const Rot inv = glm::conjugate(t.rotation);
  return {-(inv * t.translation), inv};
}
Vec apply(const Rigid& t, Vec p) {
  return t.translation + t.rotation * p;
}

/// A hand-placed key of a curve, the way an animator would author one.
struct Key {
  double x;
  double y;
};

/// The curve through `keys` (x increasing) at x: cubic Hermite segments with
/// Catmull-Rom tangents between keys and flat tangents at both ends, so
/// curves laid end to end join without a kink. Constant outside the keys.
double smooth_curve(std::span<const Key> keys, double x) {
  assert(!keys.empty());
  if (x <= keys.front().x) return keys.front().y;
  if (x >= keys.back().x) return keys.back().y;
  size_t i = 0;
  while (x > keys[i + 1].x) ++i;
  const auto slope = [&](size_t k) {
    if (k == 0 || k + 1 == keys.size()) return 0.0;
    return (keys[k + 1].y - keys[k - 1].y) / (keys[k + 1].x - keys[k - 1].x);
  };
  const double h = keys[i + 1].x - keys[i].x;
  const double u = (x - keys[i].x) / h;
  const double u2 = u * u;
  const double u3 = u2 * u;
  return (2 * u3 - 3 * u2 + 1) * keys[i].y + (u3 - 2 * u2 + u) * h * slope(i) + (-2 * u3 + 3 * u2) * keys[i + 1].y +
         (u3 - u2) * h * slope(i + 1);
}

// ---------------------------------------------------------------------------
// Skeleton
// ---------------------------------------------------------------------------

constexpr int kRoot = 0;
constexpr int kHips = 1;
constexpr int kSpine = 2;
constexpr int kChest = 3;
constexpr int kNeck = 4;
constexpr int kHead = 5;
constexpr int kBoneCount = 24;

/// The bones of one side. `sign` is +1 on the left (+X) and -1 on the right,
/// so one piece of code poses both sides as mirror images.
struct Side {
  double sign;
  const char* prefix;
  int clavicle, upper_arm, forearm, hand, fingers;
  int thigh, shin, foot, toes;
};
constexpr Side kLeft{+1.0, "left_", 6, 7, 8, 9, 10, 16, 17, 18, 19};
constexpr Side kRight{-1.0, "right_", 11, 12, 13, 14, 15, 20, 21, 22, 23};
constexpr std::array<Side, 2> kSides{kLeft, kRight};

// Proportions of a 1.76 m figure (top of the hair), metres.
constexpr double kHipsHeight = 1.00;   // pelvis centre above the ground, standing
constexpr double kThighLength = 0.44;  // hip joint to knee
constexpr double kShinLength = 0.44;   // knee to ankle
constexpr double kAnkleHeight = 0.07;  // ankle above the sole
constexpr double kUpperArmLength = 0.29;
constexpr double kForearmLength = 0.25;
constexpr double kPalmLength = 0.095;    // wrist to knuckles
const Vec kHipOffset{0.09, -0.05, 0.0};  // hip joint from the pelvis centre (left side)
const Vec kToeJoint{0.0, -0.05, 0.13};   // ball of the foot from the ankle
const double kArmAbduction = deg(8.0);   // bind pose arms hang slightly out, clear of the torso

struct Skeleton {
  std::vector<std::string> names;
  std::vector<int> parents;  // parents before children
  std::vector<Rigid> rest;   // local bind pose
};

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

/// Model-space transforms of every bone from local ones.
std::vector<Rigid> to_model_space(const Skeleton& skeleton, std::span<const Rigid> local) {
  std::vector<Rigid> model(local.size());
  for (size_t i = 0; i < local.size(); ++i) {
    const int parent = skeleton.parents[i];
    model[i] = parent < 0 ? local[i] : model[static_cast<size_t>(parent)] * local[i];
  }
  return model;
}

// ---------------------------------------------------------------------------
// Mesh: body parts are lofts, stacks of (super)elliptic rings along an axis
// in one bone's bind space. Skin weights follow the position along that axis,
// blending smoothly between consecutive bones around each joint.
// ---------------------------------------------------------------------------

enum Material : int { kSkin, kShirt, kTrousers, kShoes, kHair, kEyes, kMaterialCount };

/// One cross-section of a loft. Zero radii make a pole (a single vertex).
struct Ring {
  double s;         // position along the loft axis, metres
  double offset_u;  // centre shifted along the first cross-section axis, metres
  double radius_u;  // half extent along the first cross-section axis, metres
  double radius_v;  // half extent along the second, metres
};

/// Bones along the loft axis: bones[i] owns s between joints[i-1] and
/// joints[i]; around each joint the weight moves to the next bone over
/// joints[i] ± half_widths[i].
struct WeightChain {
  std::vector<int> bones;
  std::vector<double> joints;       // s of each joint, increasing
  std::vector<double> half_widths;  // metres; blend zones must not overlap
};

/// Where a loft sits: s = 0 at `origin` in `bone`'s bind space, growing
/// along the unit `axis`; `u` (unit, perpendicular to the axis) is the first
/// cross-section axis and cross(axis, u) the second.
struct Frame {
  int bone;
  Vec origin;
  Vec axis;
  Vec u;
};

struct Loft {
  Material material;
  Frame frame;
  WeightChain weights;
  std::vector<Ring> rings;
  int segments;     // vertices around each ring
  double exponent;  // of the superellipse cross-section: 2 is an ellipse, larger is boxier
};

/// Up to four bones and weights, strongest first, weights summing to 1.
struct Influences {
  std::array<int, 4> bones{};
  std::array<double, 4> weights{};
};

Influences chain_influences(const WeightChain& chain, double s) {
  assert(chain.bones.size() == chain.joints.size() + 1);
  // Weight of bone i = (share past joint i-1) - (share past joint i); the
  // shares are smoothsteps, so the sum telescopes to exactly 1.
  std::vector<double> past(chain.joints.size());
  for (size_t j = 0; j < past.size(); ++j)
    past[j] = smoothstep(chain.joints[j] - chain.half_widths[j], chain.joints[j] + chain.half_widths[j], s);
  Influences result;
  size_t count = 0;
  for (size_t i = 0; i < chain.bones.size(); ++i) {
    const double begin = i == 0 ? 1.0 : past[i - 1];
    const double end = i == past.size() ? 0.0 : past[i];
    const double weight = begin - end;
    if (weight <= 1e-4 || count == result.bones.size()) continue;
    result.bones[count] = chain.bones[i];
    result.weights[count] = weight;
    ++count;
  }
  // Strongest first, ties by bone index, so the order never depends on luck.
  std::array<size_t, 4> order{0, 1, 2, 3};
  std::stable_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(count),
                   [&](size_t a, size_t b) { return result.weights[a] > result.weights[b]; });
  Influences sorted;
  double total = 0.0;
  for (size_t k = 0; k < count; ++k) total += result.weights[order[k]];
  for (size_t k = 0; k < count; ++k) {
    sorted.bones[k] = result.bones[order[k]];
    sorted.weights[k] = result.weights[order[k]] / total;
  }
  return sorted;
}

/// Ring keys resampled every `step` metres of s (at least two rings), each
/// field following a smooth curve through the keys.
std::vector<Ring> resample(std::span<const Ring> keys, double step) {
  std::vector<Key> offset, radius_u, radius_v;
  for (const Ring& key : keys) {
    offset.push_back({key.s, key.offset_u});
    radius_u.push_back({key.s, key.radius_u});
    radius_v.push_back({key.s, key.radius_v});
  }
  const double begin = keys.front().s;
  const double end = keys.back().s;
  const int count = std::max(2, static_cast<int>(std::ceil((end - begin) / step)) + 1);
  std::vector<Ring> rings;
  for (int i = 0; i < count; ++i) {
    const double s = lerp(begin, end, static_cast<double>(i) / (count - 1));
    rings.push_back({s, smooth_curve(offset, s), smooth_curve(radius_u, s), smooth_curve(radius_v, s)});
  }
  return rings;
}

/// Closes both ends of a tube with elliptic caps `depth_factor` times the
/// end's smaller radius deep: 1 is a hemisphere, small values nearly flat.
std::vector<Ring> with_caps(std::vector<Ring> tube, double start_depth_factor, double end_depth_factor,
                            int cap_rings = 5) {
  const auto cap = [cap_rings](const Ring& end, double direction, double depth_factor) {
    const double depth = depth_factor * std::min(end.radius_u, end.radius_v);
    std::vector<Ring> rings;  // from the end ring outwards, ending at the pole
    for (int k = 1; k <= cap_rings; ++k) {
      const double angle = 0.5 * kPi * k / cap_rings;
      const double scale = k == cap_rings ? 0.0 : std::cos(angle);
      rings.push_back(
          {end.s + direction * depth * std::sin(angle), end.offset_u, end.radius_u * scale, end.radius_v * scale});
    }
    return rings;
  };
  std::vector<Ring> start = cap(tube.front(), -1.0, start_depth_factor);
  std::vector<Ring> finish = cap(tube.back(), +1.0, end_depth_factor);
  std::vector<Ring> rings(start.rbegin(), start.rend());
  rings.insert(rings.end(), tube.begin(), tube.end());
  rings.insert(rings.end(), finish.begin(), finish.end());
  return rings;
}

/// An ellipsoid centred at s = 0: `ring_count` + 1 rings from pole to pole.
std::vector<Ring> ellipsoid(double radius_axis, double radius_u, double radius_v, int ring_count) {
  std::vector<Ring> rings;
  for (int i = 0; i <= ring_count; ++i) {
    const double angle = kPi * i / ring_count;
    const double scale = (i == 0 || i == ring_count) ? 0.0 : std::sin(angle);
    rings.push_back({-radius_axis * std::cos(angle), 0.0, radius_u * scale, radius_v * scale});
  }
  return rings;
}

/// Triangles of one body part in model space (bind pose).
struct Part {
  Material material;
  std::vector<Vec> positions;
  std::vector<Vec> normals;
  std::vector<Influences> influences;
  std::vector<uint32_t> indices;
};

/// sign(c) |c|^(2/exponent): the superellipse generalisation of cos/sin.
double superellipse(double c, double exponent) {
  return std::copysign(std::pow(std::fabs(c), 2.0 / exponent), c);
}

Part build_loft(const Loft& loft, const std::vector<Rigid>& bind_model) {
  Part part{loft.material, {}, {}, {}, {}};
  const Frame& frame = loft.frame;
  const Rigid& bind = bind_model[static_cast<size_t>(frame.bone)];
  const Vec v = glm::cross(frame.axis, frame.u);
  // A pole ring has one vertex, the others `segments`.
  const uint32_t n = static_cast<uint32_t>(loft.segments);
  std::vector<uint32_t> ring_start;
  std::vector<uint32_t> ring_size;
  for (const Ring& ring : loft.rings) {
    const bool pole = ring.radius_u <= 0.0 && ring.radius_v <= 0.0;
    ring_start.push_back(static_cast<uint32_t>(part.positions.size()));
    ring_size.push_back(pole ? 1 : n);
    const Influences influences = chain_influences(loft.weights, ring.s);
    const Vec centre = frame.origin + frame.axis * ring.s + frame.u * ring.offset_u;
    for (uint32_t j = 0; j < ring_size.back(); ++j) {
      const double angle = 2.0 * kPi * j / n;
      const Vec local = pole ? centre
                             : centre + frame.u * (ring.radius_u * superellipse(std::cos(angle), loft.exponent)) +
                                   v * (ring.radius_v * superellipse(std::sin(angle), loft.exponent));
      part.positions.push_back(apply(bind, local));
      part.influences.push_back(influences);
    }
  }
  // Stitch consecutive rings. With u x v = axis, (a, a+1, b) runs
  // counter-clockwise seen from outside: glTF's front face.
  const auto add = [&part](uint32_t a, uint32_t b, uint32_t c) { part.indices.insert(part.indices.end(), {a, b, c}); };
  for (size_t r = 0; r + 1 < loft.rings.size(); ++r) {
    const uint32_t a = ring_start[r];
    const uint32_t b = ring_start[r + 1];
    if (ring_size[r] == 1 && ring_size[r + 1] == 1) continue;
    for (uint32_t j = 0; j < n; ++j) {
      const uint32_t k = (j + 1) % n;
      if (ring_size[r] == 1) {
        add(a, b + k, b + j);
      } else if (ring_size[r + 1] == 1) {
        add(a + j, a + k, b);
      } else {
        add(a + j, a + k, b + j);
        add(a + k, b + k, b + j);
      }
    }
  }
  // Smooth normals: area-weighted sum of the faces around each vertex.
  part.normals.assign(part.positions.size(), Vec{0.0});
  for (size_t t = 0; t < part.indices.size(); t += 3) {
    const Vec& p0 = part.positions[part.indices[t]];
    const Vec face = glm::cross(part.positions[part.indices[t + 1]] - p0, part.positions[part.indices[t + 2]] - p0);
    for (size_t k = 0; k < 3; ++k) part.normals[part.indices[t + k]] += face;
  }
  for (Vec& normal : part.normals) normal = glm::normalize(normal);
  return part;
}

/// Every body part of the character.
std::vector<Loft> body_lofts() {
  std::vector<Loft> lofts;
  const Vec down = -kAxisY;

  // Torso in model space (s is the height above the ground): trousers below
  // the waist, a shirt whose hem overlaps them, a neck reaching into the head.
  const Frame upright{kRoot, Vec{0.0}, kAxisY, kAxisZ};
  const WeightChain torso_weights{{kHips, kSpine, kChest}, {1.10, 1.27}, {0.05, 0.06}};
  const Ring pelvis[] = {{0.87, -0.01, 0.06, 0.08},   {0.89, -0.01, 0.092, 0.145}, {0.94, -0.01, 0.105, 0.17},
                         {1.00, -0.005, 0.095, 0.16}, {1.06, 0.0, 0.092, 0.148},   {1.10, 0.0, 0.09, 0.14}};
  lofts.push_back({kTrousers, upright, torso_weights, with_caps(resample(pelvis, 0.015), 0.5, 0.5), 24, 2.4});
  const Ring shirt[] = {{1.00, -0.005, 0.118, 0.174}, {1.05, -0.003, 0.108, 0.162}, {1.12, -0.005, 0.10, 0.15},
                        {1.20, 0.0, 0.11, 0.155},     {1.28, 0.01, 0.125, 0.165},   {1.35, 0.005, 0.12, 0.178},
                        {1.41, -0.005, 0.105, 0.185}, {1.45, -0.01, 0.085, 0.155},  {1.48, -0.01, 0.06, 0.09}};
  lofts.push_back({kShirt, upright, torso_weights, with_caps(resample(shirt, 0.015), 0.1, 0.4), 24, 2.4});
  const Frame along_neck{kNeck, Vec{0.0}, kAxisY, kAxisZ};
  const WeightChain neck_weights{{kChest, kNeck, kHead}, {0.0, 0.09}, {0.03, 0.03}};
  const Ring neck[] = {
      {-0.06, 0.0, 0.05, 0.055}, {0.0, 0.0, 0.048, 0.052}, {0.08, 0.005, 0.045, 0.048}, {0.13, 0.01, 0.045, 0.048}};
  lofts.push_back({kSkin, along_neck, neck_weights, with_caps(resample(neck, 0.015), 0.3, 0.3), 16, 2.0});

  // Head: skull, a hair cap over the top and back, nose, eyes and ears, all
  // rigid on the head bone. Centres and radii (x, y, z) in the head's space.
  const auto add_head_part = [&lofts](Material material, Vec centre, Vec radii, int rings, int segments) {
    const Frame frame{kHead, centre, kAxisY, kAxisZ};
    lofts.push_back({material, frame, {{kHead}, {}, {}}, ellipsoid(radii.y, radii.z, radii.x, rings), segments, 2.0});
  };
  add_head_part(kSkin, {0.0, 0.075, 0.015}, {0.078, 0.108, 0.10}, 20, 24);
  add_head_part(kHair, {0.0, 0.095, -0.002}, {0.083, 0.098, 0.102}, 20, 24);
  add_head_part(kSkin, {0.0, 0.06, 0.118}, {0.014, 0.022, 0.02}, 8, 12);
  for (const Side& side : kSides) {
    add_head_part(kEyes, mirrored({0.03, 0.09, 0.1}, side), {0.013, 0.013, 0.013}, 8, 12);
    add_head_part(kSkin, mirrored({0.078, 0.07, 0.0}, side), {0.01, 0.03, 0.018}, 8, 12);
  }

  for (const Side& side : kSides) {
    // Sleeve from the shoulder ball to the wrist, in the upper arm's space.
    const Frame along_arm{side.upper_arm, Vec{0.0}, down, kAxisZ};
    const WeightChain arm_weights{{side.clavicle, side.upper_arm, side.forearm, side.hand},
                                  {0.0, kUpperArmLength, kUpperArmLength + kForearmLength},
                                  {0.05, 0.05, 0.03}};
    const Ring sleeve[] = {{0.0, 0.0, 0.05, 0.052},   {0.06, 0.0, 0.05, 0.052},  {0.15, 0.0, 0.045, 0.047},
                           {0.27, 0.0, 0.038, 0.04},  {0.29, 0.0, 0.038, 0.04},  {0.36, 0.005, 0.04, 0.042},
                           {0.46, 0.0, 0.033, 0.036}, {0.53, 0.0, 0.031, 0.034}, {0.55, 0.0, 0.035, 0.037}};
    lofts.push_back({kShirt, along_arm, arm_weights, with_caps(resample(sleeve, 0.015), 0.6, 0.15), 16, 2.0});

    // Mitten hand, the palm facing the thigh: wide along Z, thin along X.
    const Frame along_hand{side.hand, Vec{0.0}, down, kAxisZ};
    const WeightChain hand_weights{{side.forearm, side.hand, side.fingers}, {0.0, kPalmLength}, {0.02, 0.02}};
    const Ring hand[] = {{-0.02, 0.0, 0.024, 0.018}, {0.0, 0.0, 0.027, 0.018},  {0.05, 0.003, 0.042, 0.017},
                         {0.09, 0.0, 0.045, 0.014},  {0.13, 0.0, 0.042, 0.012}, {0.17, 0.0, 0.036, 0.011}};
    lofts.push_back({kSkin, along_hand, hand_weights, with_caps(resample(hand, 0.01), 0.5, 1.2), 12, 2.5});
    // Thumb on the front edge of the palm, pointing forward and down.
    const Frame along_thumb{side.hand, mirrored({-0.006, -0.025, 0.03}, side), glm::normalize(Vec{0.0, -0.75, 0.66}),
                            kAxisX};
    const Ring thumb[] = {{0.0, 0.0, 0.012, 0.013}, {0.04, 0.0, 0.011, 0.012}, {0.06, 0.0, 0.009, 0.01}};
    lofts.push_back({kSkin, along_thumb, {{side.hand}, {}, {}}, with_caps(resample(thumb, 0.01), 0.8, 1.0), 10, 2.0});

    // Trouser leg from inside the pelvis to the shoe, in the thigh's space.
    const Frame along_leg{side.thigh, Vec{0.0}, down, kAxisZ};
    const WeightChain leg_weights{
        {kHips, side.thigh, side.shin, side.foot}, {0.0, kThighLength, kThighLength + kShinLength}, {0.07, 0.06, 0.04}};
    const Ring leg[] = {{-0.04, 0.0, 0.07, 0.07},    {0.02, 0.005, 0.086, 0.086},  {0.15, 0.005, 0.078, 0.08},
                        {0.30, 0.0, 0.065, 0.068},   {0.42, 0.0, 0.055, 0.057},    {0.48, -0.005, 0.055, 0.056},
                        {0.58, -0.012, 0.06, 0.058}, {0.72, -0.005, 0.047, 0.048}, {0.845, 0.0, 0.05, 0.052}};
    lofts.push_back({kTrousers, along_leg, leg_weights, with_caps(resample(leg, 0.015), 0.5, 0.15), 16, 2.0});

    // Shoe from heel to toe cap in the foot's space, u pointing up: the sole
    // lies on the ground (offset_u - radius_u = -kAnkleHeight) and the toe
    // box bends with the toes at the ball of the foot.
    const Frame along_foot{side.foot, Vec{0.0}, kAxisZ, kAxisY};
    const WeightChain shoe_weights{{side.foot, side.toes}, {kToeJoint.z}, {0.03}};
    const Ring shoe[] = {{-0.065, -0.04, 0.03, 0.034}, {-0.045, -0.02, 0.05, 0.04}, {0.0, -0.01, 0.06, 0.044},
                         {0.05, -0.025, 0.045, 0.048}, {0.10, -0.04, 0.03, 0.05},   {0.15, -0.046, 0.024, 0.049},
                         {0.195, -0.05, 0.02, 0.042}};
    lofts.push_back({kShoes, along_foot, shoe_weights, with_caps(resample(shoe, 0.012), 0.5, 0.8), 16, 3.0});
  }
  return lofts;
}

// ---------------------------------------------------------------------------
// Poses. A pose is one local transform per bone. The legs are posed by
// inverse kinematics from foot targets so that planted feet stay planted;
// the rest is forward kinematics from periodic curves.
// ---------------------------------------------------------------------------

constexpr double kSampleRate = 30.0;  // Hz, both animations

// Walk: a 1.1 s cycle (33 frames) at 1.2 m/s, so a 1.32 m stride, the
// cadence and step length of an unhurried adult.
constexpr int kWalkCycleFrames = 33;
constexpr int kWalkCycles = 2;
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

// Idle: 6 s, one slow weight shift and two breaths.
constexpr int kIdleFrames = 180;

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

// ---------------------------------------------------------------------------
// glTF assembly
// ---------------------------------------------------------------------------

/// Appends `size` bytes as a new buffer view (4-byte aligned, zero padding)
/// and returns its index.
int add_buffer_view(tinygltf::Model& model, const void* bytes, size_t size, int target) {
  std::vector<unsigned char>& data = model.buffers[0].data;
  data.resize((data.size() + 3) / 4 * 4, 0);
  tinygltf::BufferView view;
  view.buffer = 0;
  view.byteOffset = data.size();
  view.byteLength = size;
  view.target = target;
  data.resize(data.size() + size);
  std::memcpy(data.data() + view.byteOffset, bytes, size);
  model.bufferViews.push_back(view);
  return static_cast<int>(model.bufferViews.size()) - 1;
}

/// Float accessor of `components` per element (3 = VEC3...), in its own
/// view; min and max included when `with_bounds` (glTF requires them for
/// POSITION and animation inputs).
int add_float_accessor(tinygltf::Model& model, const std::vector<float>& values, int type, int components, int target,
                       bool with_bounds) {
  tinygltf::Accessor accessor;
  accessor.bufferView = add_buffer_view(model, values.data(), values.size() * sizeof(float), target);
  accessor.componentType = TINYGLTF_COMPONENT_TYPE_FLOAT;
  accessor.type = type;
  accessor.count = values.size() / static_cast<size_t>(components);
  if (with_bounds) {
    accessor.minValues.assign(static_cast<size_t>(components), 0.0);
    accessor.maxValues.assign(static_cast<size_t>(components), 0.0);
    for (size_t c = 0; c < static_cast<size_t>(components); ++c) {
      float lo = values[c], hi = values[c];
      for (size_t i = c; i < values.size(); i += static_cast<size_t>(components)) {
        lo = std::min(lo, values[i]);
        hi = std::max(hi, values[i]);
      }
      accessor.minValues[c] = lo;
      accessor.maxValues[c] = hi;
    }
  }
  model.accessors.push_back(accessor);
  return static_cast<int>(model.accessors.size()) - 1;
}

template <class T>
int add_integer_accessor(tinygltf::Model& model, const std::vector<T>& values, int component_type, int type,
                         int components, int target) {
  tinygltf::Accessor accessor;
  accessor.bufferView = add_buffer_view(model, values.data(), values.size() * sizeof(T), target);
  accessor.componentType = component_type;
  accessor.type = type;
  accessor.count = values.size() / static_cast<size_t>(components);
  model.accessors.push_back(accessor);
  return static_cast<int>(model.accessors.size()) - 1;
}

void push(std::vector<float>& out, Vec v) {
  out.insert(out.end(), {static_cast<float>(v.x), static_cast<float>(v.y), static_cast<float>(v.z)});
}
void push(std::vector<float>& out, Rot q) {
  out.insert(out.end(),
             {static_cast<float>(q.x), static_cast<float>(q.y), static_cast<float>(q.z), static_cast<float>(q.w)});
}

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
  for (const Loft& loft : body_lofts()) {
    const Part part = build_loft(loft, bind_model);
    append_part(primitives[static_cast<size_t>(part.material)], part);
  }
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
