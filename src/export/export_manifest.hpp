#pragma once
// cudaburg-export.json: what an export holds, for programs (tests, build scripts) and for the
// next export into the same folder, which replaces only a folder that has one.
#include <string>

#include "src/export/export_plan.hpp"

namespace cudaburg {

inline const char* kExportManifest = "cudaburg-export.json";

std::string exportManifest(const ExportPlan& plan);

}  // namespace cudaburg
