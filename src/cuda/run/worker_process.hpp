#pragma once
// The worker as a child process: started with fork/exec, spoken to through a socket pair on its
// standard input and output (lines), its standard error kept for error messages. A reply that
// does not come by the deadline gets the process killed.
#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

namespace cudaburg {

class WorkerProcess {
 public:
  WorkerProcess() = default;
  ~WorkerProcess();
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  // Starts `program` with `arguments`; false with `error` set when it cannot be started.
  bool start(const std::string& program, const std::vector<std::string>& arguments, std::string& error);
  bool running() const { return pid_ > 0; }

  enum class Outcome { Reply, Timeout, Exited };
  // Sends one line and waits for one line back until the deadline. On Timeout the process has
  // been killed; on Exited it ended (or closed its output) without replying. Either way it is
  // gone and `exitDescription()` says how it ended.
  Outcome request(const std::string& line, std::chrono::milliseconds deadline, std::string& reply);

  // Asks the process to quit, then kills it if it has not within a moment.
  void stop();

  // "exit status 3", "killed by signal 11 (Segmentation fault)", ...
  const std::string& exitDescription() const { return exit_; }
  // The last part of what the process wrote to standard error.
  std::string stderrTail() const;

 private:
  void drainStderr();
  void reap(bool kill);

  pid_t pid_ = -1;
  int channel_ = -1;      // our end of the socket pair
  int stderr_ = -1;       // the read end of the child's standard error
  std::string buffered_;  // bytes read past the last line
  std::string stderrText_;
  std::string exit_;
};

}  // namespace cudaburg
