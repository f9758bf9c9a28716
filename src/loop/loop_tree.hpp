#pragma once
// The loop tree: the subject trees of cudaburg. A Kernel holds typed arrays and one body, a
// tree of immutable nodes shared between the trees that transformations derive from it.
//
// Node kinds (and the BURG operator each one shows to a matcher, see burg_node.hpp):
//   For     one kid, its body. A loop `for (i = lower; i < min(upper...); i += step)`,
//           marked parallel / reduce / serial, and mapped (grid, block, thread-serial, ...).
//   Seq     two kids: first, then rest. Bodies of several statements are right-nested Seqs.
//   Assign  a leaf: `target = value` or `target += value`.
//   Alloc   one kid: a shared-memory or register buffer that lives over its body.
//   Stage   a leaf: copy a box of an array into a buffer (shared memory), zero outside bounds.
//           Its `layout` may hold the box transposed: empty is the natural order, else a
//           permutation where buffer dimension d holds source dimension layout[d] (for a 2-D box,
//           {1, 0}: A[i][k] staged as A_s[k][i]). The buffer's extents are the box's, permuted
//           alike; the Alloc of the buffer carries the same layout. Accesses to the buffer are
//           in buffer order (the transformation that stages permutes their subscripts).
//           A gather (a Stage with `gather` set) copies what is no box: buffer dimension d runs
//           loop index gather[d].index over origin[d] + 0..extent-1 (with the indices it derives,
//           where that loop is collapsed), and each element holds source[gatherSubscripts] at
//           those values, zero outside the source: im2col of a convolution's input. Its
//           `tableDim` may name a dimension whose offsets a table gives (src/loop/gather_table.hpp).
//   Barrier a leaf: __syncthreads() on the GPU; nothing on the CPU.
//
// A collapsed loop (For with `collapsed` set) is one loop `for (m = 0; m < t0*t1*...; m++)` that
// replaced a perfect nest of loops with constant bounds (outermost first, trip counts t0, t1, ...).
// Their indices stay in the statements as indices derived from m: the nest's loop j runs
// lower_j + step_j * d_j where d_j is digit j of m in the mixed radix (t0, t1, ...), the outermost
// digit m / (t1*t2*...) taken whole, so that values of m past the end give values past the end.
// Every loop over index m defines them, whatever strip-mining or mapping made of it (the strip
// loops of m do not). Subscripts stay affine; the executor computes the derived indices exactly,
// the emitter once where m is set (see collapsedIndex below).
//
// A mapped tree keeps sequential semantics (the CPU executor runs it as written) and says how
// the GPU runs it. This model is the contract between transformations, executor and emitter:
//  1. Grid-mapped loops are outermost, each on its own grid.x/y/z, with constant bounds:
//     gridDim = ceil((upper - lower) / step), index = lower + blockIdx * step.
//  2. Below them, a block's work is a sequence of phases: block-mapped loop nests, Stages
//     (cooperative copies by all the block's threads), Barriers, Allocs and uniform serial loops
//     (every thread runs them, e.g. the loop over k-tiles) that hold further phases.
//  3. A block-mapped loop runs its body once per thread: index = lower + threadIdx * step,
//     guarded by index < min(upper...). Block loops split by fission reuse the same index names
//     and trip counts, so they land on the same threads. Barriers sit only outside block loops.
//  4. A Register buffer is private to a thread: it is declared without the thread dimensions and
//     used only inside block loops; the executor keeps one copy per combination of the enclosing
//     block-loop indices. A Shared buffer is one per block.
//  5. ThreadSerial: a plain loop in the thread. Unrolled: a loop with a constant trip count,
//     fully unrolled. Vector: a loop of 2 or 4 contiguous elements done as one wide access.
//  6. Pipelined: a uniform serial loop whose body is shared buffers around Stages, a Barrier,
//     the work on the buffers and a closing Barrier. The GPU double-buffers it: each iteration
//     loads the next iteration's stages into registers while it works on this one's, then
//     stores them into the other half of each buffer (one barrier an iteration). Its meaning
//     is the plain loop's. AsyncPipelined: the same shape, with Kernel::asyncStages copies of
//     each buffer filled by asynchronous copies (cp.async, sm_80 and later) issued one fewer
//     iterations ahead, which hold no registers while they fly.
//  7. Warp tiles (Kernel::warpTiles, made by the mma step): each iteration of the block loops is a
//     warp of 32 threads, not a thread. A Register buffer R[M][N] is then a warp's tile of
//     accumulators, held by its lanes as mma.sync's fragments, and every statement in the block
//     loops lies in a Mma loop: `i (mma) { j { S } }` over a 16 x 8 tile of R, each lane doing its
//     four elements of S, or `i (mma) { j { k { R += A * B } } }`, one mma.sync instruction of the
//     warp (m16n8k16 for half and bfloat16, m16n8k8 for tf32 operands). In meaning both are the
//     plain loops, which the CPU executor runs. With Kernel::warpGroupTiles (the wgmma step) an
//     iteration of the block loops is a warpgroup of 4 warps, the tiles are 64 rows high (warp w
//     of the group holding rows 16w to 16w + 15 of each, as mma.sync's C) and an accumulation
//     tile `i (mma) { j { k { R += A * B } } }` of 64 x N x 16 is one wgmma.mma_async of the
//     group, its operands read from shared buffers by descriptors.
//  8. Peeled loops (Kernel::peeled) run their edges apart on the GPU. A peeled grid loop: the
//     blocks whose whole strip lies inside the bounds run a copy of the block's work with the
//     guards that only the edge could need left out; the others run it guarded (one branch a
//     block, on blockIdx: uniform). A peeled uniform serial loop (a reduction's strip loop): its
//     whole iterations run as a loop without those guards, the last, partial one after it.
//     Only how the GPU runs them changes: the meaning is the plain loops'.
//  9. Prefetched loops (Kernel::prefetched): an unrolled loop whose iterations read shared
//     buffers keeps two register copies of what one iteration reads, and fills the next
//     iteration's while this one's work uses the other; the only loop of a Pipelined strip loop's
//     work reads the next strip's first right after the strip's barrier, which comes before the
//     last iteration's work. Only how the GPU runs it changes: the meaning is the plain loop's.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/source.hpp"
#include "src/idioms/tile_idiom.hpp"
#include "src/loop/winograd.hpp"

namespace cudaburg {

using common::SourceLoc;

// BFloat16 and TF32 (a float array whose reads are rounded to TF32): see scalar_types.hpp.
enum class ScalarType { Float, Double, Half, Int, BFloat16, TF32 };
const char* scalarTypeName(ScalarType t);  // "float", "double", "half", "int", "bfloat16", "tf32"
const char* cudaTypeName(ScalarType t);    // "float", "double", "__half", "int", "__nv_bfloat16", "float"
int scalarTypeBytes(ScalarType t);

// sum(coef * index) + constant over loop indices; sizes are folded to constants at parse time.
struct Affine {
  std::map<std::string, int64_t> terms;  // index name -> coefficient, never 0
  int64_t constant = 0;

  Affine() = default;
  explicit Affine(int64_t c) : constant(c) {}
  static Affine var(const std::string& name, int64_t coef = 1);

  bool isConstant() const { return terms.empty(); }
  int64_t coef(const std::string& name) const;
  bool uses(const std::string& name) const { return terms.count(name) != 0; }
  // Replaces `name` by `by` (substitution of an index by an affine expression).
  Affine substitute(const std::string& name, const Affine& by) const;
  int64_t eval(const std::map<std::string, int64_t>& env) const;  // missing names count as 0
  std::string str() const;                                        // "2*i + j - 1", "0"

  friend Affine operator+(const Affine& a, const Affine& b);
  friend Affine operator-(const Affine& a, const Affine& b);
  friend Affine operator*(const Affine& a, int64_t k);
  friend bool operator==(const Affine& a, const Affine& b) { return a.terms == b.terms && a.constant == b.constant; }
  friend bool operator!=(const Affine& a, const Affine& b) { return !(a == b); }
};

enum class MemorySpace { Global, Shared, Register };

// A kernel parameter (Global) or a buffer introduced by a transformation (Shared, Register).
struct Array {
  std::string name;
  ScalarType type = ScalarType::Float;
  std::vector<int64_t> extents;
  MemorySpace space = MemorySpace::Global;
  bool input = false;       // declared `const`: read only
  bool zeroPadded = false;  // declared `padded`: reads outside the extents yield 0
  // Shared buffers: rows stored interleaved (0: in order). Each run of `interleave` elements of a
  // row is cut into pieces of 4, and piece q of run r lies at q * (row / interleave * 4) + r * 4:
  // threads that each read their own run 4 elements at a time read side by side, without bank
  // conflicts. Only where the GPU stores the row changes; subscripts stay logical.
  int64_t interleave = 0;
  // Shared buffers: elements left unused at the end of each row where the GPU stores it (0: none;
  // a buffer in a permuted layout gets 16 bytes when none is given), so that threads reading down
  // a column, or the eight rows an ldmatrix reads, fall in different banks. Subscripts stay logical.
  int64_t padding = 0;
  // Shared buffers: each row's 16-byte chunks stored in an order that depends on the row
  // (src/loop/swizzle.hpp), so that the same reads and copies meet no bank conflicts without
  // padding. Subscripts stay logical.
  bool swizzled = false;
  // Shared buffers of two dimensions: the rows cut into slabs of `slab` columns, stored one slab
  // after another, [column / slab][row][column % slab] (0: rows whole), each slab's rows swizzled
  // as rows of their own: the layout wgmma reads an operand in whose rows run along N (a slab of
  // 64 16-bit elements is one 128-byte swizzle atom wide). Subscripts stay logical.
  int64_t slab = 0;
  SourceLoc loc;

  int64_t elements() const;
};

// A local scalar of the .loop language (`float acc = 0;`): a register buffer of no extents, whose
// Alloc is its scope, so that each iteration of the loops around it has its own.
inline bool isLocalScalar(const Array& a) { return a.space == MemorySpace::Register && a.extents.empty(); }

struct Access {
  std::string array;
  std::vector<Affine> subscripts;
  std::string str() const;  // "A[i][k]"
};

struct Expr;
using ExprPtr = std::shared_ptr<const Expr>;

// Right-hand sides: constants, index values, loads, + - * /, and calls of the math functions of
// src/loop/math_functions.hpp (min, max, exp, tanh, ...).
struct Expr {
  enum class Kind { Constant, Index, Load, Binary, Call };
  Kind kind = Kind::Constant;
  double value = 0;           // Constant
  Affine index;               // Index: the value of an affine expression of indices
  Access load;                // Load
  char op = '+';              // Binary: + - * /
  std::string callee;         // Call: a math function's name ("min", "exp", ...)
  std::vector<ExprPtr> args;  // Binary: 2; Call: the function's arity

  static ExprPtr constant(double v);
  static ExprPtr indexValue(Affine a);
  static ExprPtr read(Access a);
  static ExprPtr binary(char op, ExprPtr l, ExprPtr r);
  static ExprPtr call(std::string callee, ExprPtr l, ExprPtr r);
  static ExprPtr call(std::string callee, std::vector<ExprPtr> args);
  std::string str() const;
};

enum class LoopKind { Parallel, Reduce, Serial };
const char* loopKindName(LoopKind k);  // "parallel", "reduce", "serial"

// Where a loop runs on the GPU. None: not yet decided (runs as a plain loop in the thread).
// Mma: a warp's tensor-core tile (rule 7 of the model above).
enum class Mapping {
  None,
  GridX,
  GridY,
  GridZ,
  BlockX,
  BlockY,
  BlockZ,
  ThreadSerial,
  Unrolled,
  Vector,
  Pipelined,
  AsyncPipelined,
  Mma
};
// "none", "grid.x", ..., "block.z", "serial", "unroll", "vector", "pipelined", "async", "mma"
const char* mappingName(Mapping m);
bool isPipelined(Mapping m);  // Pipelined or AsyncPipelined
// The buffers an AsyncPipelined loop keeps of each stage unless the recipe says otherwise
// (Kernel::asyncStages): two iterations in flight, one in use.
constexpr int kAsyncStages = 3;
constexpr int kMaxAsyncStages = 6;
// The most a split reduction's workspace (its parts' sums of every output) may take.
constexpr int64_t kMaxSplitWorkspaceBytes = int64_t{256} << 20;
bool isGridMapping(Mapping m);
bool isBlockMapping(Mapping m);

struct Node;
using NodePtr = std::shared_ptr<const Node>;

enum class NodeKind { For, Seq, Assign, Alloc, Stage, Barrier };

// One loop of a collapsed nest: its index, first value, step and trip count.
struct CollapsedLoop {
  std::string index;
  int64_t lower = 0;
  int64_t step = 1;
  int64_t trips = 1;
  friend bool operator==(const CollapsedLoop& a, const CollapsedLoop& b) {
    return a.index == b.index && a.lower == b.lower && a.step == b.step && a.trips == b.trips;
  }
};

// A dimension of a gather: the loop index it runs, and the loops that index collapses, if any.
struct GatherDim {
  std::string index;
  std::vector<CollapsedLoop> collapsed;
  friend bool operator==(const GatherDim& a, const GatherDim& b) {
    return a.index == b.index && a.collapsed == b.collapsed;
  }
};

// The values of the derived indices of a collapsed loop whose index has value `value`, in the
// order of `loops` (outermost first).
std::vector<int64_t> derivedValues(const std::vector<CollapsedLoop>& loops, int64_t value);
// The product of the trip counts after loop j: what digit j of the collapsed index is counted in.
int64_t digitStride(const std::vector<CollapsedLoop>& loops, size_t j);
// The trips of the loop that collapses `loops`: its index runs from 0 to this, exclusive.
int64_t collapsedTrips(const std::vector<CollapsedLoop>& loops);
// Whether an affine expression uses loop `loop`'s index or an index derived from it.
bool usesLoop(const Affine& a, const Node& loop);

struct Node {
  NodeKind kind;

  // For
  std::string index;
  Affine lower;
  std::vector<Affine> upper;  // exclusive; the bound is the minimum of all of them
  int64_t step = 1;
  LoopKind loopKind = LoopKind::Serial;
  Mapping mapping = Mapping::None;
  std::vector<CollapsedLoop> collapsed;  // a collapsed loop: the loops it replaced, outermost first

  // Assign
  Access target;
  bool accumulate = false;  // `+=` rather than `=`
  bool atomic = false;      // accumulate with an atomic add (a split reduction's combine)
  ExprPtr value;

  // Alloc: the buffer; Stage: the buffer (`buffer`) filled from `source` over a box
  Array buffer;
  std::string source;          // Stage: the array copied from
  std::vector<Affine> origin;  // Stage: the box's first element in `source`, per dimension
  // Stage and Alloc: buffer dimension d holds source dimension layout[d]; empty: the natural order
  std::vector<int> layout;
  std::vector<GatherDim> gather;         // Stage: a gather's dimensions (empty: a box)
  std::vector<Affine> gatherSubscripts;  // Stage: the element of `source` a gather reads
  // Stage: the gather dimension whose source offsets a table gives (gather_table.hpp; -1: none).
  // Only how the GPU finds the elements changes: the gather copies the same.
  int tableDim = -1;

  std::vector<NodePtr> kids;  // For: {body}; Seq: {first, rest}; Alloc: {body}; leaves: {}
  SourceLoc loc;

  const NodePtr& body() const { return kids.at(0); }
};

// Builders: every node is made through these so that trees stay well formed.
NodePtr makeFor(std::string index, Affine lower, std::vector<Affine> upper, int64_t step, LoopKind kind, NodePtr body,
                Mapping mapping = Mapping::None, SourceLoc loc = {});
NodePtr makeAssign(Access target, ExprPtr value, bool accumulate, SourceLoc loc = {});
NodePtr makeAlloc(Array buffer, NodePtr body);
NodePtr makeStage(Array buffer, std::string source, std::vector<Affine> origin, std::vector<int> layout = {});
// The source dimension that buffer dimension d of a Stage holds (d itself for the natural order).
int layoutSource(const Node& stage, size_t d);
NodePtr makeBarrier();
// A sequence of statements as right-nested Seq nodes; one statement is returned as it is.
NodePtr makeSeq(const std::vector<NodePtr>& stmts);
// The statements of a (possibly nested) Seq, in order; a non-Seq node gives itself.
std::vector<NodePtr> flattenSeq(const NodePtr& node);
// A copy of `node` with other kids (the same kind and attributes).
NodePtr withKids(const NodePtr& node, std::vector<NodePtr> kids);

// A kernel: the algorithm of a .loop file with all sizes bound.
struct Kernel {
  std::string name;
  std::vector<std::pair<std::string, int64_t>> sizes;  // in declaration order, after -D
  std::vector<Array> params;                           // global arrays, in parameter order
  NodePtr body;
  std::string sourceName;  // the .loop file it came from
  // Outputs to set to zero before the kernel runs: the combine of a split reduction, whose
  // parts accumulate into them atomically.
  std::vector<std::string> zeroFirst;
  // The part loop of a split reduction whose parts' sums meet in a workspace instead of
  // atomically (split ... workspace): each part stores its register tile's sums there, and the
  // last part of a tile to finish adds them all, in the parts' order, into the outputs, which then
  // need no zeroing and take no atomics. Only how the GPU runs it changes ("" : atomically).
  std::string workspaceSplit;
  // How the 32 threads of a warp cover the block's 2-D grid of threads: laneRows values of the
  // block.y loop by laneCols of block.x, so that a warp reads few rows and few columns of the
  // staged operands (0, 0: as CUDA numbers threads, a warp along block.x first). Only the order
  // of parallel iterations changes: the kernel computes the same.
  int64_t laneRows = 0, laneCols = 0;
  // The blocks of a 2-D grid numbered in groups of rasterRows block rows (grid.y), each group's
  // blocks column by column, so that the blocks resident at once read few rows and columns of the
  // operands (0: as CUDA numbers blocks, row by row). Only the order of blocks changes.
  int64_t rasterRows = 0;
  // Blocks that stay on the GPU and take the tiles of the grid.y x grid.x grid in turn: the launch
  // has min(tiles, persistentBlocks) blocks, block b running tiles b, b + that, ... (0: a block a
  // tile). A producer warpgroup then fills the next tile's stages while the warpgroups that
  // multiply write the last one back. Only how the GPU runs the tiles changes.
  int64_t persistentBlocks = 0;
  // Of persistent blocks: the warpgroups that multiply twice over, two groups that take alternate
  // tiles (ping-pong), so that one group's write-back runs while the other multiplies. The
  // producer fills the strips of both in the order of the tiles.
  bool pingPong = false;
  // Blocks launched in clusters of clusterBlocks (2; 0: none) that take neighbouring tiles along
  // grid axis clusterAxis (0 = x, 1 = y): a stage whose box does not depend on that axis's tile is
  // the same for both, and each block's Tensor Memory Accelerator copies half of it into both
  // blocks' shared memory at once (multicast), so that L2 serves it once. The blocks then free each
  // buffer together (their barriers count both blocks' readers). Only how the GPU runs it changes.
  int64_t clusterBlocks = 0;
  int clusterAxis = 1;
  // What the tiles compute with (src/idioms/tile_idiom.hpp), set by the step that makes them:
  // SIMT, each iteration of the block loops a thread; mma.sync (the mma step), each a warp (rule 7
  // above); wgmma (the wgmma step), each a warpgroup of 4 warps (128 threads) whose accumulation
  // tiles are wgmma instructions. Of a wgmma tile: the groups issued in each iteration of the
  // pipelined loop around them, `pending` (0 or 1) of them left in flight when the next iteration
  // starts (its copies are then issued one fewer iterations ahead, so that no copy overwrites a
  // buffer a wgmma in flight reads). `producer`: one more warpgroup of the block (the last along
  // block.y) fills the stages of the pipelined loop by itself while the others multiply; full and
  // empty barriers (mbarriers) a buffer say when a strip has landed and when its readers are done
  // with it, so that all the buffers but the one being read can be in flight; with the Tensor
  // Memory Accelerator, one thread of it fills each copy of the stages (cp.async.bulk.tensor), a
  // box a copy or a slab, through a tensor map of each staged array the launch passes
  // (CudaKernel::tensorMaps). `registerA`: the instruction's M runs along the register tile's
  // columns (its loops and register buffers interchanged by the wgmma step, so that the
  // accumulators hold C transposed), and its A operand, the MN-major array read along them, comes
  // from registers that each thread loads from the array's stage (in its natural layout) with
  // ordinary shared-memory loads: the one way wgmma multiplies a 32-bit operand that is not
  // K-major; the other operand is read by descriptor, K-major. `splitBuffer`: with registerA and
  // float operands computed as three tf32 products (tf32x3), the stage read by descriptor, each of
  // whose copies has a second copy beside it (copy asyncStages + s beside copy s) where the
  // producer warpgroup puts the low tf32 parts of a landed strip, its high parts written in place
  // ("" otherwise); each product is computed to within about 2^-21 of itself (wgmmaTile in
  // transforms.hpp). `promote`: with splitBuffer, the strips of the pipelined loop whose products
  // the tensor cores sum in a second set of accumulators before those are added into the first in
  // fp32 (0: the tensor cores add into the first set directly); the tensor cores truncate as they
  // add, the same way for each strip: sums kept short, each added with fp32's rounding, keep that
  // error from growing with K. Winograd (the winograd step): the whole nest, a 2-D convolution,
  // computed with Winograd's transforms (src/loop/winograd.hpp), the tree left as written; the
  // CPU executor and the emitter compute it with the same arithmetic; no other step may follow.
  // Back to back (the b2b step): a body of two products in a row, the second reading the hidden
  // rows the first writes, computed by one kernel that keeps a block's hidden rows on chip
  // (src/idioms/back_to_back/), the tree left as written; no other step may follow.
  // Only how the GPU runs a tile changes: the meaning is the tree's.
  TileIdiom tile;
  // Asked of `tile`: warps (mma.sync or wgmma), the wgmma tile's parts (their defaults off
  // wgmma) and the Winograd tiling (nullptr off Winograd).
  bool warpTiles() const { return onTensorCores(tile); }
  const WgmmaTile* warpGroupTiles() const { return wgmmaOf(tile); }
  int wgmmaPending() const { return warpGroupTiles() ? warpGroupTiles()->pending : kWgmmaPending; }
  bool wgmmaProducer() const { return warpGroupTiles() && warpGroupTiles()->producer != WgmmaProducer::None; }
  bool wgmmaTma() const { return warpGroupTiles() && warpGroupTiles()->producer == WgmmaProducer::Tma; }
  bool wgmmaRegisterA() const { return warpGroupTiles() && warpGroupTiles()->registerA; }
  std::string wgmmaSplitBuffer() const { return warpGroupTiles() ? warpGroupTiles()->splitBuffer : ""; }
  int wgmmaPromote() const { return warpGroupTiles() ? warpGroupTiles()->promote : 0; }
  // Tensor-core tiles of k 8 read float operands as tf32, one product each (--precision tf32),
  // unless tf32x3 splits them into three.
  bool floatsAsTf32() const {
    const MmaTile* mma = std::get_if<MmaTile>(&tile);
    const WgmmaTile* wgmma = warpGroupTiles();
    return (mma && mma->k == 8) || (wgmma && wgmma->k == 8 && !wgmma->tf32x3);
  }
  const WinogradTiling* winograd() const { return winogradOf(tile) ? &winogradOf(tile)->tiling : nullptr; }
  const BackToBackTile* backToBack() const { return backToBackOf(tile); }
  // The buffers of each stage an AsyncPipelined loop keeps (2 to kMaxAsyncStages): its copies are
  // issued asyncStages - 1 iterations ahead. Only how the GPU runs it changes.
  int asyncStages = kAsyncStages;
  // Loops run with their edges apart (rule 8 above), by index: grid loops and uniform serial
  // loops. Only how the GPU runs them changes: the kernel computes the same.
  std::vector<std::string> peeled;
  // Blocks that must fit on a multiprocessor at once (0: as many as the registers ptxas chooses
  // allow): the kernel's launch bounds, under which ptxas keeps each thread's registers within
  // what that many blocks leave it. Only how the GPU runs it changes.
  int64_t residentBlocks = 0;
  // Unrolled loops that read their shared operands one iteration ahead (rule 9 above), by index.
  // Only how the GPU runs them changes.
  std::vector<std::string> prefetched;

  const Array* findParam(const std::string& name) const;
  int64_t size(const std::string& name) const;  // -1 when unknown
  // The same kernel with another body (what transformations return).
  Kernel withBody(NodePtr newBody) const;
};

// A loop's lower bound and the least of its upper bounds, when all of them are constants.
bool constantBounds(const Node& loop, int64_t& lower, int64_t& upper);

// Why warps of `rows` x `cols` threads (Kernel::laneRows, laneCols) cannot cover a block of
// `threadsY` x `threadsX` threads, or "" when they can: the two must be powers of two whose
// product is 32, and divide the block's sides (threads 0 leaves the block out of the check).
std::string warpLanesProblem(int64_t rows, int64_t cols, int64_t threadsY = 0, int64_t threadsX = 0);

}  // namespace cudaburg
