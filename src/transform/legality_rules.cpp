#include "src/transform/legality_rules.hpp"

#include "src/transform/tree_edit.hpp"

namespace cudaburg {

namespace {

// A parallel loop carries no dependence and a reduce loop carries only reorderable reductions
// (the parser checks both marks against the dependences), so loops marked either way may be
// reordered with one another; a serial loop may carry anything.
std::string reorderProblem(const Node& loop) {
  if (loop.loopKind == LoopKind::Serial)
    return "loop " + loop.index + " is serial: the dependences it may carry forbid reordering it";
  return "";
}

}  // namespace

std::string interchangeProblem(const Kernel&, const Node& outer, const Node& inner) {
  if (boundsUse(inner, outer.index))
    return "the bounds of loop " + inner.index + " use " + outer.index + " (only rectangular loops are interchanged)";
  std::string why = reorderProblem(outer);
  return why.empty() ? reorderProblem(inner) : why;
}

std::string permutationProblem(const Kernel& kernel, const std::vector<const Node*>& band) {
  for (size_t a = 0; a < band.size(); ++a)
    for (size_t b = a + 1; b < band.size(); ++b) {
      std::string why = interchangeProblem(kernel, *band[a], *band[b]);
      if (!why.empty()) return why;
    }
  return "";
}

std::string distributionProblem(const Kernel&, const Node& loop) {
  if (loop.loopKind != LoopKind::Parallel)
    return "loop " + loop.index + " is " + loopKindName(loop.loopKind) +
           ", and only a parallel loop's statements can be split into separate loops";
  return "";
}

}  // namespace cudaburg
