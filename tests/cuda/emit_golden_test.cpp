// Golden tests: the emitted text of a few kernels is pinned in tests/cuda/golden/<name>.cu.
// After a deliberate change to the emitter, regenerate them with UPDATE_GOLDEN=1 and review the diff.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>

#include "common/diagnostics.hpp"
#include "src/cuda/emit/emitter.hpp"
#include "src/loop/parser.hpp"
#include "src/transform/recipe.hpp"
#include "tests/cuda/emit_test_kernels.hpp"

namespace cudaburg {
namespace {

using namespace testing;

struct GoldenCase {
  const char* name;
  std::function<EmitResult()> emit;
};

void PrintTo(const GoldenCase& c, std::ostream* os) { *os << c.name; }

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// An example file at the given sizes, transformed by a recipe and emitted.
EmitResult emitExample(const std::string& example, const std::map<std::string, int64_t>& sizes,
                       const std::string& recipeText) {
  common::SourceFile recipeFile("recipe", recipeText);
  auto file = common::SourceFile::read(std::string(CUDABURG_EXAMPLES_DIR) + "/" + example + ".loop");
  if (!file) return {std::nullopt, file.reason()};
  common::Diagnostics diags(*file), recipeDiags(recipeFile);
  auto kernel = parseLoopFile(*file, diags, sizes);
  if (!kernel) return {std::nullopt, diags.str()};
  auto recipe = parseRecipe(recipeFile, recipeDiags);
  if (!recipe) return {std::nullopt, recipeDiags.str()};
  TransformResult transformed = applyRecipe(*kernel, *recipe);
  if (!transformed) return {std::nullopt, transformed.reason};
  EmitOptions options;
  options.recipe = printRecipe(*recipe);
  return emitKernel(*transformed.kernel, options);
}

std::vector<GoldenCase> goldenCases() {
  EmitOptions tiled;
  tiled.recipe = "tile i,j 64,64\nmap i_o grid.y\nmap j_o grid.x\nregtile i,j 4,4\nstage A,B at k_o";
  return {
      {"naive_matmul", [] { return emitKernel(naiveMatmul(100, 70, 33)); }},
      {"matmul_reference", [] { return emitReference(naiveMatmul(100, 70, 33)); }},
      {"tiled_matmul", [tiled] { return emitKernel(tiledMatmul(128, 128, 128), tiled); }},
      {"tiled_matmul_tails", [tiled] { return emitKernel(tiledMatmul(98, 120, 40), tiled); }},
      {"conv2d_padded", [] { return emitKernel(conv2d(30, 40)); }},
      {"sumsq_half_atomic", [] { return emitKernel(halfSumOfSquares(1000, 256)); }},
      {"shared_copy_dynamic", [] { return emitKernel(sharedCopy(128)); }},
      {"recipe_matmul_tiled",
       [] {
         return emitExample("matmul", {{"M", 100}, {"N", 72}, {"K", 33}},
                            "tile i,j 64,64\nmap i_o grid.y\nmap j_o grid.x\nmap i block.y\nmap j block.x\n"
                            "regtile i,j 4,4\nstrip k 16\nstage A at k_o\nstage B at k_o\nvectorize j 4");
       }},
      {"recipe_matmul_transposed_a",
       [] {
         return emitExample("matmul", {{"M", 100}, {"N", 72}, {"K", 33}},
                            "tile i,j 64,64\nmap i_o grid.y\nmap j_o grid.x\nmap i block.y\nmap j block.x\n"
                            "regtile i,j 4,4\nstrip k 16\nstage A at k_o transposed\nstage B at k_o\nvectorize j 4");
       }},
      {"recipe_matmul_transposed_a_wide",  // A read 4 elements at a time, stored a lane at a time
       [] {
         return emitExample("matmul", {{"M", 200}, {"N", 256}, {"K", 64}},
                            "tile i,j 128,128\nmap i_o grid.y\nmap j_o grid.x\nmap i block.y\nmap j block.x\n"
                            "regtile i,j 8,8\nstrip k 16\nstage A at k_o transposed\nstage B at k_o\nvectorize j 4");
       }},
      {"recipe_matmul_pipelined",  // two buffers a stage, the next strip through registers; tails
       [] {
         return emitExample("matmul", {{"M", 100}, {"N", 72}, {"K", 33}},
                            "tile i,j 64,64\nmap i_o grid.y\nmap j_o grid.x\nmap i block.y\nmap j block.x\n"
                            "regtile i,j 4,4\nstrip k 16\nstage A at k_o transposed\nstage B at k_o\n"
                            "map k_o pipelined\nunroll k 16\nvectorize j 4");
       }},
      {"recipe_matmul_async",  // three copies of each buffer filled by cp.async two strips ahead; tails
       [] {
         return emitExample("matmul", {{"M", 100}, {"N", 72}, {"K", 33}},
                            "tile i,j 64,64\nmap i_o grid.y\nmap j_o grid.x\nmap i block.y\nmap j block.x\n"
                            "regtile i,j 4,4\nstrip k 16\nstage A at k_o transposed\nstage B at k_o\n"
                            "map k_o async\nunroll k 16\nvectorize j 4");
       }},
      {"recipe_matmul_interleaved",  // B's rows interleaved: a thread's 8 columns as 2 pieces 32 apart
       [] {
         return emitExample("matmul", {{"M", 64}, {"N", 64}, {"K", 32}},
                            "tile i,j 32,64\nmap i_o grid.y\nmap j_o grid.x\nmap i block.y\nmap j block.x\n"
                            "regtile i,j 4,8\nstrip k 8\nstage A at k_o transposed\nstage B at k_o interleaved 8\n"
                            "vectorize j 4");
       }},
      {"recipe_conv2d_split_ow",
       [] {
         return emitExample("conv2d", {{"N", 2}, {"C", 3}, {"H", 20}, {"W", 21}, {"K", 4}},
                            "map n grid.z\nmap k grid.y\nstrip ow 32\ninterchange oh ow_o\nmap ow_o grid.x\n"
                            "map ow block.x\nstage Wt at ow_o");
       }},
      {"naive_conv2d_example",
       [] {
         return emitExample("conv2d", {{"N", 2}, {"C", 3}, {"H", 20}, {"W", 21}}, "");
       }},
  };
}

class EmitGolden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(EmitGolden, MatchesPinnedText) {
  EmitResult r = GetParam().emit();
  ASSERT_TRUE(r.ok()) << r.reason;
  std::string path = std::string(CUDABURG_GOLDEN_DIR) + "/" + GetParam().name + ".cu";
  const char* update = std::getenv("UPDATE_GOLDEN");
  if (update && std::string(update) == "1") {
    std::ofstream(path) << r.kernel->source;
    GTEST_SKIP() << "rewrote " << path;
  }
  std::string expected = readFile(path);
  ASSERT_FALSE(expected.empty()) << path << " is missing: run with UPDATE_GOLDEN=1 to create it";
  EXPECT_EQ(r.kernel->source, expected) << "the emitted text of " << GetParam().name
                                        << " changed; if on purpose, regenerate with UPDATE_GOLDEN=1";
}

INSTANTIATE_TEST_SUITE_P(Kernels, EmitGolden, ::testing::ValuesIn(goldenCases()),
                         [](const ::testing::TestParamInfo<GoldenCase>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace cudaburg
