#include "app/studio/png_writer.h"

#include <glad/gl.h>
#include <stb/stb_image_write.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/io/file_io.h"

namespace ks::studio {

namespace {
// stb hands the encoded bytes over in pieces; collect them for one atomic write.
void append_bytes(void* context, void* data, int size) {
  auto* out = static_cast<std::string*>(context);
  out->append(static_cast<const char*>(data), static_cast<size_t>(size));
}
}  // namespace

Status write_framebuffer_png(const std::filesystem::path& path, int width, int height) {
  if (width <= 0 || height <= 0) return Error{path.string() + ": the window has no pixels to save"};
  std::vector<unsigned char> pixels(static_cast<size_t>(width) * static_cast<size_t>(height) * 3);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadBuffer(GL_BACK);
  glReadPixels(0, 0, width, height, GL_RGB, GL_UNSIGNED_BYTE, pixels.data());
  // OpenGL's first row is the bottom one; PNG's is the top. Flipped in place:
  // a second copy of the window would be the studio's largest allocation.
  const size_t row = static_cast<size_t>(width) * 3;
  for (size_t top = 0, bottom = static_cast<size_t>(height) - 1; top < bottom; ++top, --bottom) {
    std::swap_ranges(pixels.data() + top * row, pixels.data() + (top + 1) * row, pixels.data() + bottom * row);
  }
  std::string png;
  if (stbi_write_png_to_func(append_bytes, &png, width, height, 3, pixels.data(), static_cast<int>(row)) == 0) {
    return Error{path.string() + ": could not encode the PNG"};
  }
  return write_file_atomically(path, png);
}

}  // namespace ks::studio
