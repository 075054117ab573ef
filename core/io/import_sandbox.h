#pragma once
// A third-party reader (assimp, for FBX and Collada) run in a child process,
// so that a bug in it costs the file, not the tool: a crash, a stack
// overflow, runaway memory or a loop in the reader becomes an error naming
// the file, and the CLI, a batch cook or the studio with its unsaved tuning
// carries on. Checking the bytes first (assimp_guard.h) refuses what we know
// breaks assimp; this contains what we do not know yet. docs/importers.md
// says why a program of its own.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string_view>

#include "keystream/io/import.h"
#include "keystream/runtime/result.h"

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

/// The program that imports one file for another (app/import_worker): it
/// reads a request (imported_clip_wire.h) on stdin and writes the result on
/// stdout.
inline constexpr std::string_view kImportWorkerName = "keystream-import";
/// A reader's exit status when an allocation failed (its memory limit).
inline constexpr int kReaderOutOfMemoryExit = 86;
/// Longest request sent: it must fit a pipe's buffer (64 KiB).
inline constexpr size_t kMaxImportRequestBytes = 60000;

/// Where the import worker is: $KS_IMPORT_WORKER, else beside this program,
/// else where this build made it; empty when none is there.
std::filesystem::path import_worker_path();

/// Imports `path` with `settings` in the import worker, a program of its
/// own (fork, then exec at once) under `limits`, the errors as
/// import_in_child's. A fresh program shares no lock with this one's
/// threads, as a forked copy does. Where no worker is found (a library
/// user's program), `fallback` runs in import_in_child instead.
Result<ImportedClip> import_contained(const std::filesystem::path& path, const ImportSettings& settings,
                                      std::string_view reader, const SandboxLimits& limits,
                                      const std::function<Result<ImportedClip>()>& fallback);

}  // namespace ks
