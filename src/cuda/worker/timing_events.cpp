#include "src/cuda/worker/timing_events.hpp"

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

L2Flusher::L2Flusher(const DeviceInfo& device) : scratch_(size_t(std::max<int64_t>(device.l2Bytes, 1 << 20)) * 2) {}

void L2Flusher::flush(CUstream stream) {
  checkCuda(cuMemsetD32Async(scratch_.ptr(), 0, scratch_.bytes() / 4, stream), "cuMemsetD32Async");
}

TimedRuns timeRuns(CUstream stream, const std::function<void()>& enqueueRun, int warmupRuns,
                   const RunCountPolicy& policy, L2Flusher& flusher) {
  // The first warm-up run is timed: a slow kernel (beyond 10 ms) needs no more warming up, and
  // its time is the estimate; a fast one is warmed up and then sampled. The estimate sets the
  // number of runs, so that a slow variant cannot run past the runner's deadline.
  constexpr double kSlowMs = 10;
  constexpr int kSampleRuns = 3;
  double estimate = timeEach(stream, enqueueRun, 1, flusher).front();
  std::vector<double> sample;
  if (estimate < kSlowMs) {
    for (int i = 1; i < warmupRuns; ++i) enqueueRun();
    checkCuda(cuStreamSynchronize(stream), "running the kernel");
    sample = timeEach(stream, enqueueRun, kSampleRuns, flusher);
    estimate = median(sample);
  }
  if (policy.losing(estimate)) {  // a lost race: a few runs confirm it (one slow run alone may be an outlier)
    if (sample.empty()) sample = timeEach(stream, enqueueRun, kSampleRuns, flusher);
    if (policy.losing(median(sample))) return {median(sample), static_cast<int>(sample.size())};
  }
  int runs = timedRunCount(estimate, policy);
  TimedRuns result;
  result.runs = runs;
  result.medianMs = median(timeEach(stream, enqueueRun, runs, flusher));
  return result;
}

double trialMs(CUstream stream, L2Flusher& flusher, const std::function<void()>& enqueue) {
  RunCountPolicy trials;
  trials.minRuns = 10;
  trials.maxRuns = 50;
  trials.minTotalMs = 5;
  trials.maxTotalMs = 200;
  return timeRuns(stream, enqueue, 2, trials, flusher).medianMs;
}

}  // namespace cudaburg
