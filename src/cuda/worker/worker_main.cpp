// cudaburg-worker: runs kernels for the runner, one JSON request a line on standard input, one
// JSON reply a line on standard output (see worker_protocol.hpp). It exits after a reply marked
// fatal, when its input ends, or on {"op":"quit"}.
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <string>

#include "src/cuda/worker/worker_session.hpp"

namespace {

cudaburg::MeasureReply failure(std::string reason) {
  cudaburg::MeasureReply reply;
  reply.status = cudaburg::RunStatus::Failed;
  reply.reason = std::move(reason);
  return reply;
}

}  // namespace

int main() {
  using namespace cudaburg;
  // Replies go to a private copy of standard output; anything a library prints goes to stderr.
  int replyFd = dup(STDOUT_FILENO);
  FILE* replies = replyFd >= 0 ? fdopen(replyFd, "w") : nullptr;
  if (!replies || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
    std::cerr << "cudaburg-worker: cannot set up its output\n";
    return 2;
  }
  WorkerSession session;
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.empty()) continue;
    nlohmann::json reply;
    bool fatal = false;
    try {
      nlohmann::json request = nlohmann::json::parse(line);
      std::string op = request.at("op").get<std::string>();
      if (op == "quit") break;
      if (op == "hello") {
        reply = session.hello();
      } else if (op == "measure" || op == "reference_time") {
        MeasureRequest r = measureRequestFromJson(request);
        MeasureReply m = op == "measure" ? session.measure(r) : session.timeReference(r);
        fatal = m.fatal;
        reply = toJson(m);
      } else {
        reply = toJson(failure("unknown request " + op));
      }
    } catch (const std::exception& e) {
      reply = toJson(failure(std::string("malformed request: ") + e.what()));
    }
    std::string text = reply.dump() + "\n";
    fwrite(text.data(), 1, text.size(), replies);
    fflush(replies);
    if (fatal) return 3;
  }
  return 0;
}
