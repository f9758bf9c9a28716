#pragma once
// The CPU executor's two products back to back: a kernel the b2b step made (Kernel::backToBack)
// runs block by block as the GPU kernel is cut, in fp32: the first product's sums over the
// reduction in order, its epilogue applied; then, for each block of rows, those rows of H alone
// copied into the block's tile, the second product's sums read from the tile, Y's columns a block
// tile at a time, and its epilogue. The epilogues are element-wise, so applying each after its
// product's sums are all stored computes what the kernel computes element by element.
#include "src/exec/buffers.hpp"
#include "src/loop/loop_tree.hpp"

namespace cudaburg {

// Runs `kernel` (with Kernel::backToBack set, a pair the b2b step accepted) over `buffers`.
void executeBackToBack(const Kernel& kernel, Buffers& buffers);

}  // namespace cudaburg
