#pragma once
// The CUDA source of the kernels the worker checks variants with, on the GPU beside them:
//   cudaburg_fill     fills an array with the random values randomValues (inputs.hpp) gives the
//                     same seed, stored in any scalar type (the FP64 reference reads a variant's
//                     half inputs as doubles of the same values);
//   cudaburg_compare  the sums of a comparison (reference_check.hpp) of two arrays of any scalar
//                     types, one ComparisonPartial a block, for the host to merge;
//   cudaburg_epilogue the element-wise epilogue of a fused layer applied to a library's product:
//                     the reference of a layer no library call fuses whole.
// Inputs made and outputs compared where they are saves copying arrays of many megabytes to the
// host and back for every variant. Type codes are the values of ScalarType.
#include <cstdint>
#include <string>

namespace cudaburg {

const std::string& deviceChecksSource();

constexpr const char* kFillEntry = "cudaburg_fill";
constexpr const char* kCompareEntry = "cudaburg_compare";
constexpr const char* kEpilogueEntry = "cudaburg_epilogue";
constexpr unsigned kCheckThreads = 256;    // threads a block of either kernel
constexpr unsigned kCompareBlocks = 1024;  // at most: the host merges one partial a block

// What one block of cudaburg_compare found (the layout the kernel writes).
struct ComparisonPartial {
  double diffNorm, refNorm, worst;
  uint64_t worstIndex, nonFinite, firstNonFinite, refNonFinite;
};

}  // namespace cudaburg
