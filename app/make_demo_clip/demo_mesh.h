#pragma once
// The demo character's body: stylised parts built from simple solids, in bind
// pose, skinned to the demo skeleton.

#include <array>
#include <cstdint>
#include <vector>

#include "demo_math.h"

namespace ks::demo {

/// What a body part is made of; one glTF material, and one primitive, each.
enum Material : int { kSkin, kShirt, kTrousers, kShoes, kHair, kEyes, kMaterialCount };

/// Up to four bones and weights, strongest first, weights summing to 1.
struct Influences {
  std::array<int, 4> bones{};
  std::array<double, 4> weights{};
};

/// Triangles of one body part in model space (bind pose).
struct Part {
  Material material;
  std::vector<Vec> positions;
  std::vector<Vec> normals;  // unit, smooth
  std::vector<Influences> influences;
  std::vector<uint32_t> indices;  // counter-clockwise seen from outside
};

/// Every body part of the character, in bind pose; `bind_model` holds the
/// model-space bind transform of every bone.
std::vector<Part> build_body(const std::vector<Rigid>& bind_model);

}  // namespace ks::demo
