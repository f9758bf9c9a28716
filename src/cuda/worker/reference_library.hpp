#pragma once
// The libraries a variant is checked and compared against, run in the worker: cuBLAS SGEMM with
// TF32 off (cublasGemmEx with fp32 accumulation for half, bfloat16 and tf32 operands, TF32 math
// for tf32 alone), and cuDNN's fp32 convolution (N-d, channels first or last, grouped; FMA math,
// no tensor cores) when the build has
// cuDNN.
#include <cuda.h>

#include <map>
#include <memory>
#include <string>

#include "src/cuda/worker/device.hpp"
#include "src/analysis/reference_shape.hpp"

namespace cudaburg {

class ReferenceLibraries {
 public:
  ReferenceLibraries();
  ~ReferenceLibraries();
  ReferenceLibraries(const ReferenceLibraries&) = delete;
  ReferenceLibraries& operator=(const ReferenceLibraries&) = delete;

  static bool hasConv();  // whether this build has cuDNN

  // Enqueue C = op(A) op(B) (row major, as in GemmShape) on the stream; throws on failure.
  void gemm(CUstream stream, const GemmShape& shape, CUdeviceptr a, CUdeviceptr b, CUdeviceptr c);
  // Enqueue the convolution on the stream and return the name of cuDNN's algorithm for it (the
  // fastest with FMA math, found once a shape); throws on failure (or when the build has no cuDNN).
  std::string conv(CUstream stream, const ConvShape& shape, CUdeviceptr input, CUdeviceptr weight, CUdeviceptr output);

 private:
  struct Handles;
  std::unique_ptr<Handles> handles_;
};

}  // namespace cudaburg
