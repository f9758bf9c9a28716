#pragma once
// Finding loops by index and rebuilding trees around edits: the plumbing the transformations
// share. Trees are immutable, so an edit rebuilds the nodes above it and shares the rest.
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "src/loop/loop_tree.hpp"
#include "src/transform/transform_result.hpp"

namespace cudaburg {

// The nodes above a node, outermost first.
using Ancestors = std::vector<NodePtr>;

// What an edit of one loop returns: its replacement, or a refusal (reason set).
struct LoopEdit {
  NodePtr node;
  common::Reason reason;
};

// Replaces every For node with index `index` by what `edit` returns. Loops inside a replaced
// loop are not visited. Refuses when no loop has that index or when an edit refuses.
TransformResult editLoops(const Kernel& kernel, const std::string& index,
                          const std::function<LoopEdit(const NodePtr& loop, const Ancestors& above)>& edit);

// Finishes a transformation: the kernel with the new body when it keeps the mapped-tree model,
// else a refusal naming the rule it breaks.
TransformResult accept(const Kernel& kernel, NodePtr body);

// Every name a kernel uses: sizes, arrays and buffers, loop indices.
std::set<std::string> usedNames(const Kernel& kernel);
// `base` if `taken` does not hold it, else base2, base3, ...: how every new name is made fresh.
std::string freshName(const std::set<std::string>& taken, const std::string& base);
// The same, against every name the kernel uses.
std::string freshName(const Kernel& kernel, const std::string& base);

// Calls `visit` on every node below and including `node`, with its ancestors.
void walk(const NodePtr& node, const std::function<void(const NodePtr&, const Ancestors&)>& visit);

// "" when exactly one loop below `body` runs over `index` and `check` finds nothing against it
// (given the nodes above it); else why not: no such loop, several ("only a loop of its own " +
// `what`), or what `check` says.
std::string soleLoopProblem(const NodePtr& body, const std::string& index, const std::string& what,
                            const std::function<std::string(const Node&, const Ancestors&)>& check);

// Whether any node below and including `node` satisfies `pred`.
bool anyNode(const NodePtr& node, const std::function<bool(const Node&)>& pred);

// Rewrites every access (assignment targets and loads) below `node` with `rewrite`.
NodePtr rewriteAccesses(const NodePtr& node, const std::function<Access(const Access&)>& rewrite);
ExprPtr rewriteAccesses(const ExprPtr& expr, const std::function<Access(const Access&)>& rewrite);

// Whether an expression reads `array`.
bool reads(const ExprPtr& expr, const std::string& array);

// Whether a loop's bounds use index `index`.
bool boundsUse(const Node& loop, const std::string& index);

// The perfect nest of `loops` (outermost first) from `first`, each loop the whole body of the one
// before: "" and the nest in `band`, or why not ("... (<what> needs a perfect nest)").
std::string perfectNest(const NodePtr& first, const std::vector<std::string>& loops, const std::string& what,
                        std::vector<NodePtr>& band);

// A copy of a For node with another body.
NodePtr withBody(const NodePtr& loop, NodePtr body);

}  // namespace cudaburg
