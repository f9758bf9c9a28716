// The b2b step (two products back to back in one kernel): its text read and printed back, the
// bodies and tiles it refuses with the sentence saying why, the CPU executor's run of the fused
// kernel block by block against the nests as written, and the FP64 reference's form, a thread a
// row, against the nests too.
#include <gtest/gtest.h>

#include "src/exec/executor.hpp"
#include "src/idioms/back_to_back/back_to_back_pair.hpp"
#include "src/transform/recipe.hpp"
#include "src/transform/transforms.hpp"
#include "tests/transform/test_kernels.hpp"

namespace cudaburg {
namespace {

using testing::applied;
using testing::differenceFrom;
using testing::kernelFromText;
using testing::recipeFromText;

Kernel example(const std::string& name, const std::map<std::string, int64_t>& sizes) {
  auto file = common::SourceFile::read(std::string(CUDABURG_EXAMPLES_DIR) + "/" + name + ".loop");
  if (!file) throw std::runtime_error(file.reason());
  return kernelFromText(file->text(), sizes);
}

TransformResult withRecipe(const Kernel& k, const std::string& text) {
  auto recipe = recipeFromText(text);
  if (!recipe) throw std::runtime_error("recipe does not parse: " + text);
  return applyRecipe(k, *recipe);
}

void expectRefusal(const TransformResult& r, const std::string& words) {
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.reason.find(words), std::string::npos) << r.reason;
}

const std::map<std::string, int64_t> kSmall = {{"M", 64}, {"D", 32}, {"F", 32}};

// Two products in a row whose second product's left operand is `left` (H[r][e] makes a pair).
Kernel twoProducts(const std::string& left) {
  return kernelFromText(R"(size M = 64, D = 32, F = 32;
kernel two(float Y[M][D], float H[M][F], const float X[M][D], const float W1[D][F], const float W2[F][D]) {
  parallel for (i = 0; i < M; i++)
    parallel for (f = 0; f < F; f++) {
      H[i][f] = 0;
      reduce for (d = 0; d < D; d++)
        H[i][f] += X[i][d] * W1[d][f];
    }
  parallel for (r = 0; r < M; r++)
    parallel for (c = 0; c < D; c++) {
      Y[r][c] = 0;
      reduce for (e = 0; e < F; e++)
        Y[r][c] += )" + left +
                        R"( * W2[e][c];
    }
}
)");
}

TEST(BackToBackStep, PrintsEveryParameterAndParsesBack) {
  auto r = recipeFromText("b2b i,r 32,128 4,4 strip 16");
  ASSERT_TRUE(r);
  EXPECT_EQ(printRecipeLine(*r), "b2b i,r 32,128 4,4 strip 16");
  EXPECT_EQ(recipeFromText(printRecipe(*r)), r);
  ASSERT_EQ(r->steps.size(), 1u);
  EXPECT_EQ(r->steps[0].idiom, TileIdiom(BackToBackTile{32, 128, 4, 4, 16}));
  std::string errors;
  EXPECT_FALSE(recipeFromText("b2b i,r 32,128 4,4", &errors));
  EXPECT_NE(errors.find("expected `strip` and the reductions' strip depth"), std::string::npos) << errors;
  EXPECT_FALSE(recipeFromText("b2b i 32,128 4,4 strip 8", &errors));
  EXPECT_NE(errors.find("b2b takes the two products' row loops, I,R, not 1 loops"), std::string::npos) << errors;
}

TEST(BackToBackStep, RecognizesTheMlpAndItsHiddenWidth) {
  std::string why;
  auto pair = recognizeBackToBack(example("mlp2_bias_gelu", kSmall), why);
  ASSERT_TRUE(pair) << why;
  EXPECT_EQ(pair->first.out, "H");
  EXPECT_EQ(pair->second.a, "H");
  EXPECT_EQ(pair->second.b, "W2");
  EXPECT_EQ(pair->first.row, "i");
  EXPECT_EQ(pair->second.row, "r");
  EXPECT_EQ(pair->rows, 64);
  EXPECT_EQ(pair->inner, 32);
  EXPECT_EQ(pair->hidden, 32);
  EXPECT_EQ(pair->cols, 32);
  EXPECT_FALSE(pair->first.nest.epilogue.statements.empty());
}

TEST(BackToBackStep, RefusesWhatIsNoPairInASentence) {
  const std::string tile = "b2b i,r 16,32 2,2 strip 8";
  expectRefusal(withRecipe(example("matmul", {{"M", 64}, {"N", 64}, {"K", 64}}), "b2b i,j 16,32 2,2 strip 8"),
                "the kernel's body is a single nest");
  expectRefusal(withRecipe(twoProducts("X[r][e]"), tile),
                "the second product's left operand is X, not H, which the first writes");
  expectRefusal(withRecipe(twoProducts("H[c][e]"), tile), "the second nest is no matrix product as written");
  expectRefusal(withRecipe(example("linear_gelu", {{"M", 64}, {"N", 32}, {"K", 32}}), "b2b i,j 16,32 2,2 strip 8"),
                "the kernel's body is a single nest");
  expectRefusal(withRecipe(kernelFromText(R"(size M = 64, D = 32, F = 32;
kernel local(float Y[M][D], float H[M][F], const float X[M][D], const float W1[D][F], const float W2[F][D]) {
  parallel for (i = 0; i < M; i++)
    parallel for (f = 0; f < F; f++) {
      float acc = 0;
      reduce for (d = 0; d < D; d++)
        acc += X[i][d] * W1[d][f];
      H[i][f] = max(acc, 0);
    }
  parallel for (r = 0; r < M; r++)
    parallel for (c = 0; c < D; c++) {
      Y[r][c] = 0;
      reduce for (e = 0; e < F; e++)
        Y[r][c] += H[r][e] * W2[e][c];
    }
}
)"),
                           tile),
                "the first nest sums into the local `acc`: the b2b step takes products summed into their output array");
  expectRefusal(withRecipe(example("mlp2", {{"M", 64}, {"D", 32}, {"F", 512}}), tile),
                "the hidden width 512 is more than the 256 a block keeps on chip");
  expectRefusal(withRecipe(example("mlp2", kSmall), "b2b r,i 16,32 2,2 strip 8"),
                "the two products' rows are the loops i,r");
  expectRefusal(withRecipe(example("mlp2", {{"M", 40}, {"D", 32}, {"F", 32}}), tile),
                "the 40 rows are no multiple of the block's 16");
  expectRefusal(withRecipe(example("mlp2", kSmall), "b2b i,r 16,16 4,4 strip 8"),
                "a block of 16 threads is no whole number of warps up to 1024");
  expectRefusal(withRecipe(example("mlp2", {{"M", 64}, {"D", 32}, {"F", 256}}), "b2b i,r 64,16 8,4 strip 8"),
                "a thread would hold 8 x 64 hidden sums, more than 128");
  expectRefusal(withRecipe(example("mlp2", kSmall), "b2b i,r 16,32 2,2 strip 12"),
                "the strip of 12 does not divide both the first reduction's 32 and the hidden width 32");
  expectRefusal(withRecipe(example("mlp2", kSmall), "b2b i,r 16,32 2,2 strip 8; tile i,f 16,16"),
                "the b2b step computes the whole kernel: no step may follow it");
  expectRefusal(withRecipe(example("mlp2", kSmall), "tile i,f 16,16; b2b i,r 16,32 2,2 strip 8"),
                "the first nest is no matrix product as written");
  expectRefusal(withRecipe(example("mlp2", kSmall), "unroll d 2; b2b i,r 16,32 2,2 strip 8"),
                "b2b takes them as written, as its only step");
}

TEST(BackToBackStep, RunsBlockByBlockAsTheNestsDo) {
  for (const char* name : {"mlp2", "mlp2_bias_gelu"})
    for (const char* recipe :
         {"b2b i,r 16,32 2,2 strip 8", "b2b i,r 32,16 4,1 strip 16", "b2b i,r 64,32 8,1 strip 32"}) {
      SCOPED_TRACE(std::string(name) + ": " + recipe);
      Kernel nests = example(name, kSmall);
      Kernel fused = applied(withRecipe(nests, recipe));
      ASSERT_TRUE(fused.backToBack());
      EXPECT_EQ(differenceFrom(nests, fused), "");
    }
}

TEST(BackToBackStep, ReferenceRunsARowAThread) {
  for (const char* name : {"mlp2", "mlp2_bias_gelu"}) {
    SCOPED_TRACE(name);
    Kernel nests = example(name, kSmall);
    std::string why;
    auto pair = recognizeBackToBack(nests, why);
    ASSERT_TRUE(pair) << why;
    Kernel rows = backToBackRowNest(nests, *pair);
    ASSERT_EQ(rows.body->kind, NodeKind::For);
    EXPECT_EQ(rows.body->loopKind, LoopKind::Parallel);
    EXPECT_EQ(rows.body->index, "i");
    EXPECT_EQ(differenceFrom(nests, rows), "");
  }
}

}  // namespace
}  // namespace cudaburg
