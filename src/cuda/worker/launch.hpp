#pragma once
// A compiled kernel loaded into the worker's context, launched with its grid, block and dynamic
// shared memory (raising the kernel's shared-memory limit first when it needs more than 48 KB).
#include <cuda.h>

#include <vector>

#include "src/cuda/worker/device.hpp"
#include "src/cuda/run/worker_protocol.hpp"

namespace cudaburg {

class LoadedKernel {
 public:
  // Reads the CUBIN file and loads it; throws CudaError or std::runtime_error when it cannot.
  explicit LoadedKernel(const LaunchSpec& spec);
  ~LoadedKernel();
  LoadedKernel(const LoadedKernel&) = delete;
  LoadedKernel& operator=(const LoadedKernel&) = delete;

  // Enqueues one launch with the buffers as the kernel's parameters, in order.
  void launch(CUstream stream, std::vector<DeviceBuffer>& arguments) const;

 private:
  LaunchSpec spec_;
  CUmodule module_ = nullptr;
  CUfunction function_ = nullptr;
};

}  // namespace cudaburg
