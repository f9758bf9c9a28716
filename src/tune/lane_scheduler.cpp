#include "src/tune/lane_scheduler.hpp"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>

namespace cudaburg::tune {

namespace {

constexpr size_t kNoLane = static_cast<size_t>(-1);

// A problem waiting for a lane; one queued again keeps away from the lane that lost it.
struct Queued {
  size_t problem;
  size_t avoid = kNoLane;
  size_t runs = 0;
  double wallSeconds = 0;
};

class Schedule {
 public:
  Schedule(size_t count, const std::vector<Lane>& lanes, const ProblemRunner& run,
           const std::function<void(const LaneProgress&)>& onChange)
      : lanes_(lanes), run_(run), onChange_(onChange), results_(count), running_(lanes.size(), kNoLane) {
    for (size_t p = 0; p < count; ++p) queue_.push_back({p});
  }

  std::vector<LaneResult> run() {
    std::vector<std::thread> others;
    for (size_t l = 1; l < lanes_.size(); ++l) others.emplace_back([this, l] { drive(l); });
    if (!lanes_.empty()) drive(0);
    for (std::thread& t : others) t.join();
    return std::move(results_);
  }

 private:
  // The lane's loop: takes problems until none is left or can come back.
  void drive(size_t lane) {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      std::optional<Queued> item;
      changed_.wait(lock, [&] { return (item = take(lane)) || (queue_.empty() && busy_ == 0); });
      if (!item) return;
      ++busy_;
      running_[lane] = item->problem;
      report();
      lock.unlock();
      auto began = std::chrono::steady_clock::now();
      LaneOutcome outcome = runGuarded(item->problem, lanes_[lane]);
      double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
      lock.lock();
      --busy_;
      running_[lane] = kNoLane;
      item->wallSeconds += wall;
      ++item->runs;
      if (outcome.lost && item->runs == 1) {
        item->avoid = lanes_.size() > 1 ? lane : kNoLane;
        queue_.push_front(*item);  // next, before the problems not yet started
      } else {
        if (outcome.lost) outcome.detail = "lost twice: " + outcome.detail;
        results_[item->problem] = {std::move(outcome), lane, item->runs, item->wallSeconds};
        ++done_;
      }
      report();
      changed_.notify_all();
    }
  }

  // The first queued problem this lane may take (not one it lost), removed from the queue.
  std::optional<Queued> take(size_t lane) {
    auto it = std::find_if(queue_.begin(), queue_.end(), [&](const Queued& q) { return q.avoid != lane; });
    if (it == queue_.end()) return std::nullopt;
    Queued item = *it;
    queue_.erase(it);
    return item;
  }

  // A runner that throws fails its problem, not the schedule.
  LaneOutcome runGuarded(size_t problem, const Lane& lane) {
    try {
      return run_(problem, lane);
    } catch (const std::exception& e) {
      LaneOutcome failed;
      failed.detail = e.what();
      return failed;
    }
  }

  void report() {
    if (!onChange_) return;
    LaneProgress p;
    p.done = done_;
    p.total = results_.size();
    for (size_t l = 0; l < running_.size(); ++l)
      if (running_[l] != kNoLane) p.running.emplace_back(running_[l], l);
    p.elapsedSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    onChange_(p);
  }

  const std::vector<Lane>& lanes_;
  const ProblemRunner& run_;
  const std::function<void(const LaneProgress&)>& onChange_;
  std::vector<LaneResult> results_;
  std::vector<size_t> running_;  // the problem each lane runs, or kNoLane
  std::deque<Queued> queue_;
  size_t busy_ = 0, done_ = 0;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
};

}  // namespace

std::vector<LaneResult> runOnLanes(size_t count, const std::vector<Lane>& lanes, const ProblemRunner& run,
                                   const std::function<void(const LaneProgress&)>& onChange) {
  return Schedule(count, lanes, run, onChange).run();
}

}  // namespace cudaburg::tune
