// Which cuBLASLt epilogue computes a fused layer's epilogue, and the name its reference goes by.
#include <gtest/gtest.h>

#include "src/analysis/gemm_epilogue.hpp"
#include "tests/cuda/run_test_kernels.hpp"

namespace cudaburg {
namespace {

using testing::loadExample;

const std::map<std::string, int64_t> kSmall = {{"M", 64}, {"N", 32}, {"K", 16}};

// The plain product's shape carrying the epilogue of `example`.
ReferencePlan fusedPlan(const std::string& example, bool alongColumns = true) {
  ReferencePlan plan;
  plan.kind = ReferencePlan::Kind::Gemm;
  plan.gemm = *recognizeGemm(loadExample("matmul.loop", kSmall));
  std::string why;
  std::optional<EpilogueShape> e = recognizeEpilogue(loadExample(example, kSmall), &why);
  EXPECT_TRUE(e) << why;
  plan.gemm.epilogue = e.value_or(EpilogueShape{});
  plan.gemm.epilogueAlongColumns = alongColumns;
  return plan;
}

TEST(GemmEpilogue, PlainProductHasNone) {
  ReferencePlan plan = fusedPlan("matmul.loop");
  EXPECT_EQ(chooseGemmEpilogue(plan.gemm), GemmEpilogue::None);
  EXPECT_EQ(plan.library(), "cuBLAS SGEMM");
}

TEST(GemmEpilogue, BiasPerColumnAndReluFuseIntoCublasLt) {
  ReferencePlan plan = fusedPlan("linear_relu.loop");
  EXPECT_EQ(chooseGemmEpilogue(plan.gemm), GemmEpilogue::ReluBias);
  EXPECT_EQ(plan.library(), "cuBLASLt matmul + RELU_BIAS epilogue");
  EXPECT_EQ(plan.library("cuBLASLt algo 23, tile 256x128, splitK 1"),
            "cuBLASLt matmul (algo 23, tile 256x128, splitK 1) + RELU_BIAS epilogue");
}

TEST(GemmEpilogue, GeluInItsTanhFormFusesWithTheBias) {
  ReferencePlan plan = fusedPlan("linear_gelu.loop");
  EXPECT_EQ(chooseGemmEpilogue(plan.gemm), GemmEpilogue::GeluBias);
  EXPECT_EQ(plan.library(), "cuBLASLt matmul + GELU_BIAS epilogue");
}

TEST(GemmEpilogue, BiasPerRowTakesAnElementWisePass) {
  // Column major, a bias per row-major row runs along cuBLASLt's columns, which it cannot add.
  ReferencePlan plan = fusedPlan("linear_relu.loop", false);
  EXPECT_EQ(chooseGemmEpilogue(plan.gemm), GemmEpilogue::ElementWise);
  EXPECT_EQ(plan.library(), "cuBLAS SGEMM + element-wise epilogue");
}

TEST(GemmEpilogue, StoreInAnotherTypeTakesAnElementWisePass) {
  ReferencePlan plan = fusedPlan("linear_half.loop");
  ASSERT_EQ(plan.gemm.epilogue.outputType, ScalarType::Half);
  EXPECT_EQ(chooseGemmEpilogue(plan.gemm), GemmEpilogue::ElementWise);
}

TEST(GemmEpilogue, ScaleShortcutOrErfGeluTakeAnElementWisePass) {
  ReferencePlan plan = fusedPlan("linear_relu.loop");
  EpilogueShape base = plan.gemm.epilogue;
  plan.gemm.epilogue.scale = "s";
  EXPECT_EQ(chooseGemmEpilogue(plan.gemm), GemmEpilogue::ElementWise);
  plan.gemm.epilogue = base;
  plan.gemm.epilogue.shortcut = "r";
  EXPECT_EQ(chooseGemmEpilogue(plan.gemm), GemmEpilogue::ElementWise);
  plan.gemm.epilogue = base;
  plan.gemm.epilogue.activation = EpilogueShape::Activation::GeluErf;
  EXPECT_EQ(chooseGemmEpilogue(plan.gemm), GemmEpilogue::ElementWise);
}

TEST(GemmEpilogue, ActivationWithoutBiasAndBiasWithoutActivation) {
  ReferencePlan plan = fusedPlan("linear_relu.loop");
  EpilogueShape base = plan.gemm.epilogue;
  plan.gemm.epilogue.shift = "";
  EXPECT_EQ(chooseGemmEpilogue(plan.gemm), GemmEpilogue::Relu);
  plan.gemm.epilogue = base;
  plan.gemm.epilogue.activation = EpilogueShape::Activation::None;
  EXPECT_EQ(chooseGemmEpilogue(plan.gemm), GemmEpilogue::Bias);
  plan.gemm.epilogue.activation = EpilogueShape::Activation::GeluTanh;
  plan.gemm.epilogue.shift = "";
  EXPECT_EQ(chooseGemmEpilogue(plan.gemm), GemmEpilogue::Gelu);
}

TEST(GemmEpilogue, ConvolutionWithAnEpilogueNamesItsElementWisePass) {
  ReferencePlan plan;
  plan.kind = ReferencePlan::Kind::Conv;
  plan.conv.epilogue.activation = EpilogueShape::Activation::Relu;
  EXPECT_EQ(plan.library(), "cuDNN convolution + element-wise epilogue");
}

}  // namespace
}  // namespace cudaburg
