#pragma once
// The checking kernels (device_checks_source.hpp) loaded in the worker: random inputs written
// straight into device arrays, and comparisons summed on the GPU, so that a variant of a large
// problem is checked without its arrays crossing to the host; and the element-wise epilogue pass
// of a library reference.
#include <cuda.h>

#include <string>

#include "src/analysis/epilogue_shape.hpp"
#include "src/cuda/run/reference_check.hpp"
#include "src/cuda/worker/launch.hpp"
#include "src/loop/loop_tree.hpp"

namespace cudaburg {

class DeviceChecks {
 public:
  // Loads the compiled checking kernels; throws CudaError or std::runtime_error.
  explicit DeviceChecks(const std::string& cubinPath);

  const std::string& path() const { return path_; }

  // `count` elements of randomValues(value, count, seed), stored as `storage`.
  void fill(CUstream stream, CUdeviceptr data, ScalarType storage, ScalarType value, size_t count, uint64_t seed) const;
  // The comparison of `count` elements of `out` against `ref`, with the two values at the worst
  // element; waits for the stream.
  struct Result {
    ComparisonSums sums;
    double worstOut = 0, worstRef = 0;
  };
  Result compare(CUstream stream, CUdeviceptr out, ScalarType outType, CUdeviceptr ref, ScalarType refType,
                 size_t count) const;

  // The element-wise epilogue pass (cudaburg_epilogue) over `count` elements, enqueued.
  struct EpiloguePass {
    CUdeviceptr product = 0, out = 0;
    ScalarType productType = ScalarType::Float, outType = ScalarType::Float;
    CUdeviceptr scale = 0, shift = 0, shortcut = 0;  // 0: none
    ScalarType scaleType = ScalarType::Float, shiftType = ScalarType::Float, shortcutType = ScalarType::Float;
    size_t channelStride = 1, channels = 1;  // element i has channel i / channelStride % channels
    EpilogueShape::Activation activation = EpilogueShape::Activation::None;
    size_t count = 0;
  };
  void epilogue(CUstream stream, const EpiloguePass& pass) const;

 private:
  std::string path_;
  LoadedModule module_;
  CUfunction fill_ = nullptr;
  CUfunction compare_ = nullptr;
  CUfunction epilogue_ = nullptr;
};

}  // namespace cudaburg
