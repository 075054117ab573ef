#pragma once
// Whole-file reads and writes for the offline tools. Reads refuse a file too
// large to hold in memory; writes never lose what was there: the bytes go to
// a temporary file beside the target, are flushed, then renamed over it.

#include <sys/types.h>

#include <cstddef>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>

#include "keystream/runtime/result.h"

namespace ks {

/// What a file that is not a regular file is, from its stat() mode, for a
/// refusal: "a directory", "a FIFO", "a character device", "a block device",
/// "a socket", or else "a special file".
const char* file_type_name(mode_t mode);

/// Largest file read_file reads, bytes (1 GiB).
inline constexpr size_t kMaxReadFileBytes = size_t{1} << 30;

/// Reads the whole file at `path` as bytes (no newline translation, NUL bytes
/// kept). Refuses a file that cannot be opened or read, anything but a
/// regular file (a directory, a FIFO, which would wait for a writer, a
/// device such as /dev/zero, which never ends), and a file larger than
/// kMaxReadFileBytes; the error names the path and the reason, e.g.
/// "clips/walk.bvh: cannot open: No such file or directory" or "x.bvh:
/// cannot read a FIFO, only a regular file".
Result<std::string> read_file(const std::filesystem::path& path);

/// The first `max_bytes` bytes of the regular file at `path` (all of it when
/// shorter), refused as read_file refuses: what a reader that needs only a
/// declared length reads, however large the file.
Result<std::string> read_file_prefix(const std::filesystem::path& path, size_t max_bytes);

/// Replaces `path` with `bytes` atomically: readers see the old file or the
/// new one, never a mix, and an interrupted write leaves the old file intact.
/// The bytes go to an unnamed file (O_TMPFILE) that gets a name only when
/// complete: the target's own when it is new, else a hidden one renamed over
/// the target. A kill -9 while writing leaves nothing; one between naming
/// and renaming leaves a complete hidden file, which the next write of the
/// same target removes (on a file system without O_TMPFILE, a named
/// temporary file that only a kill can leave).
Status write_file_atomically(const std::filesystem::path& path, std::span<const unsigned char> bytes);

/// Same, for text or a std::string buffer.
Status write_file_atomically(const std::filesystem::path& path, std::string_view bytes);

}  // namespace ks
