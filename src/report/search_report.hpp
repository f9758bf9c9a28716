#pragma once
// report.md and report.json: the top variants (recipe, time, TFLOPS, registers, shared memory,
// verification error, the reference library's time and the ratio) and the failed ones with
// their reasons.
#include <string>

#include "src/search/outcome.hpp"

namespace cudaburg {

std::string searchReportMarkdown(const SearchOutcome& outcome, size_t top = 10);
std::string searchReportJson(const SearchOutcome& outcome);

}  // namespace cudaburg
