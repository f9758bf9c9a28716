#pragma once
// What the rules of specs/loops.burg compute with: the matcher burggen generates from that grammar
// calls these functions from its rules' parameter domains and costs (the grammar's prologue makes
// this class the matcher's context). Everything here is pure: a builder makes the fragment of one
// rule and one binding of its parameters from the node and its kids' fragments; a cost function
// reads a fragment and returns a cost. Nothing here measures, prints or records; what was
// measured comes in through setMeasured(), outside labeling (see src/search/search.hpp).
//
// Costs are in picoseconds: the model's estimate of a complete candidate's time, or, once the
// search has measured, the measured time of a kernel.
#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "src/loop/loop_tree.hpp"
#include "src/search/calibrated_model.hpp"
#include "src/search/fragment.hpp"
#include "src/search/fragment_memo.hpp"
#include "src/search/measured_kernels.hpp"
#include "src/search/search_space.hpp"

namespace cudaburg {

// How a staged reduction uses its shared buffers: filled then used (one a stage), pipelined
// through registers (two a stage, one filled while the other is used), or pipelined with
// asynchronous copies (Kernel::asyncStages a stage, the copies issued one fewer strips ahead).
enum class Buffering { Single, Double, Async };
std::ostream& operator<<(std::ostream& out, Buffering b);  // "Single", ...: how covers print it

class LoopRules {
 public:
  using Cost = int64_t;
  static constexpr Cost kInfinity = INT64_MAX;
  static constexpr int64_t kMaxGridZ = 65535;  // blocks along grid.z

  LoopRules(const Kernel& kernel, SearchSpace space, GpuModel gpu = {},
            CalibratedModel model = CalibratedModel::prior());

  // ---- parameter domains (from the command line) -------------------------------------------
  const std::vector<int64_t>& tiles() const { return space_.tile.values; }
  const std::vector<int64_t>& unrolls() const { return space_.unroll.values; }
  const std::vector<int64_t>& stages() const { return space_.stage.values; }
  const std::vector<int64_t>& splits() const { return space_.split.values; }
  // The tensor-core rules' block tile edges within --tile (search_space.hpp).
  const std::vector<int64_t>& tensorCoreTiles() const { return tensorCoreTiles_; }

  // ---- facts the grammar's constraints read -------------------------------------------------
  int64_t trip(const Node* loop) const;
  // A stage of `depth` elements of reduction `node` is worth offering: less than two stages hold
  // the whole loop, or it is the smallest depth.
  bool stageFits(const Node* node, int64_t depth) const;
  // Reduction `node` split into `parts` (at least 2) keeps a useful length in each: 16 iterations,
  // or, staged by `depth` (> 0), two strips that fit; with `workspace`, the workspace its parts
  // combine in (split ... workspace) takes at most kMaxSplitWorkspaceBytes.
  bool splitFits(const Node* node, int64_t parts, int64_t depth, bool workspace = false) const;
  // Some 2-D array is read only along reduction `node` (X[.][k], k alone last): what a transposed
  // stage puts a thread's rows side by side for.
  bool transposable(const Node* node) const { return !transposableArrays(node).empty(); }

  // ---- builders (below kernel level) -------------------------------------------------------
  // The reduction nest `node` reads its operands from global memory.
  Fragment direct(const Node* node) const;
  // The outermost reduction loop `node` strip-mined by `depth`, every array the nest reads staged
  // through shared memory at the strip loop (transposed: those read along the reduction stored
  // transposed), the strip's own loop unrolled, buffered as `buffering` says.
  Fragment staged(const Node* node, int64_t depth, Buffering buffering, bool transposed) const;
  // The reduction loop `node` split into `parts` run by separate blocks (grid.z), combined
  // atomically or (workspace) in a workspace; each part read directly, or (depth > 0) staged as
  // staged() stages the whole, the operands read along the reduction transposed where there are any.
  Fragment split(const Node* node, int64_t parts, int64_t depth = 0, Buffering buffering = Buffering::Double,
                 bool workspace = false) const;
  // Two parallel loops, `rows` and the loop right inside it, onto a 2-D block tile of bm x bn
  // outputs whose threads each compute a tm x tn register tile, over the fragment of their body;
  // spread > 0: each thread's tile taken as runs of `spread` rows and columns, the threads' runs
  // side by side (registerTile), refused where tm or tn is no multiple of it.
  Fragment blockTile(const Node* rows, const Fragment& body, int64_t bm, int64_t bn, int64_t tm, int64_t tn,
                     int64_t spread = 0) const;
  // Three nested parallel loops: the outer and the inner one onto the block tile (filters and
  // pixels of a convolution), the middle one moved inside the tile's grid loops and run in turn.
  Fragment outerInnerTile(const Node* outer, const Fragment& body, int64_t bm, int64_t bn, int64_t tm,
                          int64_t tn) const;
  // A tiled fragment with the operands read along the tile's columns (matmul's B[k][j]) staged
  // interleaved, each thread's run of columns read 4 at a time; refused when nothing changes.
  Fragment interleaved(Fragment tiled) const;
  // A tiled fragment whose warps each cover `rows` x (32 / rows) of the block's threads
  // (arrangeLanes); 0 keeps CUDA's order. Refused when such warps do not tile the block.
  Fragment lanes(Fragment tiled, int64_t rows) const;
  // A convolution as a GEMM (implicit GEMM): of the perfectly nested parallel loops from `outer`
  // down, those that only one operand of the reduction reads (the input's n, od, oh, ow) collapsed
  // into one loop, those that only the other reads (the filters' k) into another, the two onto the
  // block tile as a matmul's rows and columns (the columns: the loops the innermost one is among),
  // over the gathered reduction `body`; those both operands read or neither (a group, a depthwise
  // channel) collapsed into a batch onto grid.z, or run in turn by each block where grid.z is too
  // short. Where one operand reads no loop of its own (a depthwise filter, a correlation's
  // template) and `outer` is the whole nest, the other's outermost loop makes the rows.
  Fragment implicitGemm(const Node* outer, const Fragment& body, int64_t bm, int64_t bn, int64_t tm, int64_t tn) const;
  // A reduction nest (at least two loops) collapsed into one loop, strip-mined by `depth`, every
  // array it reads staged at the strip loop (gathered: im2col for a convolution's input), the
  // strip's own loop unrolled, buffered as `buffering` says; with `parts` (at least 2), the
  // collapsed loop first split into that many parts run by separate blocks on grid.z and combined
  // atomically (split-K: more blocks where the GEMM's rows and columns make too few).
  // With `table`, the gathers of tabledArrays read through offset tables (stage ... table).
  Fragment gathered(const Node* node, int64_t depth, Buffering buffering, int64_t parts = 1, bool table = false,
                    bool workspace = false) const;
  // The arrays the reduction nest `node` reads whose gathers a table serves: a subscript moves with
  // both the reduction (a loop of more than one iteration) and a loop outside it (bounds to check
  // each element: a convolution's oh + r - 1), and the loops outside move the source no slower
  // than the reduction does, so that the threads a warp takes side by side look the same entry up
  // (constant memory broadcasts it).
  std::set<std::string> tabledArrays(const Node* node) const;
  // A gathered strip of `depth` is worth offering: as stageFits, over the whole nest's length.
  bool gatherFits(const Node* node, int64_t depth) const;
  // The gathered nest `node` split into `parts` keeps two strips of `depth` in each part; with
  // `workspace`, as splitFits.
  bool gatherSplitFits(const Node* node, int64_t parts, int64_t depth, bool workspace) const;
  // A tiled fragment whose edges run apart when `peel` is 1 (0 keeps it as it is): the register
  // work rounded up to whole tiles (roundup) and the grid loops and the reduction's strip loop
  // with a partial last tile or strip peeled. Refused when every tile and strip is whole.
  Fragment peeled(Fragment tiled, int64_t peel) const;
  // A tiled fragment whose blocks are numbered `rows` block rows at a time (raster, for L2 reuse;
  // 0 keeps CUDA's order). Refused where the grid is small (fewer than four blocks a
  // multiprocessor: they are all resident at once or nearly), has fewer than 2 x `rows` block rows,
  // or where the blocks resident at once cover no fewer rows and columns of tiles rastered (the
  // model's estimate is no lower): a twin of the same estimate would only crowd the search.
  Fragment rastered(Fragment tiled, int64_t rows) const;
  // A tiled fragment whose strip element loop reads its staged operands an iteration ahead when
  // `prefetch` is 1 (0 keeps it as it is): the prefetch step, which puts the strip's barrier
  // before the last element's multiply-adds. Refused where the strips are not pipelined (no
  // barrier to hide), hold an odd number of elements, or feed tensor cores.
  Fragment prefetched(Fragment tiled, int64_t prefetch) const;
  // Launch bounds at the residency the model counts on (resident 1; refused where that is one
  // block a multiprocessor), or none (0).
  Fragment resident(Fragment tiled, int64_t bounded) const;
  // Blocks that stay and take the tiles in turn, as many as fit on the GPU at once (persistent 1;
  // 0 keeps a block a tile; 2: with two groups of the warpgroups that multiply, on alternate
  // tiles, ping-pong): refused but for wgmma tiles with a producer warpgroup (not tf32x3's), and
  // where every tile gets a block (ping-pong: a group) of its own at once.
  Fragment persistent(Fragment tiled, int64_t on) const;
  // Clusters of two blocks that take neighbouring tiles, along grid.x (cluster 1) or grid.y
  // (cluster 2), each stage they share copied once for both by TMA multicast; 0 keeps the blocks
  // apart. Refused but for wgmma tiles whose producer copies by TMA (not tf32x3's, nor ping-pong
  // groups), and where the tiles along the axis make no pairs.
  Fragment clustered(Fragment tiled, int64_t axis) const;
  // No parallel loop has `loop` as its body: it is the outermost of its perfect nest.
  bool outermostParallel(const Node* loop) const;
  // An outer parallel loop around a tiled nest onto grid.z.
  Fragment gridZ(const Node* node, const Fragment& inner) const;
  // An outer parallel loop right around the 2-D tile, moved inside the tile's grid loops: each
  // block runs its iterations in turn (and reuses what it staged across them).
  Fragment serialInBlock(const Node* node, const Fragment& inner) const;
  // The nest as written, one thread an output (the emitter's naive mapping): the baseline.
  Fragment untransformed(const Node* node) const;

  // ---- tensor cores ---------------------------------------------------------------------------
  // The k of the mma.sync shape the kernel's operands take (16 for half and bfloat16, 8 for tf32,
  // and for float under --precision tf32; both of one type), 0 when they take none.
  int64_t mmaK() const;
  // The one type of the arrays the accumulations multiply (none where they differ).
  std::optional<ScalarType> productOperands() const;
  // Float operands multiplied as tf32, one product each (--precision tf32), as cuBLAS and cuDNN
  // do in that mode.
  bool floatsAsTf32() const;
  // The reduction `node` staged for tensor cores: strip-mined by `depth`, every array it reads
  // staged as it lies (ldmatrix transposes), by asynchronous copies into `buffers` buffers a
  // stage, the buffers' rows swizzled (swizzle 1) or padded (0) by tensorCores().
  Fragment mmaStrips(const Node* node, int64_t depth, int64_t buffers, int64_t swizzle) const;
  // A tiled fragment whose threads become warps, each computing its tm x tn register tile as
  // mma.sync tiles (the mma step); the stages' rows swizzled, or padded by 16 bytes (32 for a
  // tf32 B), for conflict-free ldmatrix and fragment reads, never transposed (ldmatrix
  // transposes) unless gathered (an implicit GEMM's gathers stored transposed are rows of the
  // reduction, padded), by asynchronous copies where it was pipelined. Refused when the stage
  // depth is no multiple of the shape's k or the reduction is not staged.
  // `k` is the shape's k: mmaK() where 0, 8 for float operands split into tf32 parts.
  // `allowSplit`: a split reduction is allowed (wgmma's parts add their tiles up atomically as
  // they write them back); mma.sync's tiles refuse it.
  Fragment tensorCores(const Fragment& tiled, int64_t prefetch = 0, int64_t k = 0, bool allowSplit = false) const;
  // Hopper's warpgroup MMA applies: an sm_90 GPU and operands of one tensor-core type (half,
  // bfloat16, tf32).
  bool wgmmaRuns() const;
  // FP32 on Hopper's tensor cores applies (tf32x3: float operands split into tf32 parts, three
  // products each): an sm_90 GPU, float operands, and the search space allows it.
  bool tf32x3Runs() const;
  // wgmma's strips: A's rows one 128-byte swizzle atom of k (64 16-bit elements, 32 of 32 bits).
  int64_t wgmmaStripDepth() const;
  // The reduction `node` staged for wgmma: strips of wgmmaStripDepth(), by asynchronous copies
  // into `buffers` buffers a stage, swizzled by warpGroups(); with `parts` (at least 2), first
  // split into that many parts on grid.z whose sums meet atomically (split-K, as split() splits),
  // refused where a part but the last would end inside a strip.
  Fragment wgmmaStrips(const Node* node, int64_t buffers, int64_t parts = 1) const;
  // A convolution's reduction nest `node` gathered for wgmma (an implicit GEMM): collapsed and
  // gathered in strips of wgmmaStripDepth() by asynchronous copies into `buffers` buffers a stage,
  // stored transposed and swizzled by warpGroups().
  Fragment wgmmaGathered(const Node* node, int64_t buffers) const;
  // A tiled fragment whose threads become warpgroups, each computing its tm x tn register tile (tm
  // a multiple of 64, tn of 64 up to 256) as wgmma m64nNk16 tiles with N = tn (the wgmma step;
  // m64nNk8 for tf32), one group in flight across strips; A's stages swizzled, B's swizzled in
  // slabs of 64 columns (tf32: stored transposed, K-major as A, which TMA cannot copy; no tile
  // whose threads' share of B's copies would spill); an implicit GEMM's gathers both stored
  // transposed and swizzled (rows of k, K-major), not by TMA.
  // `producer` (kWgmmaNoProducer, kWgmmaCpAsyncProducer, kWgmmaTmaProducer) says who fills the stages.
  // Refused where tensorCores() refuses, or the tile or strip is not of those shapes.
  Fragment warpGroups(const Fragment& tiled, int64_t producer = kWgmmaNoProducer) const;
  // What both wgmma forms share: tensorCores(), refused off sm_90, or on strips that
  // are not one 128-byte row; the reduction's strip loop in `reduction`. With `tf32x3`, for float
  // operands split into tf32 parts.
  Fragment wgmmaTiles(const Fragment& tiled, std::string& reduction, bool tf32x3 = false) const;
  // The same for tf32 with the instruction's M along the tile's columns (wgmma j,i,k: A, the
  // operand read along them, from registers that the threads load from B's stage in its natural
  // layout, rows of k in swizzled slabs of 32 columns, which TMA can fill): each warpgroup takes
  // all of the block's tm = bm rows as N (at most 256) by tn (64 or 128) of its columns, the
  // warpgroups side by side along the columns (block.y; the rows on block.x). Refused where
  // tensorCores() refuses, for other types, and where the accumulators would not fit.
  // With `tf32x3`, the same for float operands, each split into a high and a low tf32 part and
  // each product computed as three (`wgmma ... tf32x3`): only with a producer warpgroup (filling
  // the stages by TMA, or by cp.async where TMA cannot copy the rows), which splits the strips of
  // the operand read by descriptor into a second copy of its stage.
  // With `promote` P > 0 (tf32x3), the tensor cores' sums of P strips added into fp32 registers
  // (a second set of accumulators); without it, refused under --precision strict.
  Fragment registerWarpGroups(const Fragment& tiled, int64_t producer = kWgmmaNoProducer, bool tf32x3 = false,
                              int64_t promote = 0) const;
  // The elements an implicit GEMM's gathers copy at once (`width`, or 1): see loop_rules.cpp.
  int gatherWidth(const Fragment& f, const std::string& reduction, int width) const;

  // ---- Winograd --------------------------------------------------------------------------------
  // The whole nest, a 2-D convolution with 3x3 taps and stride 1, computed with F(m x m, 3 x 3)
  // (the winograd step: src/loop/winograd.hpp says what the tile parameters are; prefetch 0 or 1).
  // Refused, with the step's reason, for any other nest or a tiling that makes no kernel.
  Fragment winograd(const Node* node, int64_t m, int64_t tiles, int64_t filters, int64_t channels, int64_t threadTiles,
                    int64_t threadFilters, int64_t points, int64_t prefetch) const;

  // ---- Two products back to back ------------------------------------------------------------
  // The whole kernel, two products in a row whose second reads the hidden rows the first writes,
  // as one kernel (the b2b step): a block of bm rows, Y's columns bn at a time, a thread tm x tn,
  // strips of `depth` (src/idioms/back_to_back/). Refused, with the step's reason, for any other
  // body or a tile that does not fit it.
  Fragment backToBack(const Node* node, int64_t bm, int64_t bn, int64_t tm, int64_t tn, int64_t depth) const;

  // ---- costs --------------------------------------------------------------------------------
  // The model's estimate of a complete fragment, or kInfinity when it cannot launch (over a
  // thread, register or shared-memory limit of the GPU) or its builder refused it.
  Cost model(const Fragment& f) const;
  // A kernel's cost: the model's estimate until measurements are set; then the measured time of
  // its recipe, or kInfinity when it was not measured, failed or was wrong.
  Cost kernelCost(const Fragment& f) const;

  // ---- outside labeling ---------------------------------------------------------------------
  // From now on kernels cost what was measured (recipe line -> ms; nullopt: failed).
  void setMeasured(std::map<std::string, std::optional<double>> measured);
  void setModel(CalibratedModel model) { model_ = std::move(model); }
  const CalibratedModel& calibratedModel() const { return model_; }
  const Kernel& kernel() const { return kernel_; }
  const GpuModel& gpu() const { return gpu_; }

 private:
  // `f`'s asynchronously pipelined strips with `buffers` buffers a stage.
  Fragment withAsyncBuffers(Fragment f, int64_t buffers) const;
  std::set<std::string> transposableArrays(const Node* node) const;
  std::vector<std::string> arraysRead(const Node* node) const;
  bool readAlong(const std::string& array, const std::string& index) const;
  int64_t reductionLength(const Node* node) const;
  // `rows` and `cols` onto the block tile over `body`; `middle`, when set, the loop between them,
  // moved inside the tile's grid loops.
  Fragment tiles(const Node* rows, const Node* cols, const Fragment& body, const Node* middle, int64_t bm, int64_t bn,
                 int64_t tm, int64_t tn, int64_t spread = 0) const;
  // A loop onto the block tile by its index and trip count (one a step made, such as a collapse);
  // vectorizable: a thread's run along it may be done 4 elements at a time.
  struct TiledLoop {
    std::string index;
    int64_t trip = 1;
    bool vectorizable = true;
  };
  Fragment tiles(const TiledLoop& rows, const TiledLoop& cols, const Fragment& body, const Node* middle, int64_t bm,
                 int64_t bn, int64_t tm, int64_t tn, int64_t spread = 0) const;
  // The shape's stage footprint and padding counted from the boxes its stages hold (halos
  // included), all their copies as they lie in shared memory (src/loop/stage_layout.hpp): for
  // stages of the nest's own loops (`rows`, the tile's rows, found by name when null), not gathers
  // or collapsed loops.
  void countStages(Fragment& f, const Node* rows = nullptr) const;
  // implicitGemm, made anew.
  Fragment gemmTiles(const Node* outer, const Fragment& body, int64_t bm, int64_t bn, int64_t tm, int64_t tn) const;
  // The reduction loop `loop` (of `length` iterations) strip-mined by `depth`, `arrays` staged at the strip loop (those
  // in `transposed` transposed, those in `tabled` through offset tables), its own loop unrolled, the strip loop
  // buffered as `buffering` says.
  void stageStrips(Fragment& f, const std::string& loop, int64_t length, int64_t depth, Buffering buffering,
                   const std::vector<std::string>& arrays, const std::set<std::string>& transposed,
                   const std::set<std::string>& tabled = {}) const;
  // The workspace of reduction `node` split into `parts` takes at most kMaxSplitWorkspaceBytes.
  bool workspaceFits(const Node* node, int64_t parts) const;
  // Reduction loop `loop` (of `length` iterations) split into `parts` (the split step, its part
  // loop onto grid.z; `workspace`: its parts combined there), each part's strips of `depth` (0: not
  // staged) whole or partial in `f`'s shape.
  void splitParts(Fragment& f, const std::string& loop, int64_t length, int64_t parts, int64_t depth,
                  bool workspace) const;
  // `step` with the loops it makes named by the naming rule, against the names the kernel and
  // `f`'s steps use.
  RecipeStep named(const Fragment& f, RecipeStep step) const;
  // Interchanges that move `loop`, right outside the tile's grid loops, inside them.
  void moveInsideGrid(Fragment& f, const std::string& loop) const;

  const Kernel& kernel_;
  std::set<std::string> kernelNames_;  // every name the kernel uses
  SearchSpace space_;
  std::vector<int64_t> tensorCoreTiles_;
  GpuModel gpu_;
  CalibratedModel model_;
  std::optional<MeasuredKernels> measured_;
  mutable FragmentMemo tiled_;  // blockTile's and implicitGemm's fragments
};

}  // namespace cudaburg
