// Property tests: recipes drawn by a seeded generator, with factors that divide nothing and loops
// named by the steps that make them or by the naming rule, applied to every example at small
// sizes; whatever applies must compute what the example computes, keep the mapped-tree model, and
// replay from its printed recipe to the same tree; a name the kernel uses is refused.
#include <gtest/gtest.h>

#include <random>

#include "common/diagnostics.hpp"
#include "src/loop/printer.hpp"
#include "src/transform/loop_names.hpp"
#include "src/transform/mapped_tree_check.hpp"
#include "src/transform/recipe.hpp"
#include "src/transform/transforms.hpp"
#include "tests/transform/test_kernels.hpp"

namespace cudaburg {
namespace {

using testing::loopsOf;

// How many loops a step that makes loops names: one a loop it takes, one for a collapse.
size_t loopsMade(const RecipeStep& s) { return s.kind == StepKind::Collapse ? 1 : s.loops.size(); }

class RecipeGenerator {
 public:
  explicit RecipeGenerator(uint64_t seed) : rng_(seed) {}

  int64_t pick(std::vector<int64_t> options) { return options[index(options.size())]; }
  size_t index(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng_); }
  bool coin() { return index(2) == 0; }

  // A step over the loops and arrays the kernel has now (it may still be refused); a step that
  // makes loops names them, now and then, with names no other step of the run gives.
  RecipeStep randomStep(const Kernel& k) {
    std::vector<const Node*> loops = loopsOf(k);
    const Node* l = loops[index(loops.size())];
    const Node* inner = l->body()->kind == NodeKind::For ? l->body().get() : nullptr;
    RecipeStep s;
    s.kind = static_cast<StepKind>(index(static_cast<size_t>(StepKind::Winograd) + 1));  // any step
    s.loops = {l->index};
    switch (s.kind) {
      case StepKind::StripMine:
      case StepKind::Unroll:
        s.factors = {pick({2, 3, 4, 5, 8})};
        break;
      case StepKind::Vectorize:
        s.factors = {pick({2, 4})};
        break;
      case StepKind::Split:
        s.factors = {pick({2, 3})};
        break;
      case StepKind::Tile:
      case StepKind::RegisterTile:
        if (inner) s.loops.push_back(inner->index);
        for (size_t i = 0; i < s.loops.size(); ++i) s.factors.push_back(pick({2, 3, 4, 5}));
        break;
      case StepKind::Interchange:
        s.loops.push_back(inner ? inner->index : loops[index(loops.size())]->index);
        break;
      case StepKind::Collapse:
        if (inner) s.loops.push_back(inner->index);
        break;
      case StepKind::Mma:
        if (inner) s.loops.push_back(inner->index);
        s.loops.push_back(loops[index(loops.size())]->index);
        s.idiom = MmaTile{16, 8, pick({8, 16}), false};
        break;
      case StepKind::Wgmma:
        if (inner) s.loops.push_back(inner->index);
        s.loops.push_back(loops[index(loops.size())]->index);
        {
          WgmmaTile t;
          t.n = pick({8, 64, 128});
          t.pending = static_cast<int>(pick({0, 1}));
          t.producer = wgmmaProducer(pick({0, 1}));
          s.idiom = t;
        }
        break;
      case StepKind::Distribute:
        break;
      case StepKind::Lanes: {
        s.loops.clear();
        int64_t rows = pick({1, 2, 4, 8, 16, 32, 3});
        s.factors = {rows, 32 / rows};
        break;
      }
      case StepKind::Peel:
      case StepKind::Prefetch:
        break;
      case StepKind::RoundUp:
        s.loops.clear();
        break;
      case StepKind::Raster:
        s.loops.clear();
        s.factors = {pick({1, 2, 8})};
        break;
      case StepKind::Resident:
        s.loops.clear();
        s.factors = {pick({0, 1, 2, 3})};
        break;
      case StepKind::Persistent:
        s.loops.clear();
        s.factors = {pick({0, 1, 132})};
        if (coin()) s.factors.push_back(1);  // ping-pong
        break;
      case StepKind::Cluster:
        s.loops.clear();
        s.factors = {pick({1, 2, 4}), pick({0, 1, 2})};  // blocks, axis (grid.z refused)
        break;
      case StepKind::Winograd:
      case StepKind::BackToBack:
        break;  // not drawn: they take a whole convolution, or two products, as written
      case StepKind::Map:
        s.mapping = static_cast<Mapping>(index(static_cast<size_t>(Mapping::AsyncPipelined) + 1));  // any mapping
        if (s.mapping == Mapping::AsyncPipelined && coin()) s.factors = {pick({2, 4, 6})};          // buffers a stage
        break;
      case StepKind::Stage: {
        std::vector<std::string> inputs;
        for (const auto& a : k.params)
          if (a.input) inputs.push_back(a.name);
        s.array = inputs[index(inputs.size())];
        s.swizzled = index(4) == 0;
        s.table = index(3) == 0;  // refused but for gathers
        break;
      }
    }
    if (makesLoops(s.kind) && coin())
      for (size_t i = 0; i < loopsMade(s); ++i) s.into.push_back("n" + std::to_string(++names_));
    return s;
  }

 private:
  std::mt19937_64 rng_;
  int names_ = 0;
};

// The parallel loops of the example's perfect nest and its first reduce loop.
void shapeOf(const Kernel& k, std::vector<std::string>& parallel, std::string& reduction) {
  NodePtr n = k.body;
  while (n->kind == NodeKind::For && n->loopKind == LoopKind::Parallel) {
    parallel.push_back(n->index);
    n = n->body();
  }
  for (const Node* l : loopsOf(k))
    if (l->loopKind == LoopKind::Reduce && reduction.empty()) reduction = l->index;
}

Recipe parseOrFail(const std::string& text) {
  common::SourceFile file("generated.recipe", text);
  common::Diagnostics diags(file);
  auto r = parseRecipe(file, diags);
  EXPECT_TRUE(r) << diags.str();
  return r ? *r : Recipe{};
}

void expectReplays(const Kernel& original, const Recipe& recipe, const Kernel& result) {
  Recipe back = parseOrFail(printRecipe(recipe));
  EXPECT_EQ(back, recipe);
  TransformResult again = applyRecipe(original, back);
  ASSERT_TRUE(again.ok()) << again.reason;
  EXPECT_EQ(printKernel(*again.kernel), printKernel(result));
}

class ExampleProperty : public ::testing::TestWithParam<std::string> {};

// GPU-shaped schedules: tiles on the grid, a thread a (register) tile, staged operands.
TEST_P(ExampleProperty, ScheduledRecipesComputeTheSame) {
  Kernel k = testing::smallExample(GetParam());
  std::vector<std::string> par;
  std::string red;
  shapeOf(k, par, red);
  ASSERT_GE(par.size(), 2u);
  RecipeGenerator gen(std::hash<std::string>{}(GetParam()));
  for (int round = 0; round < 24; ++round) {
    std::string y = par[par.size() - 2], x = par.back();
    // The loops the steps make, named by the steps or by the rule.
    bool named = gen.coin();
    auto into = [&](const std::string& names) { return named ? " into " + names : ""; };
    std::string part = named ? "part" : red + "_s", rows = named ? "rows" : y + "_o", cols = named ? "cols" : x + "_o";
    std::string strips = named ? "strips" : red + "_o";
    std::string text;
    if (par.size() == 2 && gen.coin())  // parts of the reduction on grid.z, summed atomically
      text += "split " + red + " " + std::to_string(gen.pick({2, 3})) + into(part) + "\nmap " + part + " grid.z\n";
    text += "tile " + y + "," + x + " " + std::to_string(gen.pick({2, 3, 4, 6, 8})) + "," +
            std::to_string(gen.pick({2, 3, 5, 8})) + into(rows + "," + cols) + "\n";
    bool mapped = par.size() <= 3;  // the outer loops fit on the grid
    if (mapped) {
      if (par.size() == 3) text += "map " + par[0] + " grid.z\n";
      text += "map " + rows + " grid.y\nmap " + cols + " grid.x\nmap " + y + " block.y\nmap " + x + " block.x\n";
    }
    bool registers = mapped && gen.coin();
    if (registers)
      text += "regtile " + y + "," + x + " " + std::to_string(gen.pick({1, 2, 3})) + "," +
              std::to_string(gen.pick({1, 2})) + into("trows,tcols") + "\n";
    if (registers || !mapped) {
      std::string at = registers ? strips : cols;
      if (registers) text += "strip " + red + " " + std::to_string(gen.pick({2, 3, 4})) + into(strips) + "\n";
      for (const auto& a : k.params)
        if (a.input && gen.coin()) text += "stage " + a.name + " at " + at + "\n";
    }
    if (gen.coin()) text += "unroll " + red + " " + std::to_string(gen.pick({2, 3})) + into("unrolled") + "\n";
    Recipe recipe = parseOrFail(text);
    SCOPED_TRACE(text);
    TransformResult r = applyRecipe(k, recipe);
    ASSERT_TRUE(r.ok()) << r.reason;
    EXPECT_EQ(checkMappedTree(*r.kernel), "");
    EXPECT_EQ(testing::differenceFrom(k, *r.kernel, round), "");
    expectReplays(k, recipe, *r.kernel);
    if (TransformResult rounded = roundUp(*r.kernel); rounded.ok()) {  // partial tiles rounded up
      EXPECT_EQ(checkMappedTree(*rounded.kernel), "");
      EXPECT_EQ(testing::differenceFrom(k, *rounded.kernel, round), "");
    }
  }
}

// Random steps: refusals are fine, wrong results and broken models are not.
TEST_P(ExampleProperty, RandomRecipesComputeTheSame) {
  Kernel k = testing::smallExample(GetParam());
  RecipeGenerator gen(std::hash<std::string>{}(GetParam()) ^ 0x5eed);
  int applied = 0;
  for (int round = 0; round < 40; ++round) {
    Kernel current = k;
    Recipe recipe;
    for (int attempt = 0; attempt < 12; ++attempt) {
      RecipeStep step = gen.randomStep(current);
      TransformResult r = applyStep(current, step);
      if (!r.ok()) {
        EXPECT_FALSE(r.reason.empty());
        continue;
      }
      if (makesLoops(step.kind) && gen.index(8) == 0) {  // the same step, naming a loop the kernel has
        RecipeStep taken = step;
        taken.into.assign(loopsMade(step), step.loops[0]);
        TransformResult refused = applyStep(current, taken);
        EXPECT_FALSE(refused.ok()) << taken.str();
        EXPECT_NE(refused.reason.find("cannot be named " + step.loops[0]), std::string::npos) << refused.reason;
      }
      recipe.steps.push_back(step);
      current = *r.kernel;
      ++applied;
    }
    SCOPED_TRACE(printRecipe(recipe));
    EXPECT_EQ(checkMappedTree(current), "");
    EXPECT_EQ(testing::differenceFrom(k, current, round), "");
    expectReplays(k, recipe, current);
  }
  EXPECT_GT(applied, 40);  // the generator does exercise the transformations
}

INSTANTIATE_TEST_SUITE_P(Examples, ExampleProperty, ::testing::ValuesIn(testing::exampleNames()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace cudaburg
