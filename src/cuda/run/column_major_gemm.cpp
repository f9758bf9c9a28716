#include "src/cuda/run/column_major_gemm.hpp"

namespace cudaburg {

ColumnMajorGemm columnMajor(const GemmShape& g) {
  ColumnMajorGemm c;
  c.m = g.n, c.n = g.m, c.k = g.k, c.batch = g.batch;
  // B[K][N] is the column-major N x K matrix; stored [N][K] (transposed) it is K x N.
  c.first = g.bTransposed ? ColumnMajorMatrix{g.k, g.n, g.ldb, g.strideB, true}
                          : ColumnMajorMatrix{g.n, g.k, g.ldb, g.strideB, false};
  c.second = g.aTransposed ? ColumnMajorMatrix{g.m, g.k, g.lda, g.strideA, true}
                           : ColumnMajorMatrix{g.k, g.m, g.lda, g.strideA, false};
  c.out = ColumnMajorMatrix{g.n, g.m, g.ldc, g.strideC, false};
  return c;
}

std::string cublasLtEngineName(int algorithm, const std::string& tile, int splitK) {
  std::string name = "cuBLASLt algo " + std::to_string(algorithm);
  if (!tile.empty()) name += ", tile " + tile;
  return name + ", splitK " + std::to_string(splitK);
}

}  // namespace cudaburg
