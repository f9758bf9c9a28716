// Convolution layers with an epilogue (a folded batch norm and ReLU; a shortcut added) keep the
// convolutions' idioms: the grammar offers implicit-GEMM and Winograd candidates that apply the
// epilogue as they write each output, and the best of each, run on the CPU executor, computes
// what the nest as written does.
#include <gtest/gtest.h>

#include <algorithm>

#include "src/exec/compare.hpp"
#include "src/exec/executor.hpp"
#include "src/idioms/epilogue/local_accumulator.hpp"
#include "src/transform/recipe.hpp"
#include "tests/search/search_problem.hpp"

namespace cudaburg {
namespace {

// What the layers are offered, by idiom: Winograd, implicit GEMM (the pixels collapsed into one
// loop of the GEMM), the rest; and the model's best of the first two.
struct Offered {
  int winograd = 0, implicitGemm = 0, others = 0;
  std::optional<Fragment> bestWinograd, bestImplicitGemm;
};

bool collapses(const std::string& recipeLine) { return recipeLine.find("collapse") != std::string::npos; }

Offered offered(const testing::SearchProblem& p) {
  Offered o;
  for (const Fragment& f : testing::candidates(p)) {
    std::string line = printRecipeLine(f.recipe(p.kernel));
    if (winogradOf(f.shape.idiom)) {
      if (!o.winograd++) o.bestWinograd = f;
    } else if (collapses(line)) {
      if (!o.implicitGemm++) o.bestImplicitGemm = f;
    } else {
      ++o.others;
    }
  }
  return o;
}

// The recipe applied to the nest and run on the CPU executor, compared with the nest as written:
// "" when they agree.
std::string differenceFromNest(const testing::SearchProblem& p, const Fragment& f, double tolerance) {
  Recipe recipe{f.steps()};
  TransformResult r = applyRecipe(p.kernel, recipe);
  if (!r.ok()) return printRecipeLine(recipe) + ": " + r.reason;
  Buffers expected = fillRandom(p.kernel, 7);
  Buffers actual = expected;
  execute(p.kernel, expected);
  execute(*r.kernel, actual);
  Comparison c = compare(p.kernel, expected, actual, std::max(tolerance, reductionTolerance(p.kernel)));
  return c.ok ? "" : printRecipeLine(recipe) + ": " + c.firstMismatch;
}

// ResNet's 3x3 layer with its batch norm folded and ReLU; the bottleneck's last 1x1 with the
// shortcut added: small images and channels, odd sizes that leave partial tiles.
const char* const kResnet = "resnet_bn_relu examples/resnet_bn_relu.loop -D N=2 -D C=8 -D H=7 -D W=9 -D K=12";
const char* const kBottleneck =
    "bottleneck_shortcut examples/bottleneck_shortcut.loop -D N=2 -D C=8 -D K=12 -D H=5 -D W=7";

TEST(ConvolutionEpilogue, ResnetLayerIsOfferedWinogradAndImplicitGemm) {
  testing::SearchProblem p = testing::parseSearchProblem(kResnet);
  Offered o = offered(p);
  EXPECT_GT(o.winograd, 20);
  EXPECT_GT(o.implicitGemm, 20);
  ASSERT_TRUE(o.bestWinograd && o.bestImplicitGemm);
  EXPECT_EQ(differenceFromNest(p, *o.bestWinograd, 5e-4), "");
  EXPECT_EQ(differenceFromNest(p, *o.bestImplicitGemm, 0), "");
}

TEST(ConvolutionEpilogue, BottleneckOneByOneIsOfferedImplicitGemm) {
  testing::SearchProblem p = testing::parseSearchProblem(kBottleneck);
  Offered o = offered(p);
  EXPECT_EQ(o.winograd, 0);  // 1x1 taps: no Winograd
  EXPECT_GT(o.implicitGemm, 20);
  ASSERT_TRUE(o.bestImplicitGemm);
  EXPECT_EQ(differenceFromNest(p, *o.bestImplicitGemm, 0), "");
}

// With half operands the implicit GEMM runs on tensor cores (mma.sync), the epilogue applied to
// each accumulator element as the warp stores it.
TEST(ConvolutionEpilogue, HalfOperandsAreOfferedTensorCoreImplicitGemm) {
  testing::SearchProblem p = testing::parseSearchProblem(kResnet);
  for (Array& a : p.kernel.params)
    if (a.name == "In" || a.name == "Wt") a.type = ScalarType::Half;
  int mma = 0;
  for (const Fragment& f : testing::candidates(p)) {
    std::string line = printRecipeLine(f.recipe(p.kernel));
    if (!collapses(line) || line.find("; mma ") == std::string::npos) continue;
    if (mma++ % 5 == 0) EXPECT_EQ(differenceFromNest(p, f, 0), "");
  }
  EXPECT_GT(mma, 5);
}

// A half layer whose sum a float local keeps: its implicit GEMMs (CUDA cores and mma.sync)
// accumulate in fp32 and convert each output to half as they store it through the epilogue.
TEST(ConvolutionEpilogue, HalfOutputThroughAFloatLocalIsOfferedImplicitGemm) {
  common::SourceFile file(
      "layer.loop",
      "size N = 2, C = 8, H = 6, W = 7, K = 12, R = 3, S = 3;\n"
      "kernel layer(half Out[N][K][H][W], const half In[N][C][H][W] padded, const half Wt[K][C][R][S],\n"
      "             const half scale[K], const half shift[K]) {\n"
      "  parallel for (n = 0; n < N; n++)\n"
      "    parallel for (k = 0; k < K; k++)\n"
      "      parallel for (oh = 0; oh < H; oh++)\n"
      "        parallel for (ow = 0; ow < W; ow++) {\n"
      "          float acc = 0;\n"
      "          reduce for (c = 0; c < C; c++)\n"
      "            reduce for (r = 0; r < R; r++)\n"
      "              reduce for (s = 0; s < S; s++)\n"
      "                acc += In[n][c][oh + r - 1][ow + s - 1] * Wt[k][c][r][s];\n"
      "          Out[n][k][oh][ow] = max(acc * scale[k] + shift[k], 0);\n"
      "        }\n}\n");
  common::Diagnostics diags(file);
  auto kernel = parseLoopFile(file, diags, {});
  ASSERT_TRUE(kernel) << diags.str();
  testing::SearchProblem p;
  p.kernel = withLocalAccumulators(*kernel);  // labeled as the tiles' accumulator, applied to the nest as written
  int cudaCores = 0, mma = 0;
  for (const Fragment& f : testing::candidates(p)) {
    std::string line = printRecipeLine(f.recipe(*kernel));
    if (!collapses(line)) continue;
    int& count = line.find("; mma ") == std::string::npos ? cudaCores : mma;
    if (count++ % 25 || count > 60) continue;  // a few of each: the executor takes a moment each
    testing::SearchProblem asWritten{"layer", "", *kernel, {}};
    EXPECT_EQ(differenceFromNest(asWritten, f, 0), "");
  }
  EXPECT_GT(cudaCores, 5);
  EXPECT_GT(mma, 5);
}

// Every implicit-GEMM and Winograd candidate of a few tile sizes applies and computes the nest:
// staged and pipelined gathers, tables, register tiles of each shape, both Winograd tiles.
TEST(ConvolutionEpilogue, EveryOfferedConvolutionIdiomComputesTheNest) {
  for (const char* problem : {kResnet, kBottleneck}) {
    testing::SearchProblem p =
        testing::parseSearchProblem(std::string(problem) + " --tile 16,32 --unroll 2,4 --stage 4,8");
    SCOPED_TRACE(p.name);
    int checked = 0;
    for (const Fragment& f : testing::candidates(p)) {
      std::string line = printRecipeLine(f.recipe(p.kernel));
      if (!winogradOf(f.shape.idiom) && !collapses(line)) continue;
      if (checked++ % 7) continue;  // a spread of them: each takes the executor a moment
      EXPECT_EQ(differenceFromNest(p, f, winogradOf(f.shape.idiom) ? 5e-4 : 0), "");
    }
    EXPECT_GT(checked, 10);
  }
}

}  // namespace
}  // namespace cudaburg
