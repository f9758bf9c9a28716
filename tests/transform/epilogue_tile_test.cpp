// Register tiles that carry a nest's epilogue (the element-wise statements after its reduction)
// into their write-back, run on the CPU executor against the nest as written.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "src/idioms/write_back.hpp"
#include "src/loop/tree_walk.hpp"
#include "src/transform/transforms.hpp"
#include "src/transform/tree_edit.hpp"
#include "tests/transform/test_kernels.hpp"

namespace cudaburg {
namespace {

using testing::applied;
using testing::differenceFrom;
using testing::kernelFromText;

// Sizes no tile divides: partial block tiles, partial register tiles, a partial last strip of k.
const std::map<std::string, int64_t> kUneven{{"M", 13}, {"N", 11}, {"K", 9}};

Kernel example(const std::string& name, const std::map<std::string, int64_t>& sizes = kUneven) {
  std::ifstream in(std::string(CUDABURG_EXAMPLES_DIR) + "/" + name + ".loop");
  std::stringstream text;
  text << in.rdbuf();
  return kernelFromText(text.str(), sizes);
}

// A linear layer Y = X W with `epilogue` after its reduction.
Kernel linearWith(const std::string& epilogue) {
  return kernelFromText(
      "size M = 4, N = 4, K = 4;\n"
      "kernel layer(float Y[M][N], const float X[M][K], const float W[K][N], const float b[N],\n"
      "             const float S[M][N]) {\n"
      "  parallel for (i = 0; i < M; i++)\n"
      "    parallel for (j = 0; j < N; j++) {\n"
      "      Y[i][j] = 0;\n"
      "      reduce for (k = 0; k < K; k++)\n"
      "        Y[i][j] += X[i][k] * W[k][j];\n" +
          epilogue + "    }\n}\n",
      kUneven);
}

// Block tiles of 8 x 8 on the grid, a thread's 2 x 2 register tile, X and W staged 4 steps of k
// at a time: the CUDA-core product's recipe.
Kernel registerTiled(const Kernel& k) {
  Kernel t = applied(tile(k, {"i", "j"}, {8, 8}));
  t = applied(mapLoop(t, "i_o", Mapping::GridY));
  t = applied(mapLoop(t, "j_o", Mapping::GridX));
  t = applied(mapLoop(t, "i", Mapping::BlockY));
  t = applied(mapLoop(t, "j", Mapping::BlockX));
  t = applied(registerTile(t, {"i", "j"}, {2, 2}));
  t = applied(stripMine(t, "k", 4));
  t = applied(stage(t, "X", "k_o"));
  return applied(stage(t, "W", "k_o"));
}

// Stores into `array` in the kernel.
int storesInto(const Kernel& k, const std::string& array) {
  int n = 0;
  walk(k.body, [&](const NodePtr& node, const Ancestors&) {
    n += node->kind == NodeKind::Assign && node->target.array == array;
  });
  return n;
}

TEST(EpilogueTile, LinearReluIsAppliedAtTheWriteBack) {
  Kernel k = example("linear_relu");
  Kernel t = registerTiled(k);
  EXPECT_EQ(differenceFrom(k, t), "");
  EXPECT_EQ(storesInto(t, "Y"), 1);  // one pass over the output: the write-back alone
}

TEST(EpilogueTile, SeveralStatementsComposeInOrder) {
  // A scale and shift, a shortcut of the output's shape, then an activation.
  Kernel k = linearWith(
      "      Y[i][j] = Y[i][j] * 0.5 + b[j];\n"
      "      Y[i][j] = Y[i][j] + S[i][j];\n"
      "      Y[i][j] = tanh(max(Y[i][j], 0) - Y[i][j] * 0.01);\n");
  Kernel t = registerTiled(k);
  EXPECT_EQ(differenceFrom(k, t), "");
  EXPECT_EQ(differenceFrom(k, t, 9), "");
  EXPECT_EQ(storesInto(t, "Y"), 1);
}

// The recipes the search builds for CUDA-core tiles: pipelined strips, vectorized columns, edges
// rounded up and peeled; each with the layer's epilogue, against the nest as written.
TEST(EpilogueTile, SearchedRecipesKeepTheEpilogue) {
  const char* recipes[] = {
      "tile i,j 8,8\nmap i_o grid.y\nmap j_o grid.x\nmap i block.y\nmap j block.x\nregtile i,j 2,4\n"
      "strip k 4\nstage X at k_o transposed\nstage W at k_o\nmap k_o pipelined\nunroll k 4\nvectorize j 4",
      "tile i,j 16,16\nmap i_o grid.y\nmap j_o grid.x\nmap i block.y\nmap j block.x\nregtile i,j 2,2\n"
      "strip k 4\nstage X at k_o transposed\nstage W at k_o\nmap k_o pipelined\nunroll k 4\nlanes 4,8\n"
      "roundup\npeel i_o,j_o,k_o",
      "split k 2\nmap k_s grid.z\ntile i,j 8,8\nmap i_o grid.y\nmap j_o grid.x\nmap i block.y\nmap j block.x\n"
      "regtile i,j 2,2",
  };
  Kernel k = example("linear_relu", {{"M", 37}, {"N", 44}, {"K", 9}});  // runs of 4 columns
  for (const char* text : recipes) {
    std::string errors;
    std::optional<Recipe> recipe = testing::recipeFromText(text, &errors);
    ASSERT_TRUE(recipe) << errors;
    TransformResult r = applyRecipe(k, *recipe);
    if (std::string(text).rfind("split", 0) == 0) {
      // A split's parts each hold a partial sum: the epilogue cannot apply before they are added.
      EXPECT_FALSE(r.ok()) << text;
      EXPECT_NE(r.reason.find("would run once a part"), std::string::npos) << r.reason;
      continue;
    }
    ASSERT_TRUE(r.ok()) << text << "\n" << r.reason;
    EXPECT_EQ(differenceFrom(k, *r.kernel), "") << text;
  }
}

// Convolutions with a folded batch norm and ReLU, or a shortcut added, under the recipes the
// search picks for them (filters run in turn, pixels register-tiled, edges rounded up).
TEST(EpilogueTile, ConvolutionLayersKeepTheEpilogue) {
  const std::map<std::string, int64_t> sizes{{"N", 2}, {"C", 10}, {"K", 3}, {"H", 9}, {"W", 11}};
  for (const char* layer : {"bottleneck_shortcut", "resnet_bn_relu"}) {
    Kernel k = example(layer, sizes);
    std::string rows = std::string(layer) == "resnet_bn_relu" ? "oh" : "h", cols = rows == "oh" ? "ow" : "w";
    std::string text = "tile " + rows + "," + cols + " 8,8\ninterchange k " + rows + "_o\ninterchange k " + cols +
                       "_o\nmap n grid.z\nmap " + rows + "_o grid.y\nmap " + cols + "_o grid.x\nmap " + rows +
                       " block.y\nmap " + cols + " block.x\nregtile " + rows + "," + cols +
                       " 2,2\nstrip c 8\nstage In at c_o\nstage Wt at c_o\nunroll c 8\nmap c_o pipelined\nroundup";
    std::string errors;
    std::optional<Recipe> recipe = testing::recipeFromText(text, &errors);
    ASSERT_TRUE(recipe) << errors;
    TransformResult r = applyRecipe(k, *recipe);
    ASSERT_TRUE(r.ok()) << layer << ": " << r.reason;
    EXPECT_EQ(differenceFrom(k, *r.kernel), "") << layer;
    EXPECT_EQ(storesInto(*r.kernel, "Out"), 1) << layer;
  }
}

// A linear layer with bias and ReLU whose operands are of `type` (tf32 or half), for the tensor
// cores' instructions that take them.
Kernel linearReluOf(const std::string& type, const std::map<std::string, int64_t>& sizes) {
  return kernelFromText(
      "size M = 4, N = 4, K = 4;\n"
      "kernel layer(float Y[M][N], const " +
          type + " X[M][K], const " + type +
          " W[K][N], const float b[N]) {\n"
          "  parallel for (i = 0; i < M; i++)\n"
          "    parallel for (j = 0; j < N; j++) {\n"
          "      Y[i][j] = 0;\n"
          "      reduce for (k = 0; k < K; k++)\n"
          "        Y[i][j] += X[i][k] * W[k][j];\n"
          "      Y[i][j] = max(Y[i][j] + b[j], 0);\n"
          "    }\n}\n",
      sizes);
}

// The tensor cores' tiles (mma.sync; wgmma reading both operands by descriptor; wgmma with A from
// registers; tf32x3 on float, with and without promoted sums) apply the epilogue to each
// accumulator element as they store it, the bias read at the element's own column: run on the CPU
// executor against the nest as written, at sizes no tile divides.
TEST(EpilogueTile, TensorCoreTilesKeepTheEpilogue) {
  const std::map<std::string, int64_t> sizes{{"M", 200}, {"N", 136}, {"K", 88}};
  const std::string wgmmaBlock = "tile i,j 128,128\nmap i_o grid.y\nmap j_o grid.x\n";
  struct Case {
    Kernel nest;
    std::string recipe;
  };
  const Case cases[] = {
      {linearReluOf("tf32", sizes),
       "tile i,j 128,128\nmap i_o grid.y\nmap j_o grid.x\nmap i block.y\nmap j block.x\nregtile i,j 64,32\n"
       "strip k 32\nstage X at k_o swizzle\nstage W at k_o swizzle\nmap k_o async 4\nunroll k 32\nmma i,j,k 16,8,8"},
      {linearReluOf("half", sizes),
       "tile i,j 128,128\nmap i_o grid.y\nmap j_o grid.x\nmap i block.y\nmap j block.x\nregtile i,j 64,32\n"
       "strip k 32\nstage X at k_o pad 8\nstage W at k_o pad 8\nmap k_o async\nunroll k 32\nmma i,j,k 16,8,16"},
      {linearReluOf("half", sizes),
       wgmmaBlock + "map i block.y\nmap j block.x\nregtile i,j 64,128\nstrip k 64\nstage X at k_o swizzle\n"
                    "stage W at k_o swizzle slabs 64\nmap k_o async 3\nunroll k 64\nwgmma i,j,k 64,128,16"},
      {linearReluOf("tf32", sizes),
       wgmmaBlock + "map i block.x\nmap j block.y\nregtile i,j 128,64\nstrip k 32\nstage X at k_o swizzle\n"
                    "stage W at k_o swizzle slabs 32\nmap k_o async 4\nunroll k 32\nwgmma j,i,k 64,128,8 producer tma"},
      {example("linear_relu", sizes),
       wgmmaBlock + "map i block.x\nmap j block.y\nregtile i,j 128,64\nstrip k 32\nstage X at k_o swizzle\n"
                    "stage W at k_o swizzle slabs 32\nmap k_o async 4\nunroll k 32\n"
                    "wgmma j,i,k 64,128,8 producer tma tf32x3"},
      {example("linear_relu", sizes),
       wgmmaBlock + "map i block.x\nmap j block.y\nregtile i,j 128,64\nstrip k 32\nstage X at k_o swizzle\n"
                    "stage W at k_o swizzle slabs 32\nmap k_o async 4\nunroll k 32\n"
                    "wgmma j,i,k 64,128,8 producer tma tf32x3 promote 1"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.recipe);
    std::string errors;
    std::optional<Recipe> recipe = testing::recipeFromText(c.recipe, &errors);
    ASSERT_TRUE(recipe) << errors;
    TransformResult r = applyRecipe(c.nest, *recipe);
    ASSERT_TRUE(r.ok()) << r.reason;
    EXPECT_EQ(differenceFrom(c.nest, *r.kernel), "");
    EXPECT_EQ(storesInto(*r.kernel, "Y"), 1);  // the write-back alone
    int tensorCoreTiles = 0;                   // the accumulation's and the write-back's, both on the warps' fragments
    walk(r.kernel->body, [&](const NodePtr& n, const Ancestors&) {
      tensorCoreTiles += n->kind == NodeKind::For && n->mapping == Mapping::Mma;
    });
    EXPECT_GE(tensorCoreTiles, 2);
  }
}

TEST(EpilogueTile, RefusesWhatItCannotFuse) {
  Kernel again =
      applied(tile(linearWith("      reduce for (k = 0; k < K; k++) Y[i][j] += X[i][k];\n"), {"i", "j"}, {8, 8}));
  again = applied(mapLoop(again, "i", Mapping::BlockY));
  again = applied(mapLoop(again, "j", Mapping::BlockX));
  TransformResult reduction = registerTile(again, {"i", "j"}, {2, 2});
  EXPECT_NE(reduction.reason.find("a reduction after the epilogue"), std::string::npos) << reduction.reason;
}

TEST(EpilogueValue, ComposesTheStatementsIntoOneExpression) {
  Kernel k = linearWith(
      "      Y[i][j] = Y[i][j] + b[j];\n"
      "      Y[i][j] = max(Y[i][j], 0);\n");
  std::vector<NodePtr> stmts = flattenSeq(k.body->body()->body());
  ASSERT_EQ(stmts.size(), 4u);
  Epilogue epilogue;
  ASSERT_EQ(readEpilogue({stmts[2], stmts[3]}, stmts[0]->target, epilogue), "");
  ExprPtr value = epilogueValue(epilogue, stmts[0]->target, Expr::read(Access{"acc", {}}));
  EXPECT_EQ(value->str(), "max((acc + b[j]), 0)");
}

TEST(EpilogueValue, ReadsOnlyItsOwnElement) {
  Kernel k = linearWith("      Y[i][j] = Y[i][j] + b[j];\n");
  std::vector<NodePtr> stmts = flattenSeq(k.body->body()->body());
  const Access& target = stmts[0]->target;
  Access neighbour{"Y", {Affine::var("i"), Affine(0)}};
  NodePtr reads = makeAssign(target, Expr::binary('+', Expr::read(target), Expr::read(neighbour)), false);
  Epilogue epilogue;
  EXPECT_EQ(readEpilogue({reads}, target, epilogue),
            "the statement `Y[i][j] = Y[i][j] + Y[i][0];` reads Y[i][0], an output element other than the "
            "Y[i][j] it follows: a tile holds only its own elements when it writes them back");
  NodePtr other = makeAssign(Access{"S", target.subscripts}, Expr::read(target), false);
  EXPECT_NE(readEpilogue({other}, target, epilogue).find("writes S[i][j], not the reduced Y[i][j]"), std::string::npos);
}

}  // namespace
}  // namespace cudaburg
