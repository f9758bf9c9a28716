#pragma once
// A kernel's tensor-map parameter (TensorMapParam) encoded by the driver for its array's device
// address, as the kernel's Tensor Memory Accelerator copies read it.
#include <cuda.h>

#include "src/cuda/emit/tensor_map.hpp"

namespace cudaburg {

// Throws CudaError where the driver refuses the map (a misaligned address, a stride not a
// multiple of 16 bytes, a box too large for the swizzle), std::invalid_argument where the
// description has no driver equivalent.
CUtensorMap encodeTensorMap(const TensorMapParam& map, CUdeviceptr array);

}  // namespace cudaburg
