#include "src/transform/gather.hpp"

#include <algorithm>
#include <functional>

#include "src/transform/tree_edit.hpp"

namespace cudaburg {

namespace {

void collectLoads(const ExprPtr& e, const std::string& array, std::vector<Access>& out) {
  if (e->kind == Expr::Kind::Load && e->load.array == array) out.push_back(e->load);
  for (const auto& a : e->args) collectLoads(a, array, out);
}

// Calls `visit` with each load of `array` below `core` and the loops around it inside `core`.
void forEachLoad(const NodePtr& core, const std::string& array,
                 const std::function<void(const Access&, const std::vector<const Node*>&)>& visit) {
  walk(core, [&](const NodePtr& n, const Ancestors& above) {
    if (n->kind != NodeKind::Assign) return;
    std::vector<Access> loads;
    collectLoads(n->value, array, loads);
    std::vector<const Node*> loops;
    for (const auto& a : above)
      if (a->kind == NodeKind::For) loops.push_back(a.get());
    for (const auto& load : loads) visit(load, loops);
  });
}

}  // namespace

bool readsThroughCollapsedLoops(const NodePtr& core, const std::string& array) {
  bool derived = false;
  forEachLoad(core, array, [&](const Access& load, const std::vector<const Node*>& loops) {
    for (const Node* loop : loops)
      for (const auto& sub : load.subscripts) derived |= !loop->collapsed.empty() && usesLoop(sub, *loop);
  });
  return derived;
}

std::string gatherOf(const NodePtr& core, const std::string& array, Gather& out) {
  std::string why;
  bool first = true;
  forEachLoad(core, array, [&](const Access& load, const std::vector<const Node*>& loops) {
    if (!why.empty()) return;
    Gather g;
    g.subscripts = load.subscripts;
    for (const Node* loop : loops) {
      bool used = std::any_of(load.subscripts.begin(), load.subscripts.end(),
                              [&](const Affine& s) { return usesLoop(s, *loop); });
      bool seen = std::any_of(g.dims.begin(), g.dims.end(), [&](const GatherDim& d) { return d.index == loop->index; });
      if (!used || seen) continue;
      SubscriptRange r;
      if (why = rangeOf(Affine::var(loop->index), loops, r); !why.empty()) return;
      g.dims.push_back({loop->index, loop->collapsed});
      g.origin.push_back(r.base + Affine(r.lo));
      g.extents.push_back(r.hi - r.lo + 1);
    }
    if (first) {
      out = g;
      first = false;
    } else if (g.subscripts != out.subscripts || g.dims != out.dims || g.origin != out.origin ||
               g.extents != out.extents) {
      why = "the loads of " + array + " read different elements (" + load.str() + "): a gather stages one";
    }
  });
  if (!why.empty()) return why;
  if (first) return "nothing inside reads " + array;
  return "";
}

}  // namespace cudaburg
