#include "keystream/io/gltf_accessor.h"

#include <tiny_gltf.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace ks::gltf {

namespace {

// Accessors with no buffer view are all zeros; cap them so that a count in
// the JSON cannot make us allocate gigabytes.
constexpr size_t kMaxImplicitElements = size_t{1} << 24;

int component_size(int component_type) {
  switch (component_type) {
    case TINYGLTF_COMPONENT_TYPE_BYTE:
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE:
      return 1;
    case TINYGLTF_COMPONENT_TYPE_SHORT:
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT:
      return 2;
    case TINYGLTF_COMPONENT_TYPE_INT:
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT:
    case TINYGLTF_COMPONENT_TYPE_FLOAT:
      return 4;
    default:
      return 0;
  }
}

const char* component_name(int component_type) {
  switch (component_type) {
    case TINYGLTF_COMPONENT_TYPE_BYTE: return "BYTE";
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE: return "UNSIGNED_BYTE";
    case TINYGLTF_COMPONENT_TYPE_SHORT: return "SHORT";
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT: return "UNSIGNED_SHORT";
    case TINYGLTF_COMPONENT_TYPE_INT: return "INT";
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT: return "UNSIGNED_INT";
    case TINYGLTF_COMPONENT_TYPE_FLOAT: return "FLOAT";
    default: return "unknown";
  }
}

const char* type_name(int type) {
  switch (type) {
    case TINYGLTF_TYPE_SCALAR: return "SCALAR";
    case TINYGLTF_TYPE_VEC2: return "VEC2";
    case TINYGLTF_TYPE_VEC3: return "VEC3";
    case TINYGLTF_TYPE_VEC4: return "VEC4";
    case TINYGLTF_TYPE_MAT2: return "MAT2";
    case TINYGLTF_TYPE_MAT3: return "MAT3";
    case TINYGLTF_TYPE_MAT4: return "MAT4";
    default: return "unknown";
  }
}

// One component at `p` converted to double; normalised integers map to
// -1..1 or 0..1 as the glTF specification defines.
double decode_component(const unsigned char* p, int component_type, bool normalized) {
  switch (component_type) {
    case TINYGLTF_COMPONENT_TYPE_FLOAT: {
      float v;
      std::memcpy(&v, p, sizeof v);
      return v;
    }
    case TINYGLTF_COMPONENT_TYPE_BYTE: {
      int8_t v;
      std::memcpy(&v, p, sizeof v);
      return normalized ? std::max(v / 127.0, -1.0) : v;
    }
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE: return normalized ? p[0] / 255.0 : p[0];
    case TINYGLTF_COMPONENT_TYPE_SHORT: {
      int16_t v;
      std::memcpy(&v, p, sizeof v);
      return normalized ? std::max(v / 32767.0, -1.0) : v;
    }
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT: {
      uint16_t v;
      std::memcpy(&v, p, sizeof v);
      return normalized ? v / 65535.0 : v;
    }
    case TINYGLTF_COMPONENT_TYPE_INT: {
      int32_t v;
      std::memcpy(&v, p, sizeof v);
      return v;
    }
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT: {
      uint32_t v;
      std::memcpy(&v, p, sizeof v);
      return v;
    }
    default: return 0.0;
  }
}

// A checked view of `count` elements of `element_size` bytes, `stride` apart.
struct ElementRange {
  const unsigned char* first = nullptr;
  size_t stride = 0;
};

// Resolves buffer view `view_index` plus `offset` for `count` elements, or
// says which byte range does not fit.
Result<ElementRange> locate(const tinygltf::Model& model, int view_index, size_t offset, size_t count,
                            size_t element_size, bool strided, const std::string& what) {
  if (view_index < 0 || static_cast<size_t>(view_index) >= model.bufferViews.size()) {
    return Error{what + ": buffer view " + std::to_string(view_index) + " does not exist (" +
                 std::to_string(model.bufferViews.size()) + " buffer views)"};
  }
  const tinygltf::BufferView& view = model.bufferViews[static_cast<size_t>(view_index)];
  const std::string view_name = "buffer view " + std::to_string(view_index);
  if (view.buffer < 0 || static_cast<size_t>(view.buffer) >= model.buffers.size()) {
    return Error{what + ": " + view_name + " refers to buffer " + std::to_string(view.buffer) +
                 ", which does not exist"};
  }
  const std::vector<unsigned char>& bytes = model.buffers[static_cast<size_t>(view.buffer)].data;
  if (view.byteOffset > bytes.size() || view.byteLength > bytes.size() - view.byteOffset) {
    return Error{what + ": " + view_name + " (bytes " + std::to_string(view.byteOffset) + " + " +
                 std::to_string(view.byteLength) + ") runs past the end of buffer " + std::to_string(view.buffer) +
                 " (" + std::to_string(bytes.size()) + " bytes)"};
  }
  size_t stride = element_size;
  if (strided && view.byteStride != 0) {
    if (view.byteStride < element_size) {
      return Error{what + ": " + view_name + " stride " + std::to_string(view.byteStride) +
                   " is smaller than an element (" + std::to_string(element_size) + " bytes)"};
    }
    stride = view.byteStride;
  }
  // count <= byteLength bounds the product below, so it cannot overflow.
  const bool fits = offset <= view.byteLength && count <= view.byteLength &&
                    (count == 0 || (count - 1) * stride + element_size <= view.byteLength - offset);
  if (!fits) {
    return Error{what + ": " + std::to_string(count) + " elements of " + std::to_string(element_size) +
                 " bytes at offset " + std::to_string(offset) + " run past the end of " + view_name + " (" +
                 std::to_string(view.byteLength) + " bytes)"};
  }
  return ElementRange{bytes.data() + view.byteOffset + offset, stride};
}

// Reads the accessor as doubles after every check; shared by both public readers.
Result<std::vector<double>> read_doubles(const tinygltf::Model& model, int index, const AccessorRequest& request,
                                         const std::string& what_use) {
  if (index < 0 || static_cast<size_t>(index) >= model.accessors.size()) {
    return Error{what_use + ": accessor " + std::to_string(index) + " does not exist (" +
                 std::to_string(model.accessors.size()) + " accessors)"};
  }
  const tinygltf::Accessor& accessor = model.accessors[static_cast<size_t>(index)];
  const std::string what = what_use + ": accessor " + std::to_string(index);
  if (accessor.type != request.type) {
    return Error{what + " has type " + type_name(accessor.type) + ", expected " + type_name(request.type)};
  }
  if (std::find(request.component_types.begin(), request.component_types.end(), accessor.componentType) ==
      request.component_types.end()) {
    return Error{what + " has component type " + component_name(accessor.componentType) + ", not accepted here"};
  }
  const bool normalized = accessor.normalized && accessor.componentType != TINYGLTF_COMPONENT_TYPE_FLOAT;
  if (normalized && !request.allow_normalized_integers) {
    return Error{what + " is normalised, not accepted here"};
  }
  const size_t components = static_cast<size_t>(component_count(accessor.type));
  const size_t csize = static_cast<size_t>(component_size(accessor.componentType));
  const size_t element_size = components * csize;
  if (components > 4 && csize < 4) {
    // Matrices of 1- and 2-byte components carry column padding; nothing we read uses them.
    return Error{what + " is a matrix of small integers, which is not supported"};
  }

  std::vector<double> values;
  if (accessor.bufferView < 0) {
    if (accessor.count > kMaxImplicitElements) {
      return Error{what + " has " + std::to_string(accessor.count) + " elements and no buffer view"};
    }
    values.assign(accessor.count * components, 0.0);
  } else {
    Result<ElementRange> range =
        locate(model, accessor.bufferView, accessor.byteOffset, accessor.count, element_size, true, what);
    if (!range) return Error{range.error()};
    values.resize(accessor.count * components);
    for (size_t e = 0; e < accessor.count; ++e) {
      const unsigned char* p = range.value().first + e * range.value().stride;
      for (size_t c = 0; c < components; ++c) {
        values[e * components + c] = decode_component(p + c * csize, accessor.componentType, normalized);
      }
    }
  }

  if (accessor.sparse.isSparse) {
    const auto& sparse = accessor.sparse;
    if (sparse.count < 1 || static_cast<size_t>(sparse.count) > accessor.count) {
      return Error{what + " has a sparse count of " + std::to_string(sparse.count) + " for " +
                   std::to_string(accessor.count) + " elements"};
    }
    const int index_type = sparse.indices.componentType;
    if (index_type != TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE && index_type != TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT &&
        index_type != TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT) {
      return Error{what + " has sparse indices of component type " + component_name(index_type)};
    }
    if (sparse.indices.byteOffset < 0 || sparse.values.byteOffset < 0) {
      return Error{what + " has a negative sparse byte offset"};
    }
    const size_t n = static_cast<size_t>(sparse.count);
    const size_t isize = static_cast<size_t>(component_size(index_type));
    Result<ElementRange> indices = locate(model, sparse.indices.bufferView,
                                          static_cast<size_t>(sparse.indices.byteOffset), n, isize, false,
                                          what + " sparse indices");
    if (!indices) return Error{indices.error()};
    Result<ElementRange> substitutes = locate(model, sparse.values.bufferView,
                                              static_cast<size_t>(sparse.values.byteOffset), n, element_size,
                                              false, what + " sparse values");
    if (!substitutes) return Error{substitutes.error()};
    double previous = -1.0;
    for (size_t s = 0; s < n; ++s) {
      const double target = decode_component(indices.value().first + s * isize, index_type, false);
      if (target <= previous || target >= static_cast<double>(accessor.count)) {
        return Error{what + " sparse index " + std::to_string(s) + " is out of order or out of range"};
      }
      previous = target;
      const size_t e = static_cast<size_t>(target);
      for (size_t c = 0; c < components; ++c) {
        values[e * components + c] = decode_component(substitutes.value().first + s * element_size + c * csize,
                                                      accessor.componentType, normalized);
      }
    }
  }

  for (size_t i = 0; i < values.size(); ++i) {
    if (!std::isfinite(values[i]) || std::fabs(values[i]) > std::numeric_limits<float>::max()) {
      return Error{what + " element " + std::to_string(i / components) + " is not a finite number"};
    }
  }
  return values;
}

}  // namespace

int component_count(int type) {
  switch (type) {
    case TINYGLTF_TYPE_SCALAR: return 1;
    case TINYGLTF_TYPE_VEC2: return 2;
    case TINYGLTF_TYPE_VEC3: return 3;
    case TINYGLTF_TYPE_VEC4: return 4;
    case TINYGLTF_TYPE_MAT2: return 4;
    case TINYGLTF_TYPE_MAT3: return 9;
    case TINYGLTF_TYPE_MAT4: return 16;
    default: return 0;
  }
}

Result<std::vector<float>> read_floats(const tinygltf::Model& model, int index, const AccessorRequest& request,
                                       const std::string& what) {
  Result<std::vector<double>> values = read_doubles(model, index, request, what);
  if (!values) return Error{values.error()};
  return std::vector<float>(values.value().begin(), values.value().end());
}

Result<std::vector<uint32_t>> read_unsigned(const tinygltf::Model& model, int index, const AccessorRequest& request,
                                            const std::string& what) {
  Result<std::vector<double>> values = read_doubles(model, index, request, what);
  if (!values) return Error{values.error()};
  std::vector<uint32_t> out(values.value().size());
  for (size_t i = 0; i < out.size(); ++i) {
    const double v = values.value()[i];
    if (v < 0.0 || v > 4294967295.0) return Error{what + ": accessor " + std::to_string(index) + " holds a negative index"};
    out[i] = static_cast<uint32_t>(v);
  }
  return out;
}

Result<std::vector<float>> read_key_times(const tinygltf::Model& model, int input, const std::string& where) {
  Result<std::vector<float>> times =
      read_floats(model, input, {TINYGLTF_TYPE_SCALAR, {TINYGLTF_COMPONENT_TYPE_FLOAT}}, where + " input");
  if (!times) return Error{times.error()};
  const std::vector<float>& t = times.value();
  if (t.empty()) return Error{where + " has no keys"};
  for (size_t k = 0; k < t.size(); ++k) {
    if (t[k] < 0.f) return Error{where + " key " + std::to_string(k) + " has a negative time"};
    if (k > 0 && t[k] < t[k - 1]) {
      return Error{where + " key times are not increasing (key " + std::to_string(k) + " at " + std::to_string(t[k]) +
                   " s comes after " + std::to_string(t[k - 1]) + " s)"};
    }
  }
  return times;
}

}  // namespace ks::gltf
