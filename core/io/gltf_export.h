#pragma once
// glTF export: a clip (typically one decoded from a stream) written as a
// binary glTF, onto the file it was imported from or onto a bare node
// hierarchy, so that any glTF viewer can show what the codec kept.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "keystream/clip/raw_clip.h"
#include "keystream/clip/skeleton.h"
#include "keystream/runtime/result.h"

namespace ks {

/// Binary glTF (.glb bytes) with one animation, `clip`, animating `skeleton`
/// (one LINEAR sampler per bone and T/R/S channel, key i at time i / clip.sample_rate_hz).
/// With `source` (a .gltf or .glb file the clip was imported from): the output is
/// that file — nodes, skins, meshes with their morph targets, materials, textures —
/// with its animations replaced by this one, every buffer and image embedded; bones
/// are matched to the source's nodes by name, and a bone the source does not have is
/// an error naming the bone and the file. With an FBX or Collada source: the
/// node hierarchy below, and the source's mesh as import_clip keeps it (every
/// mesh in one, with vertex colours, no morph targets) skinned to it by the source's
/// inverse bind matrices, matched by bone name. Without a source: a node hierarchy
/// built from the skeleton (node TRS = skeleton.rest_pose, names = bone names), no mesh.
///
/// Scalar tracks (clip.scalars), keyed as the bones are:
/// - a morph weight drives target track.target_index of the mesh of the node
///   named track.node (the importer's names; nodes sharing one take its tracks
///   in node order): one LINEAR `weights` channel per node, every target per
///   key (one no track drives holds node.weights, else mesh.weights, else 0).
///   A track with no such node and target (no source, an FBX source, a
///   renamed node), or of more than one component, is left out with a
///   warning naming it;
/// - a user curve has no glTF channel: the animation's extras.keystream_curves
///   maps its name to {"input", "output"} accessors, a LINEAR sampler's
///   (SCALAR to VEC4 FLOAT values); import_clip does not read them.
///
/// Re-importing the bytes with import_clip gives back the clip: the same bones
/// (for a skeleton in depth-first order, as every importer makes it), frame
/// count, pose at every frame and morph-weight tracks. Details that make this hold:
/// - a rate within 0.1% of a whole number (a BVH frame time of 0.016667 s is
///   59.9988 Hz) is written as that whole number, because the importer reads
///   such uniform keys back at the whole rate and would otherwise add a frame;
/// - bones match the source's nodes by the names the importer gives them
///   ("node_<i>" for unnamed nodes), and their parents must agree;
/// - an animated source node given as a matrix is rewritten as T/R/S (glTF
///   animates only those);
/// - data only the old animations used is dropped, unless the file uses
///   extensions (which may refer to it by index);
/// - an external image that cannot be read (missing file) keeps its uri.
/// The source's buffers and images are read only from its own folder
/// (gltf_files.h) unless `allow_outside_uris`.
/// What the export leaves out is added to `warnings` (dropped when null).
/// Refuses an invalid skeleton or clip, a BVH or unreadable source, a source
/// whose JSON or node hierarchy the importer would refuse, and output over
/// the 4 GiB a .glb can hold.
Result<std::vector<uint8_t>> export_gltf(const Skeleton& skeleton, const RawClip& clip,
                                         const std::optional<std::filesystem::path>& source = std::nullopt,
                                         bool allow_outside_uris = false, std::vector<std::string>* warnings = nullptr);

/// The warning an export of an additive stream (to `base`) carries: the
/// animation written is the layer, which a viewer shows on no base.
std::string additive_layer_export_warning(AdditiveBase base);

}  // namespace ks
