#pragma once
// A compiled kernel loaded into the worker's context, launched with its grid, block and dynamic
// shared memory (raising the kernel's shared-memory limit first when it needs more than 48 KB)
// and its tensor maps.
#include <cuda.h>

#include <vector>

#include "src/cuda/run/worker_protocol.hpp"
#include "src/cuda/worker/device.hpp"

namespace cudaburg {

// A CUBIN file loaded into the current context, unloaded with its owner.
class LoadedModule {
 public:
  // Throws CudaError or std::runtime_error when the file cannot be read or loaded.
  explicit LoadedModule(const std::string& cubinPath);
  ~LoadedModule();
  LoadedModule(const LoadedModule&) = delete;
  LoadedModule& operator=(const LoadedModule&) = delete;

  CUfunction function(const std::string& entry) const;

 private:
  CUmodule module_ = nullptr;
};

class LoadedKernel {
 public:
  // Reads the CUBIN file and loads it; throws CudaError or std::runtime_error when it cannot.
  explicit LoadedKernel(const LaunchSpec& spec);
  LoadedKernel(const LoadedKernel&) = delete;
  LoadedKernel& operator=(const LoadedKernel&) = delete;

  // Enqueues one launch with the buffers as the kernel's parameters, in order, then the tensor
  // maps of LaunchSpec::tensorMaps, encoded for those buffers (again only when they moved).
  void launch(CUstream stream, std::vector<DeviceBuffer>& arguments) const;

 private:
  LaunchSpec spec_;
  mutable std::vector<CUtensorMap> maps_;
  mutable std::vector<CUdeviceptr> mappedArrays_;  // the address each of maps_ was encoded for
  LoadedModule module_;
  CUfunction function_ = nullptr;
};

}  // namespace cudaburg
