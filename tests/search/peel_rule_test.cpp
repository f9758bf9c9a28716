// The tile rules' `peel` parameter: where tiles or strips are partial the grammar offers each
// tiled candidate with its edges as written and apart (roundup, then peel of the loops with a
// partial last tile or strip), every one of which applies (the exploration tests run them all
// against the nest); where all are whole it offers none; the model counts the bounds checks an
// unpeeled inner loop keeps.
#include <gtest/gtest.h>

#include "src/search/cost_model.hpp"
#include "src/search/loop_rules.hpp"
#include "src/search/loops_matcher.hpp"
#include "src/transform/recipe.hpp"
#include "tests/search/search_problem.hpp"

namespace cudaburg {
namespace {

struct Offered {
  int peeled = 0, unpeeled = 0;
  std::vector<std::string> peeledRecipes;
};

Offered offered(const std::string& problem) {
  testing::SearchProblem p = testing::parseSearchProblem(problem);
  Offered o;
  for (const Fragment& f : testing::candidates(p)) {
    std::string line = printRecipeLine(f.recipe(p.kernel));
    if (f.shape.peeled) {
      ++o.peeled;
      o.peeledRecipes.push_back(line);
      TransformResult r = applyRecipe(p.kernel, Recipe{f.steps()});
      EXPECT_TRUE(r.ok()) << line << ": " << r.reason;
    } else {
      ++o.unpeeled;
    }
  }
  return o;
}

TEST(PeelRule, PartialTilesAndStripsOfferEachCandidateWithItsEdgesApart) {
  Offered o =
      offered("matmul examples/matmul.loop -D M=37 -D N=41 -D K=19 --tile 16,32 --unroll 2,4 --stage 8 --split 2");
  EXPECT_GT(o.peeled, 0);
  bool strips = false, grid = false;
  for (const auto& r : o.peeledRecipes) {
    EXPECT_NE(r.find("roundup"), std::string::npos) << r;
    strips |= r.find("peel i_o,j_o,k_o") != std::string::npos;
    grid |= r.find("peel i_o,j_o") != std::string::npos;
  }
  EXPECT_TRUE(strips);
  EXPECT_TRUE(grid);
}

TEST(PeelRule, WholeTilesAndStripsOfferNone) {
  Offered o = offered("matmul examples/matmul.loop -D M=64 -D N=64 -D K=32 --tile 16,32 --unroll 2,4 --stage 8");
  EXPECT_EQ(o.peeled, 0);
  EXPECT_GT(o.unpeeled, 0);
}

TEST(PeelRule, TheModelCountsTheGuardsOfUnpeeledEdges) {
  CandidateShape s;
  s.rows = 1000;
  s.cols = 1000;
  s.reduction = 1000;
  s.blockRows = 64;
  s.blockCols = 128;
  s.threadRows = 8;
  s.threadCols = 8;
  s.staged = true;
  s.stageDepth = 16;
  s.stagedFootprint = (64 + 128) * 16;
  s.pipelined = true;
  s.partialStrip = true;
  CandidateShape peeled = s;
  peeled.peeled = true;
  EXPECT_LT(estimate(peeled).ns, estimate(s).ns);
  // Whole tiles and strips: no guards either way.
  CandidateShape whole = s;
  whole.rows = whole.cols = whole.reduction = 1024;
  whole.partialStrip = false;
  CandidateShape wholePeeled = whole;
  wholePeeled.peeled = true;
  EXPECT_DOUBLE_EQ(estimate(wholePeeled).ns, estimate(whole).ns);
}

}  // namespace
}  // namespace cudaburg
