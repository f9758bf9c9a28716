// The lanes of `cudaburg tune --gpus`, with a runner that stands for a GPU by sleeping: two lanes
// finish eight problems in about half the time of one; a problem whose process was lost runs once
// more, on another lane, then is reported failed; the results keep the list's order.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>

#include "src/tune/lane_scheduler.hpp"

namespace cudaburg::tune {
namespace {

using Clock = std::chrono::steady_clock;

// Each problem takes `ms` milliseconds; its outcome says which problem and lane it was.
ProblemRunner sleeping(int ms) {
  return [ms](size_t problem, const Lane& lane) {
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    LaneOutcome o;
    o.ok = true;
    o.ms = static_cast<double>(problem);
    o.detail = "problem " + std::to_string(problem) + " on GPU " + std::to_string(lane.gpu);
    return o;
  };
}

double secondsToRun(size_t problems, const std::vector<Lane>& lanes) {
  auto began = Clock::now();
  std::vector<LaneResult> results = runOnLanes(problems, lanes, sleeping(100));
  EXPECT_EQ(results.size(), problems);
  return std::chrono::duration<double>(Clock::now() - began).count();
}

TEST(LaneScheduler, TwoLanesTakeAboutHalfTheTimeOfOne) {
  double one = secondsToRun(8, {Lane{0}});
  double two = secondsToRun(8, {Lane{0}, Lane{1}});
  EXPECT_GE(one, 0.8);
  EXPECT_GE(two, 0.4);
  EXPECT_LT(two, 0.6 * one) << "one lane " << one << " s, two lanes " << two << " s";
}

TEST(LaneScheduler, ResultsKeepTheListsOrderAndSayTheirLane) {
  // Problems of unequal length finish out of order; the results do not.
  std::vector<Lane> lanes = {Lane{3}, Lane{5}};
  auto run = [](size_t problem, const Lane& lane) {
    std::this_thread::sleep_for(std::chrono::milliseconds(problem % 2 ? 10 : 60));
    LaneOutcome o;
    o.ok = true;
    o.detail = std::to_string(problem) + "@" + std::to_string(lane.gpu);
    return o;
  };
  std::vector<LaneResult> results = runOnLanes(6, lanes, run);
  ASSERT_EQ(results.size(), 6u);
  std::set<size_t> lanesUsed;
  for (size_t i = 0; i < results.size(); ++i) {
    EXPECT_EQ(results[i].outcome.detail, std::to_string(i) + "@" + std::to_string(lanes[results[i].lane].gpu));
    EXPECT_EQ(results[i].runs, 1u);
    EXPECT_GT(results[i].wallSeconds, 0.005);
    lanesUsed.insert(results[i].lane);
  }
  EXPECT_EQ(lanesUsed.size(), 2u);
}

TEST(LaneScheduler, ALostProblemRunsOnceMoreOnAnotherLaneThenFails) {
  std::mutex m;
  std::vector<std::pair<size_t, int>> calls;  // (problem, GPU)
  auto run = [&](size_t problem, const Lane& lane) {
    {
      std::lock_guard<std::mutex> lock(m);
      calls.emplace_back(problem, lane.gpu);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    LaneOutcome o;
    size_t tries = 0;
    {
      std::lock_guard<std::mutex> lock(m);
      for (const auto& c : calls) tries += c.first == problem;
    }
    // Problem 1 is lost the first time only; problem 2 every time.
    if ((problem == 1 && tries == 1) || problem == 2) {
      o.lost = true;
      o.detail = "killed by signal 11 (Segmentation fault)";
      return o;
    }
    o.ok = true;
    o.detail = "fine";
    return o;
  };
  std::vector<LaneResult> results = runOnLanes(5, {Lane{0}, Lane{1}}, run);
  ASSERT_EQ(results.size(), 5u);
  EXPECT_TRUE(results[1].outcome.ok);
  EXPECT_EQ(results[1].runs, 2u);
  EXPECT_FALSE(results[2].outcome.ok);
  EXPECT_EQ(results[2].runs, 2u);
  EXPECT_EQ(results[2].outcome.detail, "lost twice: killed by signal 11 (Segmentation fault)");
  for (size_t p : {0, 3, 4}) EXPECT_EQ(results[p].runs, 1u) << p;
  // Each lost problem's second run was on the other GPU.
  for (size_t p : {1, 2}) {
    std::vector<int> gpus;
    for (const auto& c : calls)
      if (c.first == p) gpus.push_back(c.second);
    ASSERT_EQ(gpus.size(), 2u) << p;
    EXPECT_NE(gpus[0], gpus[1]) << p;
  }
  EXPECT_EQ(calls.size(), 7u);
}

TEST(LaneScheduler, OneLaneRunsALostProblemAgainItself) {
  std::atomic<int> calls{0};
  auto run = [&](size_t, const Lane&) {
    LaneOutcome o;
    o.lost = calls++ == 0;
    o.ok = !o.lost;
    return o;
  };
  std::vector<LaneResult> results = runOnLanes(1, {Lane{}}, run);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_TRUE(results[0].outcome.ok);
  EXPECT_EQ(results[0].runs, 2u);
}

TEST(LaneScheduler, ARunnerThatThrowsFailsItsProblemOnly) {
  auto run = [](size_t problem, const Lane&) -> LaneOutcome {
    if (problem == 0) throw std::runtime_error("cannot start");
    LaneOutcome o;
    o.ok = true;
    return o;
  };
  std::vector<LaneResult> results = runOnLanes(2, {Lane{0}, Lane{1}}, run);
  EXPECT_FALSE(results[0].outcome.ok);
  EXPECT_EQ(results[0].outcome.detail, "cannot start");
  EXPECT_TRUE(results[1].outcome.ok);
}

TEST(LaneScheduler, ProgressCountsWhatIsDoneAndWhatRuns) {
  std::vector<LaneProgress> seen;
  runOnLanes(4, {Lane{0}, Lane{1}}, sleeping(20), [&](const LaneProgress& p) { seen.push_back(p); });
  ASSERT_EQ(seen.size(), 8u);  // a start and an end for each problem
  size_t mostRunning = 0;
  for (const LaneProgress& p : seen) {
    EXPECT_EQ(p.total, 4u);
    EXPECT_LE(p.running.size(), 2u);
    mostRunning = std::max(mostRunning, p.running.size());
  }
  EXPECT_EQ(mostRunning, 2u);
  EXPECT_EQ(seen.back().done, 4u);
  EXPECT_TRUE(seen.back().running.empty());
}

}  // namespace
}  // namespace cudaburg::tune
