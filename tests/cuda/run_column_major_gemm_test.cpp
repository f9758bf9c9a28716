// A row-major product as cuBLAS's column-major call, and the names of the engines that compute it.
#include <gtest/gtest.h>

#include "src/cuda/run/column_major_gemm.hpp"
#include "tests/cuda/run_test_kernels.hpp"

namespace cudaburg {
namespace {

using testing::loadExample;
using testing::parseLoopText;

TEST(ColumnMajorGemm, PlainProductIsComputedTransposedWithBFirst) {
  GemmShape g = *recognizeGemm(loadExample("matmul.loop", {{"M", 96}, {"N", 80}, {"K", 48}}));
  ColumnMajorGemm cm = columnMajor(g);
  // C^T (80 x 96) = B^T (80 x 48) A^T (48 x 96), each the row-major array read column major.
  EXPECT_EQ(cm.m, 80);
  EXPECT_EQ(cm.n, 96);
  EXPECT_EQ(cm.k, 48);
  EXPECT_EQ(cm.first.rows, 80);
  EXPECT_EQ(cm.first.cols, 48);
  EXPECT_EQ(cm.first.ld, 80);
  EXPECT_FALSE(cm.first.transposed);
  EXPECT_EQ(cm.second.rows, 48);
  EXPECT_EQ(cm.second.cols, 96);
  EXPECT_EQ(cm.second.ld, 48);
  EXPECT_FALSE(cm.second.transposed);
  EXPECT_EQ(cm.out.rows, 80);
  EXPECT_EQ(cm.out.cols, 96);
  EXPECT_EQ(cm.out.ld, 80);
  EXPECT_EQ(cm.batch, 1);
}

TEST(ColumnMajorGemm, TransposedOperandsAreStoredTheOtherWayRound) {
  GemmShape bt = *recognizeGemm(loadExample("matmul_bt.loop", {{"BATCH", 3}, {"M", 16}, {"N", 24}, {"K", 8}}));
  ColumnMajorGemm cm = columnMajor(bt);
  // B stored [N][K]: the column-major K x N matrix, used transposed.
  EXPECT_TRUE(cm.first.transposed);
  EXPECT_EQ(cm.first.rows, 8);
  EXPECT_EQ(cm.first.cols, 24);
  EXPECT_EQ(cm.first.ld, 8);
  EXPECT_EQ(cm.first.stride, 24 * 8);
  EXPECT_EQ(cm.second.stride, 16 * 8);
  EXPECT_EQ(cm.out.stride, 16 * 24);
  EXPECT_EQ(cm.batch, 3);

  GemmShape at = *recognizeGemm(parseLoopText("at.loop", R"(
size M = 8, N = 4, K = 6;
kernel at(float C[M][N], const float A[K][M], const float B[K][N]) {
  parallel for (i = 0; i < M; i++)
    parallel for (j = 0; j < N; j++)
      reduce for (k = 0; k < K; k++)
        C[i][j] += A[k][i] * B[k][j];
}
)"));
  ColumnMajorGemm cmA = columnMajor(at);
  // A stored [K][M]: the column-major M x K matrix, used transposed.
  EXPECT_TRUE(cmA.second.transposed);
  EXPECT_EQ(cmA.second.rows, 8);
  EXPECT_EQ(cmA.second.cols, 6);
  EXPECT_EQ(cmA.second.ld, 8);
  EXPECT_FALSE(cmA.first.transposed);
}

TEST(ColumnMajorGemm, EnginesAreNamedInReports) {
  EXPECT_EQ(cublasLtEngineName(23, "256x128", 1), "cuBLASLt algo 23, tile 256x128, splitK 1");
  EXPECT_EQ(cublasLtEngineName(66, "", 4), "cuBLASLt algo 66, splitK 4");

  ReferencePlan half = planReference(loadExample("hgemm.loop", {{"M", 64}, {"N", 32}, {"K", 16}}));
  // The classic call names no engine; a cuBLASLt one that beat it is named with the operands' type.
  EXPECT_EQ(half.library(""), "cuBLAS GemmEx (half)");
  EXPECT_EQ(half.library(cublasLtEngineName(23, "256x128", 1)),
            "cuBLASLt matmul (half, algo 23, tile 256x128, splitK 1)");
  ReferencePlan single = planReference(loadExample("matmul.loop", {{"M", 64}, {"N", 32}, {"K", 16}}));
  EXPECT_EQ(single.library(""), "cuBLAS SGEMM");
  EXPECT_EQ(single.library(cublasLtEngineName(6, "128x64", 2)), "cuBLASLt matmul (algo 6, tile 128x64, splitK 2)");
}

}  // namespace
}  // namespace cudaburg
