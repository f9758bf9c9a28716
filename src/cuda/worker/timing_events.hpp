#pragma once
// Timing on the GPU with CUDA events: warm-up runs, then the median of as many timed runs as the
// policy asks for, each after the L2 cache is flushed so that a small problem is not flattered
// by data left in the cache by the run before.
#include <cuda.h>

#include <functional>

#include "src/cuda/run/timing.hpp"
#include "src/cuda/worker/device.hpp"

namespace cudaburg {

// Evicts the L2 cache by writing a scratch buffer twice its size.
class L2Flusher {
 public:
  explicit L2Flusher(const DeviceInfo& device);
  void flush(CUstream stream);

 private:
  DeviceBuffer scratch_;
};

struct TimedRuns {
  double medianMs = 0;
  int runs = 0;
};

// `enqueueRun` puts one run on the stream (everything the variant needs, e.g. zeroing its
// outputs, and the launch). Throws CudaError when a run fails.
TimedRuns timeRuns(CUstream stream, const std::function<void()>& enqueueRun, int warmupRuns,
                   const RunCountPolicy& policy, L2Flusher& flusher);

// The time of one call that `enqueue` puts on the stream, taken as the kernels' times are (each
// run after the L2 cache is flushed, the median of 10 to 50 runs kept): for choosing among a
// library's engines, as one chosen on a warm cache loses to another on the flushed one it is then
// timed on.
double trialMs(CUstream stream, L2Flusher& flusher, const std::function<void()>& enqueue);

}  // namespace cudaburg
