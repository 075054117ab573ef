#pragma once
// The animation a glTF export writes (internal to gltf_export.cpp): bones as
// T/R/S channels, morph weights as one `weights` channel per node, user
// curves under the animation's extras; all of it in buffer 0, the .glb's BIN
// chunk, which the export packs the source's data into too.

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "keystream/clip/raw_clip.h"

namespace tinygltf {
class Model;
}

namespace ks::gltf {

/// Appends `size` bytes to buffer 0, 4-byte aligned, as a new buffer view; returns its index.
int append_view(tinygltf::Model& model, const void* data, size_t size);

/// Adds `clip` as an animation of `model` (gltf_export.h says what it holds):
/// bone b drives node node_of_bone[b]; morph-weight tracks drive the nodes
/// of `model` named as theirs; a track with no node to drive is a warning
/// naming it, which says `model` is `document` ("the source 'x.glb'").
void append_animation(tinygltf::Model& model, const RawClip& clip, std::span<const int> node_of_bone,
                      const std::string& document, std::vector<std::string>& warnings);

}  // namespace ks::gltf
