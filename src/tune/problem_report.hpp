#pragma once
// What a problem's search (or replay) run as a child process left: its outcome, read back from
// the report.json it wrote into its folder, and the last error it said into its log.
#include <string>

#include "src/tune/lane_scheduler.hpp"

namespace cudaburg::tune {

// The winner (its recipe on one line), its time and the library's from `reportPath`; not ok,
// with the reason in `detail`, when the file is missing, is not a report, or names no winner.
LaneOutcome readProblemReport(const std::string& reportPath);

// The last line of `logPath` that says an error ("cudaburg: error: ...", "cudaburg: no kernel: ...",
// "FILE:LINE:COL: error: ..."), without the "cudaburg: " before it; "" when there is none.
std::string lastErrorLine(const std::string& logPath);

}  // namespace cudaburg::tune
