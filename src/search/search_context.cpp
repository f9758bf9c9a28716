#include "src/search/search_context.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>

#include "src/search/evaluator.hpp"
#include "src/transform/loop_facts.hpp"

namespace cudaburg {

namespace {

// The order in which a candidate's steps apply, whatever block contributed them: a split
// reduction first (it adds a loop), then tiling, the grid and the block mappings, the register
// tile, the staging of the reduction, and last the finishing touches (unrolling, pipelining,
// wide accesses).
// Grid mappings go outermost first: the mapped-tree model is checked after every step.
enum Phase { kSplit, kTile, kOuterGrid, kGrid, kBlock, kRegisters, kStrip, kStage, kFinish };

// A loop name with this suffix means "the strip loop last made from that loop": the recipe's
// text needs the name the transformation will give it (see transforms.hpp).
constexpr char kStripMark = '#';

RecipeStep step(StepKind kind, std::vector<std::string> loops, std::vector<int64_t> factors = {},
                Mapping mapping = Mapping::None, std::string array = {}) {
  RecipeStep s;
  s.kind = kind;
  s.loops = std::move(loops);
  s.factors = std::move(factors);
  s.mapping = mapping;
  s.array = std::move(array);
  return s;
}

void collectNames(const Node& n, std::set<std::string>& names) {
  if (n.kind == NodeKind::For) names.insert(n.index);
  if (n.kind == NodeKind::Alloc || n.kind == NodeKind::Stage) names.insert(n.buffer.name);
  for (const auto& k : n.kids) collectNames(*k, names);
}

// Calls `f` with every array read (a Load) in the statements under `n`.
void forEachLoad(const Expr& e, const std::function<void(const Access&)>& f) {
  if (e.kind == Expr::Kind::Load) f(e.load);
  for (const auto& a : e.args) forEachLoad(*a, f);
}

void forEachLoad(const Node& n, const std::function<void(const Access&)>& f) {
  if (n.kind == NodeKind::Assign && n.value) forEachLoad(*n.value, f);
  for (const auto& k : n.kids) forEachLoad(*k, f);
}

}  // namespace

SearchContext::SearchContext(const Kernel& kernel, SearchSpace space, Evaluator* evaluator, GpuModel gpu)
    : kernel_(kernel), space_(std::move(space)), evaluator_(evaluator), gpu_(gpu) {}

// ---- helpers ---------------------------------------------------------------------------

int64_t SearchContext::tripCount(const Node* loop) const { return constantTripCount(*loop).value_or(1); }

int64_t SearchContext::reductionLength(const Node* node) const {
  int64_t n = 1;
  for (const Node* cur = node; cur && cur->kind == NodeKind::For && cur->loopKind == LoopKind::Reduce;
       cur = cur->body().get())
    n *= tripCount(cur);
  return n;
}

std::vector<std::string> SearchContext::arraysRead(const Node* node) const {
  std::set<std::string> read;
  forEachLoad(*node, [&](const Access& a) { read.insert(a.array); });
  std::vector<std::string> out;
  for (const auto& p : kernel_.params)  // kernel parameter order, for a stable recipe
    if (p.input && read.count(p.name)) out.push_back(p.name);
  return out;
}

bool SearchContext::readAlong(const std::string& array, const std::string& index) const {
  bool any = false, all = true;
  forEachLoad(*kernel_.body, [&](const Access& a) {
    if (a.array != array) return;
    any = true;
    all = all && !a.subscripts.empty() && a.subscripts.back() == Affine::var(index);
  });
  return any && all;
}

double SearchContext::bestModel(const Key& key) const {
  auto it = pools_.find(key);
  return it == pools_.end() || it->second.empty() ? 0 : it->second.front().model;
}

void SearchContext::complete(Fragment& f) const {
  CandidateShape& s = f.shape;
  if (s.staged) s.stagedFootprint = (s.blockRows + s.blockCols) * s.stageDepth;
  Estimate e = estimate(s, gpu_);
  f.model = e.ns;
  f.infeasible = e.infeasible;
}

Recipe Fragment::recipe() const {
  Recipe r;
  std::vector<std::pair<int, RecipeStep>> ordered = steps;
  std::stable_sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& [phase, s] : ordered) r.steps.push_back(s);
  return r;
}

const std::vector<Fragment>& SearchContext::fragments(const Node* node, const std::string& nt) const {
  static const std::vector<Fragment> none;
  auto it = pools_.find({node, nt});
  return it == pools_.end() ? none : it->second;
}

SearchContext::Cost SearchContext::offer(const Node* node, const std::string& nt, std::vector<Fragment> fresh,
                                         std::vector<Key> kids) {
  fresh.erase(std::remove_if(fresh.begin(), fresh.end(), [](const Fragment& f) { return !f.infeasible.empty(); }),
              fresh.end());
  if (fresh.empty()) return kInfinity;
  // Resolve the strip-loop marks into the names the transformations will choose, in the order
  // the steps will apply.
  std::set<std::string> base;
  collectNames(*kernel_.body, base);
  for (const auto& p : kernel_.params) base.insert(p.name);
  for (const auto& [name, value] : kernel_.sizes) base.insert(name);
  for (Fragment& f : fresh) {
    std::stable_sort(f.steps.begin(), f.steps.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::set<std::string> used = base;
    std::map<std::string, std::string> lastStrip;
    auto fresh_name = [&](const std::string& from, const std::string& suffix) {
      std::string name = from + suffix;
      for (int n = 2; used.count(name); ++n) name = from + suffix + std::to_string(n);
      used.insert(name);
      return name;
    };
    for (auto& [phase, s] : f.steps) {
      for (auto& l : s.loops)
        if (!l.empty() && l.back() == kStripMark) l = lastStrip[l.substr(0, l.size() - 1)];
      bool strips = s.kind == StepKind::Tile || s.kind == StepKind::StripMine || s.kind == StepKind::RegisterTile;
      if (strips)
        for (const auto& l : s.loops) lastStrip[l] = fresh_name(l, "_o");
      if (s.kind == StepKind::Split) lastStrip[s.loops[0]] = fresh_name(s.loops[0], "_s");
    }
  }
  std::stable_sort(fresh.begin(), fresh.end(), [](const Fragment& a, const Fragment& b) { return a.model < b.model; });
  auto& pool = pools_[{node, nt}];
  pool.insert(pool.end(), fresh.begin(), fresh.end());
  std::stable_sort(pool.begin(), pool.end(), [](const Fragment& a, const Fragment& b) { return a.model < b.model; });
  if (space_.keep > 0 && pool.size() > space_.keep) pool.resize(space_.keep);
  double below = 0;
  for (const auto& k : kids) below += bestModel(k);
  return static_cast<Cost>(std::max(0.0, fresh.front().model - below));
}

// ---- building blocks ---------------------------------------------------------------------

SearchContext::Cost SearchContext::directReduction(const Node* node, const char* nt) {
  Fragment f;
  f.shape.reduction = reductionLength(node);
  f.cover = "direct";
  return offer(node, nt, {f});
}

std::vector<Fragment> SearchContext::stagedFragments(const Node* node, const std::set<std::string>& transposed,
                                                     Buffering buffering) const {
  std::vector<Fragment> out;
  int64_t trip = tripCount(node);
  for (int64_t depth : space_.stage.values) {
    if (depth >= trip * 2 && depth != space_.stage.min()) continue;  // one stage holds it all already
    Fragment f;
    f.shape.reduction = reductionLength(node);
    f.shape.staged = true;
    f.shape.stageDepth = depth * (f.shape.reduction / std::max<int64_t>(trip, 1));
    f.steps.push_back({kStrip, step(StepKind::StripMine, {node->index}, {depth})});
    for (const auto& array : arraysRead(node)) {
      RecipeStep s = step(StepKind::Stage, {node->index + kStripMark}, {}, Mapping::None, array);
      s.transposed = transposed.count(array) != 0;
      f.steps.push_back({kStage, s});
    }
    // The strip's own loop unrolled: a thread's reads of the stage overlap its multiply-adds.
    f.steps.push_back({kFinish, step(StepKind::Unroll, {node->index}, {depth})});
    f.shape.pipelined = buffering == Buffering::Double;
    f.shape.asyncCopies = buffering == Buffering::Async;
    Mapping pipelining = buffering == Buffering::Double  ? Mapping::Pipelined
                         : buffering == Buffering::Async ? Mapping::AsyncPipelined
                                                         : Mapping::None;
    if (pipelining != Mapping::None)
      f.steps.push_back({kFinish, step(StepKind::Map, {node->index + kStripMark}, {}, pipelining)});
    f.cover = std::string(transposed.empty() ? "staged(" : "staged_t(") + std::to_string(depth) +
              (pipelining != Mapping::None ? std::string(", ") + mappingName(pipelining) + ")" : ")");
    out.push_back(std::move(f));
  }
  return out;
}

SearchContext::Cost SearchContext::stagedReduction(const Node* node, const char* nt, Buffering buffering) {
  return offer(node, nt, stagedFragments(node, {}, buffering));
}

std::set<std::string> SearchContext::transposableArrays(const Node* node) const {
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

SearchContext::Cost SearchContext::stagedTransposedReduction(const Node* node, const char* nt, Buffering buffering) {
  std::set<std::string> transposable = transposableArrays(node);
  if (transposable.empty()) return kInfinity;
  return offer(node, nt, stagedFragments(node, transposable, buffering));
}

std::vector<RecipeStep> SearchContext::splitSteps(const Node* node, int64_t parts) const {
  return {step(StepKind::Split, {node->index}, {parts}),
          step(StepKind::Map, {node->index + kStripMark}, {}, Mapping::GridZ)};
}

SearchContext::Cost SearchContext::splitReduction(const Node* node, const char* nt) {
  std::vector<Fragment> out;
  int64_t trip = tripCount(node);
  for (int64_t parts : space_.split.values) {
    if (parts < 2 || parts * 16 > trip) continue;  // each part keeps a useful length
    Fragment f;
    f.shape.reduction = reductionLength(node) / parts;
    f.shape.split = parts;
    std::vector<RecipeStep> split = splitSteps(node, parts);
    f.steps.push_back({kSplit, split[0]});
    f.steps.push_back({kOuterGrid, split[1]});
    f.cover = "split(" + std::to_string(parts) + ")";
    out.push_back(std::move(f));
  }
  return offer(node, nt, std::move(out));
}

SearchContext::Cost SearchContext::splitStagedReduction(const Node* node, const char* nt, Buffering buffering) {
  std::vector<Fragment> out;
  int64_t trip = tripCount(node);
  for (int64_t parts : space_.split.values)
    for (Fragment f : stagedFragments(node, transposableArrays(node), buffering)) {
      if (parts < 2 || parts * f.shape.stageDepth * 2 > trip) continue;  // each part stages a few strips
      f.shape.reduction /= parts;
      f.shape.split = parts;
      std::vector<RecipeStep> split = splitSteps(node, parts);
      f.steps.push_back({kSplit, split[0]});
      f.steps.push_back({kOuterGrid, split[1]});
      f.cover = "split(" + std::to_string(parts) + ", " + f.cover + ")";
      out.push_back(std::move(f));
    }
  return offer(node, nt, std::move(out));
}

SearchContext::Cost SearchContext::outerReduction(const Node* node, const char* nt, const Node* inner,
                                                  const char* innerNt) {
  std::vector<Fragment> out;
  for (Fragment f : fragments(inner, innerNt)) {
    f.shape.reduction *= tripCount(node);
    f.shape.stageDepth *= tripCount(node);
    f.cover = "outer(" + f.cover + ")";
    out.push_back(std::move(f));
  }
  return offer(node, nt, std::move(out), {{inner, innerNt}});
}

SearchContext::Cost SearchContext::initThen(const Node* node, const char* nt, const Node* reduction,
                                            const char* reductionNt) {
  std::vector<Fragment> out;
  for (Fragment f : fragments(reduction, reductionNt)) {
    f.cover = "init(" + f.cover + ")";
    out.push_back(std::move(f));
  }
  return offer(node, nt, std::move(out), {{reduction, reductionNt}});
}

std::vector<Fragment> SearchContext::blockTiles(const Node* y, const Node* x, const std::vector<Fragment>& bodies,
                                               const std::vector<RecipeStep>& before,
                                               const std::vector<RecipeStep>& after, int64_t serial,
                                               const std::string& name) {
  std::vector<Fragment> out;
  for (const Fragment& b : bodies)
    for (int64_t bm : space_.tile.values)
      for (int64_t bn : space_.tile.values)
        for (int64_t tm : space_.unroll.values)
          for (int64_t tn : space_.unroll.values) {
            if (bm % tm != 0 || bn % tn != 0) continue;
            Fragment f = b;
            f.shape.rows = tripCount(y);
            f.shape.cols = tripCount(x);
            f.shape.serial = serial;
            f.shape.blockRows = bm;
            f.shape.blockCols = bn;
            f.shape.threadRows = tm;
            f.shape.threadCols = tn;
            for (const auto& s : before) f.steps.push_back({kTile, s});
            f.steps.push_back({kTile, step(StepKind::Tile, {y->index, x->index}, {bm, bn})});
            for (const auto& s : after) f.steps.push_back({kTile, s});
            f.steps.push_back({kGrid, step(StepKind::Map, {y->index + kStripMark}, {}, Mapping::GridY)});
            f.steps.push_back({kGrid, step(StepKind::Map, {x->index + kStripMark}, {}, Mapping::GridX)});
            f.steps.push_back({kBlock, step(StepKind::Map, {y->index}, {}, Mapping::BlockY)});
            f.steps.push_back({kBlock, step(StepKind::Map, {x->index}, {}, Mapping::BlockX)});
            f.steps.push_back({kRegisters, step(StepKind::RegisterTile, {y->index, x->index}, {tm, tn})});
            // 128-bit accesses along a thread's columns, where rows keep them aligned.
            if (tn % 4 == 0 && f.shape.cols % 4 == 0) f.steps.push_back({kFinish, step(StepKind::Vectorize, {x->index}, {4})});
            // Also with the operands read along the columns (matmul's B[k][j]) staged interleaved:
            // each thread's run of tn columns read 4 at a time, neighbours side by side.
            if (tn % 4 == 0 && tn >= 8) {
              Fragment g = f;
              for (auto& [phase, s] : g.steps)
                if (s.kind == StepKind::Stage && !s.transposed && readAlong(s.array, x->index)) s.interleave = tn;
              g.shape.interleaved = true;
              g.cover = f.cover + "+interleaved";
              if (!(g.recipe() == f.recipe())) {
                complete(g);
                out.push_back(std::move(g));
              }
            }
            f.tileRows = y->index;
            f.tileCols = x->index;
            f.cover = name + "(" + std::to_string(bm) + "x" + std::to_string(bn) + "/" + std::to_string(tm) + "x" +
                      std::to_string(tn) + ", " + b.cover + ")";
            complete(f);
            out.push_back(std::move(f));
          }
  return out;
}

SearchContext::Cost SearchContext::blockTile2d(const Node* node, const char* nt, const Node* body, const char* bodyNt) {
  auto out = blockTiles(node, node->body().get(), fragments(body, bodyNt), {}, {}, 1, "tile2d");
  return offer(node, nt, std::move(out), {{body, bodyNt}});
}

SearchContext::Cost SearchContext::outerInnerTile(const Node* node, const char* nt, const Node* body,
                                                  const char* bodyNt) {
  const Node* middle = node->body().get();
  const Node* inner = middle->body().get();
  // a { m { x } } -> m { a { x } } -> tile a, x -> m { a_o { x_o { a { x } } } } -> a_o { x_o { m { ... } } }
  std::vector<RecipeStep> before{step(StepKind::Interchange, {node->index, middle->index})};
  std::vector<RecipeStep> after{step(StepKind::Interchange, {middle->index, node->index + kStripMark}),
                                step(StepKind::Interchange, {middle->index, inner->index + kStripMark})};
  auto out = blockTiles(node, inner, fragments(body, bodyNt), before, after, tripCount(middle), "outerinner");
  return offer(node, nt, std::move(out), {{body, bodyNt}});
}

SearchContext::Cost SearchContext::gridZ(const Node* node, const char* nt, const Node* inner, const char* innerNt) {
  std::vector<Fragment> out;
  for (Fragment f : fragments(inner, innerNt)) {
    if (f.shape.split > 1 || f.shape.outer > 1) continue;  // grid.z is taken
    f.shape.outer = tripCount(node);
    f.steps.push_back({kOuterGrid, step(StepKind::Map, {node->index}, {}, Mapping::GridZ)});
    f.cover = "gridz(" + f.cover + ")";
    complete(f);
    out.push_back(std::move(f));
  }
  return offer(node, nt, std::move(out), {{inner, innerNt}});
}

SearchContext::Cost SearchContext::serialInBlock(const Node* node, const char* nt, const Node* inner,
                                                 const char* innerNt) {
  std::vector<Fragment> out;
  for (Fragment f : fragments(inner, innerNt)) {
    if (f.shape.outer > 1 || f.shape.serial > 1 || f.tileRows.empty()) continue;  // right above the tile only
    f.shape.serial = tripCount(node);
    f.steps.push_back({kTile, step(StepKind::Interchange, {node->index, f.tileRows + kStripMark})});
    f.steps.push_back({kTile, step(StepKind::Interchange, {node->index, f.tileCols + kStripMark})});
    f.cover = "serial(" + f.cover + ")";
    complete(f);
    out.push_back(std::move(f));
  }
  return offer(node, nt, std::move(out), {{inner, innerNt}});
}

SearchContext::Cost SearchContext::untransformed(const Node* node, const char* nt) {
  // The emitter's naive mapping: one thread an output over the outermost parallel loops.
  Fragment f;
  std::vector<const Node*> parallel;
  const Node* cur = node;
  while (cur->kind == NodeKind::For && cur->loopKind == LoopKind::Parallel) {
    parallel.push_back(cur);
    cur = cur->body().get();
  }
  if (parallel.empty()) return kInfinity;
  f.shape.cols = tripCount(parallel.back());
  f.shape.rows = parallel.size() > 1 ? tripCount(parallel[parallel.size() - 2]) : 1;
  for (size_t i = 0; i + 2 < parallel.size(); ++i) f.shape.outer *= tripCount(parallel[i]);
  f.shape.reduction = reductionLength(cur->kind == NodeKind::Seq ? flattenSeq(cur->kids[1]).front().get() : cur);
  f.shape.blockRows = parallel.size() > 1 ? 16 : 1;
  f.shape.blockCols = parallel.size() > 1 ? 16 : 256;
  f.cover = "untransformed";
  complete(f);
  return offer(node, nt, {f});
}

// ---- kernel level ------------------------------------------------------------------------

namespace {

// The decisions of a complete candidate, as a vector, to find its neighbours.
std::vector<int64_t> decisions(const Fragment& f) {
  const CandidateShape& s = f.shape;
  return {s.blockRows, s.blockCols, s.threadRows, s.threadCols, s.staged ? s.stageDepth : 0, s.split, s.pipelined,
          s.asyncCopies, s.interleaved};
}

bool neighbours(const Fragment& a, const Fragment& b) {
  auto da = decisions(a), db = decisions(b);
  int differ = 0;
  for (size_t i = 0; i < da.size(); ++i) differ += da[i] != db[i];
  return differ == 1;
}

}  // namespace

SearchContext::Cost SearchContext::measure(const Node* node, const char* nt) {
  Key key{node, nt};
  const std::vector<Fragment>& pool = fragments(node, nt);
  // A kernel is the whole tree: a nest inside it is no kernel of its own.
  if (node != kernel_.body.get() || pool.empty() || !evaluator_) return kInfinity;
  for (const auto& f : pool) ranked_.push_back(f);

  // The model's best first; then, unless exhaustive, the neighbours of the fastest measured
  // ones, while they improve, up to a quarter of the pool.
  size_t n = pool.size();
  size_t first = space_.exhaustive ? n : std::min(n, std::max<size_t>(std::min<size_t>(8, n), n / 16));
  size_t cap = space_.exhaustive ? n : std::max(first, n / 4);
  std::vector<bool> tried(n, false);
  std::vector<double> ms(n, -1);
  auto run = [&](const std::vector<size_t>& which) {
    std::vector<Candidate> batch;
    for (size_t i : which) {
      batch.push_back({pool[i].recipe(), pool[i].cover, pool[i].model});
      tried[i] = true;
    }
    size_t before = evaluator_->outcome().variants.size();
    evaluator_->evaluate(batch);
    const auto& variants = evaluator_->outcome().variants;
    for (size_t j = 0; j < which.size(); ++j) {
      const VariantResult& v = variants[before + j];
      if (v.measured && v.result.status == "ok") ms[which[j]] = v.result.ms;
    }
  };
  std::vector<size_t> initial;
  for (size_t i = 0; i < first; ++i) initial.push_back(i);
  run(initial);
  size_t measuredCount = first;
  double bestSoFar = -1;
  while (!space_.exhaustive && measuredCount < cap && !evaluator_->outOfBudget()) {
    std::vector<size_t> order;
    for (size_t i = 0; i < n; ++i)
      if (ms[i] > 0) order.push_back(i);
    if (order.empty()) break;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return ms[a] < ms[b]; });
    if (bestSoFar > 0 && ms[order.front()] >= bestSoFar) break;  // the last round found nothing faster
    bestSoFar = ms[order.front()];
    std::vector<size_t> next;
    for (size_t top = 0; top < order.size() && top < 2; ++top)
      for (size_t i = 0; i < n && measuredCount + next.size() < cap; ++i)
        if (!tried[i] && neighbours(pool[order[top]], pool[i]) &&
            std::find(next.begin(), next.end(), i) == next.end())
          next.push_back(i);
    if (next.empty()) break;
    run(next);
    measuredCount += next.size();
  }

  double best = -1;
  size_t bestIndex = 0;
  for (size_t i = 0; i < n; ++i)
    if (ms[i] > 0 && (best < 0 || ms[i] < best)) best = ms[i], bestIndex = i;
  if (best < 0 && !evaluator_->outcome().gpuAvailable) {
    // Nothing can be timed here: the model's best candidate that compiled stands in, at the
    // model's estimate.
    const auto& variants = evaluator_->outcome().variants;
    size_t firstVariant = variants.size() - first;
    for (size_t i = 0; i < first; ++i)
      if (variants[firstVariant + i].result.status != "refused") {
        winners_[key] = {pool[i].model * 1e-6, pool[i].recipe()};
        return 0;
      }
    return kInfinity;
  }
  if (best < 0) return kInfinity;
  winners_[key] = {best, pool[bestIndex].recipe()};
  return static_cast<Cost>(std::max(0.0, best * 1e6 - bestModel(key)));
}

Recipe SearchContext::winner(const Node* node, const char* nt) const {
  auto it = winners_.find({node, nt});
  return it == winners_.end() ? Recipe{} : it->second.second;
}

}  // namespace cudaburg
