#include <algorithm>
#include <set>

#include "src/loop/tree_walk.hpp"
#include "src/transform/loop_names.hpp"
#include "src/transform/strip.hpp"
#include "src/transform/transforms.hpp"
#include "src/transform/tree_edit.hpp"

namespace cudaburg {

namespace {

bool isZero(const ExprPtr& e) { return e->kind == Expr::Kind::Constant && e->value == 0; }

bool sameElement(const Access& a, const Access& b) { return a.array == b.array && a.subscripts == b.subscripts; }

// The reduction loop with its accumulations made atomic.
NodePtr atomically(const NodePtr& node) {
  if (node->kind == NodeKind::Assign) {
    auto n = std::make_shared<Node>(*node);
    n->atomic = true;
    return n;
  }
  if (node->kids.empty()) return node;
  std::vector<NodePtr> kids;
  for (const auto& kid : node->kids) kids.push_back(atomically(kid));
  return withKids(node, std::move(kids));
}

}  // namespace

int64_t splitWorkspaceBytes(const Kernel& kernel, const Node& reduction, int64_t parts) {
  std::set<std::string> outputs;
  forEachNode(reduction, [&](const Node& n) {
    if (n.kind == NodeKind::Assign) outputs.insert(n.target.array);
  });
  int64_t bytes = 0;
  for (const std::string& name : outputs) {
    const Array* array = kernel.findParam(name);
    if (!array) return -1;
    bytes += parts * array->elements() * std::max(scalarTypeBytes(array->type), 4);  // 16-bit outputs' sums in float
  }
  return bytes;
}

// The part loop goes outside everything, so the path from the root to the reduction loop may
// hold only loops and, beside the reduction loop, the zero initialisations of what it
// accumulates (they become Kernel::zeroFirst): anything else would run once a part.
TransformResult splitReduction(const Kernel& kernel, const std::string& loop, int64_t parts,
                               const std::vector<std::string>& into, bool workspace) {
  if (parts < 2)
    return TransformResult::refuse("a reduction is split into at least 2 parts, not " + std::to_string(parts));
  // The workspace takes all of a kernel's split sums: no other split beside it.
  if (!kernel.workspaceSplit.empty())
    return TransformResult::refuse("the parts of " + kernel.workspaceSplit +
                                   " meet in a workspace: no other split may join them");
  if (workspace && anyNode(kernel.body, [](const Node& n) { return n.kind == NodeKind::Assign && n.atomic; }))
    return TransformResult::refuse(
        "a split's parts add up atomically already: no split may meet in a workspace beside them");
  NewLoopNames names = newLoopNames(kernel, StepKind::Split, {loop}, into);
  if (!names.reason.empty()) return TransformResult::refuse(names.reason);
  const std::string& partName = names.names[0];
  std::vector<NodePtr> found;
  walk(kernel.body, [&](const NodePtr& n, const Ancestors&) {
    if (n->kind == NodeKind::For && n->index == loop) found.push_back(n);
  });
  if (found.empty()) return TransformResult::refuse("there is no loop over index " + loop);
  if (found.size() > 1) return TransformResult::refuse("there are several loops over index " + loop);
  const Node& red = *found[0];
  if (red.loopKind != LoopKind::Reduce) return TransformResult::refuse("loop " + loop + " is not a reduce loop");
  if (red.mapping != Mapping::None) return TransformResult::refuse("loop " + loop + " is mapped already");
  if (!red.lower.isConstant() || red.upper.size() != 1 || !red.upper[0].isConstant())
    return TransformResult::refuse("loop " + loop + " has bounds that are not constant");
  int64_t trips = (red.upper[0].constant - red.lower.constant + red.step - 1) / red.step;
  int64_t chunk = (trips + parts - 1) / parts;
  if (chunk < 1) return TransformResult::refuse("loop " + loop + " runs fewer times than there are parts");

  std::vector<Access> targets;
  bool writesPlainly = false;
  walk(found[0], [&](const NodePtr& n, const Ancestors&) {
    if (n->kind != NodeKind::Assign) return;
    if (!n->accumulate) writesPlainly = true;
    targets.push_back(n->target);
  });
  if (writesPlainly)
    return TransformResult::refuse("loop " + loop + " assigns with `=`, so its parts cannot be summed");
  if (workspace) {
    int64_t bytes = splitWorkspaceBytes(kernel, red, parts);
    if (bytes < 0) return TransformResult::refuse("loop " + loop + " accumulates into what is no global array");
    if (bytes > kMaxSplitWorkspaceBytes)
      return TransformResult::refuse("the workspace of " + std::to_string(parts) + " parts would take " +
                                     std::to_string(bytes >> 20) + " MiB, more than the " +
                                     std::to_string(kMaxSplitWorkspaceBytes >> 20) + " MiB allowed");
  }
  std::vector<std::string> zeroFirst = kernel.zeroFirst;
  std::string why;
  // Rebuilds the path to the reduction loop; `node` lies on it.
  std::function<NodePtr(const NodePtr&)> rebuild = [&](const NodePtr& node) -> NodePtr {
    if (node.get() == &red) return stripInnerLoop(red, partName, chunk, atomically(red.body()));
    if (node->kind == NodeKind::For) {
      if (node->mapping != Mapping::None) why = "loop " + node->index + " around it is mapped already";
      return withBody(node, rebuild(node->body()));
    }
    if (node->kind != NodeKind::Seq) {
      why = "the path to loop " + loop + " holds a buffer or a statement that would run once a part";
      return node;
    }
    std::vector<NodePtr> kept;
    for (const auto& s : flattenSeq(node)) {
      bool onPath = anyNode(s, [&](const Node& n) { return &n == &red; });
      if (onPath) {
        kept.push_back(rebuild(s));
        continue;
      }
      bool zeroInit =
          s->kind == NodeKind::Assign && !s->accumulate && isZero(s->value) &&
          std::any_of(targets.begin(), targets.end(), [&](const Access& t) { return sameElement(t, s->target); });
      if (!zeroInit) {
        why = "a statement beside loop " + loop +
              " is not a zero initialisation of what it accumulates, and would run once a part";
        return node;
      }
      if (std::find(zeroFirst.begin(), zeroFirst.end(), s->target.array) == zeroFirst.end())
        zeroFirst.push_back(s->target.array);
    }
    return makeSeq(kept);
  };
  NodePtr body = rebuild(kernel.body);
  if (!why.empty()) return TransformResult::refuse(why);
  NodePtr partLoop = stripOuterLoop(red, partName, chunk, body);
  auto outer = std::make_shared<Node>(*partLoop);
  outer->loopKind = LoopKind::Parallel;  // the parts run at once; their sums meet atomically
  Kernel result = kernel;
  result.zeroFirst = zeroFirst;
  if (workspace) result.workspaceSplit = partName;
  return accept(result, outer);
}

}  // namespace cudaburg
