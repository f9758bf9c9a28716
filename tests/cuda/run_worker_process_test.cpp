// The worker process machinery with real child processes: replies, deadlines, deaths.
#include <gtest/gtest.h>

#include "src/cuda/run/worker_process.hpp"

namespace cudaburg {
namespace {

using namespace std::chrono_literals;

TEST(RunWorkerProcess, RepliesLineByLine) {
  WorkerProcess p;
  std::string error, reply;
  ASSERT_TRUE(p.start("/bin/cat", {}, error)) << error;
  EXPECT_EQ(p.request("first", 5s, reply), WorkerProcess::Outcome::Reply);
  EXPECT_EQ(reply, "first");
  EXPECT_EQ(p.request(R"({"op":"x"})", 5s, reply), WorkerProcess::Outcome::Reply);
  EXPECT_EQ(reply, R"({"op":"x"})");
  p.stop();
  EXPECT_FALSE(p.running());
}

TEST(RunWorkerProcess, AHangIsKilledAtTheDeadline) {
  WorkerProcess p;
  std::string error, reply;
  ASSERT_TRUE(p.start("/bin/sh", {"-c", "read line; sleep 30"}, error)) << error;
  auto before = std::chrono::steady_clock::now();
  EXPECT_EQ(p.request("go", 300ms, reply), WorkerProcess::Outcome::Timeout);
  EXPECT_LT(std::chrono::steady_clock::now() - before, 5s);
  EXPECT_FALSE(p.running());
  EXPECT_EQ(p.exitDescription(), "killed by the runner");
}

TEST(RunWorkerProcess, ADeathIsReportedWithItsStatusAndStderr) {
  WorkerProcess p;
  std::string error, reply;
  ASSERT_TRUE(p.start("/bin/sh", {"-c", "read line; echo 'worker: out of luck' >&2; exit 3"}, error)) << error;
  EXPECT_EQ(p.request("go", 5s, reply), WorkerProcess::Outcome::Exited);
  EXPECT_EQ(p.exitDescription(), "exit status 3");
  EXPECT_EQ(p.stderrTail(), "worker: out of luck");

  ASSERT_TRUE(p.start("/bin/sh", {"-c", "read line; kill -SEGV $$"}, error)) << error;
  EXPECT_EQ(p.request("go", 5s, reply), WorkerProcess::Outcome::Exited);
  EXPECT_NE(p.exitDescription().find("signal 11"), std::string::npos) << p.exitDescription();
  // The same object starts a fresh process afterwards.
  ASSERT_TRUE(p.start("/bin/cat", {}, error)) << error;
  EXPECT_EQ(p.request("again", 5s, reply), WorkerProcess::Outcome::Reply);
  EXPECT_EQ(reply, "again");
}

TEST(RunWorkerProcess, AMissingProgramEndsWithoutReplying) {
  WorkerProcess p;
  std::string error, reply;
  ASSERT_TRUE(p.start("/nonexistent/cudaburg-worker", {}, error)) << error;
  EXPECT_EQ(p.request("hello", 5s, reply), WorkerProcess::Outcome::Exited);
  EXPECT_EQ(p.exitDescription(), "exit status 127");
  EXPECT_NE(p.stderrTail().find("cannot execute"), std::string::npos);
}

}  // namespace
}  // namespace cudaburg
