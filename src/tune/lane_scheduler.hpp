#pragma once
// Problems handed to lanes: one lane a GPU, each running one problem at a time (as a process of
// its own, so that a kernel that faults poisons only that process's CUDA context). Each lane that
// frees up takes the next problem of the queue; a problem whose process was lost (killed by a
// signal) is queued again once, for another lane where there is one, then reported failed.
#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace cudaburg::tune {

// Where a problem runs: a GPU of the host by its index, or (-1) this process, on the GPU it sees.
struct Lane {
  int gpu = -1;
};

// What came of running one problem once.
struct LaneOutcome {
  bool ok = false;
  double ms = -1;       // the winner's time; -1: not measured
  std::string library;  // the reference library and its time (-1: not timed)
  double libraryMs = -1;
  std::string detail;  // the winning recipe, or why there is none
  bool lost = false;   // the process running it died: worth running once more
};

// The seam between the schedule and what runs a problem: runs problem `problem` (an index into
// the caller's list) on `lane` and returns what came of it. Called from one thread a lane, at
// most once at a time a lane; it blocks while the problem runs.
using ProblemRunner = std::function<LaneOutcome(size_t problem, const Lane& lane)>;

// What came of a problem in the end, and where.
struct LaneResult {
  LaneOutcome outcome;
  size_t lane = 0;         // the lane of its last run
  size_t runs = 0;         // 2 when it was queued again
  double wallSeconds = 0;  // of all its runs
};

// Where the schedule stands, each time a problem starts or ends.
struct LaneProgress {
  size_t done = 0, total = 0;
  std::vector<std::pair<size_t, size_t>> running;  // (problem, lane), by lane
  double elapsedSeconds = 0;
};

// Runs problems 0..count-1 on `lanes` (the first on the calling thread, each other on one of
// its own) and returns their results in the problems' order. `onChange` is called, one call at a
// time, whenever a problem starts or ends.
std::vector<LaneResult> runOnLanes(size_t count, const std::vector<Lane>& lanes, const ProblemRunner& run,
                                   const std::function<void(const LaneProgress&)>& onChange = {});

}  // namespace cudaburg::tune
