// Source files: lines and positions, and reading that fails with a sentence rather than a crash.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "common/source.hpp"

namespace common {
namespace {

TEST(SourceFile, LinesWithoutTheirEndings) {
  SourceFile file("f", "one\r\ntwo\n\nlast");
  EXPECT_EQ(file.line(1), "one");
  EXPECT_EQ(file.line(2), "two");
  EXPECT_EQ(file.line(3), "");
  EXPECT_EQ(file.line(4), "last");
  EXPECT_EQ(file.line(0), "");
  EXPECT_EQ(file.line(5), "");
}

TEST(SourceFile, LocatesOffsetsOneBased) {
  SourceFile file("f", "ab\ncd\n");
  EXPECT_EQ(file.locate(0).line, 1u);
  EXPECT_EQ(file.locate(0).col, 1u);
  EXPECT_EQ(file.locate(4).line, 2u);
  EXPECT_EQ(file.locate(4).col, 2u);
  EXPECT_TRUE(file.locate(4).valid());
  EXPECT_FALSE(SourceLoc{}.valid());
}

TEST(SourceFile, ReadsAFile) {
  auto path = std::filesystem::temp_directory_path() / ("common-source-test-" + std::to_string(getpid()) + ".txt");
  std::ofstream(path) << "x = 1;\n";
  Result<SourceFile> file = SourceFile::read(path.string());
  std::filesystem::remove(path);
  ASSERT_TRUE(file) << file.reason();
  EXPECT_EQ(file->name(), path.string());
  EXPECT_EQ(file->line(1), "x = 1;");
  EXPECT_EQ(file.reason(), "");
}

TEST(SourceFile, AMissingFileIsOneSentence) {
  Result<SourceFile> file = SourceFile::read("/nonexistent/x.loop");
  EXPECT_FALSE(file);
  EXPECT_EQ(file.reason(), "cannot open '/nonexistent/x.loop'");
}

TEST(SourceFile, AnEndlessDeviceStopsAtTheLimit) {
  Result<SourceFile> file = SourceFile::read("/dev/zero");
  EXPECT_FALSE(file);
  EXPECT_EQ(file.reason(), "'/dev/zero' is larger than 16 MiB, the most a source may hold");
}

}  // namespace
}  // namespace common
