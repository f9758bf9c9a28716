#pragma once
// A folder of a test's own under the temporary folder, removed with all it holds when the test is
// done. Its name holds the test's and the process's, as ctest runs tests side by side.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>
#include <system_error>

namespace cudaburg {

class ScratchDir {
 public:
  explicit ScratchDir(const std::string& prefix)
      : path_(std::filesystem::path(::testing::TempDir()) /
              (prefix + "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name() + "_" +
               std::to_string(::getpid()))) {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

// A path with no file there, in a folder of the running test's own: the folder goes when a later
// test asks for one, the last when the program ends.
inline std::string freshTestPath(const std::string& prefix, const std::string& name) {
  static std::unique_ptr<ScratchDir> dir;
  static std::string test;
  std::string current = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  if (!dir || test != current) {
    dir.reset();
    dir = std::make_unique<ScratchDir>(prefix);
    test = current;
  }
  std::filesystem::remove(*dir / name);
  return (*dir / name).string();
}

}  // namespace cudaburg
