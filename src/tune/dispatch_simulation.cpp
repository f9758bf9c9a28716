#include "src/tune/dispatch_simulation.hpp"

#include <algorithm>
#include <functional>
#include <queue>
#include <utility>

namespace cudaburg::tune {

double candidateSeconds(double kernelMs, const RunCountPolicy& policy, double handoverSeconds) {
  int runs = 2 + timedRunCount(kernelMs, policy);  // warm-up and verification, then the timed runs
  return runs * kernelMs / 1000 + handoverSeconds;
}

Schedule simulateDispatch(const std::vector<double>& seconds, size_t workers) {
  Schedule s;
  if (workers == 0) return s;
  s.candidatesPerWorker.assign(workers, 0);
  // (when the worker is free, its index): the earliest first.
  using Free = std::pair<double, size_t>;
  std::priority_queue<Free, std::vector<Free>, std::greater<Free>> free;
  for (size_t w = 0; w < workers; ++w) free.push({0.0, w});
  double total = 0;
  for (double t : seconds) {
    auto [at, w] = free.top();
    free.pop();
    free.push({at + t, w});
    ++s.candidatesPerWorker[w];
    total += t;
    s.makespan = std::max(s.makespan, at + t);
  }
  s.ideal = total / workers;
  return s;
}

}  // namespace cudaburg::tune
