#pragma once
// Accessors appended to a tinygltf::Model, each in its own buffer view of the
// model's only buffer. Every byte is written explicitly (padding is zeroed),
// so the same values give the same file on every build.

#include <tiny_gltf.h>

#include <cstddef>
#include <vector>

#include "demo_math.h"

namespace ks::demo {

/// Appends `size` bytes as a new buffer view (4-byte aligned, zero padding)
/// and returns its index. `model` must have a buffer.
int add_buffer_view(tinygltf::Model& model, const void* bytes, size_t size, int target);

/// Float accessor of `components` per element (3 = VEC3...), in its own
/// view; min and max included when `with_bounds` (glTF requires them for
/// POSITION and animation inputs).
int add_float_accessor(tinygltf::Model& model, const std::vector<float>& values, int type, int components, int target,
                       bool with_bounds);

/// Integer accessor of `components` per element, in its own view; T must match `component_type`.
template <class T>
int add_integer_accessor(tinygltf::Model& model, const std::vector<T>& values, int component_type, int type,
                         int components, int target) {
  tinygltf::Accessor accessor;
  accessor.bufferView = add_buffer_view(model, values.data(), values.size() * sizeof(T), target);
  accessor.componentType = component_type;
  accessor.type = type;
  accessor.count = values.size() / static_cast<size_t>(components);
  model.accessors.push_back(accessor);
  return static_cast<int>(model.accessors.size()) - 1;
}

/// Appends x, y, z rounded to float.
void push(std::vector<float>& out, Vec v);
/// Appends x, y, z, w (glTF order) rounded to float.
void push(std::vector<float>& out, Rot q);

}  // namespace ks::demo
