// Loop collapse: the loop it makes, the indices it derives, refusals with their reasons, and the
// collapsed kernels (strip-mined, tiled, mapped, register-tiled after it) computing what the
// original computes, through the CPU executor.
#include <gtest/gtest.h>

#include "common/diagnostics.hpp"
#include "src/analysis/dependence.hpp"
#include "src/loop/printer.hpp"
#include "src/transform/recipe.hpp"
#include "src/transform/transforms.hpp"
#include "src/transform/tree_edit.hpp"
#include "tests/transform/test_kernels.hpp"

namespace cudaburg {
namespace {

using testing::applied;
using testing::differenceFrom;
using testing::findLoop;
using testing::kernelFromText;
using testing::smallExample;

void expectRefusal(const TransformResult& r, const std::string& words) {
  ASSERT_FALSE(r.ok()) << printKernel(*r.kernel);
  EXPECT_NE(r.reason.find(words), std::string::npos) << r.reason;
}

Kernel withRecipe(const Kernel& k, const std::string& text) {
  common::SourceFile file("recipe", text);
  common::Diagnostics diags(file);
  auto recipe = parseRecipe(file, diags);
  if (!recipe) {
    ADD_FAILURE() << diags.str();
    throw std::runtime_error("recipe does not parse");
  }
  return applied(applyRecipe(k, *recipe));
}

// Two serial loops (their headers given) around one statement over an int array A[n][n].
Kernel serialNest(int64_t n, const std::string& outer, const std::string& inner, const std::string& statement) {
  return kernelFromText("size N = " + std::to_string(n) + ";\nkernel nest(int A[N][N]) {\n  for (" + outer +
                        ")\n    for (" + inner + ")\n      " + statement + ";\n}\n");
}

TEST(DerivedValues, AreTheDigitsOfTheMixedRadix) {
  std::vector<CollapsedLoop> loops = {{"a", 0, 1, 2}, {"b", 1, 3, 3}, {"c", 0, 1, 4}};
  EXPECT_EQ(digitStride(loops, 0), 12);
  EXPECT_EQ(digitStride(loops, 2), 1);
  EXPECT_EQ(derivedValues(loops, 0), (std::vector<int64_t>{0, 1, 0}));
  EXPECT_EQ(derivedValues(loops, 23), (std::vector<int64_t>{1, 7, 3}));  // 23 = 1*12 + 2*4 + 3
  // Past the end, the outermost digit runs on: the value lies outside what the nest ran.
  EXPECT_EQ(derivedValues(loops, 24), (std::vector<int64_t>{2, 1, 0}));
}

TEST(Collapse, ReplacesAPerfectNestByOneLoop) {
  Kernel k = smallExample("conv2d");  // N 2, K 5, OH 5, OW 4, C 3, R 3, S 3, stride 2
  Kernel t = applied(interchange(k, "n", "k"));
  t = applied(collapse(t, {"n", "oh", "ow"}));
  const Node* m = findLoop(t, "n_oh_ow");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->loopKind, LoopKind::Parallel);
  EXPECT_EQ(m->lower, Affine(0));
  EXPECT_EQ(m->upper, std::vector<Affine>{Affine(2 * 5 * 4)});
  ASSERT_EQ(m->collapsed.size(), 3u);
  EXPECT_EQ(m->collapsed[1], (CollapsedLoop{"oh", 0, 1, 5}));
  EXPECT_EQ(findLoop(t, "n"), nullptr);
  EXPECT_NE(printKernel(t).find("collapses n = 0..1, oh = 0..4, ow = 0..3"), std::string::npos) << printKernel(t);
  EXPECT_EQ(differenceFrom(k, t), "");
  Kernel r = applied(collapse(t, {"c", "r", "s"}, {"q"}));
  EXPECT_EQ(findLoop(r, "q")->loopKind, LoopKind::Reduce);
  EXPECT_EQ(findLoop(r, "q")->upper, std::vector<Affine>{Affine(3 * 3 * 3)});
  EXPECT_EQ(differenceFrom(k, r), "");
}

TEST(Collapse, EveryConvolutionExampleComputesTheSame) {
  for (const char* name : {"conv2d", "conv3d", "correlate2d"}) {
    SCOPED_TRACE(name);
    Kernel k = smallExample(name);
    std::vector<std::string> parallel, reduce;
    for (const Node* loop : testing::loopsOf(k))
      (loop->loopKind == LoopKind::Parallel ? parallel : reduce).push_back(loop->index);
    Kernel t = applied(collapse(k, parallel));
    t = applied(collapse(t, reduce));
    EXPECT_EQ(testing::loopsOf(t).size(), 2u);
    EXPECT_EQ(differenceFrom(k, t), "");
  }
}

TEST(Collapse, KeepsLowerBoundsStepsAndTheOrderOfASerialNest) {
  // A serial nest whose iterations depend on one another in order: the collapsed loop runs
  // them in the same order, with first values and steps other than 0 and 1.
  Kernel k = serialNest(12, "i = 2; i < 11; i += 3", "j = 1; j < 9; j += 2", "A[i][j] = A[i - 2][j - 1] + i * 7 + j");
  Kernel t = applied(collapse(k, {"i", "j"}, {"ij"}));
  EXPECT_EQ(findLoop(t, "ij")->upper, std::vector<Affine>{Affine(3 * 4)});
  EXPECT_EQ(findLoop(t, "ij")->loopKind, LoopKind::Serial);
  EXPECT_EQ(differenceFrom(k, t), "");
  // Strip-mined, the element loop keeps deriving i and j.
  Kernel s = applied(stripMine(t, "ij", 5));
  EXPECT_EQ(findLoop(s, "ij")->collapsed.size(), 2u);
  EXPECT_TRUE(findLoop(s, "ij_o")->collapsed.empty());
  EXPECT_EQ(differenceFrom(k, s), "");
}

TEST(Collapse, ImplicitGemmRecipesComputeTheSame) {
  // The convolution as a GEMM: filters by n*oh*ow, reduced over c*r*s, tiled, mapped and
  // register-tiled like a matmul; tiles of the collapsed loop cross image rows and images.
  Kernel k = smallExample("conv2d");
  const char* head = "interchange n k\ncollapse n,oh,ow into m\ncollapse c,r,s into q\n";
  for (const char* rest : {
           "tile k,m 4,8\nmap k_o grid.y\nmap m_o grid.x\nmap k block.y\nmap m block.x",
           "tile k,m 4,8\nmap k_o grid.y\nmap m_o grid.x\nmap k block.y\nmap m block.x\nregtile k,m 2,4\nstrip q 4\n"
           "unroll q 4",
           "tile k,m 2,16\nmap k_o grid.y\nmap m_o grid.x\nmap k block.y\nmap m block.x\nregtile k,m 2,2\nstrip q 8\n"
           "stage Wt at q_o\nunroll q 8",
           "split q 3\nmap q_s grid.z\ntile k,m 4,8\nmap k_o grid.y\nmap m_o grid.x\nmap k block.y\nmap m block.x",
           "interchange k m\nmap m grid.x\nmap k block.x",
       }) {
    SCOPED_TRACE(rest);
    Kernel t = withRecipe(k, std::string(head) + rest);
    EXPECT_EQ(differenceFrom(k, t), "");
  }
}

TEST(Collapse, ConvolutionsOfAnyStridePaddingAndDilation) {
  const char* text =
      "size N = 2, C = 3, H = 11, W = 9, K = 4, R = 3, S = 2, ST = 2, P = 2, DL = 2;\n"
      "size OH = (H + 2*P - DL*(R - 1) - 1) / ST + 1, OW = (W + 2*P - DL*(S - 1) - 1) / ST + 1;\n"
      "kernel dilated(float Out[N][K][OH][OW], const float In[N][C][H][W] padded, const float Wt[K][C][R][S]) {\n"
      "  parallel for (n = 0; n < N; n++)\n"
      "    parallel for (k = 0; k < K; k++)\n"
      "      parallel for (oh = 0; oh < OH; oh++)\n"
      "        parallel for (ow = 0; ow < OW; ow++) {\n"
      "          Out[n][k][oh][ow] = 0;\n"
      "          reduce for (c = 0; c < C; c++)\n"
      "            reduce for (r = 0; r < R; r++)\n"
      "              reduce for (s = 0; s < S; s++)\n"
      "                Out[n][k][oh][ow] += In[n][c][oh*ST + r*DL - P][ow*ST + s*DL - P] * Wt[k][c][r][s];\n"
      "        }\n"
      "}\n";
  Kernel k = kernelFromText(text);
  Kernel t = withRecipe(k,
                        "interchange n k\ncollapse n,oh,ow\ncollapse c,r,s\ntile k,n_oh_ow 2,8\nmap k_o grid.y\n"
                        "map n_oh_ow_o grid.x\nmap k block.y\nmap n_oh_ow block.x\nregtile k,n_oh_ow 2,2");
  EXPECT_EQ(differenceFrom(k, t), "");
}

TEST(Collapse, TheDependenceTestSeesTheDerivedIndices) {
  // A[i][j] reads the element the next row writes: the collapsed loop carries an anti dependence
  // (were i and j unknown to the test, the subscripts would never meet).
  Kernel k = serialNest(6, "i = 0; i < 5; i++", "j = 0; j < 6; j++", "A[i][j] = A[i + 1][j] + 1");
  Kernel t = applied(collapse(k, {"i", "j"}, {"m"}));
  DependenceGraph deps(t);
  const Node* m = findLoop(t, "m");
  auto carried = deps.carriedBy(m);
  ASSERT_FALSE(carried.empty()) << deps.str();
  EXPECT_EQ(carried[0]->kind, DependenceKind::Anti);
  // Rows apart by 6 iterations of m: the distance is exact.
  ASSERT_TRUE(carried[0]->distances[0].has_value()) << deps.str();
  EXPECT_EQ(*carried[0]->distances[0], 6);
}

TEST(Collapse, TransformationsThatReadIndicesSeeTheDerivedOnes) {
  Kernel k = smallExample("conv2d");
  Kernel t = withRecipe(k,
                        "interchange n k\ncollapse n,oh,ow into m\ntile k,m 4,8\nmap k_o grid.y\nmap m_o grid.x\n"
                        "map k block.y\nmap m block.x");
  // Consecutive m are not consecutive elements of Out.
  Kernel r = applied(registerTile(t, {"k", "m"}, {2, 4}));
  expectRefusal(vectorize(r, "m", 4), "collapsed");
  // What a tile of m reads of In is no box: its stage is a gather over c, r, s and m.
  Kernel s = applied(stripMine(r, "c", 2));
  Kernel g = applied(stage(s, "In", "c_o"));
  const Node* gather = nullptr;
  walk(g.body, [&](const NodePtr& n, const Ancestors&) {
    if (n->kind == NodeKind::Stage) gather = n.get();
  });
  ASSERT_NE(gather, nullptr);
  ASSERT_EQ(gather->gather.size(), 4u);
  EXPECT_EQ(gather->gather[3].index, "m");
  EXPECT_EQ(gather->gather[3].collapsed.size(), 3u);
  EXPECT_EQ(gather->buffer.extents, (std::vector<int64_t>{2, 3, 3, 8}));
  EXPECT_EQ(gather->origin[3], Affine::var("m_o"));
  EXPECT_NE(printKernel(g).find("In_s[c - c_o][r][s][m - m_o]"), std::string::npos) << printKernel(g);
  EXPECT_EQ(differenceFrom(k, g), "");
  expectRefusal(stage(s, "In", "c_o", false, 8), "not interleaved");
  EXPECT_EQ(differenceFrom(k, applied(stage(g, "Wt", "c_o"))), "");
}

TEST(Collapse, ImplicitGemmStagesIm2colTiles) {
  // Both operands gathered a strip of q at a time, filled once, pipelined through registers or
  // copied asynchronously: the buffers hold In_s[q][m] and Wt_s[q][k].
  Kernel k = smallExample("conv2d");
  const char* head =
      "interchange n k\ncollapse n,oh,ow into m\ncollapse c,r,s into q\ntile k,m 4,8\nmap k_o grid.y\n"
      "map m_o grid.x\nmap k block.y\nmap m block.x\nregtile k,m 2,2\nstrip q 4\nstage In at q_o\n"
      "stage Wt at q_o\nunroll q 4\n";
  for (const char* rest : {"", "map q_o pipelined", "map q_o async"}) {
    SCOPED_TRACE(rest);
    Kernel t = withRecipe(k, std::string(head) + rest);
    std::string text = printKernel(t);
    EXPECT_NE(text.find("In_s[q - q_o][m - m_o]"), std::string::npos) << text;
    EXPECT_NE(text.find("Wt_s[q - q_o][k - k_o]"), std::string::npos) << text;
    EXPECT_EQ(differenceFrom(k, t), "");
  }
  // Loads of one array that read different elements share no gather.
  Kernel twice = kernelFromText(
      "size N = 4, M = 6;\n"
      "kernel pairs(float Y[N][M], const float X[N][M + 1]) {\n"
      "  parallel for (i = 0; i < N; i++)\n"
      "    parallel for (j = 0; j < M; j++)\n"
      "      Y[i][j] = X[i][j] + X[i][j + 1];\n"
      "}\n");
  Kernel c = withRecipe(twice, "collapse i,j into m\nstrip m 8\nmap m_o grid.x\nmap m block.x");
  expectRefusal(stage(c, "X", "m_o"), "read different elements");
}

TEST(Collapse, Refuses) {
  Kernel k = smallExample("conv2d");
  expectRefusal(collapse(k, {"n"}), "at least 2 loops");
  expectRefusal(collapse(k, {"n", "oh"}), "not the whole body of loop n (collapsing needs a perfect nest)");
  expectRefusal(collapse(k, {"ow", "c"}), "perfect nest");
  expectRefusal(collapse(applied(stripMine(k, "oh", 2)), {"oh_o", "oh"}), "loop oh has bounds that are not constants");
  expectRefusal(collapse(applied(mapLoop(k, "n", Mapping::GridX)), {"n", "k"}), "mapped to grid.x");
  // A loop inside bounded by a collapsed index: moved out later, it would read it before it is set.
  expectRefusal(collapse(applied(stripMine(k, "oh", 2)), {"k", "oh_o"}),
                "loop oh inside is bounded by oh_o, which collapsing would derive");
  expectRefusal(collapse(k, {"n", "k"}, {"c"}), "cannot be named c");
  Kernel kinds = kernelFromText(
      "size M = 4, K = 5;\n"
      "kernel rowsum(float Y[M], const float A[M][K]) {\n"
      "  parallel for (i = 0; i < M; i++)\n"
      "    reduce for (k = 0; k < K; k++)\n"
      "      Y[i] += A[i][k];\n"
      "}\n");
  expectRefusal(collapse(kinds, {"i", "k"}), "loops i (parallel) and k (reduce) are of different kinds");
  Kernel once = applied(collapse(k, {"oh", "ow"}, {"p"}));
  expectRefusal(collapse(once, {"k", "p"}), "loop p is collapsed already");
  Kernel empty = kernelFromText(
      "kernel none(float Y[4][4]) {\n"
      "  parallel for (i = 0; i < 4; i++)\n"
      "    parallel for (j = 3; j < 2; j++)\n"
      "      Y[i][j] = 1;\n"
      "}\n");
  expectRefusal(collapse(empty, {"i", "j"}), "loop j runs no iteration");
}

TEST(Collapse, RecipeStepsRoundTrip) {
  const char* text = "collapse n,oh,ow\ncollapse c,r,s into q\n";
  common::SourceFile file("recipe", text);
  common::Diagnostics diags(file);
  auto recipe = parseRecipe(file, diags);
  ASSERT_TRUE(recipe) << diags.str();
  ASSERT_EQ(recipe->steps.size(), 2u);
  EXPECT_EQ(recipe->steps[0].kind, StepKind::Collapse);
  EXPECT_EQ(recipe->steps[0].loops, (std::vector<std::string>{"n", "oh", "ow"}));
  EXPECT_EQ(recipe->steps[1].into, std::vector<std::string>{"q"});
  EXPECT_EQ(printRecipe(*recipe), text);
  EXPECT_EQ(printRecipeLine(*recipe), "collapse n,oh,ow; collapse c,r,s into q");
  for (const char* bad : {"collapse n,oh into a,b", "collapse n,oh 4", "collapse"}) {
    common::SourceFile f("recipe", bad);
    common::Diagnostics d(f);
    EXPECT_FALSE(parseRecipe(f, d)) << bad;
    EXPECT_NE(d.str().find("recipe:1:"), std::string::npos) << d.str();
  }
}

}  // namespace
}  // namespace cudaburg
