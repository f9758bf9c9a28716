// How the GPU runs a kernel, with what it computes unchanged: `prefetch` marks an unrolled loop
// whose shared operands are read an iteration ahead and refuses loops that cannot be;
// `resident` asks for blocks a multiprocessor holds at once. Both print and parse back, and the
// CPU executor computes the nest's result under recipes that use them.
#include <gtest/gtest.h>

#include "common/diagnostics.hpp"
#include "src/loop/printer.hpp"
#include "src/transform/recipe.hpp"
#include "src/transform/transforms.hpp"
#include "tests/transform/test_kernels.hpp"

namespace cudaburg {
namespace {

using testing::applied;
using testing::differenceFrom;

std::optional<Recipe> parsed(const std::string& text) {
  std::string errors;
  auto r = testing::recipeFromText(text, &errors);
  EXPECT_TRUE(r) << errors;
  return r;
}

// A register-tiled matmul whose strip element loop reads both staged operands, unrolled.
const std::string kTiled =
    "tile i,j 16,16; map i_o grid.y; map j_o grid.x; map i block.y; map j block.x; regtile i,j 4,4; "
    "strip k 8; stage A at k_o transposed; stage B at k_o; unroll k 8";

TEST(Prefetch, MarksTheLoopAndComputesTheSame) {
  for (auto [m, n, kk] : std::vector<std::tuple<int64_t, int64_t, int64_t>>{{37, 21, 19}, {32, 32, 16}, {5, 70, 31}}) {
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(kk));
    Kernel k = testing::intMatmul(m, n, kk);
    for (const char* rest : {"", "; map k_o pipelined", "; map k_o pipelined; roundup; peel k_o", "; map k_o async",
                             "; vectorize j 4; map k_o pipelined; prefetch k; resident 2"}) {
      std::string text = kTiled + rest;
      if (text.find("prefetch") == std::string::npos) text += "; prefetch k";
      TransformResult r = applyRecipe(k, *parsed(text));
      if (!r.ok()) {  // vectorize refuses rows that are not a multiple of 4; peel, strips that are whole
        EXPECT_TRUE(std::string(rest).find("vectorize") != std::string::npos ||
                    std::string(rest).find("peel") != std::string::npos)
            << r.reason;
        continue;
      }
      EXPECT_EQ(r.kernel->prefetched, std::vector<std::string>{"k"});
      EXPECT_NE(printKernel(*r.kernel).find("// shared operands read an iteration ahead (prefetched): k"),
                std::string::npos);
      EXPECT_EQ(differenceFrom(k, *r.kernel), "") << rest;
    }
  }
  // A split reduction's parts.
  Kernel split = testing::intMatmul(37, 21, 50);
  EXPECT_EQ(differenceFrom(split, applied(applyRecipe(split, *parsed("split k 2; map k_s grid.z; " + kTiled +
                                                                     "; map k_o pipelined; prefetch k")))),
            "");
}

TEST(Prefetch, Refuses) {
  Kernel k = applied(applyRecipe(testing::intMatmul(37, 21, 19), *parsed(kTiled)));
  auto refused = [&](const Kernel& kernel, const std::string& loop, const std::string& why) {
    TransformResult r = prefetch(kernel, loop);
    EXPECT_FALSE(r.ok());
    EXPECT_NE(r.reason.find(why), std::string::npos) << r.reason;
  };
  refused(k, "k_o", "not unrolled");          // the strip loop
  refused(k, "i", "only a loop of its own");  // the register tile's rows, in three loops
  refused(k, "nope", "no loop over index nope");
  refused(applied(prefetch(k, "k")), "k", "reads ahead already");
  // An unrolled loop that reads no shared buffer: the operands read from global memory.
  Kernel direct = applied(applyRecipe(testing::intMatmul(37, 21, 19),
                                      *parsed("tile i,j 16,16; map i_o grid.y; map j_o grid.x; map i block.y; "
                                              "map j block.x; regtile i,j 4,4; unroll k 4")));
  refused(direct, "k", "reads no shared buffer");
}

TEST(Resident, AsksForBlocksAndRefusesImpossibleCounts) {
  Kernel k = applied(applyRecipe(testing::intMatmul(37, 21, 19), *parsed(kTiled)));
  Kernel r = applied(keepResident(k, 2));
  EXPECT_EQ(r.residentBlocks, 2);
  EXPECT_NE(printKernel(r).find("// at least 2 blocks resident on a multiprocessor"), std::string::npos);
  EXPECT_EQ(differenceFrom(k, r), "");
  for (int64_t bad : {0, 33, -1}) {
    TransformResult refused = keepResident(k, bad);
    EXPECT_FALSE(refused.ok());
    EXPECT_NE(refused.reason.find("1 to 32 blocks"), std::string::npos) << refused.reason;
  }
}

TEST(Prefetch, StepsPrintAndParseBack) {
  auto r = parsed("prefetch k\nresident 2\n");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->steps.size(), 2u);
  EXPECT_EQ(r->steps[0].kind, StepKind::Prefetch);
  EXPECT_EQ(r->steps[0].loops, std::vector<std::string>{"k"});
  EXPECT_EQ(r->steps[1].kind, StepKind::Resident);
  EXPECT_EQ(r->steps[1].factors, std::vector<int64_t>{2});
  EXPECT_EQ(printRecipeLine(*r), "prefetch k; resident 2");
  common::SourceFile file("bad.recipe", "prefetch\nresident k\n");
  common::Diagnostics diags(file);
  EXPECT_FALSE(parseRecipe(file, diags));
  EXPECT_NE(diags.str().find("bad.recipe:1:9: error: expected an unrolled loop's index"), std::string::npos)
      << diags.str();
  EXPECT_NE(diags.str().find("bad.recipe:2:10: error: expected the blocks a multiprocessor must hold at once"),
            std::string::npos)
      << diags.str();
}

}  // namespace
}  // namespace cudaburg
