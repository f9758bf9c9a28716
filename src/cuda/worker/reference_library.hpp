#pragma once
// The libraries a variant is compared against, run in the worker: cuBLAS SGEMM with TF32 off
// (cublasGemmEx with fp32 accumulation for half, bfloat16 and tf32 operands, TF32 math for tf32
// alone) or, where one is faster, a cuBLASLt matmul algorithm in the same math; cuBLAS DGEMM for
// the exact outputs of matrix products; and cuDNN's convolution (N-d, channels first or last,
// grouped) when the build has cuDNN, the faster of its legacy algorithms and its graph API's
// engines (cudnn_graph.hpp): of float operands with FMA math (no tensor cores; tf32 ones, float in
// memory, with tensor-op math), of half or bfloat16 ones with tensor-op math and fp32
// accumulation, writing its output in their type.
#include <cuda.h>

#include <map>
#include <memory>
#include <string>

#include "src/analysis/reference_shape.hpp"
#include "src/cuda/worker/device.hpp"
#include "src/cuda/worker/timing_events.hpp"

namespace cudaburg {

class ReferenceLibraries {
 public:
  // Candidate engines are timed as the kernels are, the L2 cache flushed by `flusher` before each run.
  explicit ReferenceLibraries(L2Flusher& flusher);
  ~ReferenceLibraries();
  ReferenceLibraries(const ReferenceLibraries&) = delete;
  ReferenceLibraries& operator=(const ReferenceLibraries&) = delete;

  static bool hasConv();  // whether this build has cuDNN

  // Enqueue C = op(A) op(B) (row major, as in GemmShape) on the stream and return the engine that
  // computes it, chosen once a shape: the classic call ("") or one of the algorithms cuBLASLt's
  // heuristic proposes ("cuBLASLt algo 23, tile 256x128, splitK 1"), whichever was fastest. Its
  // error is what the kernels are held to and its time the one they are compared with. Throws on
  // failure. A shape whose epilogue cuBLASLt fuses (chooseGemmEpilogue: RELU_BIAS, GELU, ...) runs
  // the fastest of its heuristic's algorithms with that epilogue, `bias` its bias (the epilogue's
  // shift, of `biasType`), writing C in the epilogue's output type (float, or the 16-bit operands'
  // type); one it cannot fuse is refused (library_reference.hpp adds the element-wise pass).
  std::string gemm(CUstream stream, const GemmShape& shape, CUdeviceptr a, CUdeviceptr b, CUdeviceptr c,
                   CUdeviceptr bias = 0, ScalarType biasType = ScalarType::Float);
  // The same product of double arrays (cuBLAS DGEMM): the exact outputs a float one is held to.
  void gemmDouble(CUstream stream, const GemmShape& shape, CUdeviceptr a, CUdeviceptr b, CUdeviceptr c);
  // Enqueue the convolution on the stream and return the name of cuDNN's algorithm for it
  // ("IMPLICIT_PRECOMP_GEMM", "graph engine 12 of 7 timed"), found once a shape: the fastest with FMA math (float
  // operands); with tensor-op math for 16-bit and tf32 operands, else the fastest of any math. Its error is what the
  // kernels are held to, so it is the algorithm timed beside them. `output` holds shape.libraryOutput() elements.
  // Throws on failure (or when the build has no cuDNN). With `winograd`, the fastest of cuDNN's Winograd algorithms
  // alone (throws when it has none for the shape): the library call a Winograd kernel is held to.
  std::string conv(CUstream stream, const ConvShape& shape, CUdeviceptr input, CUdeviceptr weight, CUdeviceptr output,
                   bool winograd = false);

 private:
  struct Handles;
  std::unique_ptr<Handles> handles_;
};

}  // namespace cudaburg
