#pragma once
// Checked reads of glTF accessors (internal to the glTF importer). tinygltf
// parses the JSON and loads buffers but does not check that an accessor's
// bytes lie inside its buffer view and buffer: every read here does.

#include <cstdint>
#include <string>
#include <vector>

#include "keystream/runtime/result.h"

namespace tinygltf {
class Model;
}

namespace ks::gltf {

/// What a caller accepts from an accessor.
struct AccessorRequest {
  int type = 0;                      // TINYGLTF_TYPE_* the accessor must have
  std::vector<int> component_types;  // accepted TINYGLTF_COMPONENT_TYPE_* values
  bool allow_normalized_integers = false;  // integer components read as normalised to 0..1 / -1..1
};

/// Reads accessor `index` as floats, `components` per element (3 for VEC3,
/// 16 for MAT4...), applying sparse substitution and normalisation.
/// Integer accessors that are not normalised are read as their integer value.
/// Refuses out-of-range indices, byte ranges past the view or buffer, types
/// not in `request`, and non-finite values. `what` names the use in errors.
Result<std::vector<float>> read_floats(const tinygltf::Model& model, int index, const AccessorRequest& request,
                                       const std::string& what);

/// Reads accessor `index` (SCALAR or VECn of unsigned integer components) as
/// unsigned integers, with the same checks.
Result<std::vector<uint32_t>> read_unsigned(const tinygltf::Model& model, int index, const AccessorRequest& request,
                                            const std::string& what);

/// Number of components of a TINYGLTF_TYPE_* value (SCALAR 1 ... MAT4 16); 0 if unknown.
int component_count(int type);

/// A sampler's key times (accessor `input`, SCALAR FLOAT, seconds): at least
/// one, none negative, never decreasing; errors name `where`.
Result<std::vector<float>> read_key_times(const tinygltf::Model& model, int input, const std::string& where);

}  // namespace ks::gltf
