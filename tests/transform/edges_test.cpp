// Edges: `roundup` rounds a tile's register work up to whole tiles where that changes nothing the
// kernel computes, and refuses where it would; `peel` marks grid and strip loops whose edges the
// GPU runs apart and refuses loops with nothing to peel. Both print and parse back.
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
  common::SourceFile file("edges.recipe", text);
  common::Diagnostics diags(file);
  auto r = parseRecipe(file, diags);
  EXPECT_TRUE(r) << diags.str();
  return r;
}

Kernel under(const Kernel& k, const std::string& text) {
  auto r = parsed(text);
  if (!r) return k;
  return applied(applyRecipe(k, *r));
}

// A register-tiled, staged matmul whose tiles and strips do not divide its sizes.
const std::string kTiled =
    "tile i,j 16,16; map i_o grid.y; map j_o grid.x; map i block.y; map j block.x; regtile i,j 4,4; "
    "strip k 8; stage A at k_o transposed; stage B at k_o; unroll k 8";

// The upper bounds of every loop over `index`, as text, one loop a line.
std::string boundsOf(const Kernel& k, const std::string& index) {
  std::string out;
  for (const Node* l : testing::loopsOf(k)) {
    if (l->index != index) continue;
    for (const Affine& u : l->upper) out += u.str() + ";";
    out += "\n";
  }
  return out;
}

TEST(RoundUp, RegisterWorkRunsOverWholeTilesAndStoresKeepTheirGuards) {
  Kernel k = testing::intMatmul(37, 21, 19);
  Kernel tiled = under(k, kTiled);
  Kernel rounded = applied(roundUp(tiled));
  // Initialisation and multiply-adds: the thread's rows without `37`; the store keeps it.
  EXPECT_EQ(boundsOf(tiled, "i"), "i_o2 + 4;37;\ni_o2 + 4;37;\ni_o2 + 4;37;\n");
  EXPECT_EQ(boundsOf(rounded, "i"), "i_o2 + 4;\ni_o2 + 4;\ni_o2 + 4;37;\n");
  EXPECT_EQ(boundsOf(rounded, "j_o2"), "j_o + 16;\nj_o + 16;\nj_o + 16;21;\n");
  // The reduction keeps its bound: its iterations past K would add to elements that are stored.
  EXPECT_EQ(boundsOf(rounded, "k"), boundsOf(tiled, "k"));
  EXPECT_EQ(differenceFrom(k, rounded), "");
  EXPECT_EQ(differenceFrom(tiled, rounded), "");
}

TEST(RoundUp, ComputesTheSameUnderManyShapes) {
  for (auto [m, n, kk] : std::vector<std::tuple<int64_t, int64_t, int64_t>>{{17, 9, 5}, {33, 47, 16}, {5, 70, 31}}) {
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(kk));
    Kernel k = testing::intMatmul(m, n, kk);
    for (const char* rest : {"", "; map k_o pipelined", "; map k_o async", "; vectorize j 4"}) {
      TransformResult r = applyRecipe(k, *parsed(kTiled + std::string(rest) + "; roundup"));
      if (!r.ok()) {  // vectorize refuses rows that are not a multiple of 4
        EXPECT_NE(std::string(rest), "") << r.reason;
        continue;
      }
      EXPECT_EQ(differenceFrom(k, *r.kernel), "") << rest;
    }
  }
}

TEST(RoundUp, Refuses) {
  // Whole tiles: nothing to round up.
  EXPECT_FALSE(roundUp(under(testing::intMatmul(32, 32, 16), kTiled)).ok());
  // No register work: the loops store to memory.
  Kernel plain = under(testing::intMatmul(37, 21, 19),
                       "tile i,j 16,16; map i_o grid.y; map j_o grid.x; map i block.y; map j block.x");
  TransformResult r = roundUp(plain);
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.reason.find("nothing to round up"), std::string::npos) << r.reason;
  // Register work that reads global memory (operands not staged) keeps its bounds.
  Kernel direct = under(testing::intMatmul(37, 21, 19),
                        "tile i,j 16,16; map i_o grid.y; map j_o grid.x; map i block.y; map j block.x; "
                        "regtile i,j 4,4");
  Kernel rounded = applied(roundUp(direct));  // the initialisation alone
  EXPECT_EQ(boundsOf(rounded, "i"), "i_o2 + 4;\ni_o2 + 4;37;\ni_o2 + 4;37;\n");
}

TEST(Peel, MarksGridAndStripLoops) {
  Kernel k = under(testing::intMatmul(37, 21, 19), kTiled + "; map k_o pipelined; roundup");
  Kernel p = applied(peel(k, {"i_o", "j_o", "k_o"}));
  EXPECT_EQ(p.peeled, (std::vector<std::string>{"i_o", "j_o", "k_o"}));
  EXPECT_EQ(printKernel(p.withBody(k.body)), printKernel(p));  // the tree is unchanged
  EXPECT_NE(printKernel(p).find("// edges run apart (peeled): i_o j_o k_o"), std::string::npos);
  EXPECT_EQ(differenceFrom(k, p), "");
  // A split reduction's strip loop has bounds that differ from block to block: peeled too.
  Kernel split =
      under(testing::intMatmul(37, 21, 19), "split k 2; map k_s grid.z; " + kTiled + "; roundup; peel i_o,j_o,k_o");
  EXPECT_EQ(split.peeled.size(), 3u);
}

TEST(Peel, Refuses) {
  Kernel k = under(testing::intMatmul(37, 32, 16), kTiled);
  auto refused = [&](const std::vector<std::string>& loops, const std::string& why) {
    TransformResult r = peel(k, loops);
    EXPECT_FALSE(r.ok());
    EXPECT_NE(r.reason.find(why), std::string::npos) << r.reason;
  };
  refused({"j_o"}, "whole blocks only");                                  // 32 columns in tiles of 16
  refused({"k_o"}, "nothing to peel");                                    // 16 in strips of 8
  refused({"i"}, "only a loop of its own is peeled");                     // a thread loop, in three copies
  refused({"k"}, "only grid loops and uniform serial loops are peeled");  // unrolled
  refused({"nope"}, "no loop over index nope");
  refused({}, "needs a loop");
  EXPECT_FALSE(peel(applied(peel(k, {"i_o"})), {"i_o"}).ok());  // peeled already
  Kernel small = under(testing::intMatmul(10, 32, 16), kTiled);
  TransformResult r = peel(small, {"i_o"});
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.reason.find("no whole block"), std::string::npos) << r.reason;
}

TEST(Peel, StepsPrintAndParseBack) {
  auto r = parsed("roundup\npeel i_o,j_o,k_o\n");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->steps.size(), 2u);
  EXPECT_EQ(r->steps[0].kind, StepKind::RoundUp);
  EXPECT_EQ(r->steps[1].kind, StepKind::Peel);
  EXPECT_EQ(r->steps[1].loops, (std::vector<std::string>{"i_o", "j_o", "k_o"}));
  EXPECT_EQ(printRecipeLine(*r), "roundup; peel i_o,j_o,k_o");
  // A bad step says what it reads.
  common::SourceFile file("bad.recipe", "roundup i\npeel\n");
  common::Diagnostics diags(file);
  EXPECT_FALSE(parseRecipe(file, diags));
  EXPECT_NE(diags.str().find("bad.recipe:1:9: error: unexpected 'i' after the step (a step reads `roundup`)"),
            std::string::npos)
      << diags.str();
  EXPECT_NE(diags.str().find("bad.recipe:2:5: error: expected a loop index"), std::string::npos) << diags.str();
}

}  // namespace
}  // namespace cudaburg
