#include "src/analysis/mark_check.hpp"

#include "src/analysis/legality.hpp"

namespace cudaburg {

namespace {

void checkMarks(const DependenceGraph& deps, const NodePtr& node, common::Diagnostics& diags, bool& ok) {
  if (node->kind == NodeKind::For && node->loopKind != LoopKind::Serial) {
    bool parallel = node->loopKind == LoopKind::Parallel;
    Legality verdict = parallel ? isParallel(deps, node.get()) : isReduction(deps, node.get());
    if (!verdict) {
      diags.error(node->loc, "loop '" + node->index + "' is marked " + loopKindName(node->loopKind) +
                                 " but it is not: " + verdict.reason);
      ok = false;
    }
  }
  for (const NodePtr& kid : node->kids) checkMarks(deps, kid, diags, ok);
}

}  // namespace

bool checkLoopMarks(const Kernel& kernel, common::Diagnostics& diags) {
  if (!kernel.body) return true;
  DependenceGraph deps(kernel);
  bool ok = true;
  checkMarks(deps, kernel.body, diags, ok);
  return ok;
}

}  // namespace cudaburg
