#pragma once
// A fixed set of worker threads that run submitted jobs in order of submission.
#include <condition_variable>
#include <functional>
#include <future>
#include <mutex>
#include <queue>
#include <thread>
#include <type_traits>
#include <vector>

namespace cudaburg {

class ThreadPool {
 public:
  // `threads` 0 means one a hardware thread.
  explicit ThreadPool(unsigned threads = 0);
  ~ThreadPool();  // finishes the queued jobs, then joins
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  template <class F>
  auto submit(F job) -> std::future<std::invoke_result_t<F>> {
    using R = std::invoke_result_t<F>;
    auto task = std::make_shared<std::packaged_task<R()>>(std::move(job));
    std::future<R> result = task->get_future();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      jobs_.push([task] { (*task)(); });
    }
    wake_.notify_one();
    return result;
  }

  unsigned size() const { return static_cast<unsigned>(workers_.size()); }

  // Drops the jobs not started yet: their futures report a broken promise. Jobs running go on.
  void dropQueued() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::queue<std::function<void()>>().swap(jobs_);
  }

 private:
  void work();

  std::vector<std::thread> workers_;
  std::queue<std::function<void()>> jobs_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
};

}  // namespace cudaburg
