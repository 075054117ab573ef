#include "gltf_accessors.h"

#include <algorithm>
#include <cstring>

namespace ks::demo {

int add_buffer_view(tinygltf::Model& model, const void* bytes, size_t size, int target) {
  std::vector<unsigned char>& data = model.buffers[0].data;
  data.resize((data.size() + 3) / 4 * 4, 0);
  tinygltf::BufferView view;
  view.buffer = 0;
  view.byteOffset = data.size();
  view.byteLength = size;
  view.target = target;
  data.resize(data.size() + size);
  std::memcpy(data.data() + view.byteOffset, bytes, size);
  model.bufferViews.push_back(view);
  return static_cast<int>(model.bufferViews.size()) - 1;
}

int add_float_accessor(tinygltf::Model& model, const std::vector<float>& values, int type, int components, int target,
                       bool with_bounds) {
  tinygltf::Accessor accessor;
  accessor.bufferView = add_buffer_view(model, values.data(), values.size() * sizeof(float), target);
  accessor.componentType = TINYGLTF_COMPONENT_TYPE_FLOAT;
  accessor.type = type;
  accessor.count = values.size() / static_cast<size_t>(components);
  if (with_bounds) {
    accessor.minValues.assign(static_cast<size_t>(components), 0.0);
    accessor.maxValues.assign(static_cast<size_t>(components), 0.0);
    for (size_t c = 0; c < static_cast<size_t>(components); ++c) {
      float lo = values[c], hi = values[c];
      for (size_t i = c; i < values.size(); i += static_cast<size_t>(components)) {
        lo = std::min(lo, values[i]);
        hi = std::max(hi, values[i]);
      }
      accessor.minValues[c] = lo;
      accessor.maxValues[c] = hi;
    }
  }
  model.accessors.push_back(accessor);
  return static_cast<int>(model.accessors.size()) - 1;
}

void push(std::vector<float>& out, Vec v) {
  out.insert(out.end(), {static_cast<float>(v.x), static_cast<float>(v.y), static_cast<float>(v.z)});
}
void push(std::vector<float>& out, Rot q) {
  out.insert(out.end(),
             {static_cast<float>(q.x), static_cast<float>(q.y), static_cast<float>(q.z), static_cast<float>(q.w)});
}

}  // namespace ks::demo
