#pragma once
// Base colour textures of a glTF model, decoded for the studio (internal to
// the glTF importer). Decoding is the one place an import reads pixels, so
// its size is bounded before any pixel is allocated.

#include <cstdint>

#include "core/clip/skinned_mesh.h"
#include "core/runtime/result.h"

namespace tinygltf {
class Model;
}

namespace ks::gltf {

/// Longest side of a texture the importer decodes, pixels (64 MB of RGBA).
inline constexpr uint32_t kMaxTextureSide = 4096;

/// Decodes image `image` of `model` (PNG, JPEG, BMP, TGA...) to RGBA8: its
/// encoded bytes as the loader kept them for a URI (ExternalFileRules::
/// read_images) or the range of its buffer view. The error (for a warning:
/// a texture is never a reason to refuse a clip) says why: no such image, no
/// bytes, a buffer view out of range, an undecodable or oversized image.
Result<MeshTexture> decode_texture(const tinygltf::Model& model, int image);

}  // namespace ks::gltf
