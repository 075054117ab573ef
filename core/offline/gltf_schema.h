#pragma once
// Type checks on a glTF 2.0 document's JSON (internal to the glTF importer).
// tinygltf silently ignores a property whose JSON type is wrong (a name that
// is a number, an index of -1, a texture that is a string), which hides a
// broken file; these checks refuse it, naming the property.

#include <nlohmann/json_fwd.hpp>

#include "core/runtime/result.h"

namespace ks::gltf {

/// Checks the types the glTF 2.0 schema gives every core property: objects,
/// arrays, strings, booleans, numbers, and non-negative integers for indices,
/// counts and offsets; every extension is an object. Unknown properties are
/// allowed (the schema allows them). The error names the property by its
/// JSON path, e.g. "materials[0].normalTexture.scale must be a number".
Status check_json_types(const nlohmann::json& document);

}  // namespace ks::gltf
