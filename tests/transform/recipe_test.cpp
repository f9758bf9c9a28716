// Recipes: printing and parsing back, parse errors with positions, and applying.
#include <gtest/gtest.h>

#include "src/loop/printer.hpp"
#include "src/loop/tree_walk.hpp"
#include "src/transform/loop_names.hpp"
#include "src/transform/recipe.hpp"
#include "tests/transform/test_kernels.hpp"

namespace cudaburg {
namespace {

using testing::recipeFromText;

// Why recipe `text` does not apply to `k` ("applied" when it does; the parse errors when it does not parse).
std::string refusalOf(const Kernel& k, const std::string& text) {
  std::string errors;
  auto r = recipeFromText(text, &errors);
  if (!r) return errors;
  TransformResult applied = applyRecipe(k, *r);
  return applied.ok() ? "applied" : applied.reason;
}

const char* kMatmulRecipe =
    "tile i,j 8,8\n"
    "map i_o grid.y\n"
    "map j_o grid.x\n"
    "map i block.y\n"
    "map j block.x\n"
    "regtile i,j 2,2\n"
    "strip k 4\n"
    "stage A at k_o\n"
    "stage B at k_o\n"
    "unroll k 2\n";

TEST(Recipe, PrintsAndParsesBackTheSameSteps) {
  auto r = recipeFromText(kMatmulRecipe);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->steps.size(), 10u);
  EXPECT_EQ(r->steps[0].kind, StepKind::Tile);
  EXPECT_EQ(r->steps[0].factors, (std::vector<int64_t>{8, 8}));
  EXPECT_EQ(r->steps[1].mapping, Mapping::GridY);
  EXPECT_EQ(r->steps[7].array, "A");
  EXPECT_EQ(r->steps[7].loc.line, 8u);
  EXPECT_EQ(printRecipe(*r), kMatmulRecipe);
  auto again = recipeFromText(printRecipe(*r));
  ASSERT_TRUE(again);
  EXPECT_EQ(*again, *r);
  auto line = recipeFromText(printRecipeLine(*r));
  ASSERT_TRUE(line);
  EXPECT_EQ(*line, *r);
}

TEST(Recipe, EveryStepKindRoundTrips) {
  const char* text =
      "strip k 16\ntile i,j 64,64\nunroll k 4\ninterchange j k\ndistribute j\nmap i_o grid.z\n"
      "stage A at k_o\nregtile i,j 4,4\nvectorize j 4\nsplit k 4\nmap k none\nmap k serial\n"
      "stage A at k_o transposed\nstrip k 16 into kk\ntile i,j 64,64 into bi,bj\nunroll k 4 into ku\n"
      "regtile i,j 4,4 into ti,tj\nvectorize j 4 into jv\nsplit k 4 into part\nsplit k 4 workspace into p\n";
  auto r = recipeFromText(text);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->steps.size(), 20u);
  EXPECT_EQ(r->steps[19].factors, (std::vector<int64_t>{4, 1}));
  EXPECT_NE(r->steps[18], r->steps[19]);
  EXPECT_FALSE(r->steps[6].transposed);
  EXPECT_TRUE(r->steps[12].transposed);
  EXPECT_NE(r->steps[6], r->steps[12]);
  EXPECT_EQ(printRecipe(*r), text);
}

TEST(Recipe, WarpLanesRoundTripAndComputeTheSame) {
  auto r = recipeFromText(std::string(kMatmulRecipe) + "lanes 2,16\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->steps.back().kind, StepKind::Lanes);
  EXPECT_EQ(r->steps.back().factors, (std::vector<int64_t>{2, 16}));
  EXPECT_EQ(printRecipe(*r), std::string(kMatmulRecipe) + "lanes 2,16\n");
  Kernel k = testing::smallExample("matmul");
  Kernel arranged = testing::applied(applyRecipe(k, *r));
  EXPECT_EQ(arranged.laneRows, 2);
  EXPECT_EQ(arranged.laneCols, 16);
  EXPECT_EQ(testing::differenceFrom(k, arranged), "");
  // Only powers of two whose product is a warp.
  for (const char* bad : {"lanes 4,4", "lanes 3,11", "lanes 64,1"})
    EXPECT_NE(refusalOf(k, bad).find("cannot be arranged as"), std::string::npos) << bad;
  std::string errors;
  EXPECT_FALSE(recipeFromText("lanes 8 4\n", &errors));
  EXPECT_NE(errors.find("r.recipe:1:9: error: expected ',' and the columns of block.x"), std::string::npos) << errors;
}

TEST(Recipe, CommentsBlankLinesAndSemicolons) {
  auto r = recipeFromText("# a matmul schedule\n\n  tile i,j 4,4   # blocks\n; ;map i_o grid.x;map j_o grid.y\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(printRecipeLine(*r), "tile i,j 4,4; map i_o grid.x; map j_o grid.y");
  auto empty = recipeFromText("# nothing\n");
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->steps.empty());
  EXPECT_EQ(printRecipe(*empty), "");
}

TEST(Recipe, ErrorsCarryLineColumnAndCaret) {
  std::string errors;
  EXPECT_FALSE(recipeFromText("tile i,j 64,64\nmap i_o grid.w\n", &errors));
  EXPECT_NE(errors.find("r.recipe:2:9: error: expected a mapping"), std::string::npos) << errors;
  EXPECT_NE(errors.find("        ^"), std::string::npos) << errors;

  EXPECT_FALSE(recipeFromText("tile i,j 64\n", &errors));
  EXPECT_NE(errors.find("1:10: error: 2 loops need 2 factors, not 1"), std::string::npos) << errors;

  EXPECT_FALSE(recipeFromText("strip i\n", &errors));
  EXPECT_NE(errors.find("1:8: error: expected a factor"), std::string::npos) << errors;

  EXPECT_FALSE(recipeFromText("stage A k_o\n", &errors));
  EXPECT_NE(errors.find("1:9: error: expected 'at'"), std::string::npos) << errors;

  EXPECT_FALSE(recipeFromText("strip k 0\n", &errors));
  EXPECT_NE(errors.find("must be positive"), std::string::npos) << errors;

  EXPECT_FALSE(recipeFromText("unroll k 4 8\n", &errors));
  EXPECT_NE(errors.find("1:12: error: unexpected '8' after the step"), std::string::npos) << errors;

  EXPECT_FALSE(recipeFromText("strip k 99999999999999999999\n", &errors));
  EXPECT_NE(errors.find("too large"), std::string::npos) << errors;
}

TEST(Recipe, ReportsEveryBadStep) {
  std::string errors;
  common::SourceFile file("r.recipe", "frobnicate i\nstrip k 4\nmap i grid.q\nsplit $ 2\n");
  common::Diagnostics diags(file);
  EXPECT_FALSE(parseRecipe(file, diags));
  EXPECT_GE(diags.errorCount(), 3);
  EXPECT_EQ(diags.all()[0].loc.line, 1u);
  EXPECT_NE(diags.all()[0].message.find("expected a step"), std::string::npos);
  EXPECT_EQ(diags.all()[1].loc.line, 3u);
}

TEST(Recipe, ApplyingIsDeterministicAndCorrect) {
  Kernel k = testing::smallExample("matmul");
  auto r = recipeFromText(kMatmulRecipe);
  ASSERT_TRUE(r);
  Kernel a = testing::applied(applyRecipe(k, *r));
  Kernel b = testing::applied(applyRecipe(k, *r));
  EXPECT_EQ(printKernel(a), printKernel(b));
  EXPECT_EQ(testing::differenceFrom(k, a), "");
}

TEST(Recipe, RasteredBlocksRoundTripComputeTheSameAndRefuseWhatIsNoRaster) {
  auto r = recipeFromText(std::string(kMatmulRecipe) + "raster 4\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->steps.back().kind, StepKind::Raster);
  EXPECT_EQ(r->steps.back().factors, (std::vector<int64_t>{4}));
  EXPECT_EQ(printRecipe(*r), std::string(kMatmulRecipe) + "raster 4\n");
  Kernel k = testing::smallExample("matmul");
  Kernel rastered = testing::applied(applyRecipe(k, *r));
  EXPECT_EQ(rastered.rasterRows, 4);
  EXPECT_NE(printKernel(rastered).find("4 rows of grid.y at a time"), std::string::npos) << printKernel(rastered);
  EXPECT_EQ(testing::differenceFrom(k, rastered), "");
  // A group of one row is CUDA's own order; a number is needed, and a positive one.
  std::string one = refusalOf(k, "raster 1\n");
  EXPECT_NE(one.find("2 or more rows"), std::string::npos) << one;
  for (const char* bad : {"raster\n", "raster 0\n", "raster 4,8\n"}) {
    std::string errors;
    EXPECT_FALSE(recipeFromText(bad, &errors)) << bad;
    EXPECT_NE(errors.find("r.recipe:1:"), std::string::npos) << errors;
  }
}

TEST(Recipe, TransposedStageRoundTripsAndComputesTheSame) {
  const char* text =
      "tile i,j 8,8\nmap i_o grid.y\nmap j_o grid.x\nmap i block.y\nmap j block.x\nregtile i,j 2,2\n"
      "strip k 4\nstage A at k_o transposed\nstage B at k_o\n";
  auto r = recipeFromText(text);
  ASSERT_TRUE(r);
  EXPECT_EQ(printRecipe(*r), text);
  auto line = recipeFromText(printRecipeLine(*r));
  ASSERT_TRUE(line);
  EXPECT_EQ(*line, *r);
  Kernel k = testing::smallExample("matmul");
  Kernel a = testing::applied(applyRecipe(k, *r));
  EXPECT_EQ(testing::differenceFrom(k, a), "");
  std::string errors;
  EXPECT_FALSE(recipeFromText("stage A at k_o transposed sideways\n", &errors));
  EXPECT_NE(errors.find("[transposed"), std::string::npos) << errors;
}

TEST(Recipe, InterleavedAndPipelinedStagesRoundTripAndComputeTheSame) {
  const char* text =
      "tile i,j 8,16\nmap i_o grid.y\nmap j_o grid.x\nmap i block.y\nmap j block.x\nregtile i,j 2,8\n"
      "strip k 4\nstage A at k_o transposed\nstage B at k_o interleaved 8\nmap k_o pipelined\nunroll k 4\n";
  auto r = recipeFromText(text);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->steps[8].interleave, 8);
  EXPECT_EQ(r->steps[9].mapping, Mapping::Pipelined);
  EXPECT_EQ(printRecipe(*r), text);
  Kernel k = testing::smallExample("matmul");
  Kernel a = testing::applied(applyRecipe(k, *r));
  EXPECT_NE(printKernel(a).find("interleaved 8"), std::string::npos) << printKernel(a);
  EXPECT_EQ(testing::differenceFrom(k, a), "");
  std::string errors;
  EXPECT_FALSE(recipeFromText("stage B at k_o interleaved\n", &errors));
  EXPECT_NE(errors.find("the run each thread reads"), std::string::npos) << errors;
  std::string odd = refusalOf(k, "tile i,j 8,16\nstrip k 4\nstage B at k_o interleaved 6\n");
  EXPECT_NE(odd.find("a multiple of 4"), std::string::npos) << odd;
  std::string both = refusalOf(k, "tile i,j 8,16\nstrip k 4\nstage B at k_o interleaved 32\n");
  EXPECT_NE(both.find("not a multiple of 32"), std::string::npos) << both;
}

TEST(Recipe, SpreadRegisterTilesRoundTripNameTheirRunLoopsAndComputeTheSame) {
  const char* text =
      "tile i,j 16,32\nmap i_o grid.y\nmap j_o grid.x\nmap i block.y\nmap j block.x\nregtile i,j 4,8 spread 4\n"
      "strip k 4\nstage A at k_o transposed\nstage B at k_o\nmap k_o pipelined\nunroll k 4\nvectorize j 4\n";
  auto r = recipeFromText(text);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->steps[5].factors, (std::vector<int64_t>{4, 8, 4}));
  EXPECT_EQ(printRecipe(*r), text);
  Kernel k = testing::intMatmul(37, 68, 9);  // partial tiles both ways, a partial strip
  Kernel a = testing::applied(applyRecipe(k, *r));
  EXPECT_EQ(testing::differenceFrom(k, a), "");
  // The run loops are named after the thread loops, by the rule or by `into`.
  std::string printed = printKernel(a);
  EXPECT_NE(printed.find("i_o3 = 0; i_o3 < 4; i_o3 += 4"), std::string::npos) << printed;
  EXPECT_NE(printed.find("j = j_o2 + 4*j_o3; j < min(j_o2 + 4*j_o3 + 4, 68)"), std::string::npos) << printed;
  auto named =
      recipeFromText("tile i,j 16,32\nmap i block.y\nmap j block.x\nregtile i,j 4,8 spread 4 into ti,tj,ri,rj\n");
  ASSERT_TRUE(named);
  EXPECT_EQ(printRecipeLine(withDefaultNamesLeftOut(k, *named)),
            "tile i,j 16,32; map i block.y; map j block.x; regtile i,j 4,8 spread 4 into ti,tj,ri,rj");
  EXPECT_EQ(testing::differenceFrom(k, testing::applied(applyRecipe(k, *named))), "");
  std::string errors;
  EXPECT_FALSE(recipeFromText("regtile i,j 4,8 spread 4 into ti,tj\n", &errors));
  std::string odd = refusalOf(k, "tile i,j 16,32\nmap i block.y\nmap j block.x\nregtile i,j 4,6 spread 4\n");
  EXPECT_NE(odd.find("multiples of it, not 6"), std::string::npos) << odd;
  // Edges rounded up and peeled as a contiguous tile's are.
  Kernel peeled = testing::applied(applyRecipe(k, *recipeFromText(std::string(text) + "peel i_o,j_o,k_o\nroundup\n")));
  EXPECT_EQ(testing::differenceFrom(k, peeled), "");
}

TEST(Recipe, SwizzledStagesAndDeeperAsyncPipelinesRoundTripAndComputeTheSame) {
  const char* text =
      "tile i,j 8,16\nmap i_o grid.y\nmap j_o grid.x\nmap i block.y\nmap j block.x\nregtile i,j 2,4\n"
      "strip k 8\nstage A at k_o swizzle\nstage B at k_o swizzle\nmap k_o async 4\nunroll k 8\n";
  auto r = recipeFromText(text);
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->steps[7].swizzled);
  EXPECT_EQ(r->steps[9].factors, (std::vector<int64_t>{4}));
  EXPECT_EQ(printRecipe(*r), text);
  Kernel k = testing::smallExample("matmul");
  Kernel a = testing::applied(applyRecipe(k, *r));
  EXPECT_EQ(a.asyncStages, 4);
  EXPECT_EQ(testing::differenceFrom(k, a), "");
  bool swizzled = false;
  forEachNode(*a.body, [&](const Node& n) { swizzled |= n.kind == NodeKind::Stage && n.buffer.swizzled; });
  EXPECT_TRUE(swizzled);
  // Without a number, three buffers; a number is for asynchronous pipelines only, 2 to 6.
  auto plain = recipeFromText("strip k 8\nstage A at k_o\nmap k_o async\n");
  ASSERT_TRUE(plain);
  EXPECT_TRUE(plain->steps[2].factors.empty());
  EXPECT_EQ(testing::applied(applyRecipe(k, *plain)).asyncStages, kAsyncStages);
  std::string errors;
  EXPECT_FALSE(recipeFromText("map k_o async 9\n", &errors));
  EXPECT_NE(errors.find("1:15: error: an asynchronous pipeline keeps 2 to 6 buffers of each stage, not 9"),
            std::string::npos)
      << errors;
  EXPECT_FALSE(recipeFromText("map k_o pipelined 4\n", &errors));
  EXPECT_NE(errors.find("unexpected '4' after the step"), std::string::npos) << errors;
  EXPECT_FALSE(recipeFromText("stage A at k_o pad 8 swizzle\n", &errors));
  EXPECT_NE(errors.find("unexpected 'swizzle' after the step"), std::string::npos) << errors;
  // A swizzle permutes whole 16-byte chunks, a power of two of them a row.
  EXPECT_NE(refusalOf(k, "tile i,j 8,16\nstrip k 12\nstage A at k_o swizzle\n")
                .find("cannot be swizzled: its rows hold 3 chunks"),
            std::string::npos);
  EXPECT_NE(refusalOf(k, "tile i,j 8,16\nstrip k 8\nstage B at k_o interleaved 8 swizzle\n")
                .find("either swizzled, padded or interleaved"),
            std::string::npos);
}

// A step names the loops it makes; later steps use those names.
const char* kNamedMatmulRecipe =
    "split k 2 into part\n"
    "tile i,j 8,8 into bi,bj\n"
    "map part grid.z\n"
    "map bi grid.y\n"
    "map bj grid.x\n"
    "map i block.y\n"
    "map j block.x\n"
    "regtile i,j 2,2 into ti,tj\n"
    "strip k 4 into ks\n"
    "stage A at ks\n"
    "stage B at ks\n"
    "unroll k 4 into ku\n"
    "map ks pipelined\n";

TEST(Recipe, StepsNameTheLoopsTheyMakeAndLaterStepsUseThem) {
  auto r = recipeFromText(kNamedMatmulRecipe);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->steps[0].into, std::vector<std::string>{"part"});
  EXPECT_EQ(r->steps[1].into, (std::vector<std::string>{"bi", "bj"}));
  EXPECT_EQ(r->steps[1].str(), "tile i,j 8,8 into bi,bj");
  EXPECT_TRUE(r->steps[2].into.empty());
  EXPECT_EQ(printRecipe(*r), kNamedMatmulRecipe);
  auto line = recipeFromText(printRecipeLine(*r));
  ASSERT_TRUE(line);
  EXPECT_EQ(*line, *r);
  auto unnamed = recipeFromText("tile i,j 8,8\n");
  ASSERT_TRUE(unnamed);
  EXPECT_NE(*unnamed, *recipeFromText("tile i,j 8,8 into i_o,j_o\n")) << "a name given is part of the step";

  Kernel k = testing::smallExample("matmul");
  Kernel a = testing::applied(applyRecipe(k, *r));
  std::string printed = printKernel(a);
  for (const char* loop : {"for (part = ", "for (bi = ", "for (bj = ", "for (ti = ", "for (ks = "})
    EXPECT_NE(printed.find(loop), std::string::npos) << loop << " in\n" << printed;
  EXPECT_EQ(printed.find("_o"), std::string::npos) << printed;
  EXPECT_EQ(testing::differenceFrom(k, a), "");
}

TEST(Recipe, ANameClashIsAnError) {
  std::string errors;
  // In the recipe: a name given twice, with where it was given first.
  EXPECT_FALSE(recipeFromText("strip k 4 into kk\ntile i,j 8,8 into bi,kk\n", &errors));
  EXPECT_NE(errors.find("r.recipe:2:22: error: a new loop is named kk already"), std::string::npos) << errors;
  EXPECT_NE(errors.find("r.recipe:1:16: note: the loop named kk first"), std::string::npos) << errors;
  EXPECT_FALSE(recipeFromText("tile i,j 8,8 into bi\n", &errors));
  EXPECT_NE(errors.find("1:19: error: 2 new loops need 2 names, not 1"), std::string::npos) << errors;
  EXPECT_FALSE(recipeFromText("strip k 4 into\n", &errors));
  EXPECT_NE(errors.find("1:15: error: expected a name for a new loop, found the end of the line"), std::string::npos)
      << errors;
  EXPECT_FALSE(recipeFromText("map k grid.x into kk\n", &errors));
  EXPECT_NE(errors.find("unexpected 'into' after the step"), std::string::npos) << errors;
  EXPECT_FALSE(recipeFromText("strip k 4 into k.o\n", &errors));
  EXPECT_NE(errors.find("expected a name for a new loop, found 'k.o'"), std::string::npos) << errors;

  // In the kernel: a name it uses already; the refusal names the step.
  Kernel k = testing::smallExample("matmul");
  auto taken = recipeFromText("tile i,j 8,8\nstrip k 4 into i_o\n");
  ASSERT_TRUE(taken);
  TransformResult t = applyRecipe(k, *taken);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.reason,
            "step 2 `strip k 4 into i_o`: the new loop cannot be named i_o: a loop of the kernel has that name");
}

// A recipe built with every name given prints as one written without them, where the rule would
// give the same names; names the rule would not give, or might not, stay.
TEST(Recipe, NamesTheRuleWouldGiveAreLeftOut) {
  Kernel k = testing::intMatmul(32, 32, 20);
  auto named = recipeFromText(
      "tile i,j 8,8 into i_o,j_o\nmap i_o grid.y\nmap j_o grid.x\nmap i block.y\nmap j block.x\n"
      "regtile i,j 2,2 into i_o2,j_o2\nstrip k 4 into kk\nunroll k 4 into k_o\nvectorize j 2 into j_o3\n");
  ASSERT_TRUE(named);
  Recipe shortest = withDefaultNamesLeftOut(k, *named);
  EXPECT_EQ(printRecipeLine(shortest),
            "tile i,j 8,8; map i_o grid.y; map j_o grid.x; map i block.y; map j block.x; regtile i,j 2,2; "
            "strip k 4 into kk; unroll k 4; vectorize j 2");
  EXPECT_EQ(printKernel(testing::applied(applyRecipe(k, shortest))),
            printKernel(testing::applied(applyRecipe(k, *named))));
  // After an unroll that may work in place, a later name of the same loop's stays.
  auto uncertain = recipeFromText("strip k 4 into k_o\nunroll k 4 into k_o2\nstrip k 2 into k_o3\n");
  ASSERT_TRUE(uncertain);
  EXPECT_EQ(printRecipeLine(withDefaultNamesLeftOut(k, *uncertain)), "strip k 4; unroll k 4; strip k 2 into k_o3");
}

TEST(Recipe, ARefusalNamesTheStep) {
  Kernel k = testing::smallExample("matmul");
  auto r = recipeFromText("tile i,j 8,8\nmap k grid.x\n");
  ASSERT_TRUE(r);
  TransformResult t = applyRecipe(k, *r);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.reason.rfind("step 2 `map k grid.x`: ", 0), 0u) << t.reason;
}

}  // namespace
}  // namespace cudaburg
