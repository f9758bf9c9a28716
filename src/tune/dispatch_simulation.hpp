#pragma once
// How long a list's candidates keep R workers (GPUs, or ranks) busy when each candidate goes to
// the worker that frees up first: what handing out work as GPUs free up costs against the ideal
// (the total work spread evenly), from the measured time of each candidate's kernel.
#include <cstddef>
#include <vector>

#include "src/cuda/run/timing.hpp"

namespace cudaburg::tune {

// The seconds a candidate holds its GPU: a warm-up run, a verifying run and the timed runs the
// policy asks for at its kernel's time, plus a fixed cost of handing it over and back.
double candidateSeconds(double kernelMs, const RunCountPolicy& policy, double handoverSeconds);

struct Schedule {
  double makespan = 0;  // when the last worker is done
  double ideal = 0;     // the total work over the number of workers
  std::vector<size_t> candidatesPerWorker;
};

// Each candidate in turn to the worker that is free first (the lowest index among equals).
Schedule simulateDispatch(const std::vector<double>& seconds, size_t workers);

}  // namespace cudaburg::tune
