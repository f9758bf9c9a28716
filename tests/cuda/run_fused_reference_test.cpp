// Which library reference a fused layer (a product or convolution with element-wise statements
// after it) is checked and timed against, and the name reports give it.
#include <gtest/gtest.h>

#include "src/analysis/gemm_epilogue.hpp"
#include "src/analysis/reference_shape.hpp"
#include "tests/cuda/run_test_kernels.hpp"

namespace cudaburg {
namespace {

using testing::loadExample;
using testing::parseLoopText;

const std::map<std::string, int64_t> kLinear = {{"M", 64}, {"N", 32}, {"K", 16}};
const std::map<std::string, int64_t> kConv = {{"N", 2}, {"C", 3}, {"H", 10}, {"W", 12}, {"K", 4}};

TEST(FusedReference, LinearReluIsAProductWithCublasLtsReluBiasEpilogue) {
  Kernel k = loadExample("linear_relu.loop", kLinear);
  EXPECT_FALSE(recognizeGemm(k)) << "the plain product's recognizer takes no epilogue (Winograd relies on it)";
  ReferencePlan plan = planReference(k);
  ASSERT_EQ(plan.kind, ReferencePlan::Kind::Gemm);
  EXPECT_EQ(plan.gemm.a, "X");
  EXPECT_EQ(plan.gemm.b, "W");
  EXPECT_EQ(plan.gemm.c, "Y");
  EXPECT_EQ(plan.gemm.m, 64);
  EXPECT_EQ(plan.gemm.n, 32);
  EXPECT_EQ(plan.gemm.k, 16);
  EXPECT_EQ(plan.gemm.epilogue.shift, "b");
  EXPECT_EQ(plan.gemm.epilogue.activation, EpilogueShape::Activation::Relu);
  EXPECT_TRUE(plan.gemm.epilogueAlongColumns);
  EXPECT_EQ(chooseGemmEpilogue(plan.gemm), GemmEpilogue::ReluBias);
  EXPECT_EQ(plan.describe(), "cuBLASLt matmul + RELU_BIAS epilogue 64x32x16");
  EXPECT_EQ(plan.library("cuBLASLt algo 6, tile 128x128, splitK 1"),
            "cuBLASLt matmul (algo 6, tile 128x128, splitK 1) + RELU_BIAS epilogue");
}

TEST(FusedReference, GeluSummedInALocalIsStoredToTheOutput) {
  ReferencePlan plan = planReference(loadExample("linear_gelu.loop", kLinear));
  ASSERT_EQ(plan.kind, ReferencePlan::Kind::Gemm);
  EXPECT_EQ(plan.gemm.c, "Y") << "the product ends in Y, not in the local it is summed in";
  EXPECT_EQ(plan.gemm.epilogue.activation, EpilogueShape::Activation::GeluTanh);
  EXPECT_EQ(plan.library(), "cuBLASLt matmul + GELU_BIAS epilogue");
}

TEST(FusedReference, HalfLayerFusesItsBiasIntoCublasLtWritingHalf) {
  ReferencePlan plan = planReference(loadExample("linear_half.loop", kLinear));
  ASSERT_EQ(plan.kind, ReferencePlan::Kind::Gemm);
  EXPECT_EQ(plan.gemm.operands, ScalarType::Half);
  EXPECT_EQ(plan.gemm.epilogue.outputType, ScalarType::Half);
  EXPECT_EQ(plan.gemm.epilogue.accumulator, ScalarType::Float);
  EXPECT_EQ(chooseGemmEpilogue(plan.gemm), GemmEpilogue::Bias);
  EXPECT_EQ(plan.library(), "cuBLASLt matmul (half) + BIAS epilogue");
  plan.gemm.epilogue.shift = "";  // a bare store in half: cuBLASLt writes it, with no epilogue
  EXPECT_EQ(chooseGemmEpilogue(plan.gemm), GemmEpilogue::None);
  EXPECT_EQ(plan.library(), "cuBLASLt matmul (half)");
  // A half output of a float product, or summed in half, is not one cuBLASLt writes.
  plan.gemm.operands = ScalarType::Float;
  EXPECT_EQ(chooseGemmEpilogue(plan.gemm), GemmEpilogue::ElementWise);
  EXPECT_EQ(plan.library(), "cuBLAS SGEMM + element-wise epilogue");
  plan.gemm.operands = ScalarType::Half;
  plan.gemm.epilogue.shift = "b";
  plan.gemm.epilogue.accumulator = ScalarType::Half;
  EXPECT_EQ(chooseGemmEpilogue(plan.gemm), GemmEpilogue::ElementWise);
}

TEST(FusedReference, BiasPerRowRunsAlongTheRows) {
  Kernel k = parseLoopText("rowbias.loop", R"(
size M = 8, N = 4, K = 6;
kernel rowbias(float C[M][N], const float A[M][K], const float B[K][N], const float r[M]) {
  parallel for (i = 0; i < M; i++)
    parallel for (j = 0; j < N; j++) {
      C[i][j] = 0;
      reduce for (k = 0; k < K; k++)
        C[i][j] += A[i][k] * B[k][j];
      C[i][j] = max(C[i][j] + r[i], 0);
    }
}
)");
  ReferencePlan plan = planReference(k);
  ASSERT_EQ(plan.kind, ReferencePlan::Kind::Gemm);
  EXPECT_FALSE(plan.gemm.epilogueAlongColumns);
  EXPECT_EQ(plan.library(), "cuBLAS SGEMM + element-wise epilogue");
}

TEST(FusedReference, BiasPerBatchHasNoLibraryReference) {
  Kernel k = parseLoopText("batchbias.loop", R"(
size B = 2, M = 8, N = 4, K = 6;
kernel batchbias(float C[B][M][N], const float A[B][M][K], const float W[B][K][N], const float r[B]) {
  parallel for (b = 0; b < B; b++)
    parallel for (i = 0; i < M; i++)
      parallel for (j = 0; j < N; j++) {
        C[b][i][j] = 0;
        reduce for (k = 0; k < K; k++)
          C[b][i][j] += A[b][i][k] * W[b][k][j];
        C[b][i][j] = C[b][i][j] + r[b];
      }
}
)");
  EXPECT_EQ(planReference(k).kind, ReferencePlan::Kind::Exact);
}

TEST(FusedReference, UnrecognizedEpilogueOrTwoProductsUseTheExactReference) {
  Kernel exp = parseLoopText("expo.loop", R"(
size M = 8, N = 4, K = 6;
kernel expo(float C[M][N], const float A[M][K], const float B[K][N]) {
  parallel for (i = 0; i < M; i++)
    parallel for (j = 0; j < N; j++) {
      C[i][j] = 0;
      reduce for (k = 0; k < K; k++)
        C[i][j] += A[i][k] * B[k][j];
      C[i][j] = exp(C[i][j]);
    }
}
)");
  EXPECT_EQ(planReference(exp).kind, ReferencePlan::Kind::Exact);
  EXPECT_EQ(planReference(loadExample("mlp2.loop", {{"M", 8}, {"D", 8}, {"F", 4}})).kind, ReferencePlan::Kind::Exact);
}

TEST(FusedReference, PlainNestsKeepTheirPlainReferences) {
  ReferencePlan gemm = planReference(loadExample("matmul.loop", kLinear));
  EXPECT_TRUE(gemm.gemm.epilogue.empty());
  EXPECT_EQ(gemm.library(), "cuBLAS SGEMM");
  ReferencePlan conv = planReference(loadExample("conv2d.loop", kConv));
  EXPECT_TRUE(conv.conv.epilogue.empty());
  EXPECT_EQ(conv.library(), "cuDNN convolution");
}

TEST(FusedReference, ResnetLayerIsCudnnThenAnElementWisePass) {
  Kernel k = loadExample("resnet_bn_relu.loop", {{"N", 2}, {"C", 3}, {"H", 8}, {"W", 8}, {"K", 4}});
  EXPECT_FALSE(recognizeConv(k));
  ReferencePlan plan = planReference(k);
  ASSERT_EQ(plan.kind, ReferencePlan::Kind::Conv);
  EXPECT_EQ(plan.conv.output, "Out");
  EXPECT_EQ(plan.conv.k, 4);
  EXPECT_EQ(plan.conv.epilogue.scale, "scale");
  EXPECT_EQ(plan.conv.epilogue.shift, "shift");
  EXPECT_EQ(plan.conv.epilogue.channel, "k");
  EXPECT_EQ(plan.conv.epilogue.activation, EpilogueShape::Activation::Relu);
  EXPECT_EQ(plan.library("IMPLICIT_PRECOMP_GEMM"), "cuDNN convolution (IMPLICIT_PRECOMP_GEMM) + element-wise epilogue");
  EXPECT_EQ(planReference(k, false).kind, ReferencePlan::Kind::Exact) << "without cuDNN";
}

TEST(FusedReference, BottleneckIsA1x1CudnnConvolutionWithItsShortcut) {
  Kernel k = loadExample("bottleneck_shortcut.loop", {{"N", 2}, {"C", 8}, {"K", 16}, {"H", 6}, {"W", 5}});
  ReferencePlan plan = planReference(k);
  ASSERT_EQ(plan.kind, ReferencePlan::Kind::Conv);
  const ConvShape& c = plan.conv;
  EXPECT_EQ(c.input, "In");
  EXPECT_EQ(c.weight, "Wt");
  EXPECT_EQ(c.n, 2);
  EXPECT_EQ(c.c, 8);
  EXPECT_EQ(c.k, 16);
  EXPECT_EQ(c.in, (std::vector<int64_t>{6, 5}));
  EXPECT_EQ(c.filter, (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(c.out, (std::vector<int64_t>{6, 5}));
  EXPECT_EQ(c.pad, (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(c.outIndices, (std::vector<std::string>{"h", "w"}));
  EXPECT_EQ(c.layout, ConvShape::Layout::ChannelsFirst);
  EXPECT_EQ(c.epilogue.shortcut, "Shortcut");
  EXPECT_EQ(c.epilogue.scale, "scale");
  EXPECT_EQ(plan.describe(), "cuDNN convolution + element-wise epilogue N2 C8 6x5 K16 1x1");
}

TEST(FusedReference, PlainConvolutionWithoutTapsIsA1x1Convolution) {
  Kernel k = parseLoopText("pointwise.loop", R"(
size N = 2, C = 3, K = 4, H = 5, W = 6;
kernel pointwise(float Out[N][H][W][K], const float In[N][H][W][C], const float Wt[K][C]) {
  parallel for (n = 0; n < N; n++)
    parallel for (h = 0; h < H; h++)
      parallel for (w = 0; w < W; w++)
        parallel for (k = 0; k < K; k++)
          reduce for (c = 0; c < C; c++)
            Out[n][h][w][k] += In[n][h][w][c] * Wt[k][c];
}
)");
  auto c = recognizeConv(k);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->layout, ConvShape::Layout::ChannelsLast);
  EXPECT_EQ(c->n, 2);
  EXPECT_EQ(c->filter, (std::vector<int64_t>{1, 1}));
  EXPECT_TRUE(c->epilogue.empty());
  // A weight of another shape than K x C is no 1x1 filter.
  Kernel wrong = parseLoopText("wrongweight.loop", R"(
size N = 2, C = 3, K = 4, H = 5;
kernel wrongweight(float Out[N][K][H], const float In[N][C][H], const float Wt[C][K]) {
  parallel for (n = 0; n < N; n++)
    parallel for (k = 0; k < K; k++)
      parallel for (h = 0; h < H; h++)
        reduce for (c = 0; c < C; c++)
          Out[n][k][h] += In[n][c][h] * Wt[c][k];
}
)");
  EXPECT_FALSE(recognizeConv(wrong));
  EXPECT_EQ(planReference(loadExample("matmul.loop", kLinear)).kind, ReferencePlan::Kind::Gemm);
}

}  // namespace
}  // namespace cudaburg
