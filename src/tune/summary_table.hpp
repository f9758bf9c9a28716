#pragma once
// The table of a tuning run over a list: one row a problem, in the list's order.
#include <string>
#include <vector>

namespace cudaburg::tune {

struct Row {
  std::string name;
  size_t line = 0;              // of the list
  std::vector<size_t> repeats;  // later lines of the same problem
  bool ok = false;
  double ms = -1;       // the winner's time; -1: not measured
  std::string library;  // the reference library and its time (-1: not timed)
  double libraryMs = -1;
  double wallSeconds = 0;  // the tuning of this problem, start to end
  std::string gpu = "-";   // the GPU it ran on ("-": the one the process saw)
  std::string detail;      // the winning recipe, or why there is none
};

// The table in Markdown, with a line that counts the problems, the failures and the run's wall
// time (less than the problems' together where they ran side by side).
std::string summaryMarkdown(const std::string& listName, const std::vector<Row>& rows, size_t failed,
                            double wallSeconds);

}  // namespace cudaburg::tune
