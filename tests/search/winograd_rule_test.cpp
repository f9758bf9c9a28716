// The grammar's Winograd rule: on a 3x3, stride-1 convolution it offers F(2x2,3x3) and F(4x4,3x3)
// candidates, each of which applies; on other nests none; and the model prices what the kernel
// does, not the direct convolution's multiply-adds.
#include <gtest/gtest.h>

#include "src/search/cost_model.hpp"
#include "src/transform/recipe.hpp"
#include "tests/search/search_problem.hpp"

namespace cudaburg {
namespace {

struct Offered {
  int f2 = 0, f4 = 0, others = 0;
};

Offered offered(const std::string& problem) {
  testing::SearchProblem p = testing::parseSearchProblem(problem + " --tile 32,64 --unroll 4,8 --stage 8");
  Offered o;
  for (const Fragment& f : testing::candidates(p)) {
    if (!winogradOf(f.shape.idiom)) {
      ++o.others;
      continue;
    }
    (winogradOf(f.shape.idiom)->tiling.m == 2 ? o.f2 : o.f4)++;
    std::string line = printRecipeLine(f.recipe(p.kernel));
    EXPECT_EQ(line.rfind("winograd oh,ow ", 0), 0u) << line;
    TransformResult r = applyRecipe(p.kernel, Recipe{f.steps()});
    EXPECT_TRUE(r.ok()) << line << ": " << r.reason;
  }
  return o;
}

TEST(WinogradRule, OffersBothTileSizesOnThreeByThreeStrideOneConvolutions) {
  for (const char* problem : {"conv2d examples/conv2d.loop -D N=4 -D C=64 -D H=14 -D W=14 -D K=64",
                              "nhwc examples/conv2d_nhwc.loop -D N=4 -D C=64 -D H=14 -D W=14 -D K=64"}) {
    Offered o = offered(problem);
    EXPECT_GT(o.f2, 20) << problem;
    EXPECT_GT(o.f4, 20) << problem;
    EXPECT_GT(o.others, 0) << problem << ": the implicit GEMMs stay";
  }
}

TEST(WinogradRule, OffersNoneElsewhere) {
  for (const char* problem :
       {"stride2 examples/conv2d.loop -D N=4 -D C=16 -D H=14 -D W=14 -D K=16 -D ST=2",
        "1x1 examples/conv2d.loop -D N=4 -D C=16 -D H=14 -D W=14 -D K=16 -D R=1 -D S=1 -D P=0",
        "grouped examples/conv2d_grouped.loop", "batched examples/matmul_bt.loop -D BATCH=4 -D M=32 -D N=32 -D K=32"}) {
    Offered o = offered(problem);
    EXPECT_EQ(o.f2 + o.f4, 0) << problem;
    EXPECT_GT(o.others, 0) << problem;
  }
}

// ResNet's 256@14 (N=32): 32 x 7 x 7 tiles of 2x2 (8 x 4 x 4 of 4x4 would be F(4x4)'s).
CandidateShape layer(int64_t m) {
  CandidateShape s;
  s.rows = 32 * (14 / m + (14 % m != 0)) * (14 / m + (14 % m != 0));
  s.cols = s.reduction = 256;
  s.blockRows = m == 2 ? 32 : 16, s.blockCols = 32;
  s.threadRows = m == 2 ? 8 : 4, s.threadCols = 8;
  s.stageDepth = 8;
  s.idiom =
      WinogradTile{{m, s.blockRows, s.blockCols, s.stageDepth, s.threadRows, s.threadCols, m == 2 ? 1 : 2, false}};
  s.staged = true;
  return s;
}

TEST(WinogradRule, TheModelCountsTheMultipliesWinogradDoes) {
  Estimate two = estimate(layer(2)), four = estimate(layer(4));
  ASSERT_TRUE(two.infeasible.empty()) << two.infeasible;
  ASSERT_TRUE(four.infeasible.empty()) << four.infeasible;
  EXPECT_EQ(two.threads, 256);
  EXPECT_EQ(four.threads, 288);
  // The same layer as an implicit GEMM (pixels by filters over c*r*s, 128 x 64 blocks of 8 x 8
  // register tiles, pipelined strips of 8) does the direct convolution's multiply-adds: F(2x2)
  // does 2.25 times fewer, F(4x4) 4 times fewer (less what their edge tiles waste).
  CandidateShape gemm;
  gemm.rows = 32 * 14 * 14, gemm.cols = 256, gemm.reduction = 256 * 9;
  gemm.blockRows = 128, gemm.blockCols = 64, gemm.threadRows = gemm.threadCols = 8;
  gemm.staged = gemm.pipelined = gemm.transposed = true;
  gemm.stageDepth = 8, gemm.stagedFootprint = (128 + 64) * 8, gemm.gatherOps = 16;
  Estimate direct = estimate(gemm);
  ASSERT_TRUE(direct.infeasible.empty()) << direct.infeasible;
  EXPECT_LT(two.ns, direct.ns);
  EXPECT_LT(four.ns, two.ns);
  // Past the hardware's limits, no estimate.
  CandidateShape wide = layer(4);
  WinogradTiling& tiling = std::get<WinogradTile>(wide.idiom).tiling;  // what the model reads
  tiling.tiles = wide.blockRows = 64, tiling.filters = wide.blockCols = 64, tiling.channels = wide.stageDepth = 16;
  EXPECT_FALSE(estimate(wide).infeasible.empty());
}

}  // namespace
}  // namespace cudaburg
