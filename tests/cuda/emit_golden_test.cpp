// Golden tests: the emitted text of a few kernels is pinned in tests/cuda/golden/<name>.cu.
// After a deliberate change to the emitter, regenerate them with UPDATE_GOLDEN=1 and review the diff.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>

#include "src/cuda/emitter.hpp"
#include "tests/cuda/emit_test_kernels.hpp"

namespace cudaburg {
namespace {

using namespace testing;

struct GoldenCase {
  const char* name;
  std::function<EmitResult()> emit;
};

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
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
  };
}

class EmitGolden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(EmitGolden, MatchesPinnedText) {
  EmitResult r = GetParam().emit();
  ASSERT_TRUE(r.ok()) << r.refusal;
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
