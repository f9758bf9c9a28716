#include <algorithm>

#include "src/transform/loop_names.hpp"
#include "src/transform/strip.hpp"
#include "src/transform/transforms.hpp"
#include "src/transform/tree_edit.hpp"

namespace cudaburg {

namespace {

// The body of the innermost tiled loop, read as: an optional initialisation `T = v`, then one
// loop nest (the reduction) whose statements all accumulate into the same element T.
struct ReductionShape {
  const Node* init = nullptr;
  NodePtr reduction;
  Access target;
  bool atomic = false;
};

std::string readShape(const NodePtr& body, ReductionShape& shape) {
  std::vector<NodePtr> stmts = flattenSeq(body);
  if (stmts.size() > 2) return "the tiled loops' body has more than an initialisation and a reduction loop";
  if (stmts.size() == 2) {
    if (stmts[0]->kind != NodeKind::Assign || stmts[0]->accumulate)
      return "the statement before the reduction loop is not an initialisation `T = value`";
    shape.init = stmts[0].get();
  }
  shape.reduction = stmts.back();
  if (shape.reduction->kind != NodeKind::For) return "the tiled loops' body does not end in a reduction loop";
  std::string why;
  bool first = true;
  walk(shape.reduction, [&](const NodePtr& n, const Ancestors&) {
    if (!why.empty()) return;
    if (n->kind == NodeKind::Alloc || n->kind == NodeKind::Stage || n->kind == NodeKind::Barrier) {
      why = "the reduction loop holds buffers or stages already";
    } else if (n->kind == NodeKind::Assign) {
      if (!n->accumulate) why = "the reduction loop assigns " + n->target.str() + " with `=`";
      else if (first) shape.target = n->target, shape.atomic = n->atomic, first = false;
      else if (n->target.array != shape.target.array || n->target.subscripts != shape.target.subscripts)
        why = "the reduction loop accumulates into both " + shape.target.str() + " and " + n->target.str();
    }
  });
  if (!why.empty()) return why;
  if (first) return "the reduction loop accumulates into nothing";
  if (shape.init && (shape.init->target.array != shape.target.array ||
                     shape.init->target.subscripts != shape.target.subscripts))
    return "the initialisation sets " + shape.init->target.str() + ", not the accumulated " + shape.target.str();
  if (shape.init && reads(shape.init->value, shape.target.array))
    return "the initialisation of " + shape.target.str() + " reads " + shape.target.array;
  bool readsTarget = false;
  walk(shape.reduction, [&](const NodePtr& n, const Ancestors&) {
    readsTarget |= n->kind == NodeKind::Assign && reads(n->value, shape.target.array);
  });
  if (readsTarget) return "the reduction loop reads " + shape.target.array + ", which it accumulates into";
  return "";
}

// A thread's own registers need no atomic accumulation.
NodePtr withoutAtomics(const NodePtr& node) {
  if (node->kind == NodeKind::Assign) {
    auto n = std::make_shared<Node>(*node);
    n->atomic = false;
    return n;
  }
  if (node->kids.empty()) return node;
  std::vector<NodePtr> kids;
  for (const auto& kid : node->kids) kids.push_back(withoutAtomics(kid));
  return withKids(node, std::move(kids));
}

}  // namespace

TransformResult registerTile(const Kernel& kernel, const std::vector<std::string>& loops,
                             const std::vector<int64_t>& factors, const std::vector<std::string>& into) {
  if (loops.empty() || loops.size() != factors.size())
    return TransformResult::refuse("register tiling needs one factor a loop");
  for (int64_t f : factors)
    if (f < 1) return TransformResult::refuse("register tiling needs factors of at least 1, not " + std::to_string(f));
  NewLoopNames names = newLoopNames(kernel, StepKind::RegisterTile, loops, into);
  if (!names.refusal.empty()) return TransformResult::refuse(names.refusal);
  const std::vector<std::string>& strips = names.names;
  std::set<std::string> taken = usedNames(kernel);  // the register buffer's name is fresh beside the strips'
  taken.insert(strips.begin(), strips.end());
  std::string registerName;

  return editLoops(kernel, loops[0], [&](const NodePtr& first, const Ancestors&) -> LoopEdit {
    std::vector<NodePtr> band;
    if (std::string why = perfectNest(first, loops, "register tiling", band); !why.empty()) return {nullptr, why};
    for (const auto& l : band) {
      if (!isBlockMapping(l->mapping))
        return {nullptr, "loop " + l->index + " is not mapped to block threads; register tiling keeps a tile a thread"};
      if (l->step != 1) return {nullptr, "loop " + l->index + " has step " + std::to_string(l->step) + ", not 1"};
      for (const auto& other : band)
        if (boundsUse(*l, other->index))
          return {nullptr, "the bounds of loop " + l->index + " use " + other->index + " (only rectangular tiles)"};
    }
    ReductionShape shape;
    if (std::string why = readShape(band.back()->body(), shape); !why.empty()) return {nullptr, why};
    for (const auto& l : band)
      if (!std::any_of(shape.target.subscripts.begin(), shape.target.subscripts.end(),
                       [&](const Affine& s) { return usesLoop(s, *l); }))
        return {nullptr, "the accumulated " + shape.target.str() + " does not vary with loop " + l->index};
    bool nonRectangular = anyNode(shape.reduction, [&](const Node& n) {
      if (n.kind != NodeKind::For) return false;
      for (const auto& l : band)
        if (boundsUse(n, l->index)) return true;
      return false;
    });
    if (nonRectangular) return {nullptr, "the reduction loops' bounds use the tiled indices"};

    const Array* targetArray = kernel.findParam(shape.target.array);
    if (!targetArray) return {nullptr, "the accumulated " + shape.target.array + " is not a kernel parameter"};
    if (registerName.empty()) registerName = freshName(taken, shape.target.array + "_r");
    Array reg;
    reg.name = registerName;
    reg.type = targetArray->type;
    reg.extents = factors;
    reg.space = MemorySpace::Register;
    Access regAccess{registerName, {}};
    for (size_t k = 0; k < band.size(); ++k)
      regAccess.subscripts.push_back(Affine::var(loops[k]) - Affine::var(strips[k]));

    // threads(elements(stmt)): the thread loops (strips, keeping the block mapping) around the
    // unrolled element loops of one thread's tile.
    auto perThread = [&](NodePtr stmt) {
      for (size_t k = band.size(); k-- > 0;)
        stmt = stripInnerLoop(*band[k], strips[k], factors[k], stmt, Mapping::Unrolled);
      for (size_t k = band.size(); k-- > 0;) stmt = stripOuterLoop(*band[k], strips[k], factors[k], stmt);
      return stmt;
    };
    NodePtr init = makeAssign(regAccess, shape.init ? shape.init->value : Expr::constant(0), false);
    // The reduction loops move outside the threads: around the first body that is not a loop.
    std::function<NodePtr(const NodePtr&)> accumulate = [&](const NodePtr& n) -> NodePtr {
      if (n->kind == NodeKind::For) return withBody(n, accumulate(n->body()));
      return perThread(withoutAtomics(rewriteAccesses(n, [&](const Access& a) {
        return a.array == shape.target.array && a.subscripts == shape.target.subscripts ? regAccess : a;
      })));
    };
    NodePtr accumulatePhase = accumulate(shape.reduction);
    auto writeBack = std::make_shared<Node>(*makeAssign(shape.target, Expr::read(regAccess), !shape.init));
    writeBack->atomic = !shape.init && shape.atomic;
    NodePtr phases = makeSeq({perThread(init), accumulatePhase, perThread(writeBack)});
    return {makeAlloc(reg, phases), {}};
  });
}

}  // namespace cudaburg
