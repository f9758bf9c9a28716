#pragma once
// best.cu: the winning kernel with its launch configuration, the exact FP64 reference of the
// loop nest, and a small host program that runs the kernel on fresh random inputs, checks it
// against the reference and times it. It builds with nvcc as it is: `nvcc -arch=sm_90 best.cu`.
#include <string>

#include "src/cuda/emit/emitter.hpp"
#include "src/loop/loop_tree.hpp"

namespace cudaburg {

// `original` is the untransformed kernel (it defines the arrays and the reference).
std::string bestProgram(const Kernel& original, const CudaKernel& best, const CudaKernel& reference);

}  // namespace cudaburg
