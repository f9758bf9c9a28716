#pragma once
// Checks the `parallel` and `reduce` marks of a kernel against its dependences and reports a
// wrong mark as an error at the loop, saying which dependence makes it wrong.
#include "common/diagnostics.hpp"
#include "src/loop/loop_tree.hpp"

namespace cudaburg {

// Returns true when every mark holds. Loops without a source position are reported without one.
bool checkLoopMarks(const Kernel& kernel, common::Diagnostics& diags);

}  // namespace cudaburg
