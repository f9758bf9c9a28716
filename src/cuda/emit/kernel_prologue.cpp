#include "src/cuda/emit/kernel_prologue.hpp"

#include <algorithm>
#include <iterator>

#include "src/cuda/emit/wgmma_descriptor.hpp"

namespace cudaburg::emit_internal {
namespace {

const char* kAxis[3] = {"x", "y", "z"};

}  // namespace

std::string indented(const std::string& text) {
  std::string out;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    if (end > at) out += "  ";
    out.append(text, at, end - at + 1);
    at = end + 1;
  }
  return out;
}

std::string KernelPrologue::text(const ScopedText& body, const std::vector<std::string>& beforeTiles) {
  std::string out;
  // Only the coordinates the body still uses (declarations of unused indices were left out).
  for (auto it = used_.begin(); it != used_.end();) it = body.uses(*it) ? std::next(it) : used_.erase(it);
  bool bodyUsesZ = used_.count("thread_z") > 0;
  if (used_.count("thread_rank"))
    for (const char* a : kAxis) used_.insert(std::string("thread_") + a);
  if (kernel_.laneRows > 0 && (used_.count("thread_x") || used_.count("thread_y"))) {
    // Warps arranged laneRows x laneCols over the block's threads: the hardware's linear thread
    // number, split into the warp (placed row-major over the block) and the lane within it.
    std::string across = std::to_string(plan_.block[0] / kernel_.laneCols), cols = std::to_string(kernel_.laneCols);
    out += "  const int thread_rank = threadIdx.x + " + std::to_string(plan_.block[0]) + " * threadIdx.y;\n";
    out += "  const int thread_y = (thread_rank >> 5) / " + across + " * " + std::to_string(kernel_.laneRows) +
           " + (thread_rank & 31) / " + cols + ";\n";
    out += "  const int thread_x = (thread_rank >> 5) % " + across + " * " + cols + " + (thread_rank & 31) % " + cols +
           ";\n";
    if (bodyUsesZ) out += "  const int thread_z = 0;\n";
    used_.erase("thread_rank");  // declared here, not from thread_x and thread_y below
  } else {
    for (int a = 0; a < 3; ++a) {
      std::string t = std::string("thread_") + kAxis[a];
      if (used_.count(t)) out += "  const " + index_ + " " + t + " = " + threadIndex(a) + ";\n";
    }
  }
  const bool persistent = plan_.persistentBlocks > 0;
  // A cluster's blocks lie side by side along x: a block's rank in it picks its tile of their run.
  if (plan_.clusterBlocks > 0)
    out += "  const unsigned cluster_rank = blockIdx.x % " + std::to_string(plan_.clusterBlocks) + "u;\n";
  if (!persistent) out += blockCoordinates("");
  if (used_.count("thread_rank"))
    out += "  const int thread_rank = thread_x + " + std::to_string(plan_.block[0]) + " * (thread_y + " +
           std::to_string(plan_.block[1]) + " * thread_z);\n";
  if (kernel_.warpTiles()) out += laneCoordinates();
  if (plan_.dynamicShared)
    out += "  extern __shared__ __align__(" + std::to_string(kernel_.warpGroupTiles() ? kWgmmaAtomBytes : 16) +
           ") unsigned char shared_memory[];\n";
  for (const std::string& l : beforeTiles) out += "  " + l + "\n";
  std::string work = body.str();
  if (persistent) work = tileLoop() + indented(work) + "  }\n";
  if (plan_.consumerRegisters > 0) {
    // The roles split before the tiles, each with its own copy of the work, so that the compiler
    // sees which code runs with which registers (of each copy, what the other role runs is dead).
    const std::string producer = std::to_string(plan_.block[1] - 1);
    work = "  if (threadIdx.y == " + producer + ") {  // the producer warpgroup: its registers handed to the others\n" +
           "    warpgroup_registers_fewer<" + std::to_string(plan_.producerRegisters) + ">();\n" + indented(work) +
           "  } else {  // the warpgroups that multiply, with the producer's registers\n" +
           "    warpgroup_registers_more<" + std::to_string(plan_.consumerRegisters) + ">();\n" + indented(work) +
           "  }\n";
  }
  return out + work;
}

// The head of a persistent block's loop over tiles (LaunchPlan::persistentBlocks) and the
// coordinates of its tile.
std::string KernelPrologue::tileLoop() const {
  std::string out;
  out += "  // persistent: the block takes tile after tile of the " + std::to_string(plan_.grid[1]) + " x " +
         std::to_string(plan_.grid[0]) + " grid, its turns numbered from 0\n";
  if (plan_.tileGroups > 1) {
    // Ping-pong: the groups of the warpgroups that multiply take alternate tiles; the producer
    // (the last row of block.y) fills the strips of all of them, in the order of the tiles.
    const std::string rows = std::to_string(plan_.consumerRows() * plan_.tileGroups),
                      groups = std::to_string(plan_.tileGroups);
    out += "  // ping-pong: " + groups + " groups of the warpgroups that multiply take alternate tiles\n";
    const std::string group =
        plan_.consumerRows() > 1 ? "threadIdx.y / " + std::to_string(plan_.consumerRows()) + "u" : "threadIdx.y";
    out += "  const unsigned tile_group = threadIdx.y < " + rows + " ? " + group + " : 0u;\n";
    out += "  const unsigned tile_stride = threadIdx.y < " + rows + " ? " + groups + "u : 1u;\n";
    out += "  for (unsigned block_tile = blockIdx.x + tile_group * gridDim.x, tile_turn = tile_group; block_tile < " +
           std::to_string(plan_.unitCount()) +
           "u; block_tile += tile_stride * gridDim.x, tile_turn += tile_stride) {\n";
  } else {
    // A cluster's blocks take their run of tiles together: they count the launch's clusters.
    const std::string c = plan_.clusterBlocks > 0 ? " / " + std::to_string(plan_.clusterBlocks) + "u" : "";
    out += "  for (unsigned block_tile = blockIdx.x" + c + ", tile_turn = 0; block_tile < " +
           std::to_string(plan_.unitCount()) + "u; block_tile += gridDim.x" + c + ", ++tile_turn) {\n";
  }
  out += indented(blockCoordinates("block_tile"));
  return out;
}

// A thread's place along block axis `a` in its tile: with ping-pong groups (LaunchPlan::tileGroups),
// each group's rows of block.y start from 0, and the producer's row follows them (past the tile, so
// that the guards of what the tile's warpgroups run leave it out).
std::string KernelPrologue::threadIndex(int a) const {
  if (a == 1 && plan_.tileGroups > 1) {
    const int64_t rows = plan_.consumerRows();
    const std::string producer = std::to_string(plan_.block[1] - 1);
    return "(threadIdx.y == " + producer + " ? " + std::to_string(rows) + " : " +
           (rows > 1 ? "threadIdx.y % " + std::to_string(rows) : std::string("0")) + ")";
  }
  return plan_.block[a] > 1 ? std::string("threadIdx.") + kAxis[a] : "0";
}

// The block's tile: its coordinates in the grid of what a block (or a cluster) takes at a time
// (LaunchPlan::units), numbered from the launch's blocks, or from `linear` (a persistent block's
// turn); with clusters, the coordinate along the cluster's axis is the cluster's run of tiles, of
// which the block takes the one of its rank.
std::string KernelPrologue::blockCoordinates(const std::string& linear) const {
  std::string out;
  const std::array<int64_t, 3> units = plan_.units();
  const bool clustered = plan_.clusterBlocks > 0;
  const std::string cluster = std::to_string(plan_.clusterBlocks);
  auto name = [&](int a) {
    return std::string(clustered && a == plan_.clusterAxis ? "cluster_" : "block_") + kAxis[a];
  };
  auto used = [&](int a) { return used_.count(std::string("block_") + kAxis[a]) > 0; };
  bool rastered = kernel_.rasterRows > 0 && !plan_.naive && units[0] > 1 && units[1] > 1 && (used(0) || used(1));
  if (rastered) out += rasteredBlocks(linear, name(0), name(1));
  for (int a = rastered ? 2 : 0; a < 3; ++a) {
    if (!used(a)) continue;
    std::string value = units[a] > 1 ? std::string("blockIdx.") + kAxis[a] : "0";
    if (a == 0 && clustered && units[0] > 1) value = "blockIdx.x / " + cluster + "u";  // the cluster's
    if (!linear.empty() && units[a] > 1)  // a persistent block's tile, row by row
      value = "block_tile " + std::string(a == 0 ? "% " : "/ ") + std::to_string(units[0]) + "u";
    out += "  const " + index_ + " " + name(a) + " = " + value + ";\n";
  }
  if (clustered && used(plan_.clusterAxis)) {
    const std::string a = kAxis[plan_.clusterAxis];
    out += "  const " + index_ + " block_" + a + " = " + cluster + " * cluster_" + a + " + cluster_rank;\n";
  }
  return out;
}

// Blocks rastered (Kernel::rasterRows): the hardware's linear block number over grid.x and
// grid.y (with clusters, the cluster's over the grid of their runs of tiles) cut into groups of
// rasterRows rows (the last group may have fewer), each group's blocks taken column by column, so
// that the blocks resident at once cover a few rows and columns of tiles and share what they read
// in L2. A permutation of the blocks: grid.z keeps its own. The coordinates are named `x` and `y`.
std::string KernelPrologue::rasteredBlocks(const std::string& linear, const std::string& x,
                                           const std::string& y) const {
  const std::array<int64_t, 3> units = plan_.units();
  int64_t gridX = units[0], gridY = units[1], rows = std::min(kernel_.rasterRows, gridY);
  // Unsigned: ptxas spilled a small kernel's registers over the same arithmetic in int.
  bool wide = gridX * gridY > 4294967295LL;
  std::string type = wide ? "unsigned long long" : "unsigned", u = wide ? "ull" : "u";
  auto constant = [&](int64_t n) { return std::to_string(n) + u; };
  std::string group = constant(rows * gridX), g = constant(rows);
  std::string out =
      "  // blocks numbered " + std::to_string(rows) + " block rows at a time, column by column (rastered)\n";
  const std::string blockX =
      plan_.clusterBlocks > 0 ? "blockIdx.x / " + std::to_string(plan_.clusterBlocks) + "u" : "blockIdx.x";
  out += "  const " + type +
         " block_linear = " + (linear.empty() ? blockX + " + " + constant(gridX) + " * blockIdx.y" : linear) + ";\n";
  out += "  const " + type + " block_group = block_linear / " + group + ";\n";
  out += "  const " + type + " block_in_group = block_linear - block_group * " + group + ";\n";
  std::string yValue = "block_in_group % " + g, xValue = "block_in_group / " + g;
  if (gridY % rows != 0) {  // the last group's rows are fewer (constants: a division by a variable is a call)
    std::string last = constant(gridY % rows);
    out += "  const bool block_last_group = block_group == " + constant(gridY / rows) + ";\n";
    yValue = "(block_last_group ? block_in_group % " + last + " : " + yValue + ")";
    xValue = "(block_last_group ? block_in_group / " + last + " : " + xValue + ")";
  }
  out += "  const " + index_ + " " + y + " = block_group * " + g + " + " + yValue + ";\n";
  out += "  const " + index_ + " " + x + " = " + xValue + ";\n";
  return out;
}

std::string KernelPrologue::laneCoordinates() const {
  std::string out;
  // In warpgroup tiles an iteration of the block loops is 4 warps, 128 threads along x.
  const int64_t unit = kernel_.warpGroupTiles() ? 128 : 32;
  std::string shift = unit == 128 ? "7" : "5";
  if (used_.count("warp_x"))
    out += "  const int warp_x = " + (plan_.block[0] > unit ? "threadIdx.x >> " + shift : std::string("0")) + ";\n";
  if (used_.count("warp_y")) out += "  const int warp_y = " + threadIndex(1) + ";\n";
  if (used_.count("warp_z"))
    out += "  const int warp_z = " + std::string(plan_.block[2] > 1 ? "threadIdx.z" : "0") + ";\n";
  out += "  const int mma_lane = threadIdx.x & 31;\n";
  out += "  const int mma_g = mma_lane >> 2, mma_t = mma_lane & 3;  // a lane's group and place in it\n";
  if (kernel_.warpGroupTiles())
    out += "  const int mma_w = (threadIdx.x >> 5) & 3;  // the warp's place in its warpgroup\n";
  if (kernel_.wgmmaRegisterA())
    out +=
        "  const int mma_wh = mma_w >> 1, mma_wl = mma_w & 1, mma_gh = mma_g >> 2, mma_gl = mma_g & 3;  // their "
        "bits\n";
  return out;
}

}  // namespace cudaburg::emit_internal
