// Which reference checks a nest: recognition of matrix products and convolutions.
#include <gtest/gtest.h>

#include <tuple>

#include "src/analysis/reference_shape.hpp"
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
}

// Convolutions of half or bfloat16 operands into a float output: cuDNN on tensor cores (which
// writes its output in the operands' type); tf32 and mixed operands are checked exactly.
TEST(RunReferenceShape, ReducedPrecisionConvolutionsUseCudnnTensorOps) {
  Kernel k = loadExample("conv2d_nhwc_half.loop", {{"N", 2}, {"C", 16}, {"H", 10}, {"W", 9}, {"K", 24}});
  auto c = recognizeConv(k);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->operands, ScalarType::Half);
  EXPECT_EQ(c->libraryOutput(), ScalarType::Half);
  EXPECT_EQ(c->layout, ConvShape::Layout::ChannelsLast);
  EXPECT_EQ(c->pad, (std::vector<int64_t>{1, 1}));
  ReferencePlan plan = planReference(k);
  EXPECT_EQ(plan.kind, ReferencePlan::Kind::Conv);
  EXPECT_EQ(plan.describe(), "cuDNN convolution (half) N2 C16 10x9 K24 3x3 channels last");
  EXPECT_EQ(plan.library("IMPLICIT_PRECOMP_GEMM"), "cuDNN convolution (half, IMPLICIT_PRECOMP_GEMM)");
  EXPECT_EQ(planReference(loadExample("conv2d.loop")).library("WINOGRAD"), "cuDNN convolution (WINOGRAD)");
  EXPECT_EQ(recognizeConv(loadExample("conv2d.loop"))->libraryOutput(), ScalarType::Float);
  const std::string nest =
      "size N = 2, C = 8, H = 6, W = 6, K = 8;\n"
      "kernel c(float Out[N][4][4][K], const IN In[N][H][W][C], const WT Wt[K][3][3][C]) {\n"
      "  parallel for (n = 0; n < N; n++) parallel for (p = 0; p < 4; p++) parallel for (q = 0; q < 4; q++)\n"
      "    parallel for (k = 0; k < K; k++) {\n"
      "      Out[n][p][q][k] = 0;\n"
      "      reduce for (r = 0; r < 3; r++) reduce for (s = 0; s < 3; s++) reduce for (c = 0; c < C; c++)\n"
      "        Out[n][p][q][k] += In[n][p + r][q + s][c] * Wt[k][r][s][c]; } }\n";
  auto typed = [&](const std::string& in, const std::string& wt) {
    std::string text = nest;
    text.replace(text.find("IN"), 2, in);
    text.replace(text.find("WT"), 2, wt);
    return parseLoopText("c.loop", text);
  };
  auto bf16 = recognizeConv(typed("bfloat16", "bfloat16"));
  ASSERT_TRUE(bf16);
  EXPECT_EQ(bf16->operands, ScalarType::BFloat16);
  EXPECT_EQ(planReference(typed("bfloat16", "bfloat16")).library(), "cuDNN convolution (bfloat16)");
  EXPECT_FALSE(recognizeConv(typed("tf32", "tf32")));
  EXPECT_FALSE(recognizeConv(typed("half", "bfloat16")));
  EXPECT_FALSE(recognizeConv(typed("half", "float")));
  EXPECT_EQ(planReference(typed("tf32", "tf32")).kind, ReferencePlan::Kind::Exact);
}

// The all-half layer (a float local accumulator stored into a half output) is cuDNN's own form:
// its convolution of half operands, no epilogue after it, its half output compared as it is.
TEST(RunReferenceShape, AllHalfConvolutionIsCudnnsOwnOutput) {
  Kernel k = loadExample("conv2d_nhwc_fp16.loop", {{"N", 2}, {"C", 16}, {"H", 10}, {"W", 9}, {"K", 24}});
  ReferencePlan plan = planReference(k);
  ASSERT_EQ(plan.kind, ReferencePlan::Kind::Conv);
  EXPECT_EQ(plan.conv.operands, ScalarType::Half);
  EXPECT_EQ(plan.conv.libraryOutput(), ScalarType::Half);
  EXPECT_EQ(plan.conv.layout, ConvShape::Layout::ChannelsLast);
  EXPECT_TRUE(plan.conv.epilogue.empty());
  EXPECT_EQ(plan.conv.output, "Out");
  EXPECT_EQ(plan.describe(), "cuDNN convolution (half) N2 C16 10x9 K24 3x3 channels last");
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
}

TEST(RunReferenceShape, Conv2dExampleIsACudnnConvolution) {
  Kernel k = loadExample("conv2d.loop", {{"N", 2}, {"C", 3}, {"H", 10}, {"W", 12}, {"K", 4}});
  EXPECT_FALSE(recognizeGemm(k));
  auto c = recognizeConv(k);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->input, "In");
  EXPECT_EQ(c->weight, "Wt");
  EXPECT_EQ(c->output, "Out");
  EXPECT_EQ(c->layout, ConvShape::Layout::ChannelsFirst);
  EXPECT_EQ(c->n, 2);
  EXPECT_EQ(c->c, 3);
  EXPECT_EQ(c->k, 4);
  EXPECT_EQ(c->groups, 1);
  EXPECT_EQ(c->in, (std::vector<int64_t>{10, 12}));
  EXPECT_EQ(c->filter, (std::vector<int64_t>{3, 3}));
  EXPECT_EQ(c->out, (std::vector<int64_t>{10, 12}));
  EXPECT_EQ(c->pad, (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(c->stride, (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(c->dilation, (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(planReference(k, true).kind, ReferencePlan::Kind::Conv);
  // Without the library the convolution is checked against the exact nest.
  EXPECT_EQ(planReference(k, false).kind, ReferencePlan::Kind::Exact);
}

TEST(RunReferenceShape, StridedConvolution) {
  Kernel k = loadExample("conv2d.loop", {{"N", 1}, {"C", 2}, {"H", 9}, {"W", 9}, {"K", 2}, {"ST", 2}});
  auto c = recognizeConv(k);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->stride, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(c->out[0], (9 + 2 - 3) / 2 + 1);
}

// Every convolution example has cuDNN as its reference, and says how it is laid out.
TEST(RunReferenceShape, ConvolutionExamplesAndTheirLayouts) {
  struct Case {
    const char* example;
    std::string described;
  };
  const Case cases[] = {
      {"conv2d.loop", "cuDNN convolution N32 C64 56x56 K64 3x3"},
      {"conv2d_nhwc.loop", "cuDNN convolution N32 C64 56x56 K64 3x3 channels last"},
      {"conv2d_dilated.loop", "cuDNN convolution N8 C64 56x56 K64 3x3"},
      {"conv2d_grouped.loop", "cuDNN convolution N16 C128 56x56 K128 3x3 groups 32"},
      {"conv2d_depthwise.loop", "cuDNN convolution N32 C128 56x56 K128 3x3 groups 128"},
      {"conv3d_ncdhw.loop", "cuDNN convolution N4 C64 16x56x56 K64 3x3x3"},
      {"conv3d.loop", "cuDNN convolution N1 C1 128x128x128 K1 8x8x8"},
      {"correlate2d.loop", "cuDNN convolution N1 C1 2048x2048 K1 8x8"},
      {"conv1d.loop", "cuDNN convolution N16 C128 4096 K128 7"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.example);
    ReferencePlan plan = planReference(loadExample(c.example));
    EXPECT_EQ(plan.kind, ReferencePlan::Kind::Conv);
    EXPECT_EQ(plan.describe(), c.described);
  }
  auto dilated = recognizeConv(loadExample("conv2d_dilated.loop"));
  ASSERT_TRUE(dilated);
  EXPECT_EQ(dilated->dilation, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(dilated->pad, (std::vector<int64_t>{2, 2}));
  auto grouped = recognizeConv(loadExample("conv2d_grouped.loop"));
  ASSERT_TRUE(grouped);
  EXPECT_EQ(grouped->c / grouped->groups, 4);
}

TEST(RunReferenceShape, TransposedProductExamples) {
  auto nt = recognizeGemm(loadExample("matmul_nt.loop"));
  ASSERT_TRUE(nt);
  EXPECT_FALSE(nt->aTransposed);
  EXPECT_TRUE(nt->bTransposed);
  auto tn = recognizeGemm(loadExample("matmul_tn.loop"));
  ASSERT_TRUE(tn);
  EXPECT_TRUE(tn->aTransposed);
  EXPECT_FALSE(tn->bTransposed);
}

// What the library would compute differently from the nest is checked exactly instead.
TEST(RunReferenceShape, ConvolutionsTheLibraryComputesDifferently) {
  const char* const nests[] = {
      // The input has a channel more than the loop reads: the library's strides would differ.
      R"(size N = 2, C = 3, H = 8, W = 8, K = 4;
kernel c(float Out[N][K][6][6], const float In[N][4][H][W], const float Wt[K][C][3][3]) {
  parallel for (n = 0; n < N; n++) parallel for (k = 0; k < K; k++)
    parallel for (p = 0; p < 6; p++) parallel for (q = 0; q < 6; q++)
      reduce for (c = 0; c < C; c++) reduce for (r = 0; r < 3; r++) reduce for (s = 0; s < 3; s++)
        Out[n][k][p][q] += In[n][c][p + r][q + s] * Wt[k][c][r][s];
})",
      // Padded on one side only: the library pads both.
      R"(size H = 8, W = 8;
kernel c(float Out[7][7], const float In[H][W] padded, const float Wt[3][3]) {
  parallel for (p = 0; p < 7; p++) parallel for (q = 0; q < 7; q++)
    reduce for (r = 0; r < 3; r++) reduce for (s = 0; s < 3; s++)
      Out[p][q] += In[p + r - 1][q + s - 1] * Wt[r][s];
})",
      // Channels first in the input, last in the output.
      R"(size N = 2, C = 3, H = 8, W = 8, K = 4;
kernel c(float Out[N][6][6][K], const float In[N][C][H][W], const float Wt[K][C][3][3]) {
  parallel for (n = 0; n < N; n++) parallel for (k = 0; k < K; k++)
    parallel for (p = 0; p < 6; p++) parallel for (q = 0; q < 6; q++)
      reduce for (c = 0; c < C; c++) reduce for (r = 0; r < 3; r++) reduce for (s = 0; s < 3; s++)
        Out[n][p][q][k] += In[n][c][p + r][q + s] * Wt[k][c][r][s];
})",
      // The taps in another order than the image's dimensions.
      R"(size H = 8, W = 8;
kernel c(float Out[6][6], const float In[H][W], const float Wt[3][3]) {
  parallel for (p = 0; p < 6; p++) parallel for (q = 0; q < 6; q++)
    reduce for (r = 0; r < 3; r++) reduce for (s = 0; s < 3; s++)
      Out[p][q] += In[p + r][q + s] * Wt[s][r];
})",
  };
  for (const char* text : nests) {
    SCOPED_TRACE(text);
    Kernel k = parseLoopText("c.loop", text);
    EXPECT_FALSE(recognizeConv(k));
    EXPECT_EQ(planReference(k).kind, ReferencePlan::Kind::Exact);
  }
}

}  // namespace
}  // namespace cudaburg
