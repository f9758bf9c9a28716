#include "src/tuning/tuning_db.hpp"
#include "tests/scratch_dir.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

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

// The contract's fields are kept; a database written before them gets them, its rows verified
// under no contract (precision ""), so that a search measures them again.
TEST(TuningDb, KeepsTheLibrarysErrorAndTheModeAndUpgradesOlderDatabases) {
  std::string error;
  std::string path = freshPath("contract.db");
  {
    auto db = TuningDb::open(path, error);
    ASSERT_TRUE(db) << error;
    Measurement m = timed(1.5);
    m.error = 3.1e-7;
    m.libraryError = 1.1e-6;
    m.precision = "strict";
    ASSERT_TRUE(db->store(key("tf32x3"), m, error)) << error;
    auto found = db->find(key("tf32x3"));
    ASSERT_TRUE(found);
    EXPECT_DOUBLE_EQ(found->libraryError, 1.1e-6);
    EXPECT_EQ(found->precision, "strict");
  }
  // A table of the layout before the contract, as an earlier version wrote it.
  std::string old = freshPath("before-contract.db");
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(old.c_str(), &raw), SQLITE_OK);
  const char* layout =
      "CREATE TABLE measurements (nest TEXT NOT NULL, sizes TEXT NOT NULL, recipe TEXT NOT NULL, gpu TEXT NOT NULL,"
      " compute_capability TEXT NOT NULL, driver TEXT NOT NULL, arch TEXT NOT NULL, toolkit TEXT NOT NULL,"
      " status TEXT NOT NULL, reason TEXT NOT NULL, ms REAL, tflops REAL, gbps REAL, error REAL, registers INTEGER,"
      " shared_bytes INTEGER, measured_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),"
      " PRIMARY KEY (nest, sizes, recipe, gpu, compute_capability, driver, arch, toolkit));"
      "INSERT INTO measurements (nest, sizes, recipe, gpu, compute_capability, driver, arch, toolkit, status, reason,"
      " ms, tflops, gbps, error, registers, shared_bytes) VALUES ('nest1', 'M=64,N=64,K=64', 'tf32x3', 'NVIDIA H200',"
      " '9.0', '580.1', 'sm_90', '13.0', 'ok', '', 1.5, 0.6, 1.0, 2.9e-5, 40, 0);";
  ASSERT_EQ(sqlite3_exec(raw, layout, nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(raw);
  sqlite3_close(raw);
  auto upgraded = TuningDb::open(old, error);
  ASSERT_TRUE(upgraded) << error;
  auto row = upgraded->find(key("tf32x3"));
  ASSERT_TRUE(row);
  EXPECT_DOUBLE_EQ(row->error, 2.9e-5);
  EXPECT_EQ(row->libraryError, -1);
  EXPECT_EQ(row->precision, "");
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

TEST(TuningDb, SaysWhatWasStoredSinceAMarkAndMergesItElsewhereKeepingItsTime) {
  std::string error;
  auto here = TuningDb::open(freshPath("here.db"), error);
  ASSERT_TRUE(here) << error;
  EXPECT_EQ(here->lastRow(), 0);
  ASSERT_TRUE(here->store(key("tile i,j 64,64"), timed(2.5), error)) << error;
  int64_t mark = here->lastRow();
  EXPECT_GT(mark, 0);
  ASSERT_TRUE(here->store(key("tile i,j 32,32"), timed(3.0), error)) << error;
  ASSERT_TRUE(here->store(key("tile i,j 64,64"), timed(2.0), error)) << error;  // stored anew
  auto since = here->rowsAfter(mark);
  ASSERT_EQ(since.size(), 2u);
  EXPECT_EQ(since[0].first.recipe, "tile i,j 32,32");
  EXPECT_EQ(since[1].first.recipe, "tile i,j 64,64");
  EXPECT_DOUBLE_EQ(since[1].second.ms, 2.0);
  EXPECT_EQ(here->rowsAfter(0).size(), 2u);
  EXPECT_TRUE(here->rowsAfter(here->lastRow()).empty());

  auto there = TuningDb::open(freshPath("there.db"), error);
  ASSERT_TRUE(there) << error;
  auto rows = here->rowsAfter(0);
  rows[0].second.measuredAt = "2020-01-02T03:04:05Z";
  ASSERT_TRUE(there->merge(rows, error)) << error;
  EXPECT_EQ(there->count(), 2u);
  auto found = there->find(key("tile i,j 32,32"));
  ASSERT_TRUE(found);
  EXPECT_DOUBLE_EQ(found->ms, 3.0);
  EXPECT_EQ(found->measuredAt, "2020-01-02T03:04:05Z");
  EXPECT_EQ(found->registers, 40);
  ASSERT_TRUE(there->merge(rows, error)) << error;  // the same rows again change nothing
  EXPECT_EQ(there->count(), 2u);
}

// Rows record the index of the GPU they were measured on beside its name; a database of the
// layout before the index is read as it is, and gets the column when a search opens it.
TEST(TuningDb, RecordsTheGpusIndex) {
  std::string error;
  std::string path = freshPath("index.db");
  {
    auto db = TuningDb::open(path, error);
    ASSERT_TRUE(db) << error;
    ASSERT_TRUE(db->store(key("unrecorded"), timed(1.0), error)) << error;
    db->setGpuIndex(3);
    ASSERT_TRUE(db->store(key("on three"), timed(1.0), error)) << error;
  }
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
  auto indexOf = [&](const char* recipe) {
    sqlite3_stmt* s = nullptr;
    std::string sql = std::string("SELECT gpu_index FROM measurements WHERE recipe = '") + recipe + "'";
    EXPECT_EQ(sqlite3_prepare_v2(raw, sql.c_str(), -1, &s, nullptr), SQLITE_OK) << sqlite3_errmsg(raw);
    int index = sqlite3_step(s) == SQLITE_ROW ? sqlite3_column_int(s, 0) : -100;
    sqlite3_finalize(s);
    return index;
  };
  EXPECT_EQ(indexOf("unrecorded"), -1);
  EXPECT_EQ(indexOf("on three"), 3);
  // Back to the layout before the index: read alone as it is, then brought up to date.
  ASSERT_EQ(sqlite3_exec(raw, "ALTER TABLE measurements DROP COLUMN gpu_index", nullptr, nullptr, nullptr), SQLITE_OK)
      << sqlite3_errmsg(raw);
  sqlite3_close(raw);
  {
    auto reader = TuningDb::open(path, error, cudaburg::DbAccess::ReadOnly);
    ASSERT_TRUE(reader) << error;
    EXPECT_TRUE(reader->find(key("on three")));
  }
  auto upgraded = TuningDb::open(path, error);
  ASSERT_TRUE(upgraded) << error;
  upgraded->setGpuIndex(1);
  ASSERT_TRUE(upgraded->store(key("on one"), timed(2.0), error)) << error;
  EXPECT_EQ(upgraded->count(), 3u);
}

// Two processes storing into one database at the same moment both keep every row: a writer
// waits for the other rather than fail.
TEST(TuningDb, TwoProcessesWriteAtOnce) {
  std::string path = freshPath("shared.db");
  std::string error;
  ASSERT_TRUE(TuningDb::open(path, error)) << error;  // made once, as `tune` makes it before its searches
  constexpr int kRows = 150;
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  std::vector<pid_t> children;
  for (int writer = 0; writer < 2; ++writer) {
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      close(ready[1]);
      char go;
      if (read(ready[0], &go, 1) != 1) _exit(3);  // both start together
      std::string why;
      auto db = TuningDb::open(path, why);
      if (!db) _exit(2);
      db->setGpuIndex(writer);
      for (int i = 0; i < kRows; ++i)
        if (!db->store(key("w" + std::to_string(writer) + "-" + std::to_string(i)), timed(1.0 + i), why)) _exit(1);
      _exit(0);
    }
    children.push_back(child);
  }
  close(ready[0]);
  ASSERT_EQ(write(ready[1], "gg", 2), 2);
  close(ready[1]);
  for (pid_t child : children) {
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "a writer failed: status " << status;
  }
  auto db = TuningDb::open(path, error, cudaburg::DbAccess::ReadOnly);
  ASSERT_TRUE(db) << error;
  EXPECT_EQ(db->count(), 2u * kRows);
  EXPECT_TRUE(db->find(key("w0-149")));
  EXPECT_TRUE(db->find(key("w1-0")));
}
