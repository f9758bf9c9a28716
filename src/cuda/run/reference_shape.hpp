#pragma once
// Which reference a loop nest is checked against: cuBLAS for matrix products (plain, transposed
// operands, batched; SGEMM for float operands, cublasGemmEx with fp32 accumulation for half,
// bfloat16 and tf32 ones), cuDNN for 2-D convolutions (NCHW, float), and otherwise the exact FP64
// computation of the untransformed nest. Recognition reads the kernel's accesses.
#include <cstdint>
#include <optional>
#include <string>

#include "src/loop/loop_tree.hpp"

namespace cudaburg {

// C[b][M][N] = op(A) * op(B), all arrays row major. A is stored [M][K] (or [K][M] when
// aTransposed), B [K][N] (or [N][K]). An operand without the batch dimension has stride 0.
struct GemmShape {
  std::string a, b, c;  // parameter names
  int64_t m = 0, n = 0, k = 0, batch = 1;
  bool aTransposed = false, bTransposed = false;
  int64_t lda = 0, ldb = 0, ldc = 0;  // row strides (the last extent of each array)
  int64_t strideA = 0, strideB = 0, strideC = 0;
  // A and B hold `operands` (float, half, bfloat16 or tf32), C holds float: cublasSgemm for
  // float operands, else cublasGemmEx with CUBLAS_COMPUTE_32F (CUBLAS_COMPUTE_32F_FAST_TF32 for tf32).
  ScalarType operands = ScalarType::Float;
};

// out[n][k][p][q] = sum over c, r, s of in[n][c][p*strideH + r*dilationH - padH]
//                                          [q*strideW + s*dilationW - padW] * weight[k][c][r][s]
// (cross-correlation, zero padding, NCHW, fp32).
struct Conv2dShape {
  std::string input, weight, output;  // parameter names
  int64_t n = 0, c = 0, h = 0, w = 0;  // input
  int64_t k = 0, r = 0, s = 0;         // filters
  int64_t p = 0, q = 0;                // output height and width
  int64_t padH = 0, padW = 0, strideH = 1, strideW = 1, dilationH = 1, dilationW = 1;
};

struct ReferencePlan {
  enum class Kind { Gemm, Conv2d, Exact };
  Kind kind = Kind::Exact;
  GemmShape gemm;
  Conv2dShape conv;

  // "cuBLAS SGEMM", "cuBLAS GemmEx (half)", "cuDNN convolution", "FP64 reference"
  std::string library() const;
  // One line for reports: "cuBLAS SGEMM 4096x4096x4096 (A^T)".
  std::string describe() const;
};

std::optional<GemmShape> recognizeGemm(const Kernel& kernel);
std::optional<Conv2dShape> recognizeConv2d(const Kernel& kernel);
// Gemm when the nest is a matrix product, Conv2d when it is a convolution (and cuDNN is wanted),
// else Exact.
ReferencePlan planReference(const Kernel& kernel, bool conv2dLibraryAvailable = true);

}  // namespace cudaburg
