#pragma once
// The parameter list of a kernel whose arrays are all float, for the writers that emit a whole
// kernel of their own (Winograd's, two products back to back).
#include <string>

#include "src/cuda/emit/emitter.hpp"

namespace cudaburg::emit_internal {

// "float* __restrict__ Out, const float* __restrict__ In, ...", each array's name and type
// recorded in `out` in the same order.
inline std::string floatParameters(const Kernel& kernel, CudaKernel& out) {
  std::string params;
  for (const Array& p : kernel.params) {
    params += std::string(params.empty() ? "" : ", ") + (p.input ? "const " : "") + "float* __restrict__ " + p.name;
    out.params.push_back(p.name);
    out.paramTypes.push_back(ScalarType::Float);
  }
  return params;
}

}  // namespace cudaburg::emit_internal
