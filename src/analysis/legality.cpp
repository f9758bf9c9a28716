#include "src/analysis/legality.hpp"

#include <algorithm>

#include "src/loop/printer.hpp"

namespace cudaburg {

namespace {

std::string statementText(const Node& stmt) {
  if (stmt.kind == NodeKind::Stage) return "stage " + stmt.buffer.name + " from " + stmt.source;
  if (stmt.kind != NodeKind::Assign) return "?";
  return stmt.target.str() + (stmt.accumulate ? " += " : " = ") + printExpr(*stmt.value);
}

// "a flow dependence on C from `C[i][j] = 0` to `C[i][j] += ...`, direction (=, =, <)"
std::string explain(const DependenceGraph& deps, const Dependence& d) {
  const Node& from = *deps.statements().at(d.source).node;
  const Node& to = *deps.statements().at(d.sink).node;
  bool vowel = d.kind == DependenceKind::Anti || d.kind == DependenceKind::Output;
  std::string s = std::string(vowel ? "an " : "a ") + dependenceKindName(d.kind) + " dependence on " + d.array;
  if (d.source == d.sink)
    s += " in `" + statementText(from) + "`";
  else
    s += " from `" + statementText(from) + "` to `" + statementText(to) + "`";
  return s + ", direction " + d.directionString();
}

bool inTree(const DependenceGraph& deps, const Node* loop) {
  for (const Statement& s : deps.statements())
    if (std::find(s.loops.begin(), s.loops.end(), loop) != s.loops.end()) return true;
  return false;
}

Legality notALoop(const Node* loop) {
  if (!loop || loop->kind != NodeKind::For) return Legality::no("the node is not a loop");
  return Legality::no("loop '" + loop->index + "' is not part of this kernel's tree");
}

}  // namespace

Legality isParallel(const DependenceGraph& deps, const Node* loop) {
  if (!loop || loop->kind != NodeKind::For || !inTree(deps, loop)) return notALoop(loop);
  for (const Dependence* d : deps.carriedBy(loop))
    return Legality::no("loop '" + loop->index + "' carries " + explain(deps, *d));
  return Legality::yes();
}

Legality isReduction(const DependenceGraph& deps, const Node* loop) {
  if (!loop || loop->kind != NodeKind::For || !inTree(deps, loop)) return notALoop(loop);
  std::vector<int> reductions;  // statements whose `+=` the loop carries
  for (const Dependence* d : deps.carriedBy(loop)) {
    if (d->kind != DependenceKind::Reduction)
      return Legality::no("loop '" + loop->index + "' carries " + explain(deps, *d) +
                          ", which is not a reduction's own `+=`");
    const Node& stmt = *deps.statements().at(d->source).node;
    for (const Affine& sub : stmt.target.subscripts) {
      if (sub.uses(loop->index))
        return Legality::no("the sum `" + statementText(stmt) + "` goes into an element that depends on '" +
                            loop->index + "'");
    }
    if (std::find(reductions.begin(), reductions.end(), d->source) == reductions.end()) reductions.push_back(d->source);
  }
  // Nothing else inside the loop may see the partial sums.
  for (const Dependence& d : deps.dependences()) {
    if (d.kind == DependenceKind::Reduction || !d.sameIterationOutside(loop)) continue;
    if (!deps.encloses(loop, d.source) || !deps.encloses(loop, d.sink)) continue;
    for (int r : reductions) {
      const Node& stmt = *deps.statements().at(r).node;
      if ((d.source == r || d.sink == r) && d.array == stmt.target.array)
        return Legality::no("the partial sums of `" + statementText(stmt) + "` are used inside loop '" + loop->index +
                            "': " + explain(deps, d));
    }
  }
  return Legality::yes();
}

Legality mayInterchange(const DependenceGraph& deps, const Node* outer, const Node* inner) {
  if (!outer || outer->kind != NodeKind::For || !inTree(deps, outer)) return notALoop(outer);
  if (!inner || inner->kind != NodeKind::For || !inTree(deps, inner)) return notALoop(inner);
  if (outer->body().get() != inner)
    return Legality::no("loop '" + inner->index + "' is not the whole body of loop '" + outer->index +
                        "' (they are not perfectly nested)");
  if (inner->lower.uses(outer->index))
    return Legality::no("the lower bound of '" + inner->index + "' uses '" + outer->index + "'");
  for (const Affine& u : inner->upper)
    if (u.uses(outer->index))
      return Legality::no("the upper bound of '" + inner->index + "' uses '" + outer->index + "'");

  for (const Dependence& d : deps.dependences()) {
    auto at = std::find(d.loops.begin(), d.loops.end(), outer);
    if (at == d.loops.end() || at + 1 == d.loops.end() || *(at + 1) != inner) continue;
    std::vector<Direction> swapped = d.directions;
    size_t p = at - d.loops.begin();
    std::swap(swapped[p], swapped[p + 1]);
    auto first = std::find_if(swapped.begin(), swapped.end(), [](Direction x) { return x != Direction::Equal; });
    if (first == swapped.end() || *first == Direction::Less) continue;
    // Reordering a sum is what `reduce` allows: a reduction over reduce-marked loops only.
    bool reorderable = d.kind == DependenceKind::Reduction;
    for (size_t i = 0; i < d.loops.size() && reorderable; ++i)
      if (d.directions[i] != Direction::Equal && d.loops[i]->loopKind != LoopKind::Reduce) reorderable = false;
    if (reorderable) continue;
    return Legality::no("interchanging '" + outer->index + "' and '" + inner->index + "' would reverse " +
                        explain(deps, d));
  }
  return Legality::yes();
}

Legality isParallel(const Kernel& kernel, const Node* loop) { return isParallel(DependenceGraph(kernel), loop); }
Legality isReduction(const Kernel& kernel, const Node* loop) { return isReduction(DependenceGraph(kernel), loop); }
Legality mayInterchange(const Kernel& kernel, const Node* outer, const Node* inner) {
  return mayInterchange(DependenceGraph(kernel), outer, inner);
}

}  // namespace cudaburg
