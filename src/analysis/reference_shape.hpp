#pragma once
// Which reference a loop nest is checked against: cuBLAS for matrix products (plain, transposed
// operands, batched; SGEMM for float operands, cublasGemmEx with fp32 accumulation for half,
// bfloat16 and tf32 ones), cuDNN for convolutions (1-D to 3-D, channels first or last, grouped;
// float operands with FMA math, half or bfloat16 ones on tensor cores), and otherwise the exact
// FP64 computation of the untransformed nest. Recognition reads the kernel's accesses.
#include <cstdint>
#include <optional>
#include <string>

#include "src/analysis/epilogue_shape.hpp"
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
  // A and B hold `operands` (float, half, bfloat16 or tf32), the product is float (C holds it,
  // or an epilogue stores it in half or bfloat16): cublasSgemm for
  // float operands, else cublasGemmEx with CUBLAS_COMPUTE_32F (CUBLAS_COMPUTE_32F_FAST_TF32 for tf32).
  ScalarType operands = ScalarType::Float;
  // The statements after the product (empty for a plain one). Its scale and shift follow the
  // output's column (N) when `epilogueAlongColumns`, else its row (M).
  EpilogueShape epilogue;
  bool epilogueAlongColumns = true;
};

// A convolution (cross-correlation, zero padding, fp32 accumulation) over 1 to 3 spatial dimensions:
//   out[n][k][o...] = sum over c, f... of in[n][g * C/G + c][o * stride + f * dilation - pad]
//                                       * weight[k][c][f...],   g = k / (K/G)
// with the channels first (NCHW, NCDHW; weight K C/G R S) or last (NHWC, NDHWC; weight K R S C/G).
// A nest without a batch or channel loop has that extent 1.
struct ConvShape {
  enum class Layout { ChannelsFirst, ChannelsLast };
  std::string input, weight, output;  // parameter names
  Layout layout = Layout::ChannelsFirst;
  int64_t n = 1;
  int64_t c = 1, k = 1;  // input and output channels, all groups together
  int64_t groups = 1;
  std::vector<int64_t> in, filter, out;        // extents per spatial dimension
  std::vector<int64_t> pad, stride, dilation;  // per spatial dimension
  // The input and weight hold `operands`: float (cuDNN's FMA math, a float output), or half or
  // bfloat16 (tensor-op math with fp32 accumulation). cuDNN's convolution wants x, w and y of one
  // type, so with 16-bit operands it writes a 16-bit output: fewer bytes than the nest's float
  // one, and rounded (see referenceTolerance in reference_check.hpp).
  ScalarType operands = ScalarType::Float;
  std::vector<std::string> outIndices;  // the loop indices of the output's spatial dimensions
  EpilogueShape epilogue;               // the statements after the convolution; scale and shift per output channel

  size_t rank() const { return in.size(); }  // spatial dimensions
  // The type cuDNN writes the output in: the operands' (tf32 ones are floats in memory).
  ScalarType libraryOutput() const { return operands == ScalarType::TF32 ? ScalarType::Float : operands; }
};

struct ReferencePlan {
  enum class Kind { Gemm, Conv, Exact };
  Kind kind = Kind::Exact;
  GemmShape gemm;
  ConvShape conv;

  // "cuBLAS SGEMM", "cuBLAS GemmEx (half)", "cuDNN convolution", "cuDNN convolution (half)",
  // "FP64 reference"; with the library's algorithm: "cuDNN convolution (half, IMPLICIT_GEMM)",
  // and for a cuBLASLt engine that beat the classic call "cuBLASLt matmul (half, algo 23, ...)".
  std::string library(const std::string& algorithm = "") const;
  // One line for reports: "cuBLAS SGEMM 4096x4096x4096 (A^T)".
  std::string describe() const;
};

// The nest's product alone: nothing but it and its initialisation (what a rewrite of the product,
// as Winograd's, may take).
std::optional<GemmShape> recognizeGemm(const Kernel& kernel);
std::optional<ConvShape> recognizeConv(const Kernel& kernel);
// The product with the element-wise statements after it (epilogue_shape.hpp), carried in the
// shape's `epilogue`: the library call followed, or fused, with the same element-wise work.
std::optional<GemmShape> recognizeFusedGemm(const Kernel& kernel);
std::optional<ConvShape> recognizeFusedConv(const Kernel& kernel);
// Gemm when the nest is a matrix product, Conv when it is a convolution (and cuDNN is wanted),
// with or without an epilogue, else Exact.
ReferencePlan planReference(const Kernel& kernel, bool convLibraryAvailable = true);

}  // namespace cudaburg
