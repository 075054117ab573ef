#include "core/offline/file_io.h"

#include <fcntl.h>
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

// What a file that is not a regular file is, for a refusal.
const char* file_type_name(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "a special file";
}

}  // namespace

namespace {

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

Result<std::string> read_file(const std::filesystem::path& path) {
  return read_regular_file(path, kMaxReadFileBytes, true);
}

Status write_file_atomically(const std::filesystem::path& path, std::span<const unsigned char> bytes) {
  const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : ".";
  // Built by appending: GCC 12 at -O3 reports a false -Wrestrict for
  // "." + string + "..." (GCC bug 105329).
  std::string temp_name = ".";
  temp_name += path.filename().string();
  temp_name += ".XXXXXX";
  std::string temp = (dir / temp_name).string();
  const int fd = ::mkstemp(temp.data());
  if (fd < 0) return Error{path.string() + ": cannot create a temporary file in " + dir.string() + ": " + describe_errno()};

  size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      const std::string why = describe_errno();
      ::close(fd);
      ::unlink(temp.c_str());
      return Error{path.string() + ": write failed: " + why};
    }
    written += static_cast<size_t>(n);
  }
  // mkstemp creates the file 0600: keep the permissions of the file being
  // replaced, or give a new one the usual rw-r--r-- (reading the umask would
  // mean changing it, which is not thread-safe).
  struct stat existing {};
  const mode_t mode = ::stat(path.c_str(), &existing) == 0 ? (existing.st_mode & 07777) : 0644;
  if (::fchmod(fd, mode) != 0 || ::fsync(fd) != 0) {
    const std::string why = describe_errno();
    ::close(fd);
    ::unlink(temp.c_str());
    return Error{path.string() + ": cannot finish the temporary file: " + why};
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
