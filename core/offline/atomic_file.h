#pragma once
// Writing files so that a failure never loses what was there: the bytes go to
// a temporary file beside the target, are flushed, then renamed over it.

#include <filesystem>
#include <span>
#include <string_view>

#include "core/runtime/result.h"

namespace ks {

/// Replaces `path` with `bytes` atomically: readers see the old file or the
/// new one, never a mix, and an interrupted write leaves the old file intact.
Status write_file_atomically(const std::filesystem::path& path, std::span<const unsigned char> bytes);

/// Same, for text or a std::string buffer.
Status write_file_atomically(const std::filesystem::path& path, std::string_view bytes);

}  // namespace ks
