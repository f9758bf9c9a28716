// The rules' fragments: a builder names the loops its steps make and later steps use those names;
// its kid's steps go where they apply; the recipe a candidate prints leaves out the names the
// naming rule gives and applies as the steps with every name given do.
#include <gtest/gtest.h>

#include <functional>

#include "src/loop/printer.hpp"
#include "src/search/loop_rules.hpp"
#include "src/search/loops_matcher.hpp"
#include "src/search/measured_kernels.hpp"
#include "src/transform/recipe.hpp"
#include "tests/search/search_problem.hpp"

namespace cudaburg {
namespace {

using testing::parseSearchProblem;
using testing::SearchProblem;

// The reduction loop of a matmul nest: i { j { C = 0; k { ... } } }.
const Node* reductionOf(const Kernel& k) { return k.body->body()->body()->kids[1].get(); }

std::vector<std::string> lines(const std::vector<RecipeStep>& steps) {
  std::vector<std::string> out;
  for (const auto& s : steps) out.push_back(s.str());
  return out;
}

TEST(Fragment, BuildersNameTheLoopsTheyMakeAndLaterStepsUseThem) {
  SearchProblem p = parseSearchProblem("matmul examples/matmul.loop -D M=64 -D N=64 -D K=64");
  LoopRules rules(p.kernel, p.space);
  Fragment body = rules.split(reductionOf(p.kernel), 2, 8, Buffering::Double);
  Fragment tiled = rules.blockTile(p.kernel.body.get(), body, 32, 32, 4, 4);
  EXPECT_EQ(tiled.gridRows, "i_o");
  EXPECT_EQ(tiled.gridCols, "j_o");
  // The body's split before the tiling, its staging after the register tile.
  EXPECT_EQ(
      lines(tiled.steps()),
      (std::vector<std::string>{"split k 2 into k_s", "tile i,j 32,32 into i_o,j_o", "map k_s grid.z", "map i_o grid.y",
                                "map j_o grid.x", "map i block.y", "map j block.x", "regtile i,j 4,4 into i_o2,j_o2",
                                "strip k 8 into k_o", "stage A at k_o transposed", "stage B at k_o",
                                "unroll k 8 into k_o2", "map k_o pipelined", "vectorize j 4 into j_o3"}));
  // Printed, the names the rule gives are left out.
  EXPECT_EQ(printRecipeLine(tiled.recipe(p.kernel)),
            "split k 2; tile i,j 32,32; map k_s grid.z; map i_o grid.y; map j_o grid.x; map i block.y; map j block.x; "
            "regtile i,j 4,4; strip k 8; stage A at k_o transposed; stage B at k_o; unroll k 8; map k_o pipelined; "
            "vectorize j 4");
}

TEST(Fragment, NamesTheKernelUsesAreAvoided) {
  // A size called k_o: the strip loop of k is k_o2, and the steps after it use that name.
  SearchProblem p = parseSearchProblem("matmul examples/matmul.loop -D M=64 -D N=64 -D K=64");
  p.kernel.sizes.emplace_back("k_o", 1);
  LoopRules rules(p.kernel, p.space);
  Fragment staged = rules.staged(reductionOf(p.kernel), 8, Buffering::Double, false);
  EXPECT_EQ(lines(staged.steps()),
            (std::vector<std::string>{"strip k 8 into k_o2", "stage A at k_o2", "stage B at k_o2",
                                      "unroll k 8 into k_o3", "map k_o2 pipelined"}));
  EXPECT_EQ(printRecipeLine(staged.recipe(p.kernel)),
            "strip k 8; stage A at k_o2; stage B at k_o2; unroll k 8; map k_o2 pipelined");
}

// Labels a small matmul and a small convolution and gives `check` each one's candidate kernels
// (the root's derivations as `kernel`), cheapest first.
void forEachExampleCandidates(
    const std::function<void(const SearchProblem&, const std::vector<const Fragment*>&)>& check) {
  for (const char* problem : {"matmul examples/matmul.loop -D M=40 -D N=48 -D K=36",
                              "conv2d examples/conv2d.loop -D N=2 -D C=3 -D H=9 -D W=10 -D K=5"}) {
    SearchProblem p = parseSearchProblem(std::string(problem) + " --tile 16,32 --unroll 1,8 --stage 4,8 --split 2");
    SCOPED_TRACE(p.name);
    LoopRules rules(p.kernel, p.space);
    generated::LoopsMatcher matcher(&rules);
    ASSERT_TRUE(matcher.label(p.kernel.body.get()));
    const Node* root = p.kernel.body.get();
    std::vector<const Fragment*> kernels;
    for (int rank = 0; rank < matcher.count(root, generated::LoopsMatcher::kernel_NT); ++rank)
      kernels.push_back(&matcher.value(root, generated::LoopsMatcher::kernel_NT, rank));
    check(p, kernels);
  }
}

// Every candidate of an example: its printed recipe, parsed back, applies as its steps with every
// name given do.
TEST(Fragment, EveryCandidatePrintsAsItsNamedStepsApply) {
  forEachExampleCandidates([](const SearchProblem& p, const std::vector<const Fragment*>& kernels) {
    int applied = 0;
    for (const Fragment* kernel : kernels) {
      const Fragment& f = *kernel;
      std::string line = printRecipeLine(f.recipe(p.kernel));
      common::SourceFile file("candidate", line);
      common::Diagnostics diags(file);
      auto printed = parseRecipe(file, diags);
      ASSERT_TRUE(printed) << diags.str();
      TransformResult fromPrinted = applyRecipe(p.kernel, *printed);
      TransformResult fromSteps = applyRecipe(p.kernel, Recipe{f.steps()});
      ASSERT_EQ(fromPrinted.ok(), fromSteps.ok()) << line << ": " << fromPrinted.reason << fromSteps.reason;
      if (!fromSteps.ok()) continue;
      EXPECT_EQ(printKernel(*fromPrinted.kernel), printKernel(*fromSteps.kernel)) << line;
      ++applied;
    }
    EXPECT_GT(applied, 50);
  });
}

// A copy of a fragment shares its steps until one of the two changes; the other keeps its own.
TEST(Fragment, CopiesShareStepsUntilOneChanges) {
  SearchProblem p = parseSearchProblem("matmul examples/matmul.loop -D M=64 -D N=64 -D K=64");
  LoopRules rules(p.kernel, p.space);
  Fragment staged = rules.staged(reductionOf(p.kernel), 8, Buffering::Double, false);
  Fragment copy = staged;
  EXPECT_TRUE(copy.sameAs(staged));
  copy.inTile.edit(1, [](RecipeStep& stage) { stage.interleave = 8; });
  copy.inTile.push_back(makeStep(StepKind::Lanes, {}, {8, 4}));
  EXPECT_FALSE(copy.sameAs(staged));
  EXPECT_EQ(lines(staged.steps()), (std::vector<std::string>{"strip k 8 into k_o", "stage A at k_o", "stage B at k_o",
                                                             "unroll k 8 into k_o2", "map k_o pipelined"}));
  EXPECT_EQ(lines(copy.steps()),
            (std::vector<std::string>{"strip k 8 into k_o", "stage A at k_o interleaved 8", "stage B at k_o",
                                      "unroll k 8 into k_o2", "map k_o pipelined", "lanes 8,4"}));
}

// Every candidate of an example is found among the measured kernels exactly where its recipe line
// is, at its time (failed: without one).
TEST(Fragment, MeasuredKernelsAreFoundByTheirRecipeLines) {
  forEachExampleCandidates([](const SearchProblem& p, const std::vector<const Fragment*>& kernels) {
    MeasuredKernels::Times times;
    for (size_t rank = 0; rank < kernels.size(); rank += 3)
      times[printRecipeLine(kernels[rank]->recipe(p.kernel))] = rank % 2 ? std::optional<double>(rank) : std::nullopt;
    MeasuredKernels measured(times);
    for (const Fragment* kernel : kernels) {
      const Fragment& f = *kernel;
      std::string line = printRecipeLine(f.recipe(p.kernel));
      auto it = times.find(line);
      const std::optional<double>* found = measured.find(f, p.kernel);
      ASSERT_EQ(found != nullptr, it != times.end()) << line;
      if (found) {
        EXPECT_EQ(*found, it->second) << line;
      }
    }
  });
}

}  // namespace
}  // namespace cudaburg
