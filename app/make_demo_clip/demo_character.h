#pragma once
// The demo character: a stylised humanoid built from simple solids, skinned
// to a 24-bone skeleton and animated procedurally, so that every tool of the
// project has a clip to open on a fresh machine without downloading anything.
// Nothing here comes from a third party; assets/demo_walk.glb is its output.

#include <tiny_gltf.h>

namespace ks::demo {

/// Builds the character as a glTF model: the skeleton as nodes (local TRS),
/// one skinned mesh with a primitive per material, the skin, and two looping
/// animations, "walk" (1.1 s cycle, two cycles, 30 Hz, moving along +Z) and
/// "idle" (6 s, in place). Its only buffer has no URI, so that a binary
/// writer puts it in the .glb's BIN chunk. Deterministic: the same model,
/// down to the last bit, on every compiler and build type.
tinygltf::Model build_demo_model();

}  // namespace ks::demo
