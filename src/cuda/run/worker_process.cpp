#include "src/cuda/run/worker_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace cudaburg {
namespace {

constexpr size_t kStderrKept = 8192;

void closeFd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

std::string describeStatus(int status) {
  if (WIFEXITED(status)) return "exit status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    return "killed by signal " + std::to_string(sig) + " (" + strsignal(sig) + ")";
  }
  return "ended";
}

}  // namespace

WorkerProcess::~WorkerProcess() { stop(); }

bool WorkerProcess::start(const std::string& program, const std::vector<std::string>& arguments, std::string& error) {
  stop();
  int pair[2], errPipe[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
    error = std::string("cannot create a socket pair: ") + strerror(errno);
    return false;
  }
  if (pipe2(errPipe, O_CLOEXEC) != 0) {
    error = std::string("cannot create a pipe: ") + strerror(errno);
    close(pair[0]), close(pair[1]);
    return false;
  }
  // Everything the child needs is prepared before fork: it only calls dup2, execv and _exit.
  std::vector<std::string> words = {program};
  words.insert(words.end(), arguments.begin(), arguments.end());
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  pid_t pid = fork();
  if (pid < 0) {
    error = std::string("cannot fork: ") + strerror(errno);
    close(pair[0]), close(pair[1]), close(errPipe[0]), close(errPipe[1]);
    return false;
  }
  if (pid == 0) {
    if (dup2(pair[1], STDIN_FILENO) < 0 || dup2(pair[1], STDOUT_FILENO) < 0 || dup2(errPipe[1], STDERR_FILENO) < 0)
      _exit(126);
    execv(argv[0], argv.data());
    const char message[] = "cannot execute the worker program\n";
    ssize_t ignored = write(STDERR_FILENO, message, sizeof message - 1);
    (void)ignored;
    _exit(127);
  }
  close(pair[1]);
  close(errPipe[1]);
  pid_ = pid;
  channel_ = pair[0];
  stderr_ = errPipe[0];
  fcntl(stderr_, F_SETFL, fcntl(stderr_, F_GETFL) | O_NONBLOCK);
  buffered_.clear();
  stderrText_.clear();
  exit_.clear();
  return true;
}

void WorkerProcess::drainStderr() {
  char chunk[4096];
  while (stderr_ >= 0) {
    ssize_t n = read(stderr_, chunk, sizeof chunk);
    if (n > 0) {
      stderrText_.append(chunk, size_t(n));
      if (stderrText_.size() > 2 * kStderrKept) stderrText_.erase(0, stderrText_.size() - kStderrKept);
      continue;
    }
    if (n == 0) closeFd(stderr_);
    break;
  }
}

std::string WorkerProcess::stderrTail() const {
  std::string tail =
      stderrText_.size() > kStderrKept ? stderrText_.substr(stderrText_.size() - kStderrKept) : stderrText_;
  while (!tail.empty() && (tail.back() == '\n' || tail.back() == ' ')) tail.pop_back();
  return tail;
}

WorkerProcess::Outcome WorkerProcess::request(const std::string& line, std::chrono::milliseconds deadline,
                                              std::string& reply) {
  if (!running()) return Outcome::Exited;
  std::string message = line + "\n";
  for (size_t sent = 0; sent < message.size();) {
    ssize_t n = send(channel_, message.data() + sent, message.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {  // the worker closed its end: it is ending (or has ended) by itself
      reap(false);
      return Outcome::Exited;
    }
    sent += size_t(n);
  }
  auto until = std::chrono::steady_clock::now() + deadline;
  for (;;) {
    size_t newline = buffered_.find('\n');
    if (newline != std::string::npos) {
      reply = buffered_.substr(0, newline);
      buffered_.erase(0, newline + 1);
      return Outcome::Reply;
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      reap(true);
      return Outcome::Timeout;
    }
    pollfd fds[2] = {{channel_, POLLIN, 0}, {stderr_, POLLIN, 0}};
    int ready = poll(fds, stderr_ >= 0 ? 2 : 1, int(std::min<int64_t>(left.count(), 1000)));
    if (ready < 0 && errno != EINTR) {
      reap(true);
      return Outcome::Exited;
    }
    if (stderr_ >= 0 && (fds[1].revents & (POLLIN | POLLHUP))) drainStderr();
    if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
      char chunk[65536];
      ssize_t n = recv(channel_, chunk, sizeof chunk, 0);
      if (n > 0) {
        buffered_.append(chunk, size_t(n));
      } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
        reap(false);
        return Outcome::Exited;
      }
    }
  }
}

void WorkerProcess::reap(bool kill) {
  if (pid_ <= 0) return;
  if (kill) ::kill(pid_, SIGKILL);
  closeFd(channel_);
  int status = 0;
  // A process that closed its output is about to end: give it a moment before killing it.
  for (int i = 0; !kill && i < 200; ++i) {
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      exit_ = describeStatus(status);
      pid_ = -1;
      break;
    }
    usleep(10000);
  }
  if (pid_ > 0) {
    if (!kill) ::kill(pid_, SIGKILL);
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    exit_ = kill ? "killed by the runner" : describeStatus(status);
  }
  pid_ = -1;
  if (stderr_ >= 0) {
    drainStderr();
    closeFd(stderr_);
  }
}

void WorkerProcess::stop() {
  if (pid_ <= 0) {
    closeFd(channel_);
    closeFd(stderr_);
    return;
  }
  const char quit[] = "{\"op\":\"quit\"}\n";
  if (send(channel_, quit, sizeof quit - 1, MSG_NOSIGNAL) > 0) shutdown(channel_, SHUT_WR);
  reap(false);
}

}  // namespace cudaburg
