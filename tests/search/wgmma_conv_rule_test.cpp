// The grammar's implicit-GEMM rule on wgmma: on an sm_90 GPU, a channels-last convolution of half
// operands is offered as warpgroups over swizzled gathers, ranked by the model among the first
// candidates at ResNet's 3x3 128@28 (N=32), each a recipe that applies; on an sm_80 GPU, or for
// float operands, none is. The same for the all-half layer, whose candidates also run on the CPU
// executor.
#include <gtest/gtest.h>

#include "src/exec/compare.hpp"
#include "src/exec/executor.hpp"
#include "src/idioms/epilogue/local_accumulator.hpp"
#include "src/transform/recipe.hpp"
#include "tests/search/search_problem.hpp"

namespace cudaburg {
namespace {

bool wgmmaImplicitGemm(const Fragment& f) { return wgmmaOf(f.shape.idiom) && f.shape.gatherOps > 0; }

// The model's candidates for `kernel` on `gpu`.
std::vector<Fragment> candidatesOn(const Kernel& kernel, const GpuModel& gpu) {
  LoopRules rules(kernel, SearchSpace{}, gpu);
  generated::LoopsMatcher matcher(&rules);
  EXPECT_TRUE(matcher.label(kernel.body.get()));
  std::vector<Fragment> all;
  const Node* root = kernel.body.get();
  for (int rank = 0; rank < matcher.count(root, generated::LoopsMatcher::kernel_NT); ++rank)
    all.push_back(matcher.value(root, generated::LoopsMatcher::kernel_NT, rank));
  return all;
}

const char* kResnet128 = "resnet examples/conv2d_nhwc_half.loop -D N=32 -D C=128 -D K=128 -D H=28 -D W=28";

TEST(WgmmaConvRule, OfferedAmongTheFirstDozenAtResnetsThreeByThree) {
  testing::SearchProblem p = testing::parseSearchProblem(kResnet128);
  std::vector<Fragment> all = candidatesOn(p.kernel, GpuModel{});
  int first = -1, offered = 0;
  for (size_t i = 0; i < all.size(); ++i) {
    if (!wgmmaImplicitGemm(all[i])) continue;
    if (first < 0) first = static_cast<int>(i);
    ++offered;
    std::string line = printRecipeLine(all[i].recipe(p.kernel));
    EXPECT_NE(line.find("stage In at r_s_c_o transposed swizzle; stage Wt at r_s_c_o transposed swizzle"),
              std::string::npos)
        << line;
    EXPECT_NE(line.find(",k,r_s_c 64,"), std::string::npos) << line;  // pixels (n,oh,ow or oh,ow) by filters
    EXPECT_EQ(line.find("producer tma"), std::string::npos) << line;
    if (offered <= 16) {  // the best ranked apply (each application executes nothing: cheap)
      TransformResult r = applyRecipe(p.kernel, Recipe{all[i].steps()});
      EXPECT_TRUE(r.ok()) << line << ": " << r.reason;
    }
  }
  EXPECT_GT(offered, 4);
  EXPECT_GE(first, 0);
  EXPECT_LT(first, 12) << "the first wgmma implicit GEMM is candidate " << first;
}

// The all-half layer (examples/conv2d_nhwc_fp16.loop: a half output stored from a float local
// accumulator, as cuDNN writes it) is offered the same warpgroups, labeled as the tile's
// accumulator and applied to the nest as written: at ResNet's 3x3 128@28 and at the 1x1 64->256@56
// whose reduction is one strip of 64 channels.
TEST(WgmmaConvRule, OfferedForTheHalfOutputLayerThreeByThreeAndOneByOne) {
  for (const char* problem :
       {"fp16 examples/conv2d_nhwc_fp16.loop -D N=32 -D C=128 -D K=128 -D H=28 -D W=28",
        "fp16 examples/conv2d_nhwc_fp16.loop -D N=32 -D C=64 -D K=256 -D H=56 -D W=56 -D R=1 -D S=1 -D P=0"}) {
    SCOPED_TRACE(problem);
    testing::SearchProblem p = testing::parseSearchProblem(problem);
    std::vector<Fragment> all = candidatesOn(withLocalAccumulators(p.kernel), GpuModel{});
    int first = -1, offered = 0;
    for (size_t i = 0; i < all.size(); ++i) {
      if (!wgmmaImplicitGemm(all[i])) continue;
      if (first < 0) first = static_cast<int>(i);
      if (++offered > 16) continue;
      std::string line = printRecipeLine(all[i].recipe(p.kernel));
      TransformResult r = applyRecipe(p.kernel, Recipe{all[i].steps()});
      EXPECT_TRUE(r.ok()) << line << ": " << r.reason;
    }
    EXPECT_GT(offered, 4);
    ASSERT_GE(first, 0);
    EXPECT_LT(first, 12) << "the first wgmma implicit GEMM is candidate " << first;
    // The 1x1 layer's one strip takes two buffers, no group of wgmma in flight across strips.
    std::string best = printRecipeLine(all[first].recipe(p.kernel));
    bool oneStrip = std::string(problem).find("R=1") != std::string::npos;
    EXPECT_EQ(best.find("map r_s_c_o async 2;") != std::string::npos, oneStrip) << best;
    EXPECT_EQ(best.find(",16 wait 0") != std::string::npos, oneStrip) << best;
  }
}

// Small all-half layers (3x3 with padding, a partial last tile of pixels; 1x1 of one strip): the
// best ranked wgmma candidates, run on the CPU executor, compute what the nest as written does.
TEST(WgmmaConvRule, HalfOutputCandidatesComputeTheNest) {
  for (const char* problem : {"fp16 examples/conv2d_nhwc_fp16.loop -D N=2 -D C=64 -D K=64 -D H=6 -D W=7",
                              "fp16 examples/conv2d_nhwc_fp16.loop -D N=2 -D C=64 -D K=128 -D H=8 -D W=8 -D R=1 "
                              "-D S=1 -D P=0"}) {
    SCOPED_TRACE(problem);
    testing::SearchProblem p = testing::parseSearchProblem(problem);
    int checked = 0;
    for (const Fragment& f : candidatesOn(withLocalAccumulators(p.kernel), GpuModel{})) {
      if (!wgmmaImplicitGemm(f)) continue;
      std::string line = printRecipeLine(f.recipe(p.kernel));
      TransformResult r = applyRecipe(p.kernel, Recipe{f.steps()});
      ASSERT_TRUE(r.ok()) << line << ": " << r.reason;
      Buffers expected = fillRandom(p.kernel, 11);
      Buffers actual = expected;
      execute(p.kernel, expected);
      execute(*r.kernel, actual);
      Comparison c = compare(p.kernel, expected, actual, reductionTolerance(p.kernel));
      EXPECT_TRUE(c.ok) << line << ": " << c.firstMismatch;
      if (++checked == 3) break;
    }
    EXPECT_EQ(checked, 3);
  }
}

TEST(WgmmaConvRule, NotOfferedOffSm90OrForFloatOperands) {
  GpuModel ampere;
  ampere.target = GpuTarget::forArchitecture("sm_80");
  for (const Fragment& f : candidatesOn(testing::parseSearchProblem(kResnet128).kernel, ampere))
    EXPECT_FALSE(wgmmaImplicitGemm(f));
  const char* floats = "float examples/conv2d_nhwc.loop -D N=4 -D C=64 -D K=64 -D H=14 -D W=14";
  for (const Fragment& f : candidatesOn(testing::parseSearchProblem(floats).kernel, GpuModel{}))
    EXPECT_FALSE(wgmmaImplicitGemm(f));
}

}  // namespace
}  // namespace cudaburg
