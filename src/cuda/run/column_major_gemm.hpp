#pragma once
// A row-major product as the column-major call cuBLAS and cuBLASLt take: a row-major X[r][c] is
// the column-major c x r matrix X^T, so C = op(A) op(B) is computed as C^T = op(B)^T op(A)^T,
// B first. Shared by every cuBLAS entry point the worker calls, so that they agree.
#include <cstdint>
#include <string>

#include "src/analysis/reference_shape.hpp"

namespace cudaburg {

// One matrix as stored: `rows` x `cols`, column major, `ld` apart, `stride` apart a batch.
struct ColumnMajorMatrix {
  int64_t rows = 0, cols = 0, ld = 0, stride = 0;
  bool transposed = false;  // used transposed in the product
};

struct ColumnMajorGemm {
  ColumnMajorMatrix first, second, out;  // op(first) op(second) = out; first is B, second is A
  int64_t m = 0, n = 0, k = 0;           // out is m x n, the reduction k long (column-major terms)
  int64_t batch = 1;
};

ColumnMajorGemm columnMajor(const GemmShape& shape);

// The name a cuBLASLt algorithm goes by in reports: "cuBLASLt algo 23, tile 256x128, splitK 1"
// (no tile where cuBLASLt leaves it undefined, an empty `tile`).
std::string cublasLtEngineName(int algorithm, const std::string& tile, int splitK);

}  // namespace cudaburg
