// Body parts are lofts, stacks of (super)elliptic rings along an axis in one
// bone's bind space. Skin weights follow the position along that axis,
// blending smoothly between consecutive bones around each joint.
#include "demo_mesh.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <span>

#include "demo_skeleton.h"

namespace ks::demo {

namespace {

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

}  // namespace

std::vector<Part> build_body(const std::vector<Rigid>& bind_model) {
  std::vector<Part> parts;
  for (const Loft& loft : body_lofts()) parts.push_back(build_loft(loft, bind_model));
  return parts;
}

}  // namespace ks::demo
