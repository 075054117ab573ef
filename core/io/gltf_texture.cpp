#include "keystream/io/gltf_texture.h"

#include <stb_image.h>
#include <tiny_gltf.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace ks::gltf {

namespace {

// The encoded bytes of `image`: kept by the loader, or its buffer view's range.
Result<std::span<const uint8_t>> encoded_bytes(const tinygltf::Model& model, const tinygltf::Image& image) {
  if (!image.image.empty()) return std::span<const uint8_t>(image.image);
  if (image.bufferView < 0) return Error{"its file was not read"};
  if (static_cast<size_t>(image.bufferView) >= model.bufferViews.size()) {
    return Error{"its buffer view " + std::to_string(image.bufferView) + " does not exist"};
  }
  const tinygltf::BufferView& view = model.bufferViews[static_cast<size_t>(image.bufferView)];
  if (view.buffer < 0 || static_cast<size_t>(view.buffer) >= model.buffers.size()) {
    return Error{"its buffer view's buffer " + std::to_string(view.buffer) + " does not exist"};
  }
  const std::vector<unsigned char>& data = model.buffers[static_cast<size_t>(view.buffer)].data;
  if (view.byteOffset > data.size() || view.byteLength > data.size() - view.byteOffset || view.byteLength == 0) {
    return Error{"its buffer view lies outside its buffer"};
  }
  return std::span<const uint8_t>(data.data() + view.byteOffset, view.byteLength);
}

}  // namespace

Result<MeshTexture> decode_texture(const tinygltf::Model& model, int image_index) {
  if (image_index < 0 || static_cast<size_t>(image_index) >= model.images.size()) {
    return Error{"image " + std::to_string(image_index) + " does not exist"};
  }
  const std::string what = "image " + std::to_string(image_index);
  Result<std::span<const uint8_t>> bytes = encoded_bytes(model, model.images[static_cast<size_t>(image_index)]);
  if (!bytes) return Error{what + ": " + bytes.error()};
  const std::span<const uint8_t> encoded = bytes.value();
  if (encoded.size() > static_cast<size_t>(INT32_MAX)) return Error{what + " is larger than 2 GiB"};
  const int length = static_cast<int>(encoded.size());
  // The header first: a few bytes may claim any size, and the pixels are
  // allocated only for one within bounds.
  int width = 0, height = 0, channels = 0;
  if (stbi_info_from_memory(encoded.data(), length, &width, &height, &channels) == 0) {
    return Error{what + " is not an image stb_image decodes (" + stbi_failure_reason() + ")"};
  }
  if (width <= 0 || height <= 0 || static_cast<uint32_t>(width) > kMaxTextureSide ||
      static_cast<uint32_t>(height) > kMaxTextureSide) {
    return Error{what + " is " + std::to_string(width) + " x " + std::to_string(height) + " pixels, past " +
                 std::to_string(kMaxTextureSide) + " on a side"};
  }
  const std::unique_ptr<stbi_uc, void (*)(void*)> pixels(
      stbi_load_from_memory(encoded.data(), length, &width, &height, &channels, 4), stbi_image_free);
  if (!pixels) return Error{what + " does not decode (" + std::string(stbi_failure_reason()) + ")"};
  MeshTexture texture;
  texture.width = static_cast<uint32_t>(width);
  texture.height = static_cast<uint32_t>(height);
  texture.rgba.resize(size_t{texture.width} * texture.height * 4);
  std::memcpy(texture.rgba.data(), pixels.get(), texture.rgba.size());
  shrink_texture(texture, kKeptTextureSide);
  return texture;
}

void shrink_texture(MeshTexture& texture, uint32_t max_side) {
  max_side = std::max<uint32_t>(max_side, 1);
  while (texture.width > max_side || texture.height > max_side) {
    // An odd last row or column folds into the one before it.
    const uint32_t width = std::max<uint32_t>(texture.width / 2, 1);
    const uint32_t height = std::max<uint32_t>(texture.height / 2, 1);
    std::vector<uint8_t> half(size_t{width} * height * 4);
    for (uint32_t y = 0; y < height; ++y) {
      const uint32_t y0 = std::min(2 * y, texture.height - 1), y1 = std::min(2 * y + 1, texture.height - 1);
      for (uint32_t x = 0; x < width; ++x) {
        const uint32_t x0 = std::min(2 * x, texture.width - 1), x1 = std::min(2 * x + 1, texture.width - 1);
        for (uint32_t c = 0; c < 4; ++c) {
          const auto at = [&](uint32_t px, uint32_t py) {
            return uint32_t{texture.rgba[(size_t{py} * texture.width + px) * 4 + c]};
          };
          half[(size_t{y} * width + x) * 4 + c] =
              static_cast<uint8_t>((at(x0, y0) + at(x1, y0) + at(x0, y1) + at(x1, y1) + 2) / 4);
        }
      }
    }
    texture.width = width;
    texture.height = height;
    texture.rgba = std::move(half);
  }
}

}  // namespace ks::gltf
