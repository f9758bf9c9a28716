// The epilogues of fused layers: the statements after a product, as the forms libraries fuse.
#include <gtest/gtest.h>

#include "src/analysis/epilogue_shape.hpp"
#include "tests/cuda/run_test_kernels.hpp"

namespace cudaburg {
namespace {

using testing::loadExample;
using testing::parseLoopText;

EpilogueShape recognized(const Kernel& k) {
  std::string why;
  std::optional<EpilogueShape> e = recognizeEpilogue(k, &why);
  EXPECT_TRUE(e) << why;
  return e.value_or(EpilogueShape{});
}

TEST(EpilogueShape, BareProductHasAnEmptyEpilogue) {
  EpilogueShape e = recognized(loadExample("matmul.loop", {{"M", 64}, {"N", 32}, {"K", 16}}));
  EXPECT_TRUE(e.empty());
  EXPECT_EQ(e.output, "C");
  EXPECT_EQ(e.describe(), "");
}

TEST(EpilogueShape, LinearLayersWithBiasAndActivation) {
  EpilogueShape relu = recognized(loadExample("linear_relu.loop", {{"M", 64}, {"N", 32}, {"K", 16}}));
  EXPECT_EQ(relu.shift, "b");
  EXPECT_EQ(relu.channel, "j");
  EXPECT_TRUE(relu.scale.empty());
  EXPECT_EQ(relu.activation, EpilogueShape::Activation::Relu);
  EXPECT_EQ(relu.describe(), "bias per j, ReLU");

  EpilogueShape gelu = recognized(loadExample("linear_gelu.loop", {{"M", 64}, {"N", 32}, {"K", 16}}));
  EXPECT_EQ(gelu.shift, "b");
  EXPECT_EQ(gelu.activation, EpilogueShape::Activation::GeluTanh);
  EXPECT_EQ(gelu.accumulator, ScalarType::Float);

  EpilogueShape half = recognized(loadExample("linear_half.loop", {{"M", 64}, {"N", 32}, {"K", 16}}));
  EXPECT_EQ(half.activation, EpilogueShape::Activation::None);
  EXPECT_EQ(half.outputType, ScalarType::Half);
  EXPECT_EQ(half.accumulator, ScalarType::Float);
  EXPECT_EQ(half.describe(), "bias per j, stored as half");
}

TEST(EpilogueShape, GeluInItsErfForm) {
  EpilogueShape e = recognized(parseLoopText("erf.loop", R"(
size M = 8, N = 4, K = 6;
kernel gelu_erf(float Y[M][N], const float X[M][K], const float W[K][N], const float b[N]) {
  parallel for (i = 0; i < M; i++)
    parallel for (j = 0; j < N; j++) {
      float acc = 0;
      reduce for (k = 0; k < K; k++)
        acc += X[i][k] * W[k][j];
      float x = b[j] + acc;
      Y[i][j] = x * 0.5 * (1 + erf(x * 0.7071067811865476));
    }
}
)"));
  EXPECT_EQ(e.activation, EpilogueShape::Activation::GeluErf);
  EXPECT_EQ(e.shift, "b");
}

TEST(EpilogueShape, ConvolutionLayersWithFoldedBatchNormAndShortcut) {
  EpilogueShape bn = recognized(loadExample("resnet_bn_relu.loop", {{"N", 2}, {"C", 8}, {"K", 8}, {"H", 6}, {"W", 6}}));
  EXPECT_EQ(bn.scale, "scale");
  EXPECT_EQ(bn.shift, "shift");
  EXPECT_EQ(bn.channel, "k");
  EXPECT_TRUE(bn.shortcut.empty());
  EXPECT_EQ(bn.describe(), "scale and shift per k, ReLU");

  EpilogueShape sc =
      recognized(loadExample("bottleneck_shortcut.loop", {{"N", 2}, {"C", 8}, {"K", 16}, {"H", 6}, {"W", 6}}));
  EXPECT_EQ(sc.shortcut, "Shortcut");
  EXPECT_EQ(sc.describe(), "scale and shift per k, shortcut add, ReLU");
}

TEST(EpilogueShape, FormsNoLibraryFusesAreRefusedWithAReason) {
  std::string why;
  EXPECT_FALSE(recognizeEpilogue(loadExample("mlp2.loop", {{"M", 8}, {"D", 8}, {"F", 4}}), &why));
  EXPECT_NE(why.find("more than one product"), std::string::npos) << why;

  // A sigmoid, and a shortcut read at another element than the output's.
  Kernel sigmoid = parseLoopText("sigmoid.loop", R"(
size M = 8, N = 8, K = 6;
kernel sigmoid(float Y[M][N], const float X[M][K], const float W[K][N]) {
  parallel for (i = 0; i < M; i++)
    parallel for (j = 0; j < N; j++) {
      Y[i][j] = 0;
      reduce for (k = 0; k < K; k++)
        Y[i][j] += X[i][k] * W[k][j];
      Y[i][j] = 1 / (1 + exp(0 - Y[i][j]));
    }
}
)");
  EXPECT_FALSE(recognizeEpilogue(sigmoid, &why));
  EXPECT_NE(why.find("is not a product scaled"), std::string::npos) << why;
  EXPECT_EQ(why.find("@"), std::string::npos) << why;

  Kernel transposedShortcut = parseLoopText("shortcut.loop", R"(
size M = 8, N = 8, K = 6;
kernel shortcut(float Y[M][N], const float X[M][K], const float W[K][N], const float R[N][M]) {
  parallel for (i = 0; i < M; i++)
    parallel for (j = 0; j < N; j++) {
      Y[i][j] = 0;
      reduce for (k = 0; k < K; k++)
        Y[i][j] += X[i][k] * W[k][j];
      Y[i][j] = Y[i][j] + R[j][i];
    }
}
)");
  EXPECT_FALSE(recognizeEpilogue(transposedShortcut, &why));
}

}  // namespace
}  // namespace cudaburg
