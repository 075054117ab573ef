#pragma once
// A fresh directory for the files a test writes, removed with everything in
// it (permissions restored first, for tests that take them away) when the
// test ends. Named after the process, the test and a counter, so parallel
// test processes never share one.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <set>
#include <string>
#include <system_error>

namespace ks::test {

class TempDir {
 public:
  TempDir() {
    static int counter = 0;
    const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
    const std::string name = test != nullptr ? std::string(test->test_suite_name()) + "_" + test->name() : "ks";
    m_path = std::filesystem::temp_directory_path() /
             ("ks_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++) + "_" + name);
    std::error_code ignored;
    std::filesystem::remove_all(m_path, ignored);
    std::filesystem::create_directories(m_path);
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::permissions(m_path, std::filesystem::perms::owner_all, std::filesystem::perm_options::add,
                                 ignored);
    std::filesystem::remove_all(m_path, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return m_path; }
  std::filesystem::path operator/(const std::filesystem::path& name) const { return m_path / name; }

  /// A symbolic link named `name` in the directory to `target`.
  std::filesystem::path link(const std::string& name, const std::filesystem::path& target) const {
    const std::filesystem::path path = m_path / name;
    std::filesystem::create_symlink(target, path);
    return path;
  }

  /// Names of the entries in the directory (what a test left behind).
  std::set<std::string> entries() const {
    std::set<std::string> names;
    for (const std::filesystem::directory_entry& entry : std::filesystem::directory_iterator(m_path)) {
      names.insert(entry.path().filename().string());
    }
    return names;
  }

 private:
  std::filesystem::path m_path;
};

}  // namespace ks::test
