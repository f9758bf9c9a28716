// Gathers through offset tables (`stage ... table`, src/loop/gather_table.hpp): the table of a
// convolution's reduction, the masks of its rows, the refusals, and implicit GEMMs whose input is
// gathered through a table computing what the nest computes on the CPU executor, which reads the
// gathers through the table as the GPU does (1-D, 2-D, 3-D, strided, dilated, channels last).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "src/loop/gather_table.hpp"
#include "src/loop/printer.hpp"
#include "src/transform/recipe.hpp"
#include "src/transform/transforms.hpp"
#include "tests/transform/test_kernels.hpp"

namespace cudaburg {
namespace {

using testing::applied;
using testing::differenceFrom;
using testing::kernelFromText;
using testing::recipeFromText;
using testing::smallExample;

Kernel withRecipe(const Kernel& k, const std::string& text) {
  std::string errors;
  auto recipe = recipeFromText(text, &errors);
  if (!recipe) {
    ADD_FAILURE() << errors;
    throw std::runtime_error("recipe does not parse");
  }
  return applied(applyRecipe(k, *recipe));
}

// examples/<name>.loop at the sizes given.
Kernel example(const std::string& name, const std::map<std::string, int64_t>& sizes) {
  std::ifstream in(std::string(CUDABURG_EXAMPLES_DIR) + "/" + name + ".loop");
  std::stringstream text;
  text << in.rdbuf();
  return kernelFromText(text.str(), sizes);
}

std::string refusalOf(const Kernel& k, const std::string& text) {
  auto recipe = recipeFromText(text);
  if (!recipe) return "does not parse";
  TransformResult r = applyRecipe(k, *recipe);
  return r.ok() ? "" : r.reason;
}

// The first Stage with a table below `node`.
const Node* tabledStage(const NodePtr& node) {
  if (node->kind == NodeKind::Stage && node->tableDim >= 0) return node.get();
  for (const auto& kid : node->kids)
    if (const Node* found = tabledStage(kid)) return found;
  return nullptr;
}

// A 2-D convolution's implicit GEMM up to the strip loop `q_o` of its reduction.
const char* kConv2dGemm =
    "interchange n k\ncollapse n,oh,ow into m\ncollapse c,r,s into q\ntile k,m 4,16\nmap k_o grid.y\n"
    "map m_o grid.x\nmap k block.y\nmap m block.x\nregtile k,m 2,2\nstrip q 4\n";

Kernel conv3dSmall() {
  return kernelFromText(
      "size N = 2, C = 3, D = 5, H = 6, W = 7, K = 4, T = 3, P = 1;\n"
      "size OD = D + 2*P - T + 1, OH = H + 2*P - T + 1, OW = W + 2*P - T + 1;\n"
      "kernel conv3d(float Out[N][K][OD][OH][OW], const float In[N][C][D][H][W] padded, const float Wt[K][C][T][T][T]) "
      "{\n"
      "  parallel for (n = 0; n < N; n++)\n"
      "    parallel for (k = 0; k < K; k++)\n"
      "      parallel for (od = 0; od < OD; od++)\n"
      "        parallel for (oh = 0; oh < OH; oh++)\n"
      "          parallel for (ow = 0; ow < OW; ow++) {\n"
      "            Out[n][k][od][oh][ow] = 0;\n"
      "            reduce for (c = 0; c < C; c++)\n"
      "              reduce for (a = 0; a < T; a++)\n"
      "                reduce for (b = 0; b < T; b++)\n"
      "                  reduce for (e = 0; e < T; e++)\n"
      "                    Out[n][k][od][oh][ow] += In[n][c][od + a - P][oh + b - P][ow + e - P] * Wt[k][c][a][b][e];\n"
      "          }\n"
      "}\n");
}

TEST(GatherTable, HoldsTheReductionsOffsetsAndTaps) {
  Kernel k = conv3dSmall();
  Kernel t = withRecipe(k,
                        "collapse c,a,b,e into q\ninterchange n k\ncollapse n,od,oh,ow into m\ntile k,m 4,16\n"
                        "map k_o grid.y\nmap m_o grid.x\nmap k block.y\nmap m block.x\nregtile k,m 2,2\nstrip q 8\n"
                        "stage In at q_o table");
  const Node* stage = tabledStage(t.body);
  ASSERT_NE(stage, nullptr) << printKernel(t);
  GatherTable table;
  ASSERT_EQ(gatherTableOf(*stage, *t.findParam("In"), static_cast<size_t>(stage->tableDim), table), "");
  // q over c*a*b*e = 81 values and a partial last strip's 7 beyond; 27 taps: (a, b, e).
  EXPECT_EQ(table.size(), 81 + 7);
  EXPECT_EQ(table.taps.size(), 27u);
  EXPECT_EQ(table.mixed, (std::vector<size_t>{2, 3, 4}));
  EXPECT_EQ(table.rowOnly, (std::vector<size_t>{0}));
  // q = 40 is c = 1, a = 1, b = 1, e = 1: one channel, one plane, one row and one element on.
  EXPECT_EQ(table.delta[40], 5 * 6 * 7 + 6 * 7 + 7 + 1);
  EXPECT_EQ(table.taps[table.tap[40]], (std::vector<int64_t>{1, 1, 1}));
  // Past the reduction (c = 3): outside the source whatever the row.
  EXPECT_EQ(table.tap[81], table.taps.size());
  uint64_t central = table.rowMask({0, 0, 1, 1, 1});  // every tap of a pixel inside the volume
  EXPECT_EQ(central, (uint64_t{1} << 27) - 1);
  EXPECT_FALSE(table.inside(central, 81));
  // A row at the first pixel (od - 1, oh - 1, ow - 1 = -1): only the taps 1 or 2 along all three inside.
  uint64_t mask = table.rowMask({0, 0, -1, -1, -1});
  EXPECT_FALSE(table.inside(mask, 0));  // a = b = e = 0
  EXPECT_TRUE(table.inside(mask, 13));  // a = b = e = 1
  EXPECT_EQ(__builtin_popcountll(mask), 8);
  EXPECT_EQ(table.rowMask({2, 0, 0, 0, 0}), 0u);  // n = 2: past the batch
  // Packed: the tap in the low bits, the offset above them.
  EXPECT_EQ(table.packed(40) & ((1 << table.tapBits()) - 1), static_cast<int32_t>(table.tap[40]));
  EXPECT_EQ(table.packed(40) >> table.tapBits(), table.delta[40]);
}

TEST(GatherTable, ImplicitGemmsThroughTablesComputeTheSame) {
  Kernel conv2d = smallExample("conv2d");  // stride 2
  for (const char* rest : {
           "stage In at q_o table\nunroll q 4",
           "stage In at q_o table\nstage Wt at q_o\nunroll q 4\nmap q_o pipelined",
           "stage In at q_o table\nstage Wt at q_o table\nunroll q 4\nmap q_o async",
           "stage In at q_o transposed table\nunroll q 4",
           "stage In at q_o table\nstage Wt at q_o\nunroll q 4\nmap q_o pipelined\nroundup\npeel k_o,m_o,q_o",
       }) {
    SCOPED_TRACE(rest);
    Kernel t = withRecipe(conv2d, std::string(kConv2dGemm) + rest);
    ASSERT_NE(tabledStage(t.body), nullptr);
    EXPECT_EQ(differenceFrom(conv2d, t), "");
  }
  // A split reduction: each part's strips look the same table up, the last strip of a part cut.
  Kernel split = withRecipe(conv2d,
                            "collapse c,r,s into q\nsplit q 3\ninterchange n k\ncollapse n,oh,ow into m\n"
                            "tile k,m 4,16\nmap q_s grid.z\nmap k_o grid.y\nmap m_o grid.x\nmap k block.y\n"
                            "map m block.x\nregtile k,m 2,2\nstrip q 4\nstage In at q_o table\nunroll q 4");
  EXPECT_EQ(differenceFrom(conv2d, split), "");
}

TEST(GatherTable, OneTwoAndThreeDimensionsDilatedAndChannelsLast) {
  struct Case {
    const char* name;
    Kernel kernel;
    const char* recipe;
  };
  std::vector<Case> cases = {
      {"conv1d strided", example("conv1d", {{"N", 2}, {"C", 3}, {"L", 19}, {"K", 4}, {"R", 5}, {"ST", 2}, {"P", 2}}),
       "interchange n k\ncollapse n,o into m\ncollapse c,r into q\ntile k,m 4,16\nmap k_o grid.y\nmap m_o grid.x\n"
       "map k block.y\nmap m block.x\nregtile k,m 2,2\nstrip q 8\nstage In at q_o table\nstage Wt at q_o\n"
       "map q_o pipelined"},
      {"conv2d_dilated", example("conv2d_dilated", {{"N", 2}, {"C", 2}, {"H", 9}, {"W", 8}, {"K", 3}}),
       "interchange n k\ncollapse n,oh,ow into m\ncollapse c,r,s into q\ntile k,m 4,16\nmap k_o grid.y\n"
       "map m_o grid.x\nmap k block.y\nmap m block.x\nregtile k,m 2,2\nstrip q 8\nstage In at q_o table"},
      {"conv2d_nhwc", example("conv2d_nhwc", {{"N", 2}, {"H", 7}, {"W", 6}, {"C", 8}, {"K", 4}}),
       "collapse r,s,c into q\ncollapse n,oh,ow into m\ntile m,k 16,4\nmap m_o grid.y\nmap k_o grid.x\n"
       "map m block.y\nmap k block.x\nregtile m,k 2,2\nstrip q 8\nstage In at q_o table\nstage Wt at q_o\n"
       "map q_o pipelined"},
      {"conv3d", conv3dSmall(),
       "collapse c,a,b,e into q\ninterchange n k\ncollapse n,od,oh,ow into m\ntile k,m 4,16\nmap k_o grid.y\n"
       "map m_o grid.x\nmap k block.y\nmap m block.x\nregtile k,m 2,4\nstrip q 16\nstage In at q_o table\n"
       "stage Wt at q_o\nunroll q 16\nmap q_o pipelined"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Kernel t = withRecipe(c.kernel, c.recipe);
    ASSERT_NE(tabledStage(t.body), nullptr);
    EXPECT_EQ(differenceFrom(c.kernel, t), "");
  }
}

TEST(GatherTable, Refusals) {
  Kernel conv2d = smallExample("conv2d");
  // A box, not a gather.
  EXPECT_NE(refusalOf(smallExample("matmul"), "strip k 8\nstage A at k_o table").find("only a gather's offsets"),
            std::string::npos);
  // The filters gathered at the strip loop of the pixels, which they do not read: no dimension
  // of the gather moves with it.
  std::string pixels = refusalOf(conv2d,
                                 "interchange n k\ncollapse n,oh,ow into m\ncollapse c,r,s into q\n"
                                 "strip m 16\nstage Wt at m_o table");
  EXPECT_NE(pixels.find("nothing to tabulate"), std::string::npos) << pixels;
  // The reduction not collapsed: its gather's dimension along c is a plain loop.
  std::string plain = refusalOf(conv2d,
                                "interchange n k\ncollapse n,oh,ow into m\ntile k,m 4,16\nmap k_o grid.y\n"
                                "map m_o grid.x\nmap k block.y\nmap m block.x\nregtile k,m 2,2\nstrip c 2\n"
                                "stage In at c_o table");
  EXPECT_NE(plain.find("no collapsed loop"), std::string::npos) << plain;
  // Too many entries for constant memory.
  Kernel deep = kernelFromText(
      "size N = 1, C = 1024, H = 4, W = 4, K = 4, R = 3, S = 3, P = 1;\n"
      "kernel deep(float Out[N][K][H][W], const float In[N][C][H][W] padded, const float Wt[K][C][R][S]) {\n"
      "  parallel for (n = 0; n < N; n++)\n    parallel for (k = 0; k < K; k++)\n"
      "      parallel for (oh = 0; oh < H; oh++)\n        parallel for (ow = 0; ow < W; ow++) {\n"
      "          Out[n][k][oh][ow] = 0;\n          reduce for (c = 0; c < C; c++)\n"
      "            reduce for (r = 0; r < R; r++)\n              reduce for (s = 0; s < S; s++)\n"
      "                Out[n][k][oh][ow] += In[n][c][oh + r - P][ow + s - P] * Wt[k][c][r][s];\n        }\n}\n");
  std::string large = refusalOf(deep, std::string(kConv2dGemm) + "stage In at q_o table");
  EXPECT_NE(large.find("entries, more than 8192"), std::string::npos) << large;
}

TEST(GatherTable, TheOptionParsesPrintsAndIsRefusedWhereMisplaced) {
  auto recipe = recipeFromText("stage In at q_o transposed pad 8 table");
  ASSERT_TRUE(recipe);
  EXPECT_TRUE(recipe->steps[0].table);
  EXPECT_EQ(printRecipeLine(*recipe), "stage In at q_o transposed pad 8 table");
  std::string errors;
  EXPECT_FALSE(recipeFromText("stage In at q_o table pad 8", &errors));
  EXPECT_NE(errors.find("unexpected"), std::string::npos) << errors;
  EXPECT_NE(errors.find("[table]"), std::string::npos) << errors;
  EXPECT_FALSE(recipeFromText("stage In at q_o tables", &errors));
}

}  // namespace
}  // namespace cudaburg
