#include "src/search/loop_rules.hpp"

#include <algorithm>
#include <cmath>
#include <functional>

#include "src/cuda/run/reference_check.hpp"
#include "src/loop/stage_layout.hpp"
#include "src/loop/tree_walk.hpp"
#include "src/transform/loop_facts.hpp"
#include "src/transform/loop_names.hpp"
#include "src/transform/transforms.hpp"
#include "src/transform/tree_edit.hpp"

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

// Whether every access of the kernel that moves along `index` could be read or written 4 elements at
// a time: contiguous (coefficient 1, in the last subscript only) from an aligned start (every
// other term a multiple of 4). A global array must also be unpadded with rows of a multiple of 4
// elements and an aligned constant offset; a staged one (`staged`: array -> stored transposed) is
// read from its buffer, which starts at the box's origin and holds rows of whole tiles. A
// convolution's window (x + r) is not contiguous in this sense; matmul's B[k][j] and C[i][j] are.
bool wideAlong(const Kernel& kernel, const std::string& index, const std::map<std::string, bool>& staged) {
  bool wide = true;
  auto check = [&](const Access& access) {
    Access a = access;
    auto stage = staged.find(a.array);
    if (stage != staged.end() && stage->second && a.subscripts.size() >= 2)
      std::swap(a.subscripts[a.subscripts.size() - 1], a.subscripts[a.subscripts.size() - 2]);
    for (size_t d = 0; d + 1 < a.subscripts.size(); ++d) wide &= !a.subscripts[d].uses(index);
    if (a.subscripts.empty() || !a.subscripts.back().uses(index)) return;
    const Affine& last = a.subscripts.back();
    wide &= last.coef(index) == 1;
    for (const auto& [name, coef] : last.terms) wide &= name == index || coef % 4 == 0;
    if (stage != staged.end()) return;
    const Array* array = kernel.findParam(a.array);
    wide &= array && !array->zeroPadded && array->extents.back() % 4 == 0 && last.constant % 4 == 0;
  };
  std::function<void(const Node&)> visit = [&](const Node& node) {
    if (node.kind == NodeKind::Assign) check(node.target);
    for (const auto& k : node.kids) visit(*k);
  };
  visit(*kernel.body);
  forEachLoad(*kernel.body, check);
  return wide;
}

// The box of `array` that the loads under `nest` read while each loop of `spans` runs that many
// iterations and every other loop one, as stage() finds it on the tiled tree: along each
// dimension, from the least subscript of any load to the greatest.
std::vector<int64_t> readBox(const Node& nest, const std::string& array, const std::map<std::string, int64_t>& spans) {
  std::vector<int64_t> lo, hi;
  forEachLoad(nest, [&](const Access& a) {
    if (a.array != array) return;
    if (lo.empty()) {
      lo.assign(a.subscripts.size(), INT64_MAX);
      hi.assign(a.subscripts.size(), INT64_MIN);
    }
    for (size_t d = 0; d < a.subscripts.size() && d < lo.size(); ++d) {
      int64_t least = a.subscripts[d].constant, most = least;
      for (const auto& [index, coef] : a.subscripts[d].terms) {
        auto span = spans.find(index);
        int64_t moved = coef * ((span == spans.end() ? 1 : span->second) - 1);
        (moved > 0 ? most : least) += moved;
      }
      lo[d] = std::min(lo[d], least);
      hi[d] = std::max(hi[d], most);
    }
  });
  for (size_t d = 0; d < lo.size(); ++d) hi[d] = hi[d] - lo[d] + 1;
  return hi;
}

constexpr double kPicosecondsPerMs = 1e9;

}  // namespace

std::ostream& operator<<(std::ostream& out, Buffering b) {
  return out << (b == Buffering::Single ? "Single" : b == Buffering::Double ? "Double" : "Async");
}

LoopRules::LoopRules(const Kernel& kernel, SearchSpace space, GpuModel gpu, CalibratedModel model)
    : kernel_(kernel),
      kernelNames_(usedNames(kernel)),
      space_(std::move(space)),
      tensorCoreTiles_(cudaburg::tensorCoreTiles(space_.tile)),
      gpu_(gpu),
      model_(std::move(model)) {}

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

bool LoopRules::splitFits(const Node* node, int64_t parts, int64_t depth, bool workspace) const {
  if (parts < 2 || (workspace && !workspaceFits(node, parts))) return false;
  return depth > 0 ? parts * depth * 2 <= trip(node) && stageFits(node, depth) : parts * 16 <= trip(node);
}

bool LoopRules::workspaceFits(const Node* node, int64_t parts) const {
  int64_t bytes = splitWorkspaceBytes(kernel_, *node, parts);
  return bytes >= 0 && bytes <= kMaxSplitWorkspaceBytes;
}

std::vector<std::string> LoopRules::arraysRead(const Node* node) const {
  std::set<std::string> read;
  forEachLoad(*node, [&](const Access& a) { read.insert(a.array); });
  std::vector<std::string> out;
  for (const auto& p : kernel_.params)  // kernel parameter order, for a stable recipe
    if (p.input && read.count(p.name)) out.push_back(p.name);
  return out;
}

std::set<std::string> LoopRules::tabledArrays(const Node* node) const {
  std::set<std::string> reduction, fixed;  // the nest's loops, and those of one iteration (a 1x1 filter's r, s)
  for (const Node* cur = node; cur->kind == NodeKind::For && cur->loopKind == LoopKind::Reduce; cur = cur->body().get())
    (trip(cur) > 1 ? reduction : fixed).insert(cur->index);
  std::set<std::string> tabled;
  forEachLoad(*node, [&](const Access& a) {
    const Array* source = kernel_.findParam(a.array);
    if (!source || source->extents.size() != a.subscripts.size()) return;
    bool mixed = false;
    int64_t stride = 1, fastestReduction = INT64_MAX, fastestOther = INT64_MAX;
    for (size_t d = a.subscripts.size(); d-- > 0; stride *= source->extents[d]) {
      bool reads[2] = {false, false};  // a reduction index, another
      for (const auto& [index, coef] : a.subscripts[d].terms) {
        if (fixed.count(index)) continue;
        bool ofReduction = reduction.count(index) != 0;
        reads[ofReduction ? 0 : 1] = true;
        int64_t& fastest = ofReduction ? fastestReduction : fastestOther;
        fastest = std::min(fastest, std::abs(coef) * stride);
      }
      mixed = mixed || (reads[0] && reads[1]);
    }
    if (mixed && fastestOther <= fastestReduction) tabled.insert(a.array);
  });
  return tabled;
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
  // Arrays read only as X[.][index] with the index in the last subscript alone (the reduction runs
  // along their rows): 2-D ones, and batches of matrices X[b][.][index] whose other subscripts
  // read no reduction loop (a batched product's operands, not a convolution's window).
  std::set<std::string> reductions;
  forEachNode(*kernel_.body, [&](const Node& n) {
    if (n.kind == NodeKind::For && n.loopKind == LoopKind::Reduce) reductions.insert(n.index);
  });
  std::set<std::string> transposable, other;
  forEachLoad(*node, [&](const Access& a) {
    size_t rank = a.subscripts.size();
    bool ok = rank >= 2 && a.subscripts[rank - 1].uses(node->index);
    for (size_t d = 0; d + 1 < rank; ++d) {
      ok = ok && !a.subscripts[d].uses(node->index);
      for (const auto& r : reductions) ok = ok && (rank == 2 || !a.subscripts[d].uses(r));
    }
    (ok ? transposable : other).insert(a.array);
  });
  for (const auto& a : other) transposable.erase(a);
  return transposable;
}

// ---- builders ----------------------------------------------------------------------------------

RecipeStep LoopRules::named(const Fragment& f, RecipeStep step) const {
  step.into = defaultLoopNamesWhere(step.kind, loopsNamedFrom(step), [&](const std::string& name) {
    return kernelNames_.count(name) || f.namesLoop(name);
  });
  return step;
}

void LoopRules::moveInsideGrid(Fragment& f, const std::string& loop) const {
  f.nest.push_back(makeStep(StepKind::Interchange, {loop, f.gridRows}));
  f.nest.push_back(makeStep(StepKind::Interchange, {loop, f.gridCols}));
}

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
  stageStrips(f, node->index, trip(node), depth, buffering, arraysRead(node), transposedArrays);
  if (transposed && transposedArrays.empty()) f.refused = "no array is read along the reduction";
  return f;
}

void LoopRules::stageStrips(Fragment& f, const std::string& loop, int64_t length, int64_t depth, Buffering buffering,
                            const std::vector<std::string>& arrays, const std::set<std::string>& transposed,
                            const std::set<std::string>& tabled) const {
  RecipeStep strip = named(f, makeStep(StepKind::StripMine, {loop}, {depth}));
  const std::string strips = strip.into[0];
  f.strips = strips;
  f.shape.partialStrip = length % depth != 0 && length > depth;
  f.inTile.push_back(strip);
  for (const auto& array : arrays)
    if (const Array* a = kernel_.findParam(array)) f.shape.elementBytes = scalarTypeBytes(a->type);
  for (const auto& array : arrays) {
    RecipeStep s = makeStep(StepKind::Stage, {strips}, {}, Mapping::None, array);
    s.transposed = transposed.count(array) != 0;
    s.table = tabled.count(array) != 0;
    f.inTile.push_back(s);
  }
  // The strip's own loop unrolled: a thread's reads of the stage overlap its multiply-adds.
  f.inTile.push_back(named(f, makeStep(StepKind::Unroll, {loop}, {depth})));
  f.shape.pipelined = buffering == Buffering::Double;
  f.shape.asyncCopies = buffering == Buffering::Async;
  Mapping pipelining = buffering == Buffering::Double  ? Mapping::Pipelined
                       : buffering == Buffering::Async ? Mapping::AsyncPipelined
                                                       : Mapping::None;
  if (pipelining != Mapping::None) f.inTile.push_back(makeStep(StepKind::Map, {strips}, {}, pipelining));
}

Fragment LoopRules::split(const Node* node, int64_t parts, int64_t depth, Buffering buffering, bool workspace) const {
  Fragment f = depth > 0 ? staged(node, depth, buffering, transposable(node)) : direct(node);
  splitParts(f, node->index, trip(node), parts, depth, workspace);
  return f;
}

void LoopRules::splitParts(Fragment& f, const std::string& loop, int64_t length, int64_t parts, int64_t depth,
                           bool workspace) const {
  if (depth > 0) {  // each part's strips: every part but the last as long as the first (splitReduction)
    int64_t chunk = (length + parts - 1) / parts;
    int64_t last = length - chunk * ((length + chunk - 1) / chunk - 1);
    f.shape.partialStrip = chunk % depth != 0 || last % depth != 0;
  }
  f.shape.reduction /= parts;
  f.shape.split = parts;
  f.shape.workspaceSplit = workspace;
  // The parts are made right after the loop they split, and their loop is the outermost onto the
  // grid.
  RecipeStep split = named(
      f, makeStep(StepKind::Split, {loop}, workspace ? std::vector<int64_t>{parts, 1} : std::vector<int64_t>{parts}));
  f.nest.push_back(split);
  f.outer.push_front(makeStep(StepKind::Map, {split.into[0]}, {}, Mapping::GridZ));
}

Fragment LoopRules::tiles(const Node* y, const Node* x, const Fragment& body, const Node* middle, int64_t bm,
                          int64_t bn, int64_t tm, int64_t tn, int64_t spread) const {
  Fragment f = tiles({y->index, trip(y), true}, {x->index, trip(x), true}, body, middle, bm, bn, tm, tn, spread);
  countStages(f, y);
  return f;
}

Fragment LoopRules::tiles(const TiledLoop& y, const TiledLoop& x, const Fragment& body, const Node* middle, int64_t bm,
                          int64_t bn, int64_t tm, int64_t tn, int64_t spread) const {
  Fragment f = body;
  f.shape.rows = y.trip;
  f.shape.cols = x.trip;
  f.shape.serial = middle ? trip(middle) : 1;
  f.shape.blockRows = bm;
  f.shape.blockCols = bn;
  f.shape.threadRows = tm;
  f.shape.threadCols = tn;
  f.shape.spread = spread > 0;
  if (spread > 0 && (tm % spread || tn % spread))
    f.refused = "a tile spread in runs of " + std::to_string(spread) + " needs a register tile of multiples of it";
  // A stage stored transposed has a row a strip element. countStages counts the boxes where the
  // tiled loops are the nest's own.
  if (f.shape.staged) {
    f.shape.stagedFootprint = (bm + bn) * f.shape.stageDepth;
    for (const RecipeStep& s : f.inTile)
      if (s.kind == StepKind::Stage)
        f.shape.stagedPaddingBytes += f.shape.stageDepth * f.shape.elementBytes *
                                      stageRowPadding(s.padding, s.transposed, s.swizzled, f.shape.elementBytes);
  }
  // The body's split comes before the tile (f.nest holds it); the tile's mappings and register
  // tile come before the body's staging (f.inTile holds it). A middle loop moves out of the way
  // and then inside the grid loops:
  // a { m { x } } -> m { a { x } } -> tile a, x -> m { a_o { x_o { a { x } } } } -> a_o { x_o { m { ... } } }
  if (middle) f.nest.push_back(makeStep(StepKind::Interchange, {y.index, middle->index}));
  RecipeStep tile = named(f, makeStep(StepKind::Tile, {y.index, x.index}, {bm, bn}));
  f.nest.push_back(tile);
  f.tileRows = y.index;
  f.tileCols = x.index;
  f.gridRows = tile.into[0];
  f.gridCols = tile.into[1];
  if (middle) moveInsideGrid(f, middle->index);
  std::vector<RecipeStep> mapped{
      makeStep(StepKind::Map, {f.gridRows}, {}, Mapping::GridY),
      makeStep(StepKind::Map, {f.gridCols}, {}, Mapping::GridX),
      makeStep(StepKind::Map, {y.index}, {}, Mapping::BlockY), makeStep(StepKind::Map, {x.index}, {}, Mapping::BlockX),
      named(f, makeStep(StepKind::RegisterTile, {y.index, x.index},
                        spread > 0 ? std::vector<int64_t>{tm, tn, spread} : std::vector<int64_t>{tm, tn}))};
  f.inTile.prepend(std::move(mapped));
  // 128-bit accesses along a thread's columns, where rows keep them aligned.
  std::map<std::string, bool> staged;
  for (const auto& step : f.inTile)
    if (step.kind == StepKind::Stage) staged[step.array] = step.transposed;
  if (x.vectorizable && tn % 4 == 0 && f.shape.cols % 4 == 0 && wideAlong(kernel_, x.index, staged)) {
    f.inTile.push_back(named(f, makeStep(StepKind::Vectorize, {x.index}, {4})));
    f.shape.vectorized = true;
  }
  return f;
}

void LoopRules::countStages(Fragment& f, const Node* rows) const {
  if (!f.shape.staged || f.shape.gatherOps > 0) return;
  if (!rows)
    rows = findNode(*kernel_.body, [&](const Node& n) { return n.kind == NodeKind::For && n.index == f.tileRows; });
  const RecipeStep* strip = nullptr;
  for (const RecipeStep& s : f.inTile)
    if (s.kind == StepKind::StripMine) strip = &s;
  if (!rows || !strip || rows->index != f.tileRows) return;
  // A tile's loops and a strip's run their whole tile and strip, guarded where the loop is shorter.
  std::map<std::string, int64_t> spans;
  bool cols = false;  // the tile's columns a loop of the nest (no collapsed one)
  forEachNode(*rows, [&](const Node& n) {
    if (n.kind == NodeKind::For && n.loopKind == LoopKind::Reduce) spans[n.index] = trip(&n);
    cols = cols || (n.kind == NodeKind::For && n.index == f.tileCols);
  });
  if (!cols) return;
  spans[rows->index] = f.shape.blockRows;
  spans[f.tileCols] = f.shape.blockCols;
  spans[strip->loops[0]] = strip->factors[0];
  // The copies of each buffer lie in one array, rounded up to 16 bytes as a whole.
  const int64_t copies = f.shape.pipelined ? 2 : f.shape.asyncCopies ? f.shape.asyncStages : 1;
  int64_t bytesAll = 0;
  f.shape.stagedFootprint = 0;
  for (const RecipeStep& s : f.inTile) {
    if (s.kind != StepKind::Stage) continue;
    std::vector<int64_t> box = readBox(*rows, s.array, spans);
    int64_t elements = 1;
    for (int64_t e : box) elements *= e;
    if (s.transposed && box.size() >= 2) std::swap(box[box.size() - 1], box[box.size() - 2]);
    const Array* array = kernel_.findParam(s.array);
    int bytes = array ? scalarTypeBytes(array->type) : f.shape.elementBytes;
    int64_t row = box.empty() ? 1 : box.back() + stageRowPadding(s.padding, s.transposed, s.swizzled, bytes);
    f.shape.stagedFootprint += elements;
    bytesAll += sharedBufferBytes(copies * storedRows(box) * row * bytes);
  }
  f.shape.stagedPaddingBytes = ceilDiv(bytesAll, copies) - f.shape.stagedFootprint * f.shape.elementBytes;
}

Fragment LoopRules::blockTile(const Node* rows, const Fragment& body, int64_t bm, int64_t bn, int64_t tm, int64_t tn,
                              int64_t spread) const {
  return tiled_.get({FragmentMemo::Builder::BlockTile, rows, &body, {bm, bn, tm, tn, spread}}, body,
                    [&] { return tiles(rows, rows->body().get(), body, nullptr, bm, bn, tm, tn, spread); });
}

Fragment LoopRules::outerInnerTile(const Node* outer, const Fragment& body, int64_t bm, int64_t bn, int64_t tm,
                                   int64_t tn) const {
  const Node* middle = outer->body().get();
  return tiles(outer, middle->body().get(), body, middle, bm, bn, tm, tn);
}

Fragment LoopRules::interleaved(Fragment f) const {
  int64_t tn = f.shape.threadCols;
  bool changed = false;
  if (tn % 4 == 0 && tn >= 8)
    for (size_t i = 0; i < f.inTile.size(); ++i)
      if (const RecipeStep& s = f.inTile[i];
          s.kind == StepKind::Stage && !s.transposed && readAlong(s.array, f.tileCols)) {
        f.inTile.edit(i, [&](RecipeStep& stage) { stage.interleave = tn; });
        changed = true;
      }
  f.shape.interleaved = changed;
  if (!changed) f.refused = "no stage is read along a thread's run of 8 or more columns";
  return f;
}

Fragment LoopRules::lanes(Fragment f, int64_t rows) const {
  if (rows == 0 || !f.refused.empty()) return f;
  int64_t cols = 32 / rows;
  const CandidateShape& s = f.shape;  // of the loop's iterations alone where the tile is larger (blockThreads)
  f.refused = warpLanesProblem(rows, cols, ceilDiv(std::min(s.blockRows, s.rows), s.threadRows),
                               ceilDiv(std::min(s.blockCols, s.cols), s.threadCols));
  if (!f.refused.empty()) return f;
  f.shape.laneRows = rows;
  f.inTile.push_back(makeStep(StepKind::Lanes, {}, {rows, cols}));
  return f;
}

Fragment LoopRules::peeled(Fragment f, int64_t peel) const {
  if (peel == 0) return f;
  const CandidateShape& s = f.shape;
  bool rows = s.rows % s.blockRows != 0, cols = s.cols % s.blockCols != 0;
  // A grid loop is peeled where it has whole tiles and a partial one; the strip loop where a
  // strip is partial (peel refuses loops whose iterations are all whole or none is).
  std::vector<std::string> loops;
  if (rows && s.rows > s.blockRows) loops.push_back(f.gridRows);
  if (cols && s.cols > s.blockCols) loops.push_back(f.gridCols);
  if (s.partialStrip && !f.strips.empty()) loops.push_back(f.strips);
  // Rounding up finds a register loop to round wherever a tile is partial: the initialisation of
  // the thread's tile, at least.
  if (rows || cols) f.inTile.push_back(makeStep(StepKind::RoundUp, {}));
  if (!loops.empty()) f.inTile.push_back(makeStep(StepKind::Peel, loops));
  if (!rows && !cols && loops.empty()) f.refused = "every tile and strip is whole: nothing to peel";
  f.shape.peeled = true;
  return f;
}

Fragment LoopRules::rastered(Fragment f, int64_t rows) const {
  if (rows == 0 || !f.refused.empty()) return f;
  const CandidateShape& s = f.shape;
  int64_t tilesY = (s.rows + s.blockRows - 1) / s.blockRows, tilesX = (s.cols + s.blockCols - 1) / s.blockCols;
  CandidateShape rastered = s;
  rastered.rasterRows = rows;
  if (tilesY < 2 * rows)
    f.refused = "fewer than " + std::to_string(2 * rows) + " block rows to raster";
  else if (tilesY * tilesX < 4 * gpu_.multiprocessors)
    f.refused = "too few blocks for their order to matter";
  else if (!(estimate(rastered, gpu_).ns < estimate(s, gpu_).ns))
    f.refused = "the blocks resident at once cover as few rows and columns of tiles row by row";
  if (!f.refused.empty()) return f;
  f.shape.rasterRows = rows;
  f.inTile.push_back(makeStep(StepKind::Raster, {}, {rows}));
  return f;
}

Fragment LoopRules::prefetched(Fragment f, int64_t prefetch) const {
  if (prefetch == 0 || !f.refused.empty()) return f;
  const RecipeStep* unrolled = nullptr;  // the strip's own loop, unrolled (stageStrips)
  for (const RecipeStep& s : f.inTile)
    if (s.kind == StepKind::Unroll) unrolled = &s;
  if (!f.shape.pipelined || !unrolled)
    f.refused = "the strips are not pipelined: no barrier to hide";
  else if (onTensorCores(f.shape))
    f.refused = "tensor cores read their operands by ldmatrix";
  else if (unrolled->factors[0] % 2 != 0)
    f.refused = "a strip of an odd number of elements";
  if (!f.refused.empty()) return f;
  f.shape.prefetched = true;
  f.inTile.push_back(makeStep(StepKind::Prefetch, {unrolled->loops[0]}));
  return f;
}

// Unbounded, ptxas may give a thread more registers than the model tallies (it hoists the unrolled
// strip's shared reads ahead of their multiply-adds), and fewer blocks then share a multiprocessor:
// 161 registers, one block, for a 128x128 tile of 8x8 threads the tally gives two. Bounded, it holds
// to the tally or the kernel spills and is refused when compiled. The estimate counts both.
Fragment LoopRules::resident(Fragment f, int64_t bounded) const {
  if (bounded == 0 || !f.refused.empty()) return f;
  Estimate e = estimate(f.shape, gpu_);
  int64_t blocks = e.boundedBlocksPerSm;
  if (!e.infeasible.empty())
    f.refused = e.infeasible;
  else if (onTensorCores(f.shape))
    f.refused = "tensor-core tiles keep their registers in fragments";
  else if (blocks < 2)
    f.refused = "the model counts one block a multiprocessor: nothing to hold the registers to";
  if (!f.refused.empty()) return f;
  f.shape.residentBlocks = blocks;
  f.inTile.push_back(makeStep(StepKind::Resident, {}, {blocks}));
  return f;
}

Fragment LoopRules::persistent(Fragment f, int64_t on) const {
  if (on == 0 || !f.refused.empty()) return f;
  CandidateShape& s = f.shape;
  const WgmmaTile* wgmma = wgmmaOf(s.idiom);
  s.pingPong = on == 2;
  Estimate e = estimate(s, gpu_);
  const int64_t blocks = e.blocksPerSm * gpu_.multiprocessors * (s.pingPong ? 2 : 1);
  const int64_t tiles = ceilDiv(s.rows, s.blockRows) * ceilDiv(s.cols, s.blockCols) * s.outer * s.split;
  if (!wgmma || wgmma->producer == WgmmaProducer::None)
    f.refused = "only a producer warpgroup fills a next tile's stages";
  else if (wgmma->tf32x3)
    f.refused = "tf32x3's producer splits its last strips after its loop";
  else if (s.outer > 1 || s.split > 1)
    f.refused = "persistent blocks take the tiles of grid.x and grid.y alone";
  else if (!e.infeasible.empty())
    f.refused = e.infeasible;
  else if (tiles <= blocks)
    f.refused = "every tile has a block of its own at once";
  if (!f.refused.empty()) return f;
  s.persistentBlocks = e.blocksPerSm * gpu_.multiprocessors;
  std::vector<int64_t> factors = {s.persistentBlocks};
  if (s.pingPong) factors.push_back(1);
  f.inTile.push_back(makeStep(StepKind::Persistent, {}, factors));
  return f;
}

Fragment LoopRules::clustered(Fragment f, int64_t axis) const {
  if (axis == 0 || !f.refused.empty()) return f;
  CandidateShape& s = f.shape;
  const WgmmaTile* wgmma = wgmmaOf(s.idiom);
  const bool alongRows = axis == 2;  // grid.y: neighbouring block rows
  const int64_t tiles = alongRows ? ceilDiv(s.rows, s.blockRows) : ceilDiv(s.cols, s.blockCols);
  if (!wgmma || wgmma->producer != WgmmaProducer::Tma)
    f.refused = "a cluster's blocks share stages that a producer copies by TMA";
  else if (wgmma->tf32x3)
    f.refused = "tf32x3's producer splits each strip in its own block";
  else if (s.pingPong)
    f.refused = "ping-pong groups take their strips in turn";
  else if (tiles % 2 != 0)
    f.refused = "the " + std::to_string(tiles) + " tiles along grid." + (alongRows ? "y" : "x") + " make no pairs";
  if (!f.refused.empty()) return f;
  (alongRows ? s.clusterRows : s.clusterCols) = 2;
  f.inTile.push_back(makeStep(StepKind::Cluster, {}, {2, alongRows ? 1 : 0}));
  return f;
}

Fragment LoopRules::gridZ(const Node* node, const Fragment& inner) const {
  Fragment f = inner;
  f.shape.outer = trip(node);
  f.outer.push_back(makeStep(StepKind::Map, {node->index}, {}, Mapping::GridZ));
  return f;
}

Fragment LoopRules::serialInBlock(const Node* node, const Fragment& inner) const {
  Fragment f = inner;
  f.shape.serial = trip(node);
  moveInsideGrid(f, node->index);
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

// ---- tensor cores ------------------------------------------------------------------------------

std::optional<ScalarType> LoopRules::productOperands() const {
  // The arrays the accumulations read: an epilogue's bias or scale may be float beside them.
  std::set<ScalarType> operands;
  std::function<void(const Expr&)> read = [&](const Expr& e) {
    if (e.kind == Expr::Kind::Load)
      if (const Array* a = kernel_.findParam(e.load.array); a && a->input) operands.insert(a->type);
    for (const ExprPtr& arg : e.args) read(*arg);
  };
  forEachNode(*kernel_.body, [&](const Node& n) {
    if (n.kind == NodeKind::Assign && n.accumulate) read(*n.value);
  });
  if (operands.size() != 1) return std::nullopt;
  return *operands.begin();
}

bool LoopRules::floatsAsTf32() const {
  return productOperands() == ScalarType::Float && space_.precision == Precision::Tf32;
}

int64_t LoopRules::mmaK() const {
  std::optional<ScalarType> t = productOperands();
  if (!t) return 0;
  return t == ScalarType::Half || t == ScalarType::BFloat16 ? 16 : t == ScalarType::TF32 || floatsAsTf32() ? 8 : 0;
}

Fragment LoopRules::withAsyncBuffers(Fragment f, int64_t buffers) const {
  f.shape.asyncStages = static_cast<int>(buffers);
  for (size_t i = 0; i < f.inTile.size(); ++i)
    if (f.inTile[i].kind == StepKind::Map && f.inTile[i].mapping == Mapping::AsyncPipelined && buffers != kAsyncStages)
      f.inTile.edit(i, [&](RecipeStep& map) { map.factors = {buffers}; });
  return f;
}

Fragment LoopRules::mmaStrips(const Node* node, int64_t depth, int64_t buffers, int64_t swizzle) const {
  Fragment f = withAsyncBuffers(staged(node, depth, Buffering::Async, false), buffers);
  f.shape.swizzled = swizzle != 0;
  return f;
}

Fragment LoopRules::tensorCores(const Fragment& tiled, int64_t prefetch, int64_t k, bool allowSplit) const {
  Fragment f = tiled;
  if (k == 0) k = mmaK();
  // An implicit GEMM's gathers are stored transposed: rows of the tile's pixels (or filters), each
  // holding a strip of the reduction, as ldmatrix reads them and 16-byte copies of channels fill them.
  bool gathered = f.shape.gatherOps > 0;
  const RecipeStep* strip = nullptr;
  for (const auto& s : tiled.inTile)
    if (s.kind == StepKind::StripMine) strip = &s;
  if (k == 0)
    f.refused = "the operands are not of one tensor-core type";
  else if (!strip || !f.shape.staged)
    f.refused = "tensor-core tiles read staged operands";
  else if (f.shape.transposed && !gathered)
    f.refused = "ldmatrix transposes: no operand is staged transposed";
  else if ((f.shape.split > 1 && !allowSplit) || f.shape.outer > 1)
    f.refused = "one 2-D product a kernel";
  else if (f.shape.tabled)
    f.refused = "gathers stored transposed take the table's entries a lane apart";
  else if (strip->factors[0] % k != 0)
    f.refused = "a stage of " + std::to_string(strip->factors[0]) + " is no multiple of " + std::to_string(k);
  if (!f.refused.empty()) return f;
  // A strip longer than its loop (a convolution's 3 taps) leaves no whole k step of mma.sync.
  forEachNode(*kernel_.body, [&](const Node& n) {
    if (n.kind == NodeKind::For && n.index == strip->loops[0] && trip(&n) < strip->factors[0])
      f.refused = "loop " + n.index + " runs fewer iterations than a stage of " + std::to_string(strip->factors[0]);
  });
  if (!f.refused.empty()) return f;
  std::string reduction = strip->loops[0];
  int bytes = 4;
  for (const auto& p : kernel_.params)
    if (p.input) bytes = scalarTypeBytes(p.type);
  StepList steps;
  for (RecipeStep s : f.inTile) {
    if (s.kind == StepKind::Vectorize) continue;  // the write-back goes by fragments
    if (s.kind == StepKind::Stage && f.shape.swizzled && !gathered) {
      s.swizzled = true;
    } else if (s.kind == StepKind::Stage) {
      // 16 bytes a row (32 for a tf32 B read down its columns), which the shared bytes count.
      bool alongK = gathered || readAlong(s.array, reduction);
      s.padding = 16 / bytes * (bytes == 4 && !alongK ? 2 : 1);
      s.transposed = gathered;
    }
    if (s.kind == StepKind::Map && s.mapping == Mapping::Pipelined) s.mapping = Mapping::AsyncPipelined;
    steps.push_back(s);
  }
  // An implicit GEMM's two gathers hold a row for each of the tile's rows and columns.
  if (gathered) f.shape.stagedPaddingBytes = 16 * (f.shape.blockRows + f.shape.blockCols);
  if (prefetch != 0 && !tiled.shape.pipelined && !tiled.shape.asyncCopies) {
    f.refused = "the strips are not pipelined: no barrier to hide";
    return f;
  }
  RecipeStep mma = makeStep(StepKind::Mma, {f.tileRows, f.tileCols, reduction});
  mma.idiom = MmaTile{16, 8, k, prefetch != 0};
  steps.push_back(mma);
  f.shape.prefetched = prefetch != 0;
  f.inTile = steps;
  f.shape.vectorized = false;
  f.shape.pipelined = false;
  f.shape.asyncCopies = tiled.shape.pipelined || tiled.shape.asyncCopies;
  f.shape.idiom = mma.idiom;
  f.shape.elementBytes = bytes;
  countStages(f);
  if (gathered) f.shape.gatherWidth = gatherWidth(f, reduction, 16 / bytes);
  return f;
}

bool LoopRules::wgmmaRuns() const { return gpu_.target.hasWgmma() && mmaK() != 0; }

bool LoopRules::tf32x3Runs() const {
  if (!gpu_.target.hasWgmma() || !space_.tf32x3) return false;
  for (const auto& p : kernel_.params)
    if (p.input && p.type != ScalarType::Float) return false;
  return true;
}

// A 128-byte row holds 64 elements of 16 bits, 32 of 32 bits (mma's k is 32 bytes of either).
int64_t LoopRules::wgmmaStripDepth() const { return mmaK() == 16 ? 64 : 32; }

Fragment LoopRules::wgmmaStrips(const Node* node, int64_t buffers, int64_t parts) const {
  const int64_t depth = wgmmaStripDepth();
  Fragment f = mmaStrips(node, depth, buffers, 1);
  if (parts < 2) return f;
  // wgmma multiplies whole strips: a part that ends inside one would take the next part's
  // elements in (the last part ends at the array's edge, past which the stages hold zeros).
  const int64_t chunk = (trip(node) + parts - 1) / parts;
  if (chunk % depth != 0)
    f.refused = "a part of " + std::to_string(chunk) + " elements of " + node->index + " ends inside a strip of " +
                std::to_string(depth) + ": wgmma would multiply the next part's elements";
  splitParts(f, node->index, trip(node), parts, depth, false);
  return f;
}

Fragment LoopRules::wgmmaGathered(const Node* node, int64_t buffers) const {
  Fragment f = withAsyncBuffers(gathered(node, wgmmaStripDepth(), Buffering::Async, 1, false), buffers);
  f.shape.swizzled = true;
  // A reduction of one or two strips (a 1x1 layer of 64 or 128 channels) fills no more than two
  // buffers: more would only take the shared memory that lets several blocks share a
  // multiprocessor, which is what overlaps one block's copies with another's products. Two
  // buffers leave no wgmma in flight across strips (warpGroups), which longer reductions want.
  const int64_t strips = (reductionLength(node) + wgmmaStripDepth() - 1) / wgmmaStripDepth();
  if (strips <= 2 && buffers != 2)
    f.refused = "a reduction of " + std::to_string(strips) + " strips fills at most two buffers";
  else if (strips > 2 && buffers == 2)
    f.refused =
        "a reduction of " + std::to_string(strips) + " strips keeps a group of wgmma in flight: 3 buffers or more";
  return f;
}

namespace {

// tf32's B goes an element a cp.async, each a thread's own addresses: beside a warpgroup's
// accumulators, a thread takes 16 of a strip's elements without spilling (ptxas, sm_90a), 32
// where it is a producer's and holds no accumulators.
bool tf32CopiesSpill(const CandidateShape& s, int64_t producer) {
  const int64_t warpGroups = s.blockRows / std::max<int64_t>(s.threadRows, 1);
  const int64_t copiers = producer == kWgmmaNoProducer ? 128 * warpGroups : 128;
  return s.blockCols * s.stageDepth / copiers > (producer == kWgmmaNoProducer ? 16 : 32);
}

}  // namespace

Fragment LoopRules::wgmmaTiles(const Fragment& tiled, std::string& reduction, bool tf32x3) const {
  Fragment f = tensorCores(tiled, 0, tf32x3 ? 8 : 0, true);
  if (!f.refused.empty()) return f;
  for (const auto& s : f.inTile)
    if (s.kind == StepKind::StripMine) reduction = s.loops[0];
  if (tf32x3 ? !tf32x3Runs() : !wgmmaRuns())
    f.refused = tf32x3 ? "tf32x3 runs on an sm_90 GPU, on float operands"
                       : "wgmma runs on an sm_90 GPU, on half, bfloat16 or tf32 operands";
  else if (f.shape.stageDepth != wgmmaStripDepth())
    f.refused = "wgmma reads strips of " + std::to_string(wgmmaStripDepth()) + " (rows of 128 bytes)";
  // Split-K is for grids that leave multiprocessors idle: where the tiles alone fill them, parts
  // add only their atomic adds, and twins of nearly the same estimate would crowd the search.
  else if (f.shape.split > 1 && (f.shape.rows + f.shape.blockRows - 1) / f.shape.blockRows *
                                        ((f.shape.cols + f.shape.blockCols - 1) / f.shape.blockCols) >=
                                    gpu_.multiprocessors)
    f.refused = "the tiles alone fill the GPU's multiprocessors: a split would add only its parts' atomic adds";
  return f;
}

Fragment LoopRules::warpGroups(const Fragment& tiled, int64_t producer) const {
  std::string reduction;
  Fragment f = wgmmaTiles(tiled, reduction);
  if (!f.refused.empty()) return f;
  const bool tf32 = mmaK() == 8;
  // An implicit GEMM's gathers (pixels or filters by a strip of the reduction, rows of k: K-major,
  // both) are stored transposed and swizzled.
  const bool gathered = f.shape.gatherOps > 0;
  if (gathered && producer == kWgmmaTmaProducer)
    f.refused = "the Tensor Memory Accelerator copies boxes, not an implicit GEMM's gathers";
  // wgmma truncates the float it reads by descriptor to tf32 (cuBLAS and cuDNN round): with
  // both operands so read, the error is about 2.6 times cuBLAS's TF32 error, past the contract;
  // A from registers, rounded there (registerWarpGroups), stays within it.
  else if (floatsAsTf32())
    f.refused = "wgmma truncates float operands read by descriptor: both so read err past twice cuBLAS's TF32 error";
  else if (tf32 && producer == kWgmmaTmaProducer)
    f.refused = "tf32's B is stored transposed, which the Tensor Memory Accelerator cannot copy";
  else if (tf32 && tf32CopiesSpill(f.shape, producer))
    f.refused = "a tf32 warpgroup's share of B's 4-byte copies does not fit its registers beside its accumulators";
  else if (f.shape.threadRows % 64 != 0 || f.shape.threadCols % 64 != 0 || f.shape.threadCols > 256)
    f.refused = "a warpgroup's tile is 64 or 128 rows by 64 to 256 columns";
  if (!f.refused.empty()) return f;
  // The gathers swizzled rather than padded (tensorCores).
  if (gathered) f.shape.stagedPaddingBytes = 0;
  for (size_t i = 0; i < f.inTile.size(); ++i) {
    const RecipeStep& s = f.inTile[i];
    if (s.kind == StepKind::Stage && gathered)
      f.inTile.edit(i, [&](RecipeStep& g) {
        g.padding = 0;
        g.swizzled = true;
      });
    else if (s.kind == StepKind::Stage && !readAlong(s.array, reduction))
      f.inTile.edit(i, [&](RecipeStep& b) {  // B: rows of n in slabs, or (tf32) transposed, rows of k
        if (tf32)
          b.transposed = true;
        else
          b.slab = wgmmaStripDepth();
      });
    else if (s.kind == StepKind::Mma)
      f.inTile.edit(i, [&](RecipeStep& mma) {
        WgmmaTile tile;
        tile.n = f.shape.threadCols;
        tile.k = mmaK();
        tile.pending = f.shape.asyncStages < 3 ? 0 : kWgmmaPending;  // one strip: nothing in flight
        tile.producer = wgmmaProducer(producer);
        mma = makeStep(StepKind::Wgmma, mma.loops);
        mma.idiom = f.shape.idiom = tile;
      });
  }
  return f;
}

Fragment LoopRules::registerWarpGroups(const Fragment& tiled, int64_t producer, bool tf32x3, int64_t promote) const {
  std::string reduction;
  Fragment f = wgmmaTiles(tiled, reduction, tf32x3);
  if (!f.refused.empty()) return f;
  const CandidateShape& s = f.shape;
  if (!tf32x3 && mmaK() != 8)
    f.refused = "wgmma's A from registers is offered for tf32 (16-bit B is read N-major by descriptor)";
  else if (tf32x3 && producer == kWgmmaNoProducer)
    f.refused = "tf32x3's strips are split by a producer warpgroup";
  // The tensor cores truncate as they add, about a unit of fp32 for each 8 products summed into
  // one accumulator (2.9e-5 at K = 4096): n / 8 units that pass twice SGEMM's error. Sums of a
  // few strips, added into fp32 registers, do not grow with K (promote).
  else if (tf32x3 && promote == 0 && space_.precision == Precision::Strict)
    f.refused =
        "tf32x3 sums on the tensor cores alone err by K / 8 units of fp32, past twice SGEMM's error "
        "(--precision strict): its partial sums are promoted into fp32 registers (promote 1 or 2)";
  else if (!tf32x3 && promote != 0)
    f.refused = "partial sums are promoted for tf32x3 alone";
  else if (s.threadRows != s.blockRows || s.threadRows % 8 != 0 || s.threadRows > 256)
    f.refused = "each warpgroup takes all the block's rows (N, at most 256)";
  else if (s.threadCols % 64 != 0 || s.threadCols > 128)
    f.refused = "a warpgroup takes 64 or 128 of the block's columns (M)";
  else if (s.threadRows * s.threadCols > 128 * 128)
    f.refused = "a warpgroup's accumulators would not fit its registers";
  if (!f.refused.empty()) return f;
  // An implicit GEMM's gathers are stored transposed and swizzled (rows of k, K-major, both): the
  // threads load the fragments of the one along the tile's columns (the filters, or the pixels
  // where the tile runs over filters by pixels) from it as from a product's B.
  const bool gathered = f.shape.gatherOps > 0;
  if (gathered && tf32x3)
    f.refused = "tf32x3's producer splits a product's strips, not an implicit GEMM's gathers";
  else if (gathered && producer == kWgmmaTmaProducer)
    f.refused = "the Tensor Memory Accelerator copies boxes, not an implicit GEMM's gathers";
  if (!f.refused.empty()) return f;
  // The registers' operand is the one read along the columns, staged as it lies (B[k][j]); the
  // Tensor Memory Accelerator copies boxes of 2-D arrays whose rows are a multiple of 16 bytes.
  int alongColumns = 0;
  std::string notByTma;  // an array the TMA cannot copy
  for (const RecipeStep& step : f.inTile) {
    if (step.kind != StepKind::Stage) continue;
    alongColumns += !readAlong(step.array, reduction);
    const Array* a = kernel_.findParam(step.array);
    if (!a || a->extents.size() != 2 || a->extents[1] * 4 % 16 != 0) notByTma = step.array;
  }
  if (gathered) alongColumns = 1;  // both gathers are read along the reduction; the columns' go to registers
  if (producer == kWgmmaTmaProducer && !notByTma.empty())
    f.refused =
        "the Tensor Memory Accelerator copies 2-D arrays whose rows are a multiple of 16 bytes, not " + notByTma;
  // tf32x3's stages are filled by cp.async only where TMA cannot copy them: elsewhere a twin of
  // the TMA's candidate at the same estimate would only crowd the search.
  else if (tf32x3 && producer == kWgmmaCpAsyncProducer && notByTma.empty())
    f.refused =
        "the Tensor Memory Accelerator copies these stages: tf32x3's producer copies by cp.async only where it cannot";
  if (alongColumns != 1)
    f.refused = "wgmma's A from registers is the one operand read along the columns, staged as it lies";
  if (!f.refused.empty()) return f;
  WgmmaTile tile;
  tile.n = s.threadRows;
  tile.k = 8;
  tile.producer = wgmmaProducer(producer);
  tile.tf32x3 = tf32x3;
  tile.promote = static_cast<int>(promote);
  tile.registerA = true;  // what applying the step decides, which the model reads
  // ptxas serializes the wgmma where a thread's registers pass its share of the block's: 4
  // consumer warpgroups of 64 x 128, say.
  CandidateShape planned = s;
  planned.idiom = tile;
  if (wgmmaRegisters(planned) >
      std::min(gpu_.target.maxRegistersPerThread, gpu_.target.registersPerBlock / blockThreads(planned))) {
    f.refused = "a thread's accumulators and fragments pass its share of the block's registers (ptxas would serialize)";
    return f;
  }
  for (size_t i = 0; i < f.inTile.size(); ++i) {
    const RecipeStep& step = f.inTile[i];
    if (step.kind == StepKind::Map && (step.mapping == Mapping::BlockY || step.mapping == Mapping::BlockX))
      f.inTile.edit(i, [&](RecipeStep& map) {  // the warpgroups along block.y, as a producer's launch has them
        map.mapping = map.mapping == Mapping::BlockY ? Mapping::BlockX : Mapping::BlockY;
      });
    else if (step.kind == StepKind::Stage && gathered)
      f.inTile.edit(i, [&](RecipeStep& g) {  // swizzled rather than padded (tensorCores)
        g.padding = 0;
        g.swizzled = true;
      });
    else if (step.kind == StepKind::Stage && !readAlong(step.array, reduction))
      f.inTile.edit(i, [&](RecipeStep& b) { b.slab = wgmmaStripDepth(); });  // B as it lies, 128-byte slabs
    else if (step.kind == StepKind::Mma)
      f.inTile.edit(i, [&](RecipeStep& mma) {
        mma = makeStep(StepKind::Wgmma, {mma.loops[1], mma.loops[0], mma.loops[2]});
        WgmmaTile written = tile;
        written.registerA = false;  // the recipe step does not write it
        mma.idiom = written;
        f.shape.idiom = tile;
      });
  }
  if (tf32x3) f.shape.stagedFootprint += f.shape.blockRows * f.shape.stageDepth;  // the low parts' copy of A's stage
  if (gathered) f.shape.stagedPaddingBytes = 0;
  return f;
}

// A gather's copies move `width` elements at once where every staged array is read along the
// collapsed reduction's innermost loop (NHWC channels) and its rows hold whole copies.
int LoopRules::gatherWidth(const Fragment& f, const std::string& reduction, int width) const {
  std::string innermost;
  for (const auto& s : f.nest)
    if (s.kind == StepKind::Collapse && !s.into.empty() && s.into[0] == reduction) innermost = s.loops.back();
  if (innermost.empty()) return 1;
  for (const auto& s : f.inTile) {
    if (s.kind != StepKind::Stage) continue;
    const Array* a = kernel_.findParam(s.array);
    if (!a || !readAlong(s.array, innermost) || a->extents.back() % width != 0) return 1;
  }
  return width;
}

// ---- costs -------------------------------------------------------------------------------------

LoopRules::Cost LoopRules::model(const Fragment& f) const {
  if (!f.refused.empty()) return kInfinity;
  Estimate e = estimate(f.shape, gpu_);
  if (!e.infeasible.empty()) return kInfinity;
  double ms = model_.predictMs(CalibratedModel::featuresOf(f.shape, e));
  return static_cast<Cost>(std::min(ms * kPicosecondsPerMs, 1e18));
}

LoopRules::Cost LoopRules::kernelCost(const Fragment& f) const {
  if (!measured_) return model(f);
  const std::optional<double>* ms = measured_->find(f, kernel_);
  if (!ms || !*ms) return kInfinity;
  return static_cast<Cost>(std::min(**ms * kPicosecondsPerMs, 1e18));
}

void LoopRules::setMeasured(std::map<std::string, std::optional<double>> measured) {
  measured_.emplace(std::move(measured));
}

}  // namespace cudaburg
