#pragma once
// Loop trees as text in the .loop syntax. An untransformed kernel prints as a .loop file that
// parses back to the same tree; what transformations add shows as annotations: a loop's
// mapping and an atomic `+=` as trailing comments, and `alloc`, `stage` and `barrier` lines.
#include <string>

#include "src/loop/loop_tree.hpp"

namespace cudaburg {

// The whole kernel: its sizes, its signature and its body.
std::string printKernel(const Kernel& kernel);
// One subtree, each line indented by `indent` spaces.
std::string printNode(const Node& node, int indent = 0);
// A value expression with only the parentheses it needs.
std::string printExpr(const Expr& expr);
// A number as the shortest text that reads back as the same double.
std::string printNumber(double value);

}  // namespace cudaburg
