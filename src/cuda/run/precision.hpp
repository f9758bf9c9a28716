#pragma once
// The precision contract: a kernel passes when its error against the exact FP64 nest is at most
// twice the reference library's own error against it, measured on the same inputs in the same run
// (where no library computes the nest, the bound of reference_check.hpp). The mode says which
// library call sets the bound, and so how much accuracy a faster kernel may give up:
//   strict  the library in the nest's own types: cuBLAS SGEMM and cuDNN with FMA math for floats
//           (no TF32), cublasGemmEx and cuDNN's tensor-op math with fp32 sums for 16-bit operands
//   tf32    float products as cuBLAS and cuDNN compute them with TF32 tensor cores
#include <optional>
#include <string>

#include "src/loop/scalar_types.hpp"

namespace cudaburg {

enum class Precision { Strict, Tf32 };

const char* precisionName(Precision p);  // "strict", "tf32"
std::optional<Precision> parsePrecision(const std::string& name);
std::string precisionNames();  // "strict, tf32": for messages

// How many times the library's own error a kernel may show.
inline constexpr double kLibraryErrorFactor = 2;

// Below this many units of roundoff of the output's type, two correct orders of the same short
// sums differ by as much (a K = 75 product on the CUDA cores: 5.2 units where SGEMM's was 2.5).
inline constexpr double kRoundoffFloor = 8;

// The bound for a kernel whose output has type `output` when the library erred by `libraryError`:
// kLibraryErrorFactor times it, and never below kRoundoffFloor units of roundoff of the output.
double contractBound(double libraryError, ScalarType output);

// The operand type the library multiplies `operands` as under `mode` (tf32: float as tf32).
ScalarType libraryOperands(ScalarType operands, Precision mode);

}  // namespace cudaburg
