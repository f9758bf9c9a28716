#pragma once
// The model that ranks candidates before any is measured: an estimate of a kernel's time from
// its shape (the loops it tiles and their trip counts) and its parameters, with the limits of
// the GPU it will run on. It only ranks; the GPU decides. See docs/search.md.
#include <cstdint>
#include <optional>
#include <string>

#include "src/idioms/tile_idiom.hpp"
#include "src/target/gpu_model.hpp"

namespace cudaburg {

// The integer operations a gathered element takes through an offset table: the look-up, the
// offset added to its row's, the tap's bit tested in the row's mask, the select.
constexpr int64_t kTableGatherOps = 6;

// The share of the lesser of arithmetic and operand traffic that their overlap leaves visible.
constexpr double kImperfectOverlap = 0.1;

inline int64_t ceilDiv(int64_t a, int64_t b) { return a / b + (a % b > 0); }  // a + b - 1 could wrap

// One candidate's shape and parameters, as the search's building blocks decide them.
struct CandidateShape {
  int64_t rows = 1, cols = 1;  // trip counts of the two loops tiled onto the block (y, x)
  int64_t outer = 1;           // product of the parallel loops outside them (grid.z)
  int64_t serial = 1;          // product of the parallel loops each block runs in turn
  int64_t reduction = 1;       // product of the reduction loops' trip counts (one part's, when split)
  int elementBytes = 4;
  int64_t blockRows = 1, blockCols = 1;    // block tile
  int64_t threadRows = 1, threadCols = 1;  // register tile of one thread
  bool staged = false;                     // operands staged through shared memory
  int64_t stageDepth = 0;                  // reduction elements per stage
  int64_t stagedFootprint = 0;             // elements staged per stage and block (all staged arrays)
  int64_t stagedPaddingBytes = 0;          // a stage's bytes beyond its elements (stage_layout.hpp)
  int64_t split = 1;                       // reduction split into this many parts (combined atomically)
  bool workspaceSplit = false;             // the parts combined in a workspace by the last to finish instead
  bool pipelined = false;                  // stages double-buffered: the next strip loads during this one
  bool asyncCopies = false;                // stages pipelined by asynchronous copies, asyncStages buffers a stage
  int asyncStages = 3;                     // buffers a stage when asyncCopies (Kernel::asyncStages)
  bool interleaved = false;                // a stage's rows interleaved for conflict-free 128-bit reads
  bool spread = false;      // a thread's tile as runs of 4 spread across the block: the same, rows and columns
  bool transposed = false;  // operands read along the reduction staged transposed
  bool vectorized = false;  // 128-bit accesses along a thread's columns
  int64_t laneRows = 0;     // a warp's threads as laneRows x (32 / laneRows) of the block (0: rows of block.x)
  int64_t gatherOps = 0;    // integer operations a staged element takes to find its source (a gather's)
  int gatherWidth = 1;      // elements a gather copies at once (16 bytes of contiguous channels)
  bool tabled = false;      // gathers read through offset tables (gatherOps: a look-up's)
  // What the tile computes with, as the recipe step that makes it carries it: on mma.sync,
  // threadRows x threadCols is a warp's tile; on wgmma a warpgroup's (with registerA, M along the
  // columns: N = threadRows); Winograd's below.
  TileIdiom idiom;
  bool swizzled = false;         // tensor cores' stages swizzled rather than padded
  bool partialStrip = false;     // a staged reduction's last strip (of some part) is partial
  bool peeled = false;           // edges run apart: register work rounded up, whole tiles and strips unguarded
  int64_t rasterRows = 0;        // blocks numbered this many block rows at a time (0: row by row)
  bool prefetched = false;       // a strip element's staged operands read into registers an element ahead
  int64_t residentBlocks = 0;    // launch bounds asking for this many blocks a multiprocessor (0: none)
  int64_t persistentBlocks = 0;  // blocks that take the tiles in turn (0: a block a tile)
  bool pingPong = false;         // of those, two groups of the warpgroups that multiply, on alternate tiles
  // Blocks of a cluster along the rows of tiles (grid.y) and the columns (grid.x), 1 without: a
  // cluster's neighbours read the stage they share from L2 once (TMA multicast).
  int64_t clusterRows = 1, clusterCols = 1;
  // With a Winograd idiom: rows are the m x m output tiles, cols the filters, reduction the
  // channels; blockRows x blockCols a block's tiles by filters and threadRows x threadCols a
  // thread's, for each of its transformed points; stageDepth the channels a strip; pipelined: the
  // next strip prefetched into registers. With two products back to back: rows and cols are Y's,
  // reduction the first product's, `hidden` the width of the rows of H a block keeps on chip.
  int64_t hidden = 0;
  friend bool operator==(const CandidateShape&, const CandidateShape&) = default;
};

struct Estimate {
  double ns = 0;           // estimated kernel time
  std::string infeasible;  // why it cannot launch (over a limit), empty when it can
  int threads = 0, registers = 0;
  int64_t sharedBytes = 0;
  double occupancy = 0;     // resident warps / maximum
  int64_t blocksPerSm = 0;  // blocks resident on a multiprocessor at once
  // Blocks a multiprocessor would hold were ptxas held to the registers the model counts (launch
  // bounds, CandidateShape::residentBlocks).
  int64_t boundedBlocksPerSm = 0;
};

// The threads of the block: a thread, warp or warpgroup for each register tile of the block tile
// (of the loop's iterations alone where the tile is larger than its loop, unless peeled: rounded
// up to the whole tile), twice over for ping-pong groups, and a producer warpgroup where one fills
// the stages. Saturates at INT64_MAX.
int64_t blockThreads(const CandidateShape& s);
// What a thread of a wgmma tile keeps in registers: its share of the warpgroup's accumulators
// (twice, with promoted sums), fragments, descriptors and addresses.
int64_t wgmmaRegisters(const CandidateShape& s);

// The idiom's own estimate (idiom_unit.hpp) where it has one, else the tile model's.
Estimate estimate(const CandidateShape& shape, const GpuModel& gpu = {});

// The candidate's idiom, asked as the tile model asks it.
inline bool onTensorCores(const CandidateShape& s) { return onTensorCores(s.idiom); }
inline bool onWarpGroups(const CandidateShape& s) { return wgmmaOf(s.idiom) != nullptr; }

}  // namespace cudaburg
