#pragma once
// Base colour textures of a glTF model, decoded for the studio (internal to
// the glTF importer). Decoding is the one place an import reads pixels, so
// its size is bounded before any pixel is allocated.

#include <cstdint>

#include "keystream/clip/skinned_mesh.h"
#include "keystream/runtime/result.h"

namespace tinygltf {
class Model;
}

namespace ks::gltf {

/// Longest side of a texture the importer decodes, pixels (64 MB of RGBA
/// while it is decoded).
inline constexpr uint32_t kMaxTextureSide = 4096;
/// Longest side of a texture kept: larger ones are halved down to it (4 MB
/// of RGBA). The studio previews a character; a few kilobytes of PNG may
/// hold 4096 x 4096 of one colour, and what is kept must stay in
/// proportion.
inline constexpr uint32_t kKeptTextureSide = 1024;
/// Decoded bytes of all of a mesh's textures: those past it are not
/// decoded (their primitives keep their base colour, with a warning).
inline constexpr uint64_t kMaxTextureBytes = uint64_t{32} << 20;

/// Halves `texture` (2 x 2 box filter, in sRGB values) until neither side
/// exceeds `max_side`.
void shrink_texture(MeshTexture& texture, uint32_t max_side);

/// Decodes image `image` of `model` (PNG, JPEG, BMP, TGA...) to RGBA8, at
/// most kKeptTextureSide on a side (shrink_texture): its
/// encoded bytes as the loader kept them for a URI (ExternalFileRules::
/// read_images) or the range of its buffer view. The error (for a warning:
/// a texture is never a reason to refuse a clip) says why: no such image, no
/// bytes, a buffer view out of range, an undecodable or oversized image.
Result<MeshTexture> decode_texture(const tinygltf::Model& model, int image);

}  // namespace ks::gltf
