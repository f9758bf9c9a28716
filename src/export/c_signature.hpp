#pragma once
// An exported function's C signature, shared by its header, its launcher and the PyTorch operator:
// the nest's arrays in the .loop's order as device pointers (const where the .loop says const),
// the sizes it dispatches on, then the stream.
#include <string>

#include "src/export/export_plan.hpp"

namespace cudaburg {

// The element type an array's pointer has in the header: a C type, or CUDABURG_HALF and
// CUDABURG_BFLOAT16 (the header defines them: __half and __nv_bfloat16 in C++, void in C).
std::string elementTypeName(ScalarType t);

// "const float* A": an array as an argument.
std::string arrayParameter(const Array& a);

// "float* C, const float* A, const float* B, int64_t M, cudaStream_t stream".
std::string functionParameters(const ExportedFunction& f);

// "C, A, B": the arrays' names, in order.
std::string arrayArguments(const ExportedFunction& f);

// "C[2048][2048]": an array with the extents a kernel has.
std::string arrayShape(const Array& a);

}  // namespace cudaburg
