#include "keystream/io/import_sandbox.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>
#include <string>

#include "keystream/clip/excerpt.h"
#include "keystream/io/imported_clip_wire.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define KS_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define KS_SANITIZED 1
#endif
#endif

namespace ks {

namespace {

constexpr int kOutOfMemoryExit = kReaderOutOfMemoryExit;
constexpr int kExecFailedExit = 127;
// What a worker holds before it reads its file (its program and libraries, resident).
constexpr uint64_t kWorkerBaseBytes = uint64_t{16} << 20;
constexpr int kPollMilliseconds = 10;

uint64_t page_bytes() {
  const long page = sysconf(_SC_PAGESIZE);
  return page > 0 ? static_cast<uint64_t>(page) : 4096;
}

// Resident and virtual bytes of process `pid` (0: this one), from
// /proc/PID/statm; 0 when it cannot be read (the process has gone).
struct MemoryUse {
  uint64_t virtual_bytes = 0;
  uint64_t resident_bytes = 0;
};

MemoryUse memory_use(pid_t pid) {
  char path[64];
  std::snprintf(path, sizeof path, pid == 0 ? "/proc/self/statm" : "/proc/%d/statm", static_cast<int>(pid));
  MemoryUse use;
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return use;
  char text[128] = {};
  const ssize_t n = read(fd, text, sizeof text - 1);
  close(fd);
  unsigned long long size = 0, resident = 0;
  if (n > 0 && std::sscanf(text, "%llu %llu", &size, &resident) == 2) {
    use.virtual_bytes = size * page_bytes();
    use.resident_bytes = resident * page_bytes();
  }
  return use;
}

bool write_all(int fd, const std::string& bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

[[noreturn]] void out_of_memory() { _exit(kOutOfMemoryExit); }

// What a child sets on itself, made before the fork: a child of a threaded
// program may only make async-signal-safe calls until it execs.
struct ChildSetup {
  rlimit no_core{0, 0};  // a crash leaves no core file behind
  rlimit cpu{};          // SIGXCPU, then SIGKILL
  rlimit address_space{};
  bool keep_stderr = false;
};

// `base_virtual`: the address space the child starts with (a forked copy's
// is the caller's; a fresh program's, its libraries', allowed for in slack).
ChildSetup child_setup(const SandboxLimits& limits, uint64_t base_virtual, uint64_t slack) {
  ChildSetup setup;
  setup.cpu = {limits.cpu_seconds, limits.cpu_seconds + 2};
  const uint64_t cap = base_virtual + limits.memory_bytes + slack;
  setup.address_space = {cap, cap};
  setup.keep_stderr = std::getenv("KS_SANDBOX_STDERR") != nullptr;
  return setup;
}

// In the child, async-signal-safe calls only: dies with the thread that
// waits for it, no inherited signal mask or crash handler (a crash ends it
// by its own signal, which the parent names, not through a sanitizer's
// report ending in SIGABRT), the limits, stderr to /dev/null.
void enter_child(const ChildSetup& setup) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  for (const int s : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGXCPU, SIGPIPE}) signal(s, SIG_DFL);
  setrlimit(RLIMIT_CORE, &setup.no_core);
  setrlimit(RLIMIT_CPU, &setup.cpu);
#ifndef KS_SANITIZED
  // A sanitizer reserves terabytes of address space up front and allocates
  // inside it; there only the parent's watch on resident memory applies.
  setrlimit(RLIMIT_AS, &setup.address_space);
#endif
  if (!setup.keep_stderr) {
    const int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (null >= 0) dup2(null, STDERR_FILENO);
  }
}

// The forked copy: the import, then its result down the pipe. It leaves by
// _exit, running none of the parent's exit handlers (which would flush its
// buffers twice or tear down its window system connection).
[[noreturn]] void run_child(int out, const std::function<Result<ImportedClip>()>& import, const ChildSetup& setup) {
  enter_child(setup);
  std::set_new_handler(out_of_memory);
  if (!setup.keep_stderr) {
    const int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (null >= 0) dup2(null, STDOUT_FILENO);
  }
  std::string message;
  try {
    message = encode_import_result(import());
  } catch (const std::bad_alloc&) {
    out_of_memory();
  } catch (const std::exception& e) {
    message = encode_import_result(Error{std::string("the reader threw: ") + e.what()});
  }
  _exit(write_all(out, message) ? 0 : 1);
}

std::string signal_name(int signal) {
  switch (signal) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGABRT: return "SIGABRT";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGKILL: return "SIGKILL";
    case SIGTRAP: return "SIGTRAP";
    case SIGSYS: return "SIGSYS";
    default: return "signal " + std::to_string(signal);
  }
}

std::string megabytes(uint64_t bytes) { return std::to_string((bytes + (1 << 20) - 1) >> 20) + " MiB"; }

}  // namespace

SandboxLimits sandbox_limits_for(uint64_t input_bytes) {
  SandboxLimits limits;
  limits.memory_bytes = 64 * input_bytes + (uint64_t{48} << 20);
#ifdef KS_SANITIZED
  // Redzones, shadow and the quarantine of freed blocks (256 MB by default)
  // are the sanitizer's, not the reader's: room for them in test builds.
  limits.memory_bytes = 4 * limits.memory_bytes + (uint64_t{256} << 20);
#endif
  limits.cpu_seconds = static_cast<uint32_t>(30 + input_bytes / (256 << 10));
  limits.wall_seconds = 3 * limits.cpu_seconds;
  return limits;
}

namespace {

// The parent's side: reads the child's message from `in` while it watches
// the child's resident memory (above `start_resident`) and the clock, then
// reaps it and turns how it ended into the result.
Result<ImportedClip> await_child(pid_t child, int in, uint64_t start_resident, const SandboxLimits& limits,
                                 const std::string& failed) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(limits.wall_seconds);
  std::string message;
  std::string stopped;  // why the parent killed the child, when it did
  char buffer[1 << 16];
  while (stopped.empty()) {
    pollfd p{in, POLLIN, 0};
    const int ready = poll(&p, 1, kPollMilliseconds);
    if (ready < 0 && errno != EINTR) break;
    if (ready > 0) {
      const ssize_t n = read(in, buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;  // the child closed its end: done or dead
      message.append(buffer, static_cast<size_t>(n));
      if (message.size() > limits.memory_bytes) {
        stopped = "sent back more than " + megabytes(limits.memory_bytes) + " for it";
      }
    }
    const uint64_t resident = memory_use(child).resident_bytes;
    if (resident > start_resident + limits.memory_bytes) {
      stopped = "needed more than " + megabytes(limits.memory_bytes) + " of memory for it (the limit is 64 times the " +
                "file's size plus 48 MiB)";
    } else if (std::chrono::steady_clock::now() > deadline) {
      stopped = "took more than " + std::to_string(limits.wall_seconds) + " s on it";
    }
  }
  if (!stopped.empty()) kill(child, SIGKILL);
  close(in);
  int status = 0;
  rusage usage{};
  while (wait4(child, &status, 0, &usage) < 0 && errno == EINTR) {
  }
  const double cpu_used = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                          1e-6 * static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
  const std::string malformed = "; the file is probably malformed";
  if (!stopped.empty()) return Error{failed + stopped + malformed};
  if (WIFSIGNALED(status)) {
    const int signal = WTERMSIG(status);
    if (signal == SIGXCPU || (signal == SIGKILL && cpu_used >= limits.cpu_seconds)) {
      // A SIGKILL after the CPU time allowed is the kernel's hard limit.
      return Error{failed + "ran for more than " + std::to_string(limits.cpu_seconds) + " s of CPU time on it" +
                   malformed};
    }
    return Error{failed + "failed on this file (" + signal_name(signal) + ")" + malformed};
  }
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (code == kOutOfMemoryExit) {
    return Error{failed + "ran out of its " + megabytes(limits.memory_bytes) + " of memory on it" + malformed};
  }
  if (code == kExecFailedExit) return Error{failed + "could not be started (exec failed)"};
  if (code != 0) return Error{failed + "failed on this file (exit status " + std::to_string(code) + ")" + malformed};
  bool well_formed = false;
  Result<ImportedClip> imported = decode_import_result(message, well_formed);
  if (!well_formed) return Error{failed + "sent back a message that is cut off or malformed (" + imported.error() + ")"};
  return imported;
}

std::string reader_failed(const std::filesystem::path& file, std::string_view reader) {
  return excerpt(file.string(), kPathExcerptChars) + ": the " + std::string(reader) + " reader ";
}

bool is_executable(const std::filesystem::path& path) {
  return !path.empty() && access(path.c_str(), X_OK) == 0 && std::filesystem::is_regular_file(path);
}

}  // namespace

Result<ImportedClip> import_in_child(const std::function<Result<ImportedClip>()>& import, std::string_view reader,
                                     const std::filesystem::path& file, const SandboxLimits& limits) {
  const std::string failed = reader_failed(file, reader);
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
    return Error{failed + "could not be started: " + std::strerror(errno)};
  }
  const MemoryUse start = memory_use(0);
  // What allocators reserve beyond what they touch.
  const ChildSetup setup = child_setup(limits, start.virtual_bytes, uint64_t{64} << 20);
  const pid_t child = fork();
  if (child < 0) {
    const int error = errno;
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    return Error{failed + "could not be started: " + std::strerror(error)};
  }
  if (child == 0) {
    close(pipe_fds[0]);
    run_child(pipe_fds[1], import, setup);
  }
  close(pipe_fds[1]);
  return await_child(child, pipe_fds[0], start.resident_bytes, limits, failed);
}

std::filesystem::path import_worker_path() {
  namespace fs = std::filesystem;
  if (const char* chosen = std::getenv("KS_IMPORT_WORKER"); chosen != nullptr && *chosen != '\0') return chosen;
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec && is_executable(self.parent_path() / kImportWorkerName)) return self.parent_path() / kImportWorkerName;
#ifdef KS_IMPORT_WORKER_BUILD_PATH
  if (is_executable(KS_IMPORT_WORKER_BUILD_PATH)) return KS_IMPORT_WORKER_BUILD_PATH;
#endif
  return {};
}

Result<ImportedClip> import_contained(const std::filesystem::path& path, const ImportSettings& settings,
                                      std::string_view reader, const SandboxLimits& limits,
                                      const std::function<Result<ImportedClip>()>& fallback) {
  const std::filesystem::path worker = import_worker_path();
  if (worker.empty()) return import_in_child(fallback, reader, path, limits);
  const std::string failed = reader_failed(path, reader);
  // Everything the child needs is made before the fork: between fork and
  // exec a child of a threaded program may only make async-signal-safe
  // calls (no allocation: another thread may have held the allocator's lock).
  const std::string request = encode_import_request(path, settings);
  if (request.size() > kMaxImportRequestBytes) return Error{failed + "could not be started: the request is too long"};
  int request_fds[2], result_fds[2];
  if (pipe2(request_fds, O_CLOEXEC) != 0) return Error{failed + "could not be started: " + std::strerror(errno)};
  if (pipe2(result_fds, O_CLOEXEC) != 0) {
    const int error = errno;
    close(request_fds[0]);
    close(request_fds[1]);
    return Error{failed + "could not be started: " + std::strerror(error)};
  }
  // The request fits the pipe's buffer: written now, it never blocks or meets a closed end.
  const bool sent = write_all(request_fds[1], request);
  close(request_fds[1]);
  const std::string program = worker.string();
  char* const argv[] = {const_cast<char*>(program.c_str()), nullptr};
  // A fresh program: its libraries' mappings, then the budget.
  const ChildSetup setup = child_setup(limits, 0, uint64_t{512} << 20);
  const pid_t child = sent ? fork() : -1;
  if (child < 0) {
    const int error = errno;
    close(request_fds[0]);
    close(result_fds[0]);
    close(result_fds[1]);
    return Error{failed + "could not be started: " + (sent ? std::strerror(error) : "the request was not sent")};
  }
  if (child == 0) {
    enter_child(setup);
    dup2(request_fds[0], STDIN_FILENO);
    dup2(result_fds[1], STDOUT_FILENO);
    execv(argv[0], argv);
    _exit(kExecFailedExit);
  }
  close(request_fds[0]);
  close(result_fds[1]);
  // The worker starts small: its memory is held to the budget over what a
  // fresh one holds before it reads anything.
  return await_child(child, result_fds[0], kWorkerBaseBytes, limits, failed);
}

}  // namespace ks
