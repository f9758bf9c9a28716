#pragma once
// best.cu: the winning kernel with its launch configuration, the exact FP64 reference of the
// loop nest, and a small host program that runs the kernel on fresh random inputs, checks it
// against the reference and times it. It builds with nvcc as it is: `nvcc -arch=sm_90 best.cu`.
#include <string>

#include "src/cuda/emit/emitter.hpp"
#include "src/loop/loop_tree.hpp"

namespace cudaburg {

// The bound best.cu checks its kernel's error against the FP64 reference with: the one the search
// verified it with (under the precision contract, twice the library's error it measured), and a
// few words on where it comes from.
struct CheckBound {
  double value = 0;    // 0: the FP64 check's own bound for the nest (reference_check.hpp)
  std::string source;  // "twice cuBLAS SGEMM's error (8.1e-07), --precision strict"
  // Whether the search verified and timed the kernel; without a GPU it is the model's choice
  // among the kernels that compiled, checked by no one yet, and best.cu says so.
  bool verified = true;
};

// `original` is the untransformed kernel (it defines the arrays and the reference).
std::string bestProgram(const Kernel& original, const CudaKernel& best, const CudaKernel& reference,
                        const CheckBound& bound = {});

}  // namespace cudaburg
