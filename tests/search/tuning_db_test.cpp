#include "src/tuning/tuning_db.hpp"
#include "tests/scratch_dir.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

using cudaburg::Measurement;
using cudaburg::MeasurementKey;
using cudaburg::RunStatus;
using cudaburg::TuningDb;

namespace {

std::string freshPath(const std::string& name) { return cudaburg::freshTestPath("cudaburg-db-test", name); }

MeasurementKey key(const std::string& recipe) {
  return {"nest1", "M=64,N=64,K=64", recipe, "NVIDIA H200", "9.0", "580.1", "sm_90", "13.0"};
}

Measurement timed(double ms) {
  Measurement m;
  m.status = RunStatus::Ok;
  m.ms = ms;
  m.tflops = 1.0 / ms;
  m.registers = 40;
  return m;
}

}  // namespace

TEST(TuningDb, StoresAndFindsByEveryKeyField) {
  std::string error;
  auto db = TuningDb::open(freshPath("a.db"), error);
  ASSERT_TRUE(db) << error;
  ASSERT_TRUE(db->store(key("tile i,j 64,64"), timed(2.5), error)) << error;
  auto found = db->find(key("tile i,j 64,64"));
  ASSERT_TRUE(found);
  EXPECT_EQ(found->status, RunStatus::Ok);
  EXPECT_DOUBLE_EQ(found->ms, 2.5);
  EXPECT_EQ(found->registers, 40);
  EXPECT_FALSE(found->measuredAt.empty());
  MeasurementKey otherGpu = key("tile i,j 64,64");
  otherGpu.gpu = "NVIDIA H100";
  EXPECT_FALSE(db->find(otherGpu));
  MeasurementKey otherToolkit = key("tile i,j 64,64");
  otherToolkit.toolkit = "12.4";
  EXPECT_FALSE(db->find(otherToolkit));
}

TEST(TuningDb, ReplacesAndOrdersBestFirst) {
  std::string error;
  auto db = TuningDb::open(freshPath("b.db"), error);
  ASSERT_TRUE(db) << error;
  Measurement failed;
  failed.status = RunStatus::Failed;
  failed.reason = "illegal address";
  ASSERT_TRUE(db->store(key("r1"), timed(3.0), error));
  ASSERT_TRUE(db->store(key("r2"), failed, error));
  ASSERT_TRUE(db->store(key("r3"), timed(1.0), error));
  ASSERT_TRUE(db->store(key("r1"), timed(2.0), error));
  EXPECT_EQ(db->count(), 3u);
  auto rows = db->forNest("nest1", "NVIDIA H200", "13.0");
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].first.recipe, "r3");
  EXPECT_EQ(rows[1].first.recipe, "r1");
  EXPECT_DOUBLE_EQ(rows[1].second.ms, 2.0);
  EXPECT_EQ(rows[2].second.reason, "illegal address");
}

// A process killed with SIGKILL right after storing loses nothing it stored.
TEST(TuningDb, SurvivesKillNine) {
  std::string path = freshPath("c.db");
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    std::string error;
    auto db = TuningDb::open(path, error);
    if (!db) _exit(2);
    for (int i = 0; i < 20; ++i) db->store(key("r" + std::to_string(i)), timed(1.0 + i), error);
    kill(getpid(), SIGKILL);
    _exit(3);
  }
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status));
  std::string error;
  auto db = TuningDb::open(path, error);
  ASSERT_TRUE(db) << error;
  EXPECT_EQ(db->count(), 20u);
  auto m = db->find(key("r19"));
  ASSERT_TRUE(m);
  EXPECT_DOUBLE_EQ(m->ms, 20.0);
}

TEST(TuningDb, UnopenablePathSaysWhy) {
  std::string error;
  auto db = TuningDb::open("/proc/no-such-dir/x.db", error);
  EXPECT_FALSE(db);
  EXPECT_NE(error.find("cannot"), std::string::npos);
}
