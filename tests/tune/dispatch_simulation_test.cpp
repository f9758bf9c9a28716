// Handing candidates to whichever worker frees up first keeps R workers nearly as busy as the
// ideal (the total work over R): within 15% for R = 2, 4 and 8 at the costs of the candidates the
// tuning databases of tests/data measured (on H100 and H200 GPUs), each problem alone and all together.
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <sqlite3.h>

#include "src/tune/dispatch_simulation.hpp"

namespace cudaburg::tune {
namespace {

// The search's brief timing policy (as `cudaburg FILE.loop` sets it while searching).
RunCountPolicy searchPolicy() {
  RunCountPolicy p;
  p.minRuns = 5;
  p.minTotalMs = 20;
  p.maxTotalMs = 300;
  return p;
}

// Handing a candidate to a worker process and its result back, beside the kernel's runs.
constexpr double kHandoverSeconds = 0.02;

// The seconds of each verified candidate a database holds, in the order they were measured.
std::vector<double> candidateCosts(const std::filesystem::path& db) {
  std::vector<double> seconds;
  sqlite3* handle = nullptr;
  // Opened immutable: nothing is written beside the database (no -wal or -shm file).
  std::string uri = "file:" + db.string() + "?immutable=1";
  if (sqlite3_open_v2(uri.c_str(), &handle, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr) != SQLITE_OK) {
    sqlite3_close(handle);
    return seconds;
  }
  sqlite3_stmt* rows = nullptr;
  if (sqlite3_prepare_v2(handle, "SELECT ms FROM measurements WHERE status = 'ok' ORDER BY rowid", -1, &rows,
                         nullptr) == SQLITE_OK)
    while (sqlite3_step(rows) == SQLITE_ROW)
      seconds.push_back(candidateSeconds(sqlite3_column_double(rows, 0), searchPolicy(), kHandoverSeconds));
  sqlite3_finalize(rows);
  sqlite3_close(handle);
  return seconds;
}

TEST(DispatchSimulation, GreedyOnAFewCandidates) {
  // Three equal candidates on two workers: one worker takes two; the ideal is not reached.
  Schedule s = simulateDispatch({1, 1, 1}, 2);
  EXPECT_DOUBLE_EQ(s.makespan, 2);
  EXPECT_DOUBLE_EQ(s.ideal, 1.5);
  EXPECT_EQ(s.candidatesPerWorker, (std::vector<size_t>{2, 1}));
  // A long candidate keeps its worker while the other takes the rest.
  s = simulateDispatch({4, 1, 1, 1, 1}, 2);
  EXPECT_DOUBLE_EQ(s.makespan, 4);
  EXPECT_EQ(s.candidatesPerWorker, (std::vector<size_t>{1, 4}));
  EXPECT_DOUBLE_EQ(simulateDispatch({}, 3).makespan, 0);
}

TEST(DispatchSimulation, CandidateCostFollowsThePolicy) {
  // 1 ms: 20 timed runs reach the policy's 20 ms, with a warm-up and a verifying run.
  EXPECT_NEAR(candidateSeconds(1.0, searchPolicy(), 0), 0.022, 1e-9);
  // 100 ms: at most 300 ms timed, so 3 runs (fewer than minRuns, as the policy caps them).
  EXPECT_NEAR(candidateSeconds(100.0, searchPolicy(), 0.5), 0.5 + 0.1 * (2 + timedRunCount(100.0, searchPolicy())),
              1e-9);
}

TEST(DispatchSimulation, WithinFifteenPercentOfIdealOnRecordedSearches) {
  std::vector<double> all;
  size_t databases = 0;
  for (const auto& entry : std::filesystem::directory_iterator(CUDABURG_TEST_DATA_DIR)) {
    if (entry.path().extension() != ".db") continue;
    std::vector<double> costs = candidateCosts(entry.path());
    ASSERT_GT(costs.size(), 50u) << entry.path();
    ++databases;
    all.insert(all.end(), costs.begin(), costs.end());
    for (size_t r : {2, 4, 8}) {
      Schedule s = simulateDispatch(costs, r);
      EXPECT_LE(s.makespan, 1.15 * s.ideal) << entry.path().filename() << " on " << r << " workers";
    }
  }
  EXPECT_GE(databases, 4u);
  for (size_t r : {2, 4, 8}) {
    Schedule s = simulateDispatch(all, r);
    EXPECT_LE(s.makespan, 1.15 * s.ideal) << "every database on " << r << " workers";
    EXPECT_GE(s.makespan, s.ideal);
  }
}

}  // namespace
}  // namespace cudaburg::tune
