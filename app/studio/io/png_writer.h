#pragma once
// Screenshots: the current framebuffer as a PNG, written atomically.

#include <filesystem>

#include "keystream/runtime/result.h"

namespace ks::studio {

/// Reads the default framebuffer (`width` x `height`, bottom-up in OpenGL)
/// and writes it top-down as an RGB PNG to `path`.
Status write_framebuffer_png(const std::filesystem::path& path, int width, int height);

}  // namespace ks::studio
