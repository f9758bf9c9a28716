#include "src/analysis/mark_check.hpp"

#include "src/analysis/legality.hpp"
#include "src/loop/tree_walk.hpp"

namespace cudaburg {

namespace {

void checkMarks(const DependenceGraph& deps, const Node& root, common::Diagnostics& diags, bool& ok) {
  forEachNode(root, [&](const Node& node) {
    if (node.kind != NodeKind::For || node.loopKind == LoopKind::Serial) return;
    bool parallel = node.loopKind == LoopKind::Parallel;
    Legality verdict = parallel ? isParallel(deps, &node) : isReduction(deps, &node);
    if (!verdict) {
      diags.error(node.loc, "loop '" + node.index + "' is marked " + loopKindName(node.loopKind) +
                                " but it is not: " + verdict.reason);
      ok = false;
    }
  });
}

}  // namespace

bool checkLoopMarks(const Kernel& kernel, common::Diagnostics& diags) {
  if (!kernel.body) return true;
  DependenceGraph deps(kernel);
  bool ok = true;
  checkMarks(deps, *kernel.body, diags, ok);
  return ok;
}

}  // namespace cudaburg
