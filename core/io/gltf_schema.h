#pragma once
// Type checks on a glTF 2.0 document's JSON (internal to the glTF importer).
// tinygltf silently ignores a property whose JSON type is wrong (a name that
// is a number, an index of -1, a texture that is a string), which hides a
// broken file; these checks refuse it, naming the property. Before any
// parser sees the text, its nesting is checked: parsers and the trees they
// build recurse once per level, and a file of a few kilobytes nesting tens of
// thousands of levels overflows the stack.

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "keystream/runtime/result.h"

namespace ks::gltf {

/// Checks the types the glTF 2.0 schema gives every core property: objects,
/// arrays, strings, booleans, numbers, and non-negative integers for indices,
/// counts and offsets; every extension is an object. Unknown properties are
/// allowed (the schema allows them). The error names the property by its
/// JSON path, e.g. "materials[0].normalTexture.scale must be a number".
Status check_json_types(const nlohmann::json& document);

/// Deepest nesting of arrays and objects a glTF file may have. The schema's
/// own properties nest about ten levels; the rest is room for extras and
/// extensions.
inline constexpr uint32_t kMaxJsonDepth = 256;

/// Refuses JSON text whose arrays and objects nest deeper than `max_depth`,
/// naming the byte where it does; strings (and escapes in them) are skipped.
/// Malformed text otherwise passes: the parser says what is wrong with it.
Status check_json_nesting(std::string_view text, uint32_t max_depth = kMaxJsonDepth);

/// Checks a .glb file's container: its 12-byte header (magic, version 2, a
/// length equal to the file's), then chunks that fit in it, JSON first and
/// an optional BIN second; says "truncated" where the file is cut short.
Status check_glb_container(std::string_view bytes);

/// The JSON text of a .gltf file (`binary` false: all of `bytes`) or of a
/// .glb's first chunk; empty when the GLB container is broken (the loader
/// then says how).
std::string_view json_text(std::string_view bytes, bool binary);

}  // namespace ks::gltf
