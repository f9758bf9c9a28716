#include "src/transform/legality_rules.hpp"

#include <algorithm>

#include "src/analysis/dependence.hpp"
#include "src/analysis/legality.hpp"
#include "src/transform/tree_edit.hpp"

namespace cudaburg {

namespace {

// A parallel loop carries no dependence and a reduce loop carries only reorderable reductions
// (the parser checks both marks against the dependences, and the transformations keep them
// true), so loops marked either way may be reordered with one another. A serial loop may carry
// anything: the dependence analysis decides.
bool marked(const Node& loop) { return loop.loopKind != LoopKind::Serial; }

}  // namespace

std::string interchangeProblem(const Kernel& kernel, const Node& outer, const Node& inner) {
  if (boundsUse(inner, outer.index))
    return "the bounds of loop " + inner.index + " use " + outer.index + " (only rectangular loops are interchanged)";
  if (marked(outer) && marked(inner)) return "";
  Legality l = mayInterchange(kernel, &outer, &inner);
  return l ? "" : l.reason;
}

std::string permutationProblem(const Kernel& kernel, const std::vector<const Node*>& band) {
  for (size_t a = 0; a < band.size(); ++a)
    for (size_t b = a + 1; b < band.size(); ++b) {
      if (boundsUse(*band[b], band[a]->index))
        return "the bounds of loop " + band[b]->index + " use " + band[a]->index +
               " (only rectangular loops are tiled)";
      if (b == a + 1 && band[a]->body().get() == band[b]) {
        if (std::string why = interchangeProblem(kernel, *band[a], *band[b]); !why.empty()) return why;
      } else if (!marked(*band[a]) || !marked(*band[b])) {
        return "loops " + band[a]->index + " and " + band[b]->index + " are not both parallel or reduce loops";
      }
    }
  return "";
}

// Fission keeps every dependence between statements of the body that points forward in the
// text; a dependence the loop carries from a later statement back to an earlier one forbids it.
std::string distributionProblem(const Kernel& kernel, const Node& loop) {
  if (loop.loopKind == LoopKind::Parallel) return "";
  DependenceGraph deps(kernel);
  std::vector<NodePtr> stmts = flattenSeq(loop.body());
  auto part = [&](int stmt) {
    const Node* node = deps.statements().at(stmt).node;
    for (size_t p = 0; p < stmts.size(); ++p)
      if (anyNode(stmts[p], [&](const Node& n) { return &n == node; })) return static_cast<int>(p);
    return -1;
  };
  for (const Dependence* d : deps.carriedBy(&loop)) {
    int from = part(d->source), to = part(d->sink);
    if (from > to && to >= 0)
      return "loop " + loop.index + " carries a dependence back to an earlier statement: " + deps.describe(*d);
  }
  return "";
}

}  // namespace cudaburg
