#pragma once
// A nest's reference library call with its epilogue (epilogue_shape.hpp): cuBLAS or cuBLASLt for
// a matrix product, cuDNN for a convolution, then the element-wise statements after the product,
// fused into cuBLASLt's matmul where it has that epilogue (chooseGemmEpilogue), else one
// element-wise pass (cudaburg_epilogue) over the library's output. The calls are enqueued on one
// stream together, so that they are timed, and their error measured, as one reference.
#include <cuda.h>

#include <string>
#include <vector>

#include "src/cuda/run/worker_protocol.hpp"
#include "src/cuda/worker/device.hpp"
#include "src/cuda/worker/device_checks.hpp"
#include "src/cuda/worker/reference_library.hpp"

namespace cudaburg {

// The arrays of a request on the device, `buffers[i]` holding `specs[i]`.
struct ReferenceArrays {
  const std::vector<ArraySpec>& specs;
  const std::vector<DeviceBuffer>& buffers;

  size_t find(const std::string& name) const;  // throws when the request has no such array
  CUdeviceptr ptr(const std::string& name) const { return buffers[find(name)].ptr(); }
};

// The nest's output array, and the type the reference writes it in: the nest's own, except a
// plain convolution of 16-bit operands, which cuDNN writes in their type.
const std::string& referenceOutput(const ReferenceSpec& ref);
ScalarType referenceOutputType(const ReferenceSpec& ref, const ReferenceArrays& arrays);

// Enqueues the reference on `stream`, writing the output (of referenceOutputType) to `output`,
// and returns the library's algorithm ("IMPLICIT_PRECOMP_GEMM", "cuBLASLt algo 23, ..."). A
// product that the pass reads in another type than the output's is kept in `scratch`, allocated on
// the first call. `winograd`: the convolution by cuDNN's Winograd algorithms alone. Throws on failure.
std::string runLibraryReference(ReferenceLibraries& libraries, const DeviceChecks& checks, CUstream stream,
                                const ReferenceSpec& ref, const ReferenceArrays& arrays, CUdeviceptr output,
                                DeviceBuffer& scratch, bool winograd = false);

}  // namespace cudaburg
