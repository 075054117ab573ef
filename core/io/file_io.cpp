#include "keystream/io/file_io.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <system_error>

namespace ks {

namespace {

std::string describe_errno() { return std::strerror(errno); }

// Reads at most `max_bytes` of the regular file at `path`; with
// `refuse_larger`, a file larger than that is refused from its size,
// before anything is allocated or read.
Result<std::string> read_regular_file(const std::filesystem::path& path, size_t max_bytes, bool refuse_larger) {
  // Non-blocking, so that opening a FIFO returns at once instead of waiting
  // for a writer; anything but a regular file is then refused by its type.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return Error{path.string() + ": cannot open: " + std::generic_category().message(errno)};
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    const std::string why = describe_errno();
    ::close(fd);
    return Error{path.string() + ": cannot read: " + why};
  }
  if (!S_ISREG(info.st_mode)) {
    ::close(fd);
    return Error{path.string() + ": cannot read " + file_type_name(info.st_mode) + ", only a regular file"};
  }
  const size_t size = static_cast<size_t>(info.st_size);
  if (refuse_larger && size > max_bytes) {
    ::close(fd);
    return Error{path.string() + ": the file is larger than 1 GiB"};
  }
  std::string bytes(size < max_bytes ? size : max_bytes, '\0');
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::read(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const std::string why = describe_errno();
      ::close(fd);
      return Error{path.string() + ": cannot read: " + why};
    }
    if (n == 0) break;  // the file shrank since fstat
    done += static_cast<size_t>(n);
  }
  ::close(fd);
  bytes.resize(done);
  return bytes;
}

}  // namespace

Result<std::string> read_file_prefix(const std::filesystem::path& path, size_t max_bytes) {
  return read_regular_file(path, max_bytes, false);
}

const char* file_type_name(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "a special file";
}

Result<std::string> read_file(const std::filesystem::path& path) {
  return read_regular_file(path, kMaxReadFileBytes, true);
}

namespace {

// Writes all of `bytes` to `fd`, gives it `mode` and flushes it to disk; an
// empty string, or why it failed.
std::string write_and_sync(int fd, std::span<const unsigned char> bytes, mode_t mode) {
  size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      return "write failed: " + describe_errno();
    }
    written += static_cast<size_t>(n);
  }
  if (::fchmod(fd, mode) != 0 || ::fsync(fd) != 0) return "cannot finish the temporary file: " + describe_errno();
  return {};
}

// A complete file gets the hidden name ".NAME.PID.N" beside `path` before
// it is renamed over it; this is ".NAME.". Built by appending: GCC 12 at -O3
// reports a false -Wrestrict for "." + string + "..." (GCC bug 105329).
std::string hidden_name_start(const std::filesystem::path& path) {
  std::string name = ".";
  name += path.filename().string();
  name += ".";
  return name;
}

// Removes hidden names beside `path` whose writer has died: a kill -9
// between naming a complete file and renaming it (two system calls) leaves
// one, which the next write of the same file takes away.
void remove_stale_hidden_files(const std::filesystem::path& dir, const std::filesystem::path& path) {
  DIR* folder = ::opendir(dir.c_str());
  if (folder == nullptr) return;
  const std::string start = hidden_name_start(path);
  while (const dirent* entry = ::readdir(folder)) {
    const std::string_view name(entry->d_name);
    if (!name.starts_with(start)) continue;
    // What follows must be PID "." NUMBER, all digits.
    const std::string_view rest = name.substr(start.size());
    const size_t dot = rest.find('.');
    if (dot == 0 || dot == std::string_view::npos || dot > 9 || dot + 1 == rest.size()) continue;
    const auto digits = [](std::string_view s) {
      return s.find_first_not_of("0123456789") == std::string_view::npos;
    };
    if (!digits(rest.substr(0, dot)) || !digits(rest.substr(dot + 1))) continue;
    const pid_t pid = static_cast<pid_t>(std::stol(std::string(rest.substr(0, dot))));
    if (pid <= 0 || pid == ::getpid()) continue;
    if (::kill(pid, 0) == 0 || errno != ESRCH) continue;  // alive, or not ours to judge
    ::unlinkat(::dirfd(folder), entry->d_name, 0);
  }
  ::closedir(folder);
}

// Gives the complete unnamed file `fd` (O_TMPFILE) a name: `path` itself
// when nothing is there (`temp` is then left empty: nothing to rename),
// else a fresh hidden name beside it. False when the system cannot (no
// /proc).
bool name_unnamed_file(int fd, const std::filesystem::path& dir, const std::filesystem::path& path,
                       std::string& temp) {
  const std::string self = "/proc/self/fd/" + std::to_string(fd);
  temp.clear();
  remove_stale_hidden_files(dir, path);
  if (::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, path.c_str(), AT_SYMLINK_FOLLOW) == 0) return true;
  if (errno != EEXIST) return false;
  const std::string prefix = hidden_name_start(path) + std::to_string(::getpid()) + ".";
  for (int attempt = 0; attempt < 100; ++attempt) {
    const std::string candidate = (dir / (prefix + std::to_string(attempt))).string();
    if (::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, candidate.c_str(), AT_SYMLINK_FOLLOW) == 0) {
      temp = candidate;
      return true;
    }
    if (errno != EEXIST) break;
  }
  return false;
}

}  // namespace

Status write_file_atomically(const std::filesystem::path& path, std::span<const unsigned char> bytes) {
  const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : ".";
  // Keep the permissions of the file being replaced, or give a new one the
  // usual rw-r--r-- (reading the umask would mean changing it, which is not
  // thread-safe).
  struct stat existing {};
  const mode_t mode = ::stat(path.c_str(), &existing) == 0 ? (existing.st_mode & 07777) : 0644;

  // First choice: an unnamed file in the target's folder (O_TMPFILE), named
  // only once it is complete and flushed, then renamed over the target at
  // once: a crash or kill -9 while writing leaves nothing behind.
  std::string temp;
  int fd = ::open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
  if (fd >= 0) {
    const std::string failure = write_and_sync(fd, bytes, mode);
    if (!failure.empty()) {
      ::close(fd);
      return Error{path.string() + ": " + failure};
    }
    if (!name_unnamed_file(fd, dir, path, temp)) {
      ::close(fd);
      fd = -1;  // the file system cannot name it: write a named one instead
    } else if (temp.empty()) {
      // Linked straight to the new name: done.
      if (::close(fd) != 0) return Error{path.string() + ": close failed: " + describe_errno()};
      return {};
    }
  } else if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL) {
    return Error{path.string() + ": cannot create a temporary file in " + dir.string() + ": " + describe_errno()};
  }
  if (fd < 0) {
    // A file system without O_TMPFILE: a named temporary file, removed on
    // every error (only a kill while writing can leave it).
    std::string name = ".";
    name += path.filename().string();
    name += ".XXXXXX";
    temp = (dir / name).string();
    fd = ::mkstemp(temp.data());
    if (fd < 0) {
      return Error{path.string() + ": cannot create a temporary file in " + dir.string() + ": " + describe_errno()};
    }
    const std::string failure = write_and_sync(fd, bytes, mode);
    if (!failure.empty()) {
      ::close(fd);
      ::unlink(temp.c_str());
      return Error{path.string() + ": " + failure};
    }
  }
  if (::close(fd) != 0) {
    const std::string why = describe_errno();
    ::unlink(temp.c_str());
    return Error{path.string() + ": close failed: " + why};
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    const std::string why = describe_errno();
    ::unlink(temp.c_str());
    return Error{path.string() + ": cannot replace the file: " + why};
  }
  return {};
}

Status write_file_atomically(const std::filesystem::path& path, std::string_view bytes) {
  return write_file_atomically(
      path, std::span<const unsigned char>(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size()));
}

}  // namespace ks
