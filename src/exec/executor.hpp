#pragma once
// Runs a kernel, transformed or not, sequentially on the CPU: the reference that proves
// transformations correct. The tree runs as written (mapped loops in order), with the model of
// loop_tree.hpp for what the mapping changes:
//  - a Register buffer has one copy a thread: the copy is chosen by the values of the enclosing
//    block-mapped loops' indices (by dimension x, y, z);
//  - a Shared buffer is one array; Stage copies its box (in the Stage's layout), zero outside
//    the source's extents;
//  - a collapsed loop sets the indices derived from its own at every iteration;
//  - Barrier does nothing; an atomic `+=` is a `+=`; Kernel::zeroFirst arrays start at zero;
//  - buffers start as NaN, so reading an element never written shows in the results.
// Arithmetic follows the target's element type: for float (and half, bfloat16, tf32) targets every
// operation is rounded to float, in the tree's order, as a float GPU kernel computes it (bar fused
// multiply-adds, which a tolerance covers), and the result is stored rounded to the target's type;
// a read of a tf32 array yields its element rounded to TF32 (src/loop/scalar_types.hpp); int
// targets compute exactly, `/` truncating.
// Reading a non-padded array out of its extents, or writing outside any array, is an error.
// A kernel the winograd step made runs with Winograd's arithmetic (winograd_exec.hpp), one the b2b
// step made block by block as its kernel is cut (back_to_back_exec.hpp).
#include <stdexcept>

#include "src/exec/buffers.hpp"
#include "src/loop/loop_tree.hpp"

namespace cudaburg {

struct ExecutionError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Runs `kernel` over `buffers` (which must hold every parameter at its size). Throws
// ExecutionError with a sentence on an out-of-bounds access or a missing or mis-sized buffer.
void execute(const Kernel& kernel, Buffers& buffers);

}  // namespace cudaburg
