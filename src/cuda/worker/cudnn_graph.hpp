#pragma once
// A convolution through cuDNN's graph (backend) API, the way frameworks call cuDNN today: one
// operation graph for the shape, the engine configurations cuDNN's heuristics propose (mode A, then
// the fallback list), each that builds an execution plan timed as the kernels are (L2 flushed, the
// median), the fastest kept. Its engines include the tensor-core kernels for channels-last layouts
// that the legacy cudnnFind does not return. Engines whose numerics break the reference's math are
// left out: for float operands any that uses tensor cores or converts its inputs down (TF32, half).
#include <cuda.h>
#include <cudnn.h>

#include <memory>
#include <string>

#include "src/analysis/reference_shape.hpp"
#include "src/cuda/worker/timing_events.hpp"

namespace cudaburg {

class CudnnGraphConv {
 public:
  // Plans `shape` on `handle` (whose stream is the one plans are timed and run on), timing the
  // candidates on the given arrays. Throws when no engine builds a plan.
  CudnnGraphConv(cudnnHandle_t handle, CUstream stream, L2Flusher& flusher, const ConvShape& shape, CUdeviceptr input,
                 CUdeviceptr weight, CUdeviceptr output);
  ~CudnnGraphConv();
  CudnnGraphConv(const CudnnGraphConv&) = delete;
  CudnnGraphConv& operator=(const CudnnGraphConv&) = delete;

  // Enqueues the convolution with the fastest plan on the handle's stream.
  void enqueue(CUdeviceptr input, CUdeviceptr weight, CUdeviceptr output);
  // That plan's time when it was chosen (ms) and its name ("graph engine 12, 5 proposed").
  double ms() const;
  const std::string& name() const;

 private:
  struct Plan;
  std::unique_ptr<Plan> plan_;
};

}  // namespace cudaburg
