#pragma once
// A tensor map a kernel takes as a parameter (CudaKernel::tensorMaps): what the launch encodes,
// with the driver's cuTensorMapEncodeTiled, so that the kernel's Tensor Memory Accelerator copies
// (cp.async.bulk.tensor) read boxes of one of its global arrays. Dimensions run innermost first,
// as the driver takes them. Nothing here needs a GPU.
#include <cstdint>
#include <string>
#include <vector>

#include "src/loop/loop_tree.hpp"  // ScalarType

namespace cudaburg {

struct TensorMapParam {
  std::string name;       // the kernel's parameter, "<array>_map"
  std::string array;      // the global array it reads
  size_t arrayParam = 0;  // that array's place among the kernel's parameters (CudaKernel::params)
  ScalarType type = ScalarType::Half;
  std::vector<int64_t> dims;     // the array's extents, innermost first
  std::vector<int64_t> strides;  // bytes from one index to the next of dims 1, 2, ... (rank - 1 of them)
  std::vector<int64_t> box;      // the box one copy lands, innermost first
  int swizzleBytes = 128;        // the shared layout the box lands in: 0 (none), 32, 64 or 128-byte swizzle

  bool operator==(const TensorMapParam&) const = default;
};

// The C declaration an emitted kernel and best.cu give the parameter's type: the driver's
// CUtensorMap (128 opaque bytes, 64-byte aligned) under a name of its own, since NVRTC has no
// cuda.h and best.cu includes it.
inline const char* kTensorMapType = "tensor_map";
inline const char* kTensorMapDeclaration =
    "struct __align__(64) tensor_map { unsigned long long opaque[16]; };  // CUtensorMap, encoded by the launch\n";

// The driver's names (cuda.h) of a map's element type and swizzle, for programs that encode it
// themselves (best.cu); "" where there is none.
inline std::string tensorMapDataTypeName(ScalarType t) {
  switch (t) {
    case ScalarType::Half:
      return "CU_TENSOR_MAP_DATA_TYPE_FLOAT16";
    case ScalarType::BFloat16:
      return "CU_TENSOR_MAP_DATA_TYPE_BFLOAT16";
    case ScalarType::Float:
      return "CU_TENSOR_MAP_DATA_TYPE_FLOAT32";
    case ScalarType::Double:
      return "CU_TENSOR_MAP_DATA_TYPE_FLOAT64";
    case ScalarType::Int:
      return "CU_TENSOR_MAP_DATA_TYPE_INT32";
    case ScalarType::TF32:
      return "CU_TENSOR_MAP_DATA_TYPE_TFLOAT32";
  }
  return "";
}
inline std::string tensorMapSwizzleName(int bytes) {
  return bytes == 0                                   ? "CU_TENSOR_MAP_SWIZZLE_NONE"
         : bytes == 32 || bytes == 64 || bytes == 128 ? "CU_TENSOR_MAP_SWIZZLE_" + std::to_string(bytes) + "B"
                                                      : "";
}

}  // namespace cudaburg
