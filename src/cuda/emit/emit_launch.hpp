#pragma once
// The launch plan of a mapped kernel: its grid loops, the grid and block it runs on, the shared
// memory its blocks use, and the checks that the tree keeps to the mapped-tree model (see
// src/loop/loop_tree.hpp). The emitter writes the kernel after the plan.
#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "src/cuda/emit/emit_ranges.hpp"
#include "src/loop/loop_tree.hpp"
#include "src/target/gpu_target.hpp"

namespace cudaburg {

constexpr int64_t kStaticSharedLimit = 48 * 1024;  // more than this must be dynamic shared memory

// The type an array has in the emitted kernel: its own, or `override` for float, half, bfloat16
// and tf32 arrays.
ScalarType emittedType(const Array& array, std::optional<ScalarType> override);

struct LaunchPlan {
  // The loops the grid runs, outermost first, with the axis (0 = x) each one is on. In the naive
  // mapping they are the kernel's outermost parallel loops, each on grid and block together; past
  // three, the outer ones share the z axis, one block each: iteration (blockIdx.z / divisor) % trips.
  struct GridLoop {
    const Node* loop;
    int axis;
    int64_t divisor = 1;
    int64_t trips = 0;  // a folded loop's trip count; 0 when the loop has its axis alone
  };
  std::vector<GridLoop> gridLoops;
  bool naive = false;
  std::array<int64_t, 3> grid{1, 1, 1};
  std::array<int64_t, 3> block{1, 1, 1};
  NodePtr phases;              // what each block runs, below the grid loops
  IndexRanges gridRanges;      // the grid loops' indices
  int64_t sharedBytes = 0;     // all Shared buffers, each aligned to 16 bytes
  bool dynamicShared = false;  // over the static limit: one dynamic buffer, carved up
  // Persistent blocks (Kernel::persistentBlocks): `grid` is then the grid of tiles, which that
  // many blocks at most, launched along x, take in turn (0: a block a tile).
  int64_t persistentBlocks = 0;
  // The groups of the warpgroups that multiply, each a tile's (Kernel::pingPong: 2, taking
  // alternate tiles); a producer warpgroup follows them along block.y.
  int64_t tileGroups = 1;

  // Clusters of blocks (Kernel::clusterBlocks; 0: none) that take neighbouring tiles along grid
  // axis clusterAxis. They are launched along x, a cluster's blocks side by side.
  int64_t clusterBlocks = 0;
  int clusterAxis = 1;
  // Shared memory for the write-back of wgmma tiles by whole rows (rowSliceBytes in
  // src/idioms/tile_idiom.hpp): 2 KB for each warp that multiplies (0: none).
  int64_t rowSliceBytes = 0;
  // Registers a thread of the producer warpgroup and of the warpgroups that multiply keep once
  // they split the block's (setmaxnreg; 0: no split, every thread the compiler's count).
  int64_t producerRegisters = 0;
  int64_t consumerRegisters = 0;

  int64_t threads() const { return block[0] * block[1] * block[2]; }
  // Rows of block.y a tile's warpgroups that multiply take; the producer's row is the last.
  int64_t consumerRows() const { return (block[1] - 1) / tileGroups; }
  // What a block, or a cluster, takes at a time: the grid of tiles, or with clusters, the grid of
  // their runs of clusterBlocks tiles along clusterAxis.
  std::array<int64_t, 3> units() const {
    std::array<int64_t, 3> u = grid;
    if (clusterBlocks > 0) u[clusterAxis] /= clusterBlocks;
    return u;
  }
  int64_t unitCount() const { return units()[0] * units()[1] * units()[2]; }
  // The blocks of a cluster (1 without clusters).
  int64_t clusterSize() const { return std::max<int64_t>(clusterBlocks, 1); }
  // The grid launched: the grid of tiles (its clusters side by side along x), or the persistent
  // blocks that take its tiles (or its clusters' runs of tiles) in turn.
  std::array<int64_t, 3> launched() const {
    const std::array<int64_t, 3> u = units();
    if (persistentBlocks == 0) return {u[0] * clusterSize(), u[1], u[2]};
    return {std::min(unitCount(), persistentBlocks / clusterSize()) * clusterSize(), 1, 1};
  }
};

// The plan, or the reason the tree breaks the model.
struct LaunchPlanResult {
  std::optional<LaunchPlan> plan;
  common::Reason reason;
};

LaunchPlanResult planLaunch(const Kernel& kernel, std::optional<ScalarType> elementType);

// True when a Stage or Alloc holds its box in another order than the source's.
bool isPermuted(const std::vector<int>& layout);

// The extents a shared buffer (an Alloc) is declared with: its own, with its rows padded as
// stageRowPadding says (src/loop/stage_layout.hpp, which the search's model counts too), behind a
// leading extent of `copies` when a pipelined loop keeps several.
std::vector<int64_t> declaredExtents(const Node& alloc, int copies, std::optional<ScalarType> elementType);
// The bytes of that declaration, rounded up to 16.
int64_t declaredBytes(const Node& alloc, int copies, std::optional<ScalarType> elementType);
// The copies of its buffers a pipelined loop of `kernel` keeps (1 for any other loop); of
// `buffer`, twice as many where it is Kernel::wgmmaSplitBuffer (the low parts beside the high).
int bufferCopies(const Kernel& kernel, Mapping m, const std::string& buffer = "");

}  // namespace cudaburg
