#pragma once
// An assimp animation to a RawClip (internal to the assimp importer). The
// node channels' keys become LINEAR channels (assimp interpolates position
// and scale keys linearly and rotation keys by slerp, as glTF LINEAR does)
// in seconds and metres, and are resampled by resample_channels
// (channel_resample.h), which chooses the rate and keeps the file's key
// times the frames miss as key poses; helper nodes are then folded into
// their bones. Morph-target channels become scalar tracks (assimp_morph.h);
// mesh (vertex) channels cannot be used and are a warning.

#include <string>
#include <vector>

#include "keystream/clip/raw_clip.h"
#include "keystream/io/assimp_skeleton.h"
#include "keystream/io/import.h"
#include "keystream/runtime/result.h"

namespace ks::assimp {

/// The names of the scene's animations ("" for an unnamed one), in order.
std::vector<std::string> animation_names(const aiScene& scene);

/// Animation `index` of `scene` sampled for every bone of `skeleton`, from
/// its first key to its last. Refuses keys that are not finite or whose
/// times decrease, naming the animation and node; `start_s` is the source
/// time of frame 0, seconds. Warns where the file's ticks per second are
/// missing (assimp's 25 is used), where channels begin after or end before
/// the animation with a behaviour other than holding their key, and where
/// the file's duration runs past the last key. The morph weights become
/// RawClip::scalars; in a `collada` file, the node channel assimp made for a
/// node whose weights are animated is dropped with a warning.
Result<RawClip> resample_animation(const aiScene& scene, const NodeTree& tree, const SceneSkeleton& skeleton,
                                   unsigned index, bool collada, const ImportSettings& settings, double& start_s,
                                   std::vector<std::string>& warnings);

}  // namespace ks::assimp
