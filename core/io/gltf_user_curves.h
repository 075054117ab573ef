#pragma once
// User curves in glTF (internal to the glTF importer): glTF has no target for
// a float curve, so `keystream export` writes them under the animation's
// extras.keystream_curves, one {"input": ACCESSOR, "output": ACCESSOR} per
// curve name, sampled LINEAR like a sampler (SCALAR to VEC4 FLOAT values).
// Reading them back makes an exported clip round-trip with its curves.

#include <string>
#include <vector>

#include "keystream/io/gltf_channel.h"
#include "keystream/io/gltf_morph_weights.h"
#include "keystream/runtime/result.h"

namespace tinygltf {
class Model;
struct Animation;
}  // namespace tinygltf

namespace ks::gltf {

/// Adds one ScalarTrack (a kCurve) to `tracks` and one channel to
/// `channels` per curve of `animation`'s extras.keystream_curves (`where`
/// names the animation). A name a morph weight has taken gets "#N". An
/// extras entry that is not an object of curves is ignored with a warning;
/// a curve whose accessors are missing, of another kind, or do not hold
/// one value per key is refused, naming it.
Status add_user_curves(const tinygltf::Model& model, const tinygltf::Animation& animation, const std::string& where,
                       MorphWeightTracks& tracks, std::vector<Channel>& channels, std::vector<std::string>& warnings);

}  // namespace ks::gltf
