#pragma once
// Which of cuBLASLt's fused epilogues computes a matrix product's epilogue. cuBLASLt works column
// major (see src/cuda/run/column_major_gemm.hpp): the row-major C[M][N] is the column-major N x M
// matrix, so its bias, one value per row of that matrix, is one per row-major column. A bias per
// row-major row, a scale, a shortcut, GELU's erf form or a store in another type than float or the
// operands' 16-bit one are not among cuBLASLt's epilogues: those take the product followed by a
// separate element-wise pass.
#include "src/analysis/reference_shape.hpp"

namespace cudaburg {

enum class GemmEpilogue {
  None,         // a plain product
  Bias,         // CUBLASLT_EPILOGUE_BIAS
  Relu,         // CUBLASLT_EPILOGUE_RELU
  ReluBias,     // CUBLASLT_EPILOGUE_RELU_BIAS
  Gelu,         // CUBLASLT_EPILOGUE_GELU (the tanh form)
  GeluBias,     // CUBLASLT_EPILOGUE_GELU_BIAS
  ElementWise,  // the product, then one element-wise kernel
};

GemmEpilogue chooseGemmEpilogue(const GemmShape& shape);

// cuBLASLt's name without its prefix ("RELU_BIAS"); "element-wise" for ElementWise, "" for None.
const char* gemmEpilogueName(GemmEpilogue e);

}  // namespace cudaburg
