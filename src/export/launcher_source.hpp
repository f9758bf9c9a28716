#pragma once
// src/<function>.cu: each tuned kernel of an exported function (in a namespace of its own, as
// emitted), a launcher for each (grid, block, dynamic shared memory, zeroed outputs, tensor maps,
// a split's workspace), and the function: it checks its pointers, the sizes and the GPU, and calls
// the launcher of the kernel tuned for the sizes.
#include <string>

#include "src/export/export_plan.hpp"

namespace cudaburg {

std::string launcherSource(const ExportPlan& plan, const ExportedFunction& f);

// The namespace kernel `index` of `f` lives in, and its launcher: `<function>_tuned_<index>`,
// `<function>_launch_<index>` (a static function taking the arrays and the stream).
std::string kernelNamespace(const ExportedFunction& f, size_t index);
std::string launcherName(const ExportedFunction& f, size_t index);

}  // namespace cudaburg
