#include "src/search/loop_rules.hpp"

#include <algorithm>
#include <cmath>
#include <functional>

#include "src/transform/loop_facts.hpp"

namespace cudaburg {

namespace {

// Calls `f` with every array read (a Load) in the statements under `n`.
void forEachLoad(const Expr& e, const std::function<void(const Access&)>& f) {
  if (e.kind == Expr::Kind::Load) f(e.load);
  for (const auto& a : e.args) forEachLoad(*a, f);
}

void forEachLoad(const Node& n, const std::function<void(const Access&)>& f) {
  if (n.kind == NodeKind::Assign && n.value) forEachLoad(*n.value, f);
  for (const auto& k : n.kids) forEachLoad(*k, f);
}

std::string mark(const std::string& loop) { return loop + kStripMark; }

constexpr double kPicosecondsPerMs = 1e9;

}  // namespace

std::ostream& operator<<(std::ostream& out, Buffering b) {
  return out << (b == Buffering::Single ? "Single" : b == Buffering::Double ? "Double" : "Async");
}

LoopRules::LoopRules(const Kernel& kernel, SearchSpace space, GpuModel gpu, CalibratedModel model)
    : kernel_(kernel), space_(std::move(space)), gpu_(gpu), model_(std::move(model)) {}

// ---- facts -------------------------------------------------------------------------------------

int64_t LoopRules::trip(const Node* loop) const { return constantTripCount(*loop).value_or(1); }

int64_t LoopRules::reductionLength(const Node* node) const {
  int64_t n = 1;
  for (const Node* cur = node; cur && cur->kind == NodeKind::For && cur->loopKind == LoopKind::Reduce;
       cur = cur->body().get())
    n *= trip(cur);
  return n;
}

bool LoopRules::stageFits(const Node* node, int64_t depth) const {
  return depth < trip(node) * 2 || depth == space_.stage.min();
}

bool LoopRules::splitFits(const Node* node, int64_t parts, int64_t depth) const {
  if (parts < 2) return false;
  return depth > 0 ? parts * depth * 2 <= trip(node) && stageFits(node, depth) : parts * 16 <= trip(node);
}

std::vector<std::string> LoopRules::arraysRead(const Node* node) const {
  std::set<std::string> read;
  forEachLoad(*node, [&](const Access& a) { read.insert(a.array); });
  std::vector<std::string> out;
  for (const auto& p : kernel_.params)  // kernel parameter order, for a stable recipe
    if (p.input && read.count(p.name)) out.push_back(p.name);
  return out;
}

bool LoopRules::readAlong(const std::string& array, const std::string& index) const {
  bool any = false, all = true;
  forEachLoad(*kernel_.body, [&](const Access& a) {
    if (a.array != array) return;
    any = true;
    all = all && !a.subscripts.empty() && a.subscripts.back() == Affine::var(index);
  });
  return any && all;
}

std::set<std::string> LoopRules::transposableArrays(const Node* node) const {
  // 2-D arrays read only as X[.][index] with the index in the last subscript alone (the
  // reduction runs along their rows).
  std::set<std::string> transposable, other;
  forEachLoad(*node, [&](const Access& a) {
    bool ok = a.subscripts.size() == 2 && a.subscripts[1].uses(node->index) && !a.subscripts[0].uses(node->index);
    (ok ? transposable : other).insert(a.array);
  });
  for (const auto& a : other) transposable.erase(a);
  return transposable;
}

// ---- builders ----------------------------------------------------------------------------------

Fragment LoopRules::direct(const Node* node) const {
  Fragment f;
  f.shape.reduction = reductionLength(node);
  return f;
}

Fragment LoopRules::staged(const Node* node, int64_t depth, Buffering buffering, bool transposed) const {
  std::set<std::string> transposedArrays = transposed ? transposableArrays(node) : std::set<std::string>{};
  Fragment f;
  f.shape.reduction = reductionLength(node);
  f.shape.staged = true;
  f.shape.transposed = !transposedArrays.empty();
  f.shape.stageDepth = depth * (f.shape.reduction / std::max<int64_t>(trip(node), 1));
  f.add(Phase::Strip, makeStep(StepKind::StripMine, {node->index}, {depth}));
  for (const auto& array : arraysRead(node)) {
    RecipeStep s = makeStep(StepKind::Stage, {mark(node->index)}, {}, Mapping::None, array);
    s.transposed = transposedArrays.count(array) != 0;
    f.add(Phase::Stage, s);
  }
  // The strip's own loop unrolled: a thread's reads of the stage overlap its multiply-adds.
  f.add(Phase::Finish, makeStep(StepKind::Unroll, {node->index}, {depth}));
  f.shape.pipelined = buffering == Buffering::Double;
  f.shape.asyncCopies = buffering == Buffering::Async;
  Mapping pipelining = buffering == Buffering::Double  ? Mapping::Pipelined
                       : buffering == Buffering::Async ? Mapping::AsyncPipelined
                                                       : Mapping::None;
  if (pipelining != Mapping::None) f.add(Phase::Finish, makeStep(StepKind::Map, {mark(node->index)}, {}, pipelining));
  if (transposed && transposedArrays.empty()) f.refused = "no array is read along the reduction";
  return f;
}

Fragment LoopRules::split(const Node* node, int64_t parts, int64_t depth, Buffering buffering) const {
  Fragment f = depth > 0 ? staged(node, depth, buffering, transposable(node)) : direct(node);
  f.shape.reduction /= parts;
  f.shape.split = parts;
  f.add(Phase::Split, makeStep(StepKind::Split, {node->index}, {parts}));
  f.add(Phase::OuterGrid, makeStep(StepKind::Map, {mark(node->index)}, {}, Mapping::GridZ));
  return f;
}

Fragment LoopRules::tiles(const Node* y, const Node* x, const Fragment& body, const std::vector<RecipeStep>& before,
                          const std::vector<RecipeStep>& after, int64_t serial, int64_t bm, int64_t bn, int64_t tm,
                          int64_t tn) const {
  Fragment f = body;
  f.shape.rows = trip(y);
  f.shape.cols = trip(x);
  f.shape.serial = serial;
  f.shape.blockRows = bm;
  f.shape.blockCols = bn;
  f.shape.threadRows = tm;
  f.shape.threadCols = tn;
  if (f.shape.staged) f.shape.stagedFootprint = (bm + bn) * f.shape.stageDepth;
  for (const auto& s : before) f.add(Phase::Tile, s);
  f.add(Phase::Tile, makeStep(StepKind::Tile, {y->index, x->index}, {bm, bn}));
  for (const auto& s : after) f.add(Phase::Tile, s);
  f.add(Phase::Grid, makeStep(StepKind::Map, {mark(y->index)}, {}, Mapping::GridY));
  f.add(Phase::Grid, makeStep(StepKind::Map, {mark(x->index)}, {}, Mapping::GridX));
  f.add(Phase::Block, makeStep(StepKind::Map, {y->index}, {}, Mapping::BlockY));
  f.add(Phase::Block, makeStep(StepKind::Map, {x->index}, {}, Mapping::BlockX));
  f.add(Phase::Registers, makeStep(StepKind::RegisterTile, {y->index, x->index}, {tm, tn}));
  // 128-bit accesses along a thread's columns, where rows keep them aligned.
  if (tn % 4 == 0 && f.shape.cols % 4 == 0) {
    f.add(Phase::Finish, makeStep(StepKind::Vectorize, {x->index}, {4}));
    f.shape.vectorized = true;
  }
  f.tileRows = y->index;
  f.tileCols = x->index;
  return f;
}

Fragment LoopRules::blockTile(const Node* rows, const Fragment& body, int64_t bm, int64_t bn, int64_t tm,
                              int64_t tn) const {
  return tiles(rows, rows->body().get(), body, {}, {}, 1, bm, bn, tm, tn);
}

Fragment LoopRules::outerInnerTile(const Node* outer, const Fragment& body, int64_t bm, int64_t bn, int64_t tm,
                                   int64_t tn) const {
  const Node* middle = outer->body().get();
  const Node* inner = middle->body().get();
  // a { m { x } } -> m { a { x } } -> tile a, x -> m { a_o { x_o { a { x } } } } -> a_o { x_o { m { ... } } }
  std::vector<RecipeStep> before{makeStep(StepKind::Interchange, {outer->index, middle->index})};
  std::vector<RecipeStep> after{makeStep(StepKind::Interchange, {middle->index, mark(outer->index)}),
                                makeStep(StepKind::Interchange, {middle->index, mark(inner->index)})};
  return tiles(outer, inner, body, before, after, trip(middle), bm, bn, tm, tn);
}

Fragment LoopRules::interleaved(const Fragment& tiled) const {
  Fragment f = tiled;
  int64_t tn = f.shape.threadCols;
  bool changed = false;
  if (tn % 4 == 0 && tn >= 8)
    for (auto& [phase, s] : f.steps)
      if (s.kind == StepKind::Stage && !s.transposed && readAlong(s.array, f.tileCols)) {
        s.interleave = tn;
        changed = true;
      }
  f.shape.interleaved = changed;
  if (!changed) f.refused = "no stage is read along a thread's run of 8 or more columns";
  return f;
}

Fragment LoopRules::lanes(const Fragment& tiled, int64_t rows) const {
  Fragment f = tiled;
  if (rows == 0) return f;
  int64_t cols = 32 / rows;
  int64_t threadsY = f.shape.blockRows / f.shape.threadRows, threadsX = f.shape.blockCols / f.shape.threadCols;
  if (rows * cols != 32 || threadsY % rows || threadsX % cols) {
    f.refused = "warps of " + std::to_string(rows) + " by " + std::to_string(cols) + " threads do not tile the block";
    return f;
  }
  f.shape.laneRows = rows;
  f.add(Phase::Finish, makeStep(StepKind::Lanes, {}, {rows, cols}));
  return f;
}

Fragment LoopRules::gridZ(const Node* node, const Fragment& inner) const {
  Fragment f = inner;
  f.shape.outer = trip(node);
  f.add(Phase::OuterGrid, makeStep(StepKind::Map, {node->index}, {}, Mapping::GridZ));
  return f;
}

Fragment LoopRules::serialInBlock(const Node* node, const Fragment& inner) const {
  Fragment f = inner;
  f.shape.serial = trip(node);
  f.add(Phase::Tile, makeStep(StepKind::Interchange, {node->index, mark(f.tileRows)}));
  f.add(Phase::Tile, makeStep(StepKind::Interchange, {node->index, mark(f.tileCols)}));
  return f;
}

Fragment LoopRules::untransformed(const Node* node) const {
  // The emitter's naive mapping: one thread an output over the outermost parallel loops.
  Fragment f;
  std::vector<const Node*> parallel;
  const Node* cur = node;
  while (cur->kind == NodeKind::For && cur->loopKind == LoopKind::Parallel) {
    parallel.push_back(cur);
    cur = cur->body().get();
  }
  if (parallel.empty()) {
    f.refused = "no parallel loop";
    return f;
  }
  f.shape.cols = trip(parallel.back());
  f.shape.rows = parallel.size() > 1 ? trip(parallel[parallel.size() - 2]) : 1;
  for (size_t i = 0; i + 2 < parallel.size(); ++i) f.shape.outer *= trip(parallel[i]);
  f.shape.reduction = reductionLength(cur->kind == NodeKind::Seq ? flattenSeq(cur->kids[1]).front().get() : cur);
  f.shape.blockRows = parallel.size() > 1 ? 16 : 1;
  f.shape.blockCols = parallel.size() > 1 ? 16 : 256;
  return f;
}

// ---- costs -------------------------------------------------------------------------------------

LoopRules::Cost LoopRules::model(const Fragment& f) const {
  if (!f.refused.empty()) return kInfinity;
  if (!estimate(f.shape, gpu_).infeasible.empty()) return kInfinity;
  double ms = model_.predictMs(CalibratedModel::features(f.shape, gpu_));
  return static_cast<Cost>(std::min(ms * kPicosecondsPerMs, 1e18));
}

LoopRules::Cost LoopRules::kernelCost(const Fragment& f) const {
  if (!measured_) return model(f);
  auto it = measured_->find(printRecipeLine(f.recipe(kernel_)));
  if (it == measured_->end() || !it->second) return kInfinity;
  return static_cast<Cost>(std::min(*it->second * kPicosecondsPerMs, 1e18));
}

void LoopRules::setMeasured(std::map<std::string, std::optional<double>> measured) { measured_ = std::move(measured); }

}  // namespace cudaburg
