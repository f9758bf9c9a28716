// A problem's child process: its output lands in its log, its exit status or the signal that
// killed it comes back, and a program that cannot be run says why.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "src/tune/child_process.hpp"
#include "tests/scratch_dir.hpp"

namespace cudaburg::tune {
namespace {

std::string contents(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(ChildProcess, OutputGoesToTheLogAndTheStatusComesBack) {
  ScratchDir dir("child-process");
  std::string log = (dir / "log.txt").string();
  ChildExit exit = runChild({"/bin/sh", "-c", "echo out; echo err >&2; exit 3"}, log);
  EXPECT_TRUE(exit.started);
  EXPECT_FALSE(exit.signaled);
  EXPECT_EQ(exit.code, 3);
  EXPECT_EQ(describeExit(exit), "exited with status 3");
  EXPECT_EQ(contents(log), "out\nerr\n");
  // A second run empties the log first.
  runChild({"/bin/sh", "-c", "echo again"}, log);
  EXPECT_EQ(contents(log), "again\n");
}

TEST(ChildProcess, ASignalIsSaid) {
  ScratchDir dir("child-process");
  ChildExit exit = runChild({"/bin/sh", "-c", "kill -SEGV $$"}, (dir / "log.txt").string());
  EXPECT_TRUE(exit.started);
  EXPECT_TRUE(exit.signaled);
  EXPECT_EQ(exit.code, 11);
  EXPECT_EQ(describeExit(exit).rfind("killed by signal 11 (", 0), 0u) << describeExit(exit);
}

TEST(ChildProcess, WhatCannotRunSaysWhy) {
  ScratchDir dir("child-process");
  ChildExit missing = runChild({(dir / "no-such-program").string()}, (dir / "log.txt").string());
  EXPECT_FALSE(missing.started);
  EXPECT_NE(missing.reason.find("no-such-program"), std::string::npos) << missing.reason;
  ChildExit noLog = runChild({"/bin/sh", "-c", "true"}, (dir / "absent" / "log.txt").string());
  EXPECT_FALSE(noLog.started);
  EXPECT_NE(noLog.reason.find("absent/log.txt"), std::string::npos) << noLog.reason;
  EXPECT_EQ(describeExit(noLog), noLog.reason);
}

TEST(ChildProcess, ThisExecutableIsAFile) {
  EXPECT_TRUE(std::filesystem::is_regular_file(thisExecutable())) << thisExecutable();
}

}  // namespace
}  // namespace cudaburg::tune
