#pragma once
// The export's CMakeLists.txt (a static library of the functions, installable as a CMake package:
// `find_package(<library>)` then links `<library>::<library>`) and the package's config file.
#include <string>

#include "src/export/export_plan.hpp"

namespace cudaburg {

std::string cmakeLists(const ExportPlan& plan);
std::string packageConfig(const ExportPlan& plan);

// "90a-real": the CUDA architecture CMake compiles the kernels for.
std::string cmakeArchitecture(const ExportPlan& plan);

}  // namespace cudaburg
