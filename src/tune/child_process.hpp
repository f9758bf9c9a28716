#pragma once
// Runs a command as a child process with its standard output and error going to a log file, and
// waits for it (blocked in waitpid: the calling thread sleeps meanwhile).
#include <string>
#include <vector>

#include "common/result.hpp"

namespace cudaburg::tune {

struct ChildExit {
  bool started = false;   // false: it could not be started (`reason` says so)
  bool signaled = false;  // killed by a signal (`code` is the signal)
  int code = 0;           // the exit status, or the signal
  common::Reason reason;
};

// Runs argv[0] with `argv`; the log file is created (or emptied) first.
ChildExit runChild(const std::vector<std::string>& argv, const std::string& logPath);

// "exited with status 1", "killed by signal 11 (Segmentation fault)", or why it did not start.
std::string describeExit(const ChildExit& exit);

// The path of the running executable, for running it again as a child.
std::string thisExecutable();

}  // namespace cudaburg::tune
