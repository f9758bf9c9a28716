// The builders of the grammar's implicit-GEMM rules (specs/loops.burg): a convolution's parallel
// loops and its reduction nest collapsed so that the matmul idioms (block tile, register tile,
// staging, pipelining) apply to it. Declared with the other builders in loop_rules.hpp.
#include <algorithm>
#include <functional>
#include <optional>

#include "src/loop/tree_walk.hpp"
#include "src/search/loop_rules.hpp"
#include "src/transform/tree_edit.hpp"

namespace cudaburg {

namespace {

// The loops of `chain` whose indices the loads of `array` below `node` use.
std::set<std::string> loopsRead(const Node& node, const std::string& array, const std::vector<const Node*>& chain) {
  std::set<std::string> used;
  std::function<void(const Expr&)> visit = [&](const Expr& e) {
    if (e.kind == Expr::Kind::Load && e.load.array == array)
      for (const Affine& sub : e.load.subscripts)
        for (const Node* loop : chain)
          if (sub.uses(loop->index)) used.insert(loop->index);
    for (const auto& a : e.args) visit(*a);
  };
  forEachNode(node, [&](const Node& n) {
    if (n.kind == NodeKind::Assign) visit(*n.value);
  });
  return used;
}

}  // namespace

bool LoopRules::gatherFits(const Node* node, int64_t depth) const {
  return depth < reductionLength(node) * 2 || depth == space_.stage.min();
}

bool LoopRules::gatherSplitFits(const Node* node, int64_t parts, int64_t depth, bool workspace) const {
  return parts >= 2 && parts * depth * 2 <= reductionLength(node) && gatherFits(node, depth) &&
         (!workspace || workspaceFits(node, parts));
}

Fragment LoopRules::gathered(const Node* node, int64_t depth, Buffering buffering, int64_t parts, bool table,
                             bool workspace) const {
  Fragment f;
  f.shape.reduction = reductionLength(node);
  f.shape.staged = true;
  f.shape.transposed = true;  // both buffers hold a strip of the reduction by the tile's rows or columns
  f.shape.stageDepth = depth;
  std::vector<std::string> loops;
  for (const Node* cur = node; cur->kind == NodeKind::For && cur->loopKind == LoopKind::Reduce; cur = cur->body().get())
    loops.push_back(cur->index);
  if (loops.size() < 2) {
    f.refused = "a single reduction loop needs no collapse";
    return f;
  }
  // Each gathered element derives the nest's indices from the collapsed one (a division and a
  // remainder, about four operations, each) and checks them against the source's bounds; through
  // a table, it looks its offset and tap up, adds its row and tests the tap's bit in its mask.
  f.shape.gatherOps = table ? kTableGatherOps : 4 * static_cast<int64_t>(loops.size()) + 4;
  f.shape.tabled = table;
  std::set<std::string> tabled;
  if (table && (tabled = tabledArrays(node)).empty()) {
    f.refused = "no operand's gather checks bounds that a table would";
    return f;
  }
  RecipeStep collapsed = named(f, makeStep(StepKind::Collapse, loops));
  f.nest.push_back(collapsed);
  stageStrips(f, collapsed.into[0], f.shape.reduction, depth, buffering, arraysRead(node), {}, tabled);
  if (parts > 1) splitParts(f, collapsed.into[0], f.shape.reduction, parts, depth, workspace);
  return f;
}

Fragment LoopRules::implicitGemm(const Node* outer, const Fragment& body, int64_t bm, int64_t bn, int64_t tm,
                                 int64_t tn) const {
  return tiled_.get({FragmentMemo::Builder::ImplicitGemm, outer, &body, {bm, bn, tm, tn, 0}}, body,
                    [&] { return gemmTiles(outer, body, bm, bn, tm, tn); });
}

Fragment LoopRules::gemmTiles(const Node* outer, const Fragment& body, int64_t bm, int64_t bn, int64_t tm,
                              int64_t tn) const {
  Fragment f = body;
  std::vector<const Node*> chain;
  for (const Node* cur = outer; cur->kind == NodeKind::For && cur->loopKind == LoopKind::Parallel;
       cur = cur->body().get())
    chain.push_back(cur);
  // The reduction: the loop after the initialisation, before any epilogue.
  const Node* reduction = nullptr;
  for (const NodePtr& stmt : flattenSeq(chain.back()->body()))
    if (stmt->kind == NodeKind::For && !reduction) reduction = stmt.get();
  if (!reduction) {
    f.refused = "the parallel loops hold no reduction";
    return f;
  }
  std::vector<std::string> operands = arraysRead(reduction);
  if (operands.size() != 2) {
    f.refused = "the reduction reads " + std::to_string(operands.size()) + " arrays, not two operands";
    return f;
  }
  // Each parallel loop goes with the one operand that reads it (the GEMM's rows or its columns);
  // one that both read (a group, a depthwise channel) or neither is a batch of GEMMs.
  std::set<std::string> read[2] = {loopsRead(*reduction, operands[0], chain),
                                   loopsRead(*reduction, operands[1], chain)};
  std::vector<const Node*> group[2], batch;
  int cols = -1;  // the columns (block.x): the group of the innermost loop of one, whose elements lie side by side
  for (const Node* loop : chain) {
    bool first = read[0].count(loop->index) != 0, second = read[1].count(loop->index) != 0;
    if (first == second) {
      batch.push_back(loop);
      continue;
    }
    group[first ? 0 : 1].push_back(loop);
    cols = first ? 0 : 1;
  }
  if (cols < 0) {
    f.refused = "no parallel loop is read by one operand alone";
    return f;
  }
  std::vector<const Node*>& rows = group[1 - cols];
  std::vector<const Node*>& columns = group[cols];
  if (f.shape.gatherOps == 0 && rows.size() == 1 && columns.size() == 1 && batch.empty()) {
    f.refused = "a product of one loop of rows by one of columns is the block tile's";
    return f;
  }
  bool split = false;
  if (rows.empty()) {
    // One operand reads no loop of its own (a depthwise filter, a correlation's template): the
    // other's loops are split, the outermost as the rows. Only for the whole nest: within it, the
    // loops outside would be left to the rules for outer loops.
    if (columns.size() < 2 || !outermostParallel(outer)) {
      f.refused = "one operand reads no parallel loop of its own";
      return f;
    }
    rows.push_back(columns.front());
    columns.erase(columns.begin());
    split = true;
  }
  std::vector<const Node*> order = batch;
  order.insert(order.end(), rows.begin(), rows.end());
  order.insert(order.end(), columns.begin(), columns.end());
  // Adjacent interchanges (of parallel loops: always legal) put the batch outside, then the rows.
  std::vector<std::string> now;
  for (const Node* loop : chain) now.push_back(loop->index);
  for (size_t i = 0; i < order.size(); ++i) {
    size_t at = size_t(std::find(now.begin(), now.end(), order[i]->index) - now.begin());
    for (; at > i; --at) {
      f.nest.push_back(makeStep(StepKind::Interchange, {now[at - 1], now[at]}));
      std::swap(now[at - 1], now[at]);
    }
  }
  auto collapsedGroup = [&](const std::vector<const Node*>& loops) {
    if (loops.size() == 1) return TiledLoop{loops[0]->index, trip(loops[0]), true};
    std::vector<std::string> names;
    int64_t trips = 1;
    for (const Node* loop : loops) {
      names.push_back(loop->index);
      trips *= trip(loop);
    }
    RecipeStep step = named(f, makeStep(StepKind::Collapse, names));
    f.nest.push_back(step);
    return TiledLoop{step.into[0], trips, false};  // consecutive iterations cross rows: no wide accesses
  };
  std::optional<TiledLoop> batchLoop;
  if (!batch.empty() && f.shape.split > 1) {
    // Both would go onto grid.z; a split reduction is for GEMMs too small for the GPU, and a
    // batch of them fills it already.
    f.refused = "a batch of GEMMs (a group, a depthwise channel) and a split reduction both need grid.z";
    return f;
  }
  if (!batch.empty()) batchLoop = collapsedGroup(batch);
  TiledLoop rowsLoop = collapsedGroup(rows);
  TiledLoop colsLoop = collapsedGroup(columns);
  f = tiles(rowsLoop, colsLoop, f, nullptr, bm, bn, tm, tn);
  // Split from one operand's loops, the rows and columns both index it: its gather holds the
  // whole tile a strip deep, the other's a strip.
  if (split && f.shape.staged) f.shape.stagedFootprint = (bm * bn + 1) * f.shape.stageDepth;
  if (!batchLoop) return f;
  // The batch onto grid.z where it fits there, else run in turn by each block.
  if (batchLoop->trip <= kMaxGridZ) {
    f.shape.outer = batchLoop->trip;
    f.outer.push_back(makeStep(StepKind::Map, {batchLoop->index}, {}, Mapping::GridZ));
  } else {
    f.shape.serial = batchLoop->trip;
    moveInsideGrid(f, batchLoop->index);
  }
  return f;
}

bool LoopRules::outermostParallel(const Node* loop) const {
  bool inside = false;
  forEachNode(*kernel_.body, [&](const Node& n) {
    if (n.kind == NodeKind::For && n.loopKind == LoopKind::Parallel && n.body().get() == loop) inside = true;
  });
  return !inside;
}

}  // namespace cudaburg
