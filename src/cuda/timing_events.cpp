#include "src/cuda/timing_events.hpp"

#include <algorithm>
#include <vector>

namespace cudaburg {
namespace {

// A pair of events around each run, destroyed with the set.
class EventPairs {
 public:
  explicit EventPairs(int count) : events_(2 * size_t(count), nullptr) {
    for (auto& e : events_) checkCuda(cuEventCreate(&e, CU_EVENT_DEFAULT), "cuEventCreate");
  }
  ~EventPairs() {
    for (auto e : events_)
      if (e) cuEventDestroy(e);
  }
  CUevent start(int i) const { return events_[2 * size_t(i)]; }
  CUevent stop(int i) const { return events_[2 * size_t(i) + 1]; }

 private:
  std::vector<CUevent> events_;
};

std::vector<double> timeEach(CUstream stream, const std::function<void()>& enqueueRun, int runs, L2Flusher& flusher) {
  EventPairs events(runs);
  for (int i = 0; i < runs; ++i) {
    flusher.flush(stream);
    checkCuda(cuEventRecord(events.start(i), stream), "cuEventRecord");
    enqueueRun();
    checkCuda(cuEventRecord(events.stop(i), stream), "cuEventRecord");
  }
  checkCuda(cuStreamSynchronize(stream), "running the kernel");
  std::vector<double> ms(size_t(runs), 0.0);
  for (int i = 0; i < runs; ++i) {
    float elapsed = 0;
    checkCuda(cuEventElapsedTime(&elapsed, events.start(i), events.stop(i)), "cuEventElapsedTime");
    ms[size_t(i)] = elapsed;
  }
  return ms;
}

}  // namespace

L2Flusher::L2Flusher(const DeviceInfo& device)
    : scratch_(size_t(std::max<int64_t>(device.l2Bytes, 1 << 20)) * 2) {}

void L2Flusher::flush(CUstream stream) {
  checkCuda(cuMemsetD32Async(scratch_.ptr(), 0, scratch_.bytes() / 4, stream), "cuMemsetD32Async");
}

TimedRuns timeRuns(CUstream stream, const std::function<void()>& enqueueRun, int warmupRuns,
                   const RunCountPolicy& policy, L2Flusher& flusher) {
  for (int i = 0; i < warmupRuns; ++i) enqueueRun();
  checkCuda(cuStreamSynchronize(stream), "running the kernel");
  // A short sample sets the number of runs; slow kernels get fewer, fast ones more.
  double estimate = median(timeEach(stream, enqueueRun, 3, flusher));
  int runs = timedRunCount(estimate, policy);
  TimedRuns result;
  result.runs = runs;
  result.medianMs = median(timeEach(stream, enqueueRun, runs, flusher));
  return result;
}

}  // namespace cudaburg
