#include "keystream/io/file_io.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include "tests/temp_dir.h"

namespace ks {
namespace {

namespace fs = std::filesystem;

using TempDir = test::TempDir;

std::string read_all(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_plain(const fs::path& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

mode_t mode_of(const fs::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return 0;
  return st.st_mode & 07777;
}

// Passes when `result` is a refusal whose message names `path`.
template <class T>
::testing::AssertionResult refused_naming(const Result<T>& result, const fs::path& path) {
  if (result.ok()) return ::testing::AssertionFailure() << "the call succeeded";
  if (result.error().find(path.string()) == std::string::npos) {
    return ::testing::AssertionFailure() << "message \"" << result.error() << "\" does not name " << path;
  }
  return ::testing::AssertionSuccess();
}

TEST(ReadFile, RefusesMissingFileNamingThePath) {
  const TempDir dir;
  const fs::path path = dir / "absent.bvh";
  const Result<std::string> read = read_file(path);
  EXPECT_TRUE(refused_naming(read, path));
  EXPECT_EQ(read.error(), path.string() + ": cannot open: No such file or directory");
}

TEST(ReadFile, RefusesDirectoryNamingThePath) {
  const TempDir dir;
  const fs::path path = dir / "folder";
  fs::create_directory(path);
  const Result<std::string> read = read_file(path);
  EXPECT_TRUE(refused_naming(read, path));
  EXPECT_EQ(read.error(), path.string() + ": cannot read a directory, only a regular file");
}

// A FIFO would block a plain open until a writer came; /dev/zero never ends.
TEST(ReadFile, RefusesFifosAndDevicesWithoutWaiting) {
  const TempDir dir;
  const fs::path fifo = dir / "take.bvh";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const Result<std::string> read = read_file(fifo);
  EXPECT_TRUE(refused_naming(read, fifo));
  EXPECT_EQ(read.error(), fifo.string() + ": cannot read a FIFO, only a regular file");
  const Result<std::string> zero = read_file("/dev/zero");
  ASSERT_FALSE(zero.ok());
  EXPECT_EQ(zero.error(), "/dev/zero: cannot read a character device, only a regular file");
  EXPECT_FALSE(read_file_prefix(fifo, 100).ok());
}

TEST(ReadFilePrefix, ReadsAtMostTheBytesAsked) {
  const TempDir dir;
  const fs::path path = dir / "data.bin";
  write_plain(path, "0123456789");
  const Result<std::string> part = read_file_prefix(path, 4);
  ASSERT_TRUE(part.ok()) << part.error();
  EXPECT_EQ(part.value(), "0123");
  const Result<std::string> all = read_file_prefix(path, 100);
  ASSERT_TRUE(all.ok()) << all.error();
  EXPECT_EQ(all.value(), "0123456789");
}

// A sparse file: refused from its size, without reading (or allocating) 1 GiB.
TEST(ReadFile, RefusesFileLargerThanTheLimit) {
  const TempDir dir;
  const fs::path path = dir / "huge.glb";
  write_plain(path, "");
  fs::resize_file(path, kMaxReadFileBytes + 1);
  const Result<std::string> read = read_file(path);
  EXPECT_TRUE(refused_naming(read, path));
  EXPECT_EQ(read.error(), path.string() + ": the file is larger than 1 GiB");
}

TEST(ReadFile, ReadsBytesExactly) {
  const TempDir dir;
  const fs::path path = dir / "blob.glb";
  // Past one 64 KiB read, with NUL bytes and line ends that text mode would change.
  std::string bytes;
  for (int i = 0; i < 70000; ++i) bytes.push_back(static_cast<char>((i * 7919) & 0xff));
  bytes.replace(100, 7, std::string("a\0b\r\n\0\r", 7));
  write_plain(path, bytes);
  const Result<std::string> read = read_file(path);
  ASSERT_TRUE(read.ok()) << read.error();
  EXPECT_EQ(read.value().size(), bytes.size());
  EXPECT_TRUE(read.value() == bytes);  // not EXPECT_EQ: a mismatch would print 70000 bytes
}

TEST(ReadFile, ReadsEmptyAndChunkSizedFiles) {
  const TempDir dir;
  for (const size_t size : {size_t{0}, size_t{1}, size_t{1} << 16, (size_t{1} << 17) + 1}) {
    SCOPED_TRACE(size);
    const fs::path path = dir / ("file_" + std::to_string(size));
    const std::string bytes(size, '\0');
    write_plain(path, bytes);
    const Result<std::string> read = read_file(path);
    ASSERT_TRUE(read.ok()) << read.error();
    EXPECT_TRUE(read.value() == bytes);
  }
}

TEST(WriteFileAtomically, WritesNewFile) {
  const TempDir dir;
  const fs::path path = dir / "clip.ksc";
  const Status status = write_file_atomically(path, std::string_view("hello\nworld\n"));
  ASSERT_TRUE(status.ok()) << status.error();
  EXPECT_EQ(read_all(path), "hello\nworld\n");
  EXPECT_EQ(mode_of(path), 0644u);  // rw-r--r--, not mkstemp's 0600
}

TEST(WriteFileAtomically, WritesBytesExactly) {
  const TempDir dir;
  const fs::path path = dir / "blob.bin";
  std::vector<unsigned char> bytes;
  for (int i = 0; i < 70000; ++i) bytes.push_back(static_cast<unsigned char>((i * 7919) & 0xff));
  bytes[10] = 0;  // embedded zero bytes are data, not terminators
  const Status status = write_file_atomically(path, std::span<const unsigned char>(bytes));
  ASSERT_TRUE(status.ok()) << status.error();
  const std::string written = read_all(path);
  ASSERT_EQ(written.size(), bytes.size());
  EXPECT_TRUE(std::equal(bytes.begin(), bytes.end(), written.begin(),
                         [](unsigned char a, char b) { return a == static_cast<unsigned char>(b); }));
}

TEST(WriteFileAtomically, WritesEmptyFile) {
  const TempDir dir;
  const fs::path path = dir / "empty.txt";
  const Status status = write_file_atomically(path, std::string_view());
  ASSERT_TRUE(status.ok()) << status.error();
  ASSERT_TRUE(fs::is_regular_file(path));
  EXPECT_EQ(fs::file_size(path), 0u);
}

TEST(WriteFileAtomically, ReplacesExistingFile) {
  const TempDir dir;
  const fs::path path = dir / "settings.json";
  write_plain(path, "a much longer old content than the new one");
  const Status status = write_file_atomically(path, std::string_view("new"));
  ASSERT_TRUE(status.ok()) << status.error();
  EXPECT_EQ(read_all(path), "new");
}

TEST(WriteFileAtomically, KeepsPermissionsOfReplacedFile) {
  const TempDir dir;
  for (const mode_t mode : {mode_t{0600}, mode_t{0755}, mode_t{0640}}) {
    SCOPED_TRACE(mode);
    const fs::path path = dir / ("file_" + std::to_string(mode));
    write_plain(path, "old");
    ASSERT_EQ(::chmod(path.c_str(), mode), 0);
    const Status status = write_file_atomically(path, std::string_view("new"));
    ASSERT_TRUE(status.ok()) << status.error();
    EXPECT_EQ(read_all(path), "new");
    EXPECT_EQ(mode_of(path), mode);
  }
}

TEST(WriteFileAtomically, LeavesNoTemporaryFiles) {
  const TempDir dir;
  const fs::path path = dir / "out.txt";
  for (int i = 0; i < 5; ++i) {
    const Status status = write_file_atomically(path, std::string_view("version " + std::to_string(i)));
    ASSERT_TRUE(status.ok()) << status.error();
  }
  EXPECT_EQ(dir.entries(), std::set<std::string>{"out.txt"});
  EXPECT_EQ(read_all(path), "version 4");
}

// kill -9 in the middle of writing: the target is whole or absent, and
// once the next write has run nothing but the target remains (a kill
// between naming the complete file and renaming it leaves its hidden name
// until then; a named temporary file, which earlier versions wrote to, was
// left for good).
TEST(WriteFileAtomically, LeavesNothingBehindWhenKilledWhileWriting) {
  const TempDir dir;
  const fs::path path = dir / "stream.ks";
  for (int run = 0; run < 5; ++run) {
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      // Write over and over until killed: the kill lands in some write.
      const std::string bytes(size_t{8} << 20, 'k');
      for (;;) {
        if (!write_file_atomically(path, std::string_view(bytes)).ok()) ::_exit(1);
      }
    }
    ::usleep(30000 + 7000 * run);
    ::kill(child, SIGKILL);
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(status)) << "the writer stopped by itself: it failed to write";
    const std::string hidden = ".stream.ks." + std::to_string(child) + ".";
    for (const std::string& name : dir.entries()) {
      EXPECT_TRUE(name == "stream.ks" || name.starts_with(hidden)) << "left behind: " << name;
      EXPECT_EQ(fs::file_size(dir / name), size_t{8} << 20) << name << " is partial";
    }
    const Status next = write_file_atomically(path, std::string_view("next"));
    ASSERT_TRUE(next.ok()) << next.error();
    EXPECT_EQ(dir.entries(), std::set<std::string>{"stream.ks"});
    EXPECT_EQ(read_all(path), "next");
    fs::remove(path);  // the next run starts with nothing, as the first
  }
}

// The sweep takes only what a dead writer of the same file left.
TEST(WriteFileAtomically, RemovesOnlyDeadWritersHiddenFiles) {
  const TempDir dir;
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) ::_exit(0);
  ASSERT_EQ(::waitpid(child, nullptr, 0), child);
  const std::string dead = ".out.ks." + std::to_string(child) + ".0";
  const std::string alive = ".out.ks." + std::to_string(::getppid()) + ".0";
  for (const std::string& name : {dead, alive, std::string(".out.ks.notes"), std::string(".other.ks.1.0")}) {
    write_plain(dir / name, "x");
  }
  write_plain(dir / "out.ks", "old");
  const Status status = write_file_atomically(dir / "out.ks", std::string_view("new"));
  ASSERT_TRUE(status.ok()) << status.error();
  EXPECT_EQ(dir.entries(), (std::set<std::string>{"out.ks", alive, ".out.ks.notes", ".other.ks.1.0"}));
}

TEST(WriteFileAtomically, WritesIntoCurrentDirectoryForBareName) {
  const TempDir dir;
  // Restores the working directory even when an assertion returns early.
  struct WorkingDirectory {
    fs::path saved = fs::current_path();
    ~WorkingDirectory() { fs::current_path(saved); }
  } restore;
  fs::current_path(dir.path());
  const Status status = write_file_atomically("bare.txt", std::string_view("here"));
  ASSERT_TRUE(status.ok()) << status.error();
  EXPECT_EQ(read_all(dir / "bare.txt"), "here");
  EXPECT_EQ(dir.entries(), std::set<std::string>{"bare.txt"});
}

TEST(WriteFileAtomically, RefusesMissingDirectory) {
  const TempDir dir;
  const fs::path path = dir / "missing" / "out.txt";
  EXPECT_TRUE(refused_naming(write_file_atomically(path, std::string_view("x")), path));
  EXPECT_FALSE(fs::exists(dir / "missing"));
  EXPECT_TRUE(dir.entries().empty());
}

TEST(WriteFileAtomically, RefusesParentThatIsARegularFile) {
  const TempDir dir;
  write_plain(dir / "plain", "keep me");
  const fs::path path = dir / "plain" / "out.txt";
  EXPECT_TRUE(refused_naming(write_file_atomically(path, std::string_view("x")), path));
  EXPECT_EQ(read_all(dir / "plain"), "keep me");
  EXPECT_EQ(dir.entries(), std::set<std::string>{"plain"});
}

TEST(WriteFileAtomically, RefusesDirectoryWithoutWritePermission) {
  if (::geteuid() == 0) GTEST_SKIP() << "root ignores directory permissions";
  const TempDir dir;
  const fs::path locked = dir / "locked";
  fs::create_directory(locked);
  write_plain(locked / "out.txt", "old");
  ASSERT_EQ(::chmod(locked.c_str(), 0555), 0);
  const fs::path path = locked / "out.txt";
  const Status status = write_file_atomically(path, std::string_view("new"));
  ASSERT_EQ(::chmod(locked.c_str(), 0755), 0);
  EXPECT_TRUE(refused_naming(status, path));
  EXPECT_EQ(read_all(path), "old");
}

TEST(WriteFileAtomically, RefusesDirectoryAsTargetAndKeepsIt) {
  const TempDir dir;
  const fs::path path = dir / "folder";
  fs::create_directory(path);
  write_plain(path / "inside.txt", "still here");
  EXPECT_TRUE(refused_naming(write_file_atomically(path, std::string_view("x")), path));
  ASSERT_TRUE(fs::is_directory(path));
  EXPECT_EQ(read_all(path / "inside.txt"), "still here");
  EXPECT_EQ(dir.entries(), std::set<std::string>{"folder"});  // the temporary file is gone
}

// A write that fails part-way (here: the file-size limit, which applies even
// to root) leaves the old file as it was and removes the temporary file.
TEST(WriteFileAtomically, KeepsOldFileWhenWriteFails) {
  const TempDir dir;
  const fs::path path = dir / "stream.ksc";
  write_plain(path, "old contents");
  const std::string big(1 << 16, 'n');

  // Exceeding the limit raises SIGXFSZ, which would end the process; with a
  // handler installed, write() fails with EFBIG instead. Nothing may return
  // early until the limit and the handler are restored.
  struct sigaction on_limit {};
  on_limit.sa_handler = [](int) {};
  struct sigaction previous {};
  rlimit saved{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &saved), 0);
  rlimit small = saved;
  small.rlim_cur = 1024;  // bytes
  ASSERT_EQ(::sigaction(SIGXFSZ, &on_limit, &previous), 0);
  const bool limited = ::setrlimit(RLIMIT_FSIZE, &small) == 0;
  const Status status = write_file_atomically(path, std::string_view(big));
  const bool restored = ::setrlimit(RLIMIT_FSIZE, &saved) == 0;
  ::sigaction(SIGXFSZ, &previous, nullptr);
  ASSERT_TRUE(limited);
  ASSERT_TRUE(restored);

  EXPECT_TRUE(refused_naming(status, path));
  EXPECT_EQ(read_all(path), "old contents");
  EXPECT_EQ(dir.entries(), std::set<std::string>{"stream.ksc"});
}

}  // namespace
}  // namespace ks
