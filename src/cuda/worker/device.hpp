#pragma once
// The GPU as the worker sees it, through the CUDA driver API: errors as exceptions that say
// whether the context survived them, the device's primary context, and device memory.
#include <cuda.h>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace cudaburg {

class CudaError : public std::runtime_error {
 public:
  CudaError(CUresult code, const std::string& what);
  CUresult code() const { return code_; }
  // A kernel fault (illegal address, launch failure, ...) leaves the context unusable.
  bool sticky() const;

 private:
  CUresult code_;
};

// "CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered)"
std::string cudaErrorText(CUresult code);
// Throws CudaError naming `what` when `code` is not CUDA_SUCCESS.
void checkCuda(CUresult code, const char* what);

struct DeviceInfo {
  std::string name;          // "NVIDIA H100 80GB HBM3"
  int major = 0, minor = 0;  // compute capability
  int multiprocessors = 0;
  int64_t l2Bytes = 0;
  int64_t memoryBytes = 0;
  std::string driver;            // the CUDA version the driver supports, "13.0"
  std::string describe() const;  // "NVIDIA H100 80GB HBM3 (sm_90)"
};

// The first device and its primary context, made current on the calling thread.
class DeviceContext {
 public:
  // Throws CudaError when there is no usable device (cuInit fails, or no device).
  DeviceContext();
  ~DeviceContext();
  DeviceContext(const DeviceContext&) = delete;
  DeviceContext& operator=(const DeviceContext&) = delete;

  const DeviceInfo& info() const { return info_; }
  CUstream stream() const { return stream_; }

 private:
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
  CUstream stream_ = nullptr;
  DeviceInfo info_;
};

// Device memory, freed with its owner.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;

  CUdeviceptr ptr() const { return ptr_; }
  // The address as a kernel argument slot (cuLaunchKernel takes pointers to arguments).
  CUdeviceptr* slot() { return &ptr_; }
  size_t bytes() const { return bytes_; }

 private:
  CUdeviceptr ptr_ = 0;
  size_t bytes_ = 0;
};

}  // namespace cudaburg
