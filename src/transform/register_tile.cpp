#include <algorithm>

#include "src/idioms/epilogue/local_accumulator.hpp"
#include "src/idioms/write_back.hpp"
#include "src/transform/loop_facts.hpp"
#include "src/transform/loop_names.hpp"
#include "src/transform/strip.hpp"
#include "src/transform/transforms.hpp"
#include "src/transform/tree_edit.hpp"

namespace cudaburg {

namespace {

// The body of the innermost tiled loop, read as: an optional initialisation `T = v`, then one
// loop nest (the reduction) whose statements all accumulate into the same element T, then (after
// an initialisation) the element-wise statements of T's epilogue.
struct ReductionShape {
  const Node* init = nullptr;
  NodePtr reduction;
  Access target;
  bool atomic = false;
  Epilogue epilogue;
};

std::string readShape(const NodePtr& body, ReductionShape& shape) {
  std::vector<NodePtr> stmts = flattenSeq(body);
  size_t r = 0;
  while (r < stmts.size() && stmts[r]->kind != NodeKind::For) ++r;
  if (r == stmts.size()) return "the tiled loops' body has no reduction loop";
  if (r > 1) return "the tiled loops' body has more than an initialisation before its reduction loop";
  if (r == 1) {
    if (stmts[0]->kind != NodeKind::Assign || stmts[0]->accumulate)
      return "the statement before the reduction loop is not an initialisation `T = value`";
    shape.init = stmts[0].get();
  }
  shape.reduction = stmts[r];
  const std::vector<NodePtr> after(stmts.begin() + static_cast<long>(r) + 1, stmts.end());
  if (shape.reduction->kind != NodeKind::For) return "the tiled loops' body does not end in a reduction loop";
  std::string why;
  bool first = true;
  walk(shape.reduction, [&](const NodePtr& n, const Ancestors&) {
    if (!why.empty()) return;
    if (n->kind == NodeKind::Alloc || n->kind == NodeKind::Stage || n->kind == NodeKind::Barrier) {
      why = "the reduction loop holds buffers or stages already";
    } else if (n->kind == NodeKind::Assign) {
      if (!n->accumulate)
        why = "the reduction loop assigns " + n->target.str() + " with `=`";
      else if (first)
        shape.target = n->target, shape.atomic = n->atomic, first = false;
      else if (n->target.array != shape.target.array || n->target.subscripts != shape.target.subscripts)
        why = "the reduction loop accumulates into both " + shape.target.str() + " and " + n->target.str();
    }
  });
  if (!why.empty()) return why;
  if (first) return "the reduction loop accumulates into nothing";
  if (shape.init &&
      (shape.init->target.array != shape.target.array || shape.init->target.subscripts != shape.target.subscripts))
    return "the initialisation sets " + shape.init->target.str() + ", not the accumulated " + shape.target.str();
  if (shape.init && reads(shape.init->value, shape.target.array))
    return "the initialisation of " + shape.target.str() + " reads " + shape.target.array;
  bool readsTarget = false;
  walk(shape.reduction, [&](const NodePtr& n, const Ancestors&) {
    readsTarget |= n->kind == NodeKind::Assign && reads(n->value, shape.target.array);
  });
  if (readsTarget) return "the reduction loop reads " + shape.target.array + ", which it accumulates into";
  if (!after.empty() && !shape.init)
    return "an epilogue follows a reduction into " + shape.target.str() + " that is not initialised first";
  return readEpilogue(after, shape.target, shape.epilogue);
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

// A spread tile of a block loop `for i = lo; i < min(lo + T*f, ...)`: the thread loop over the
// threads' first elements, `spread` apart; a run loop over the runs of the thread's tile; the
// element loop over a run's elements, the threads' runs side by side:
//   for i_o2 = lo; i_o2 < lo + T*spread; i_o2 += spread       (the block mapping)
//     for i_o3 = 0; i_o3 < f; i_o3 += spread                  (unrolled)
//       for i = i_o2 + T*i_o3; i < min(i_o2 + T*i_o3 + spread, ...); i++   (unrolled)
// The element's place in the thread's tile is i - i_o2 - (T-1)*i_o3.
struct SpreadLoops {
  int64_t threads = 0;  // T
  std::string thread, run;
};

NodePtr spreadThreadLoop(const Node& loop, const SpreadLoops& s, int64_t spread, NodePtr body) {
  std::vector<Affine> upper = {loop.lower + Affine(s.threads * spread)};
  for (const auto& u : loop.upper)
    if (!(u - loop.lower).isConstant()) upper.push_back(u);
  return makeFor(s.thread, loop.lower, std::move(upper), spread, loop.loopKind, std::move(body), loop.mapping,
                 loop.loc);
}

NodePtr spreadRunLoops(const Node& loop, const SpreadLoops& s, int64_t factor, int64_t spread, NodePtr body) {
  Affine first = Affine::var(s.thread) + Affine::var(s.run, s.threads);
  std::vector<Affine> upper = {first + Affine(spread)};
  for (const auto& u : loop.upper)
    if (!(u - loop.lower).isConstant()) upper.push_back(u);  // the tile's own bound is never passed
  auto element = std::make_shared<Node>(
      *makeFor(loop.index, first, std::move(upper), 1, loop.loopKind, std::move(body), Mapping::Unrolled, loop.loc));
  element->collapsed = loop.collapsed;
  return makeFor(s.run, Affine(0), {Affine(factor)}, spread, loop.loopKind, element, Mapping::Unrolled, loop.loc);
}

}  // namespace

TransformResult registerTile(const Kernel& kernel, const std::vector<std::string>& loops,
                             const std::vector<int64_t>& factors, const std::vector<std::string>& into,
                             int64_t spread) {
  if (loops.empty() || loops.size() != factors.size())
    return TransformResult::refuse("register tiling needs one factor a loop");
  for (int64_t f : factors)
    if (f < 1) return TransformResult::refuse("register tiling needs factors of at least 1, not " + std::to_string(f));
  if (spread < 0)
    return TransformResult::refuse("a tile's runs are spread 1 or more elements long, not " + std::to_string(spread));
  for (int64_t f : factors)
    if (spread > 0 && f % spread != 0)
      return TransformResult::refuse("a tile spread in runs of " + std::to_string(spread) + " needs factors that are " +
                                     "multiples of it, not " + std::to_string(f));
  std::vector<std::string> named = loops;  // a spread tile's run loops are named after its thread loops
  if (spread > 0) named.insert(named.end(), loops.begin(), loops.end());
  NewLoopNames names = newLoopNames(kernel, StepKind::RegisterTile, named, into);
  if (!names.reason.empty()) return TransformResult::refuse(names.reason);
  const std::vector<std::string> strips(names.names.begin(), names.names.begin() + static_cast<long>(loops.size()));
  std::set<std::string> taken = usedNames(kernel);  // the register buffer's name is fresh beside the new loops'
  taken.insert(names.names.begin(), names.names.end());
  std::vector<SpreadLoops> spreads;
  for (size_t k = 0; spread > 0 && k < loops.size(); ++k)
    spreads.push_back({0, strips[k], names.names[loops.size() + k]});
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
    // A sum kept in a local becomes the tile's accumulator, in the local's type.
    NodePtr body = band.back()->body();
    std::optional<ScalarType> accumulatorType;
    if (body->kind == NodeKind::Alloc) {
      LocalAccumulator local;
      if (std::string why = readLocalAccumulator(body, local); !why.empty()) return {nullptr, why};
      body = local.body;
      accumulatorType = local.type;
    }
    ReductionShape shape;
    if (std::string why = readShape(body, shape); !why.empty()) return {nullptr, why};
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
    for (size_t k = 0; k < spreads.size(); ++k) {
      auto trips = constantTripCount(*band[k]);
      if (!trips || *trips % factors[k] != 0)
        return {nullptr, "a spread tile needs loop " + band[k]->index + " to run a whole number of tiles of " +
                             std::to_string(factors[k]) + " (its block tile's size known)"};
      spreads[k].threads = *trips / factors[k];
    }

    const Array* targetArray = kernel.findParam(shape.target.array);
    if (!targetArray) return {nullptr, "the accumulated " + shape.target.array + " is not a kernel parameter"};
    if (registerName.empty()) registerName = freshName(taken, shape.target.array + "_r");
    Array reg;
    reg.name = registerName;
    reg.type = accumulatorType.value_or(targetArray->type);
    reg.extents = factors;
    reg.space = MemorySpace::Register;
    Access regAccess{registerName, {}};
    for (size_t k = 0; k < band.size(); ++k) {
      Affine place = Affine::var(loops[k]) - Affine::var(strips[k]);
      if (!spreads.empty()) place = place - Affine::var(spreads[k].run, spreads[k].threads - 1);
      regAccess.subscripts.push_back(place);
    }

    // threads(elements(stmt)): the thread loops (strips, keeping the block mapping) around the
    // unrolled element loops of one thread's tile.
    auto perThread = [&](NodePtr stmt) {
      if (!spreads.empty()) {
        for (size_t k = band.size(); k-- > 0;) stmt = spreadRunLoops(*band[k], spreads[k], factors[k], spread, stmt);
        for (size_t k = band.size(); k-- > 0;) stmt = spreadThreadLoop(*band[k], spreads[k], spread, stmt);
        return stmt;
      }
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
    // The epilogue is applied to the register's sum as it is written back: one store an output.
    ExprPtr written = epilogueValue(shape.epilogue, shape.target, Expr::read(regAccess));
    auto writeBack = std::make_shared<Node>(*makeAssign(shape.target, written, !shape.init));
    writeBack->atomic = !shape.init && shape.atomic;
    NodePtr phases = makeSeq({perThread(init), accumulatePhase, perThread(writeBack)});
    return {makeAlloc(reg, phases), {}};
  });
}

}  // namespace cudaburg
