#pragma once
// A third-party reader (assimp, for FBX and Collada) run in a child process,
// so that a bug in it costs the file, not the tool: a crash, a stack
// overflow, runaway memory or a loop in the reader becomes an error naming
// the file, and the CLI, a batch cook or the studio with its unsaved tuning
// carries on. Checking the bytes first (assimp_guard.h) refuses what we know
// breaks assimp; this contains what we do not know yet. DESIGN.md §2 and
// docs/importers.md say why a fork and not threads or exec.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string_view>

#include "core/io/import.h"
#include "core/runtime/result.h"

namespace ks {

/// What the child may use. Memory is what it adds to the resident memory it
/// started with (a fork starts as a copy of the caller), checked by the
/// parent every few milliseconds and, in builds without a sanitizer, also
/// as an address-space limit; CPU time is a kernel limit (setrlimit); wall
/// time catches a reader that waits without spending CPU.
struct SandboxLimits {
  uint64_t memory_bytes = 0;
  uint32_t cpu_seconds = 0;
  uint32_t wall_seconds = 0;
};

/// The limits for an input of `input_bytes`: memory 64 times the input plus
/// 48 MiB (so that the tool as a whole stays within 64x + 64 MiB), CPU time
/// 30 s plus 1 s for every 256 KiB, wall time three times the CPU time.
/// Under a sanitizer, memory is four times that plus 256 MiB (its redzones,
/// shadow and quarantine).
SandboxLimits sandbox_limits_for(uint64_t input_bytes);

/// Runs `import` in a forked child under `limits` and returns what it
/// returned, sent back over a pipe (imported_clip_wire.h). When the child
/// dies or is stopped, the error is "FILE: the READER reader failed on this
/// file (SIGSEGV); the file is probably malformed" with the signal, or says
/// which limit it reached. The child's stdout and stderr go to /dev/null
/// (set KS_SANDBOX_STDERR=1 to keep its stderr while debugging a reader).
Result<ImportedClip> import_in_child(const std::function<Result<ImportedClip>()>& import, std::string_view reader,
                                     const std::filesystem::path& file, const SandboxLimits& limits);

}  // namespace ks
