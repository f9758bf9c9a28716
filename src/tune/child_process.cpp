#include "src/tune/child_process.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

extern char** environ;

namespace cudaburg::tune {

ChildExit runChild(const std::vector<std::string>& argv, const std::string& logPath) {
  ChildExit exit;
  if (argv.empty()) {
    exit.reason = "no command";
    return exit;
  }
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // posix_spawn, not fork: the parent has threads (one a lane), and nothing but exec may follow a fork there.
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, logPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  pid_t pid = 0;
  int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {  // the log could not be opened, or the program not run
    exit.reason = "cannot run " + argv[0] + " with its log " + logPath + ": " + std::strerror(rc);
    return exit;
  }
  int status = 0;
  pid_t waited;
  do waited = waitpid(pid, &status, 0);
  while (waited < 0 && errno == EINTR);
  if (waited < 0) {
    exit.reason = std::string("cannot wait for ") + argv[0] + ": " + std::strerror(errno);
    return exit;
  }
  exit.started = true;
  exit.signaled = WIFSIGNALED(status);
  exit.code = exit.signaled ? WTERMSIG(status) : WEXITSTATUS(status);
  return exit;
}

std::string describeExit(const ChildExit& exit) {
  if (!exit.started) return exit.reason;
  if (exit.signaled) return "killed by signal " + std::to_string(exit.code) + " (" + strsignal(exit.code) + ")";
  return "exited with status " + std::to_string(exit.code);
}

std::string thisExecutable() {
  std::error_code ec;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? "/proc/self/exe" : self.string();
}

}  // namespace cudaburg::tune
