#pragma once
// The CPU executor's Winograd convolution: a kernel the winograd step made (Kernel::winograd) runs
// with the arithmetic of F(m x m, 3 x 3) in fp32, tile by tile, as the GPU kernel computes it (bar
// the order of the transforms' additions and fused multiply-adds): the patches and filters
// transformed, the products summed over the channels in order, the sums transformed back.
#include "src/exec/buffers.hpp"
#include "src/loop/loop_tree.hpp"

namespace cudaburg {

// Runs `kernel` (with Kernel::winograd set, a nest the winograd step accepted) over `buffers`.
void executeWinograd(const Kernel& kernel, Buffers& buffers);

}  // namespace cudaburg
