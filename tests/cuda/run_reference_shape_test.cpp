// Which reference checks a nest: recognition of matrix products and convolutions.
#include <gtest/gtest.h>

#include <tuple>

#include "src/cuda/run/reference_shape.hpp"
#include "tests/cuda/run_test_kernels.hpp"

namespace cudaburg {
namespace {

using testing::loadExample;
using testing::parseLoopText;

TEST(RunReferenceShape, MatmulExampleIsAPlainGemm) {
  Kernel k = loadExample("matmul.loop", {{"M", 96}, {"N", 80}, {"K", 48}});
  auto g = recognizeGemm(k);
  ASSERT_TRUE(g);
  EXPECT_EQ(g->a, "A");
  EXPECT_EQ(g->b, "B");
  EXPECT_EQ(g->c, "C");
  EXPECT_EQ(g->m, 96);
  EXPECT_EQ(g->n, 80);
  EXPECT_EQ(g->k, 48);
  EXPECT_EQ(g->batch, 1);
  EXPECT_FALSE(g->aTransposed);
  EXPECT_FALSE(g->bTransposed);
  EXPECT_EQ(g->lda, 48);
  EXPECT_EQ(g->ldb, 80);
  EXPECT_EQ(g->ldc, 80);
  EXPECT_EQ(planReference(k).kind, ReferencePlan::Kind::Gemm);
  EXPECT_EQ(planReference(k).describe(), "cuBLAS SGEMM 96x80x48");
}

TEST(RunReferenceShape, ReducedPrecisionProductsUseGemmEx) {
  for (const auto& [file, type, name] : {std::tuple{"hgemm.loop", ScalarType::Half, "half"},
                                         std::tuple{"bf16gemm.loop", ScalarType::BFloat16, "bfloat16"},
                                         std::tuple{"tf32gemm.loop", ScalarType::TF32, "tf32"}}) {
    Kernel k = loadExample(file, {{"M", 64}, {"N", 32}, {"K", 16}});
    auto g = recognizeGemm(k);
    ASSERT_TRUE(g) << file;
    EXPECT_EQ(g->operands, type);
    EXPECT_EQ(planReference(k).describe(), std::string("cuBLAS GemmEx (") + name + ") 64x32x16");
  }
  EXPECT_EQ(recognizeGemm(loadExample("matmul.loop"))->operands, ScalarType::Float);
  // Operands of two types, or a half output, are no library's product: the exact nest checks them.
  Kernel mixed = parseLoopText("mixed.loop",
      "size M = 8, N = 8, K = 8;\n"
      "kernel mm(float C[M][N], const half A[M][K], const bfloat16 B[K][N]) {\n"
      "  parallel for (i = 0; i < M; i++) parallel for (j = 0; j < N; j++) {\n"
      "    C[i][j] = 0; reduce for (k = 0; k < K; k++) C[i][j] += A[i][k] * B[k][j]; } }\n");
  EXPECT_FALSE(recognizeGemm(mixed));
  Kernel halfOut = parseLoopText("half_out.loop",
      "size M = 8, N = 8, K = 8;\n"
      "kernel mm(half C[M][N], const half A[M][K], const half B[K][N]) {\n"
      "  parallel for (i = 0; i < M; i++) parallel for (j = 0; j < N; j++) {\n"
      "    C[i][j] = 0; reduce for (k = 0; k < K; k++) C[i][j] += A[i][k] * B[k][j]; } }\n");
  EXPECT_FALSE(recognizeGemm(halfOut));
  // Half convolutions are no cuDNN float convolution.
  EXPECT_EQ(planReference(loadExample("conv2d_nhwc_half.loop")).kind, ReferencePlan::Kind::Exact);
}

TEST(RunReferenceShape, BatchedProductWithTransposedOperand) {
  Kernel k = loadExample("matmul_bt.loop", {{"BATCH", 3}, {"M", 16}, {"N", 24}, {"K", 8}});
  auto g = recognizeGemm(k);
  ASSERT_TRUE(g);
  EXPECT_EQ(g->batch, 3);
  EXPECT_FALSE(g->aTransposed);
  EXPECT_TRUE(g->bTransposed);
  EXPECT_EQ(g->ldb, 8);
  EXPECT_EQ(g->strideA, 16 * 8);
  EXPECT_EQ(g->strideB, 24 * 8);
  EXPECT_EQ(g->strideC, 16 * 24);
}

TEST(RunReferenceShape, OperandOrderAndTransposedFirstOperand) {
  Kernel k = parseLoopText("at.loop", R"(
size M = 8, N = 4, K = 6;
kernel at(float C[M][N], const float A[K][M], const float B[K][N]) {
  parallel for (i = 0; i < M; i++)
    parallel for (j = 0; j < N; j++)
      reduce for (k = 0; k < K; k++)
        C[i][j] += B[k][j] * A[k][i];
}
)");
  auto g = recognizeGemm(k);
  ASSERT_TRUE(g);
  EXPECT_EQ(g->a, "A");
  EXPECT_TRUE(g->aTransposed);
  EXPECT_FALSE(g->bTransposed);
  EXPECT_EQ(g->lda, 8);
}

TEST(RunReferenceShape, NestsThatAreNotProductsUseTheExactReference) {
  Kernel epilogue = parseLoopText("scaled.loop", R"(
size M = 8, N = 4, K = 6;
kernel scaled(float C[M][N], const float A[M][K], const float B[K][N]) {
  parallel for (i = 0; i < M; i++)
    parallel for (j = 0; j < N; j++)
      reduce for (k = 0; k < K; k++)
        C[i][j] += 2 * A[i][k] * B[k][j];
}
)");
  EXPECT_FALSE(recognizeGemm(epilogue));
  EXPECT_EQ(planReference(epilogue).kind, ReferencePlan::Kind::Exact);
  EXPECT_EQ(planReference(epilogue).library(), "FP64 reference");

  Kernel elementwise = parseLoopText("add.loop", R"(
size N = 64;
kernel add(float C[N], const float A[N], const float B[N]) {
  parallel for (i = 0; i < N; i++)
    C[i] = A[i] + B[i];
}
)");
  EXPECT_EQ(planReference(elementwise).kind, ReferencePlan::Kind::Exact);
  EXPECT_EQ(planReference(loadExample("conv3d.loop")).kind, ReferencePlan::Kind::Exact);
}

TEST(RunReferenceShape, Conv2dExampleIsACudnnConvolution) {
  Kernel k = loadExample("conv2d.loop", {{"N", 2}, {"C", 3}, {"H", 10}, {"W", 12}, {"K", 4}});
  EXPECT_FALSE(recognizeGemm(k));
  auto c = recognizeConv2d(k);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->input, "In");
  EXPECT_EQ(c->weight, "Wt");
  EXPECT_EQ(c->output, "Out");
  EXPECT_EQ(c->n, 2);
  EXPECT_EQ(c->c, 3);
  EXPECT_EQ(c->h, 10);
  EXPECT_EQ(c->w, 12);
  EXPECT_EQ(c->k, 4);
  EXPECT_EQ(c->r, 3);
  EXPECT_EQ(c->s, 3);
  EXPECT_EQ(c->p, 10);
  EXPECT_EQ(c->q, 12);
  EXPECT_EQ(c->padH, 1);
  EXPECT_EQ(c->padW, 1);
  EXPECT_EQ(c->strideH, 1);
  EXPECT_EQ(planReference(k, true).kind, ReferencePlan::Kind::Conv2d);
  // Without the library the convolution is checked against the exact nest.
  EXPECT_EQ(planReference(k, false).kind, ReferencePlan::Kind::Exact);
}

TEST(RunReferenceShape, StridedConvolution) {
  Kernel k = loadExample("conv2d.loop", {{"N", 1}, {"C", 2}, {"H", 9}, {"W", 9}, {"K", 2}, {"ST", 2}});
  auto c = recognizeConv2d(k);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->strideH, 2);
  EXPECT_EQ(c->p, (9 + 2 - 3) / 2 + 1);
}

}  // namespace
}  // namespace cudaburg
