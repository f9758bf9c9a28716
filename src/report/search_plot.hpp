#pragma once
// search.svg: each measured variant's time as a dot in measurement order (the spread), the best
// time so far as a step line, and the reference library's time as a dashed line. When nothing
// was measured (no GPU), each candidate's model estimate in the model's order.
#include <string>

#include "src/search/outcome.hpp"

namespace cudaburg {

std::string searchPlotSvg(const SearchOutcome& outcome);

}  // namespace cudaburg
