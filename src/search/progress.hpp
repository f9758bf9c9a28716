#pragma once
// Progress of a search: a bar redrawn in place on a terminal (compiled / measured / failed,
// best so far, ETA), log lines through spdlog when the output is not a terminal, nothing when
// quiet.
#include <chrono>
#include <cstdio>
#include <string>

namespace cudaburg {

class Progress {
 public:
  enum class Mode { Bar, Lines, Quiet };
  // Bar when `out` is a terminal, else Lines; Quiet when `quiet`.
  Progress(std::FILE* out, bool quiet);
  Progress(std::FILE* out, Mode mode) : out_(out), mode_(mode) {}

  void start(size_t total);
  // More variants to go (a search learns its total as it goes).
  void expect(size_t more) { total_ += more; }
  void compiled() {
    ++compiled_;
    draw();
  }
  void measured(bool ok, double bestMs) {
    ++done_;
    ++measured_;
    if (!ok) ++failed_;
    best_ = bestMs;
    draw();
  }
  // A variant that was not measured (no GPU, or the budget is spent).
  void skipped() {
    ++done_;
    draw();
  }
  // A variant refused before it ran (by a transformation, the emitter or the compiler).
  void refused() {
    ++done_;
    ++failed_;
    draw();
  }
  // A line of its own (above the bar on a terminal).
  void note(const std::string& line);
  // A warning: shown even when quiet, which hides progress, not problems.
  void warn(const std::string& line);
  void finish();

  size_t compiledCount() const { return compiled_; }
  std::string status() const;  // "compiled 12/40, measured 8, failed 1, best 1.234 ms, ETA 20 s"

 private:
  void draw();

  std::FILE* out_;
  Mode mode_;
  size_t total_ = 0, compiled_ = 0, measured_ = 0, failed_ = 0, done_ = 0;
  double best_ = -1;
  std::chrono::steady_clock::time_point started_;
  std::chrono::steady_clock::time_point lastLine_;
  bool drawn_ = false;
};

}  // namespace cudaburg
