#pragma once
// include/<function>.h: the exported function's declaration, callable from C and C++, with what
// each of its kernels was tuned for.
#include <string>

#include "src/export/export_plan.hpp"

namespace cudaburg {

std::string libraryHeader(const ExportPlan& plan, const ExportedFunction& f);

}  // namespace cudaburg
