#pragma once
// The names a nest's arrays, loops and kernel have in the CUDA it becomes. A .loop name may be a
// C++ or CUDA keyword or builtin (class, new, int, threadIdx, __global__), one of the names the
// emitter declares itself (thread_x, block_x, stage_e, ...) or one best.cu's host program uses
// (main, rng): such a name is written with the prefix "user_" (as is any name that already has
// it, so that no two names meet), everywhere the emitted code and best.cu print it. Every other
// name is written as it is.
#include <string>

#include "src/loop/loop_tree.hpp"

namespace cudaburg {

// Whether `name` cannot be written as it is in the emitted code.
bool reservedInCuda(const std::string& name);
// `name` as the emitted code writes it.
std::string cudaName(const std::string& name);
// `kernel` with every name of an array, a buffer, a loop, a size and the kernel itself replaced
// by its cudaName: what the emitter writes from.
Kernel withCudaNames(const Kernel& kernel);

}  // namespace cudaburg
