// The grammar's implicit-GEMM rule on wgmma: on an sm_90 GPU, a channels-last convolution of half
// operands is offered as warpgroups over swizzled gathers, ranked by the model among the first
// candidates at ResNet's 3x3 128@28 (N=32), each a recipe that applies; on an sm_80 GPU, or for
// float operands, none is.
#include <gtest/gtest.h>

#include "src/transform/recipe.hpp"
#include "tests/search/search_problem.hpp"

namespace cudaburg {
namespace {

bool wgmmaImplicitGemm(const Fragment& f) { return wgmmaOf(f.shape.idiom) && f.shape.gatherOps > 0; }

// The model's candidates for `problem` on `gpu`.
std::vector<Fragment> candidatesOn(const std::string& problem, const GpuModel& gpu) {
  testing::SearchProblem p = testing::parseSearchProblem(problem);
  LoopRules rules(p.kernel, p.space, gpu);
  generated::LoopsMatcher matcher(&rules);
  EXPECT_TRUE(matcher.label(p.kernel.body.get()));
  std::vector<Fragment> all;
  const Node* root = p.kernel.body.get();
  for (int rank = 0; rank < matcher.count(root, generated::LoopsMatcher::kernel_NT); ++rank)
    all.push_back(matcher.value(root, generated::LoopsMatcher::kernel_NT, rank));
  return all;
}

const char* kResnet128 = "resnet examples/conv2d_nhwc_half.loop -D N=32 -D C=128 -D K=128 -D H=28 -D W=28";

TEST(WgmmaConvRule, OfferedAmongTheFirstDozenAtResnetsThreeByThree) {
  testing::SearchProblem p = testing::parseSearchProblem(kResnet128);
  std::vector<Fragment> all = candidatesOn(kResnet128, GpuModel{});
  int first = -1, offered = 0;
  for (size_t i = 0; i < all.size(); ++i) {
    if (!wgmmaImplicitGemm(all[i])) continue;
    if (first < 0) first = static_cast<int>(i);
    ++offered;
    std::string line = printRecipeLine(all[i].recipe(p.kernel));
    EXPECT_NE(line.find("stage In at r_s_c_o transposed swizzle; stage Wt at r_s_c_o transposed swizzle"), std::string::npos)
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

TEST(WgmmaConvRule, NotOfferedOffSm90OrForFloatOperands) {
  GpuModel ampere;
  ampere.target = GpuTarget::forArchitecture("sm_80");
  for (const Fragment& f : candidatesOn(kResnet128, ampere)) EXPECT_FALSE(wgmmaImplicitGemm(f));
  for (const Fragment& f :
       candidatesOn("float examples/conv2d_nhwc.loop -D N=4 -D C=64 -D K=64 -D H=14 -D W=14", GpuModel{}))
    EXPECT_FALSE(wgmmaImplicitGemm(f));
}

}  // namespace
}  // namespace cudaburg
