#include "src/cuda/worker/device.hpp"

#include <utility>

namespace cudaburg {

CudaError::CudaError(CUresult code, const std::string& what) : std::runtime_error(what), code_(code) {}

bool CudaError::sticky() const {
  switch (code_) {
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_ECC_UNCORRECTABLE:
    case CUDA_ERROR_CONTEXT_IS_DESTROYED:
      return true;
    default:
      return false;
  }
}

std::string cudaErrorText(CUresult code) {
  const char* name = nullptr;
  const char* text = nullptr;
  cuGetErrorName(code, &name);
  cuGetErrorString(code, &text);
  std::string s = name ? name : "CUDA error " + std::to_string(int(code));
  if (text) s += std::string(" (") + text + ")";
  return s;
}

void checkCuda(CUresult code, const char* what) {
  if (code != CUDA_SUCCESS) throw CudaError(code, std::string(what) + ": " + cudaErrorText(code));
}

std::string DeviceInfo::describe() const {
  return name + " (sm_" + std::to_string(major) + std::to_string(minor) + ")";
}

DeviceContext::DeviceContext() {
  checkCuda(cuInit(0), "cuInit");
  int count = 0;
  checkCuda(cuDeviceGetCount(&count), "cuDeviceGetCount");
  if (count == 0) throw CudaError(CUDA_ERROR_NO_DEVICE, "no CUDA device");
  checkCuda(cuDeviceGet(&device_, 0), "cuDeviceGet");
  checkCuda(cuDevicePrimaryCtxRetain(&context_, device_), "cuDevicePrimaryCtxRetain");
  checkCuda(cuCtxSetCurrent(context_), "cuCtxSetCurrent");
  checkCuda(cuStreamCreate(&stream_, CU_STREAM_NON_BLOCKING), "cuStreamCreate");

  char name[256] = {};
  checkCuda(cuDeviceGetName(name, sizeof name, device_), "cuDeviceGetName");
  info_.name = name;
  int l2 = 0;
  size_t memory = 0;
  checkCuda(cuDeviceGetAttribute(&info_.major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device_), "attribute");
  checkCuda(cuDeviceGetAttribute(&info_.minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device_), "attribute");
  checkCuda(cuDeviceGetAttribute(&info_.multiprocessors, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device_),
            "attribute");
  checkCuda(cuDeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, device_), "attribute");
  checkCuda(cuDeviceTotalMem(&memory, device_), "cuDeviceTotalMem");
  int driverVersion = 0;
  checkCuda(cuDriverGetVersion(&driverVersion), "cuDriverGetVersion");
  info_.driver = std::to_string(driverVersion / 1000) + "." + std::to_string(driverVersion % 1000 / 10);
  info_.l2Bytes = l2;
  info_.memoryBytes = int64_t(memory);
}

DeviceContext::~DeviceContext() {
  if (stream_) cuStreamDestroy(stream_);
  if (context_) cuDevicePrimaryCtxRelease(device_);
}

DeviceBuffer::DeviceBuffer(size_t bytes) : bytes_(bytes) {
  checkCuda(cuMemAlloc(&ptr_, bytes == 0 ? 4 : bytes), "cuMemAlloc");
}

DeviceBuffer::~DeviceBuffer() {
  if (ptr_) cuMemFree(ptr_);
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : ptr_(std::exchange(other.ptr_, 0)), bytes_(std::exchange(other.bytes_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    if (ptr_) cuMemFree(ptr_);
    ptr_ = std::exchange(other.ptr_, 0);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

}  // namespace cudaburg
