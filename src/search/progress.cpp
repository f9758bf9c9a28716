#include "src/search/progress.hpp"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cstdio>

namespace cudaburg {

Progress::Progress(std::FILE* out, bool quiet)
    : out_(out),
      mode_(quiet                 ? Mode::Quiet
            : isatty(fileno(out)) ? Mode::Bar
                                  : Mode::Lines) {}

// Log lines (when the output is not a terminal) go through spdlog, with a time stamp.
static spdlog::logger& log() {
  static std::shared_ptr<spdlog::logger> logger = [] {
    auto l = std::make_shared<spdlog::logger>("cudaburg", std::make_shared<spdlog::sinks::stderr_sink_mt>());
    l->set_pattern("[%H:%M:%S] cudaburg: %v");
    return l;
  }();
  return *logger;
}

void Progress::start(size_t total) {
  total_ = total;
  compiled_ = measured_ = failed_ = done_ = 0;
  best_ = -1;
  started_ = lastLine_ = std::chrono::steady_clock::now();
}

std::string Progress::status() const {
  char buf[256];
  int n = std::snprintf(buf, sizeof buf, "compiled %zu/%zu, measured %zu, failed %zu", compiled_, total_, measured_,
                        failed_);
  std::string s(buf, n);
  if (best_ > 0) {
    std::snprintf(buf, sizeof buf, ", best %.4f ms", best_);
    s += buf;
  }
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  size_t done = done_;
  if (done > 0 && done < total_) {
    std::snprintf(buf, sizeof buf, ", ETA %.0f s", elapsed / done * (total_ - done));
    s += buf;
  }
  return s;
}

void Progress::draw() {
  if (mode_ == Mode::Quiet) return;
  if (mode_ == Mode::Lines) {
    // One line every few seconds, and one at the end: enough for a log, not a flood.
    auto now = std::chrono::steady_clock::now();
    if (done_ < total_ && now - lastLine_ < std::chrono::seconds(5)) return;
    lastLine_ = now;
    log().info("{}", status());
    return;
  }
  constexpr int kWidth = 30;
  int filled = total_ ? static_cast<int>(kWidth * done_ / total_) : 0;
  std::string bar(filled, '#');
  bar.resize(kWidth, '.');
  std::fprintf(out_, "\r\033[K[%s] %s", bar.c_str(), status().c_str());
  std::fflush(out_);
  drawn_ = true;
}

void Progress::note(const std::string& line) {
  if (mode_ == Mode::Quiet) return;
  if (mode_ == Mode::Lines) {
    log().info("{}", line);
    return;
  }
  if (drawn_) std::fprintf(out_, "\r\033[K");
  std::fprintf(out_, "cudaburg: %s\n", line.c_str());
  if (drawn_) draw();
  std::fflush(out_);
}

void Progress::warn(const std::string& line) {
  if (mode_ != Mode::Quiet) return note("warning: " + line);
  std::fprintf(out_, "cudaburg: warning: %s\n", line.c_str());
  std::fflush(out_);
}

void Progress::finish() {
  if (mode_ == Mode::Bar && drawn_) std::fprintf(out_, "\n");
  std::fflush(out_);
  drawn_ = false;
}

}  // namespace cudaburg
