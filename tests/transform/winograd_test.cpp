// The winograd step: its syntax, the nests it refuses and why, and the CPU executor's Winograd
// arithmetic against the exact FP64 nest, with the relative errors it measures (docs/search.md).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "common/diagnostics.hpp"
#include "src/exec/executor.hpp"
#include "src/transform/recipe.hpp"
#include "src/transform/transforms.hpp"
#include "tests/transform/test_kernels.hpp"

namespace cudaburg {
namespace {

using testing::applied;
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

// ||out - exact|| / ||exact|| of the output array (2-norms): `kernel` run as it is against the
// nest computed in FP64 on the same random inputs.
double relativeError(const Kernel& original, const Kernel& kernel, uint64_t seed) {
  Kernel exact = original;
  for (Array& a : exact.params) a.type = ScalarType::Double;
  Buffers inputs = fillRandom(original, seed);
  Buffers ref = inputs, out = inputs;
  execute(exact, ref);
  execute(kernel, out);
  double diff = 0, norm = 0;
  for (const Array& a : original.params) {
    if (a.input) continue;
    const auto& o = out.data.at(a.name);
    const auto& r = ref.data.at(a.name);
    for (size_t i = 0; i < o.size(); ++i) diff += (o[i] - r[i]) * (o[i] - r[i]), norm += r[i] * r[i];
  }
  return std::sqrt(diff / norm);
}

TEST(WinogradStep, PrintsEveryParameterAndParsesBack) {
  auto r = recipeFromText("winograd oh,ow 4");
  ASSERT_TRUE(r);
  EXPECT_EQ(printRecipeLine(*r), "winograd oh,ow 4 block 32,32,8 thread 8,8,1");
  auto full = recipeFromText("winograd oh,ow 2 block 64,32,4 thread 8,4,2 prefetch");
  ASSERT_TRUE(full);
  EXPECT_EQ(printRecipeLine(*full), "winograd oh,ow 2 block 64,32,4 thread 8,4,2 prefetch");
  EXPECT_EQ(recipeFromText(printRecipe(*full)), full);
  std::string errors;
  EXPECT_FALSE(recipeFromText("winograd oh,ow 2 block 64,32", &errors));
  EXPECT_NE(errors.find("1:24: error: `block` takes the block's tiles, filters and channels, not 2 values"),
            std::string::npos)
      << errors;
  EXPECT_FALSE(recipeFromText("winograd oh,ow", &errors));
  EXPECT_NE(errors.find("the output tile's side"), std::string::npos) << errors;
}

TEST(WinogradStep, RefusesWhatIsNoThreeByThreeStrideOneConvolution) {
  std::map<std::string, int64_t> small = {{"N", 1}, {"C", 4}, {"K", 4}, {"H", 6}, {"W", 6}};
  Kernel conv = example("conv2d", small);
  EXPECT_TRUE(withRecipe(conv, "winograd oh,ow 2").ok()) << withRecipe(conv, "winograd oh,ow 2").reason;
  auto sized = [&](std::map<std::string, int64_t> more) {
    for (const auto& [k, v] : small) more.emplace(k, v);
    return example("conv2d", more);
  };
  expectRefusal(withRecipe(sized({{"ST", 2}}), "winograd oh,ow 2"), "the stride is 2x2, not 1");
  expectRefusal(withRecipe(sized({{"R", 1}, {"S", 1}, {"P", 0}}), "winograd oh,ow 2"), "the filters are 1x1, not 3x3");
  expectRefusal(withRecipe(sized({{"R", 5}, {"S", 5}, {"P", 2}}), "winograd oh,ow 4"), "the filters are 5x5");
  expectRefusal(withRecipe(example("conv2d_dilated", {}), "winograd oh,ow 2"), "dilation");
  expectRefusal(withRecipe(example("conv3d_ncdhw", {{"D", 4}, {"H", 4}, {"W", 4}}), "winograd oh,ow 2"), "3-D");
  expectRefusal(withRecipe(example("matmul", {{"M", 8}, {"N", 8}, {"K", 8}}), "winograd i,j 2"), "not a convolution");
  expectRefusal(withRecipe(conv, "winograd ow,oh 2"), "rows and columns are the loops oh,ow");
  expectRefusal(withRecipe(conv, "winograd oh,ow 3"), "2x2 or 4x4");
  expectRefusal(withRecipe(conv, "winograd oh,ow 2 thread 8,8,5"), "points do not divide");
  expectRefusal(withRecipe(conv, "winograd oh,ow 4 block 64,64,16 thread 8,8,4"), "shared memory");
  expectRefusal(withRecipe(conv, "tile oh,ow 2,2; winograd oh,ow 2"), "as written");
  expectRefusal(withRecipe(conv, "winograd oh,ow 2; strip c 2"), "no step may follow");
}

struct Case {
  const char* example;
  int64_t m;
  std::map<std::string, int64_t> sizes;
};

// The Winograd arithmetic is the convolution: within the documented bound of the FP64 nest, on
// both layouts, with partial tiles at the image's edges, and padding or none.
TEST(WinogradExecutor, ComputesTheConvolution) {
  const Case cases[] = {
      {"conv2d", 2, {{"N", 2}, {"C", 3}, {"K", 5}, {"H", 7}, {"W", 9}}},
      {"conv2d", 4, {{"N", 2}, {"C", 3}, {"K", 5}, {"H", 7}, {"W", 9}}},
      {"conv2d", 4, {{"N", 1}, {"C", 2}, {"K", 3}, {"H", 11}, {"W", 6}, {"P", 0}}},
      {"conv2d_nhwc", 2, {{"N", 2}, {"C", 3}, {"K", 5}, {"H", 9}, {"W", 7}}},
      {"conv2d_nhwc", 4, {{"N", 2}, {"C", 6}, {"K", 4}, {"H", 5}, {"W", 10}}},
  };
  for (const Case& c : cases) {
    Kernel k = example(c.example, c.sizes);
    Kernel w = applied(withRecipe(k, "winograd oh,ow " + std::to_string(c.m)));
    double err = relativeError(k, w, 7);
    EXPECT_LT(err, w.winograd()->errorBound()) << c.example << " m " << c.m;
    EXPECT_GT(err, 0) << "rounded in fp32";
  }
  // A single-channel correlation without batch or channel loops: its one image, filter and input.
  Kernel k = example("correlate2d", {{"H", 11}, {"W", 14}, {"TH", 3}, {"TW", 3}});
  Kernel w = applied(withRecipe(k, "winograd y,x 4"));
  EXPECT_LT(relativeError(k, w, 5), w.winograd()->errorBound());
}

// The errors a ResNet layer's reduction shows (64 and 256 channels, random inputs in [-1, 1)):
// F(2x2) near the direct nest's, F(4x4) about ten times larger; printed for docs/search.md.
TEST(WinogradExecutor, MeasuresItsErrorAgainstTheExactNest) {
  for (int64_t channels : {64, 256}) {
    Kernel k = example("conv2d", {{"N", 1}, {"C", channels}, {"K", 8}, {"H", 12}, {"W", 12}});
    double direct = relativeError(k, k, 3);
    double two = relativeError(k, applied(withRecipe(k, "winograd oh,ow 2")), 3);
    double four = relativeError(k, applied(withRecipe(k, "winograd oh,ow 4")), 3);
    std::printf("C=%lld: direct %.2e, F(2x2,3x3) %.2e, F(4x4,3x3) %.2e\n", static_cast<long long>(channels), direct,
                two, four);
    EXPECT_LT(two, WinogradTiling{2}.errorBound());
    EXPECT_LT(four, WinogradTiling{4}.errorBound());
    EXPECT_GT(four, two) << "F(4x4)'s larger constants lose more digits";
  }
}

}  // namespace
}  // namespace cudaburg
