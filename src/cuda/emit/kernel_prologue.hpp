#pragma once
// The declarations a kernel's body starts with: the thread, block, warp and lane coordinates
// its lines use (marked as they are named, kept where a line that stays uses them), rastered
// blocks, and the dynamic shared memory.
#include <set>
#include <string>
#include <vector>

#include "src/cuda/emit/emit_launch.hpp"
#include "src/cuda/emit/scoped_text.hpp"

namespace cudaburg::emit_internal {

// `text`'s lines two spaces further in: a persistent block's body inside its loop over tiles.
std::string indented(const std::string& text);

class KernelPrologue {
 public:
  KernelPrologue(const Kernel& kernel, const LaunchPlan& plan, const std::string& indexType)
      : kernel_(kernel), plan_(plan), index_(indexType) {}

  // The name of a thread or block coordinate, which the prologue then declares.
  std::string coordinate(const std::string& name) {
    used_.insert(name);
    return name;
  }
  // The kernel's body: the declarations of the coordinates `body` uses, `beforeTiles` (set up
  // once), then `body`, for persistent blocks inside their loop over tiles
  // (LaunchPlan::persistentBlocks), where the producer's registers are handed to the warpgroups
  // that multiply, a copy for each role (LaunchPlan::consumerRegisters).
  std::string text(const ScopedText& body, const std::vector<std::string>& beforeTiles = {});

 private:
  // The block's coordinates on the grid of tiles, from its linear number `linear` ("": blockIdx).
  std::string blockCoordinates(const std::string& linear) const;
  std::string rasteredBlocks(const std::string& linear, const std::string& x, const std::string& y)
      const;                            // block_y and block_x of a rastered grid (Kernel::rasterRows)
  std::string laneCoordinates() const;  // warps' and lanes' of tensor-core tiles
  std::string tileLoop() const;
  std::string threadIndex(int axis) const;

  const Kernel& kernel_;
  const LaunchPlan& plan_;
  const std::string index_;
  std::set<std::string> used_;
};

}  // namespace cudaburg::emit_internal
