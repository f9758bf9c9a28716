#pragma once
// The declarations a kernel's body starts with: the thread, block, warp and lane coordinates
// its lines use (marked as they are named, kept where a line that stays uses them), rastered
// blocks, and the dynamic shared memory.
#include <set>
#include <string>

#include "src/cuda/emit/emit_launch.hpp"
#include "src/cuda/emit/scoped_text.hpp"

namespace cudaburg::emit_internal {

class KernelPrologue {
 public:
  KernelPrologue(const Kernel& kernel, const LaunchPlan& plan, const std::string& indexType)
      : kernel_(kernel), plan_(plan), index_(indexType) {}

  // The name of a thread or block coordinate, which the prologue then declares.
  std::string coordinate(const std::string& name) {
    used_.insert(name);
    return name;
  }
  // The declarations of the coordinates `body` uses.
  std::string text(const ScopedText& body);

 private:
  std::string rasteredBlocks() const;   // block_y and block_x of a rastered grid (Kernel::rasterRows)
  std::string laneCoordinates() const;  // warps' and lanes' of tensor-core tiles

  const Kernel& kernel_;
  const LaunchPlan& plan_;
  const std::string index_;
  std::set<std::string> used_;
};

}  // namespace cudaburg::emit_internal
