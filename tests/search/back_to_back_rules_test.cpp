// The grammar's back-to-back rule: a kernel of two products in a row (examples/mlp2.loop) is
// offered fused candidates (the b2b step) whose parameters fit the pair, ranked by the model, and
// the best of them, run on the CPU executor, computes what the two nests do; a pair whose hidden
// rows a block cannot keep is offered none, and the builder says why.
#include <gtest/gtest.h>

#include "src/exec/compare.hpp"
#include "src/exec/executor.hpp"
#include "src/search/cost_model.hpp"
#include "src/transform/recipe.hpp"
#include "tests/search/search_problem.hpp"

namespace cudaburg {
namespace {

TEST(BackToBackRules, MlpIsOfferedFusedCandidatesThatComputeTheNests) {
  testing::SearchProblem p =
      testing::parseSearchProblem("mlp2 examples/mlp2.loop -D M=128 -D D=64 -D F=64 --tile 32..64 --stage 8..16");
  std::vector<Fragment> offered = testing::candidates(p);
  ASSERT_FALSE(offered.empty());
  for (const Fragment& f : offered) {
    const BackToBackTile* tile = backToBackOf(f.shape.idiom);
    ASSERT_TRUE(tile) << printRecipeLine(f.recipe(p.kernel));
    EXPECT_EQ(f.shape.hidden, 64);
    EXPECT_EQ(128 % tile->rows, 0);
    EXPECT_TRUE(estimate(f.shape).infeasible.empty());
  }
  Recipe best{offered.front().steps()};
  EXPECT_EQ(printRecipeLine(best).rfind("b2b i,r ", 0), 0u) << printRecipeLine(best);
  TransformResult r = applyRecipe(p.kernel, best);
  ASSERT_TRUE(r.ok()) << r.reason;
  Buffers expected = fillRandom(p.kernel, 7);
  Buffers actual = expected;
  execute(p.kernel, expected);
  execute(*r.kernel, actual);
  Comparison c = compare(p.kernel, expected, actual, reductionTolerance(p.kernel));
  EXPECT_TRUE(c.ok) << c.firstMismatch;
}

TEST(BackToBackRules, ModelCountsWhatFusionSaves) {
  // The same tile over a longer first reduction costs more; past the blocks a GPU holds at once,
  // more rows cost more waves.
  CandidateShape s;
  s.rows = 4096, s.cols = 1024, s.reduction = 1024, s.hidden = 256;
  s.idiom = BackToBackTile{32, 128, 4, 4, 16};
  Estimate e = estimate(s);
  ASSERT_TRUE(e.infeasible.empty()) << e.infeasible;
  EXPECT_EQ(e.threads, 256);
  EXPECT_EQ(e.sharedBytes, 4 * (32 * 257 + 16 * 33 + 16 * 256));
  CandidateShape longer = s;
  longer.reduction = 4096;
  EXPECT_GT(estimate(longer).ns, e.ns);
  CandidateShape tooMuch = s;
  tooMuch.idiom = BackToBackTile{64, 128, 8, 8, 256};  // 64 rows of H and strips of 256: 385 KiB
  EXPECT_NE(estimate(tooMuch).infeasible, "");
}

TEST(BackToBackRules, AHiddenWidthPastWhatABlockKeepsIsOfferedNothing) {
  testing::SearchProblem p =
      testing::parseSearchProblem("mlp2 examples/mlp2.loop -D M=128 -D D=64 -D F=512 --tile 32..64 --stage 8..16");
  LoopRules rules(p.kernel, p.space);
  EXPECT_EQ(rules.backToBack(p.kernel.body.get(), 32, 64, 4, 4, 8).refused,
            "the hidden width 512 is more than the 256 a block keeps on chip");
  generated::LoopsMatcher matcher(&rules);
  EXPECT_FALSE(matcher.label(p.kernel.body.get()));  // no rule covers the two nests as one kernel
}

}  // namespace
}  // namespace cudaburg
