#pragma once
// Every file an export writes, by its path under the output folder.
#include <string>
#include <utility>
#include <vector>

#include "src/export/export_plan.hpp"

namespace cudaburg {

std::vector<std::pair<std::string, std::string>> libraryFiles(const ExportPlan& plan, bool torch);

}  // namespace cudaburg
