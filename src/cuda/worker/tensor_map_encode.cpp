#include "src/cuda/worker/tensor_map_encode.hpp"

#include <stdexcept>
#include <vector>

#include "src/cuda/worker/device.hpp"

namespace cudaburg {

namespace {

CUtensorMapDataType dataType(ScalarType t) {
  switch (t) {
    case ScalarType::Half:
      return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
    case ScalarType::BFloat16:
      return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
    case ScalarType::Float:
      return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
    case ScalarType::Double:
      return CU_TENSOR_MAP_DATA_TYPE_FLOAT64;
    case ScalarType::Int:
      return CU_TENSOR_MAP_DATA_TYPE_INT32;
    case ScalarType::TF32:
      return CU_TENSOR_MAP_DATA_TYPE_TFLOAT32;
  }
  throw std::invalid_argument("a tensor map of an unknown element type");
}

CUtensorMapSwizzle swizzle(int bytes) {
  switch (bytes) {
    case 0:
      return CU_TENSOR_MAP_SWIZZLE_NONE;
    case 32:
      return CU_TENSOR_MAP_SWIZZLE_32B;
    case 64:
      return CU_TENSOR_MAP_SWIZZLE_64B;
    case 128:
      return CU_TENSOR_MAP_SWIZZLE_128B;
  }
  throw std::invalid_argument("no tensor map swizzles by " + std::to_string(bytes) + " bytes");
}

}  // namespace

CUtensorMap encodeTensorMap(const TensorMapParam& map, CUdeviceptr array) {
  const size_t rank = map.dims.size();
  if (rank == 0 || rank > 5 || map.box.size() != rank || map.strides.size() + 1 != rank)
    throw std::invalid_argument("tensor map " + map.name + ": its dims, strides and box disagree");
  std::vector<cuuint64_t> dims(map.dims.begin(), map.dims.end()), strides(map.strides.begin(), map.strides.end());
  std::vector<cuuint32_t> box(map.box.begin(), map.box.end()), elementStrides(rank, 1);
  CUtensorMap encoded;
  // Outside the array the boxes read zeros (OOB_FILL_NONE fills with zero, not NaN).
  checkCuda(cuTensorMapEncodeTiled(&encoded, dataType(map.type), cuuint32_t(rank), reinterpret_cast<void*>(array),
                                   dims.data(), strides.data(), box.data(), elementStrides.data(),
                                   CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle(map.swizzleBytes),
                                   CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
            ("cuTensorMapEncodeTiled " + map.name).c_str());
  return encoded;
}

}  // namespace cudaburg
