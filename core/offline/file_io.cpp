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

}  // namespace

Result<std::string> read_file(const std::filesystem::path& path) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (!file) return Error{path.string() + ": cannot open: " + std::generic_category().message(errno)};
  // A regular file's size is known up front: refuse a huge one before
  // reading any of it. Other files (pipes) are caught by the loop below.
  struct stat info {};
  if (::fstat(::fileno(file), &info) == 0 && S_ISREG(info.st_mode) &&
      static_cast<uintmax_t>(info.st_size) > kMaxReadFileBytes) {
    std::fclose(file);
    return Error{path.string() + ": the file is larger than 1 GiB"};
  }
  std::string text;
  constexpr size_t kChunk = size_t{1} << 16;
  for (;;) {
    const size_t old_size = text.size();
    text.resize(old_size + kChunk);
    const size_t n = std::fread(text.data() + old_size, 1, kChunk, file);
    const int read_errno = errno;  // before anything else can change it
    text.resize(old_size + n);
    if (n < kChunk) {
      const bool failed = std::ferror(file) != 0;
      std::fclose(file);
      if (!failed) return text;
      return Error{path.string() + ": cannot read: " + std::generic_category().message(read_errno)};
    }
    if (text.size() > kMaxReadFileBytes) {
      std::fclose(file);
      return Error{path.string() + ": the file is larger than 1 GiB"};
    }
  }
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
