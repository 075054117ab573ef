#pragma once
// glTF animation to RawClip (internal to the glTF importer): the channels of
// one animation are read and checked, then every sampler is resampled at one
// fixed rate, as gltf_import.h describes.

#include <string>
#include <vector>

#include "keystream/clip/raw_clip.h"
#include "keystream/clip/skeleton.h"
#include "keystream/io/import.h"
#include "keystream/runtime/result.h"

namespace tinygltf {
class Model;
}

namespace ks::gltf {

/// Index of the animation `settings` selects: by name when animation_name
/// is set, else animation_index. Refuses a file without animations, an
/// unknown name (listing the names there are) and an index out of range.
Result<int> choose_animation(const tinygltf::Model& model, const ImportSettings& settings);

/// Animation `animation_index` of `model` sampled for every bone of
/// `skeleton` (`bone_of_node` maps nodes to its bones) from the first key to
/// the last, at the rate gltf_import.h describes, with a scalar track per
/// morph target a `weights` channel animates (gltf_morph_weights.h).
/// Channels a bone lacks take its rest value; channels of nodes outside the
/// skeleton are ignored with a warning. `start_s` is set to the source time
/// of frame 0, seconds.
Result<RawClip> resample_animation(const tinygltf::Model& model, int animation_index, const Skeleton& skeleton,
                                   const std::vector<int>& bone_of_node, const ImportSettings& settings,
                                   double& start_s, std::vector<std::string>& warnings);

}  // namespace ks::gltf
