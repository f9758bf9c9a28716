#pragma once
// Loop trees as Graphviz DOT: one box a node, labelled with its BURG operator and what it does;
// edges from a node to its kids, in order.
#include <string>

#include "src/loop/loop_tree.hpp"

namespace cudaburg {

// A `digraph` named after the kernel; render with `dot -Tsvg`.
std::string kernelToDot(const Kernel& kernel);

}  // namespace cudaburg
