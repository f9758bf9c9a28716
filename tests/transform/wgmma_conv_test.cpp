// The wgmma step on an implicit GEMM: a channels-last convolution's pixels and filters gathered a
// strip of r*s*c at a time into swizzled rows of the reduction (both K-major), its warpgroups'
// tiles on wgmma. The CPU executor runs the tiles as the loops they are: the transformed kernel
// computes the convolution, at even and uneven sizes, with padding, a stride, 1x1 taps and
// channels that leave the last strip partial (the gathers hold zeros past the reduction's end).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "common/source.hpp"
#include "src/exec/compare.hpp"
#include "src/exec/executor.hpp"
#include "src/loop/printer.hpp"
#include "src/loop/tree_walk.hpp"
#include "src/transform/recipe.hpp"
#include "tests/transform/test_kernels.hpp"

namespace cudaburg {
namespace {

// examples/conv2d_nhwc_half.loop at `sizes`, its operands of `type` (half or bfloat16).
Kernel nhwcConvolution(const std::map<std::string, int64_t>& sizes, const std::string& type = "half") {
  auto file = common::SourceFile::read(std::string(CUDABURG_EXAMPLES_DIR) + "/conv2d_nhwc_half.loop");
  if (!file) throw std::runtime_error(file.reason());
  std::string text = file->text();
  for (const char* array : {"half In[", "half Wt["}) text.replace(text.find(array), 4, type);
  return testing::kernelFromText(text, sizes);
}

TransformResult applyText(const Kernel& k, const std::string& text) {
  std::string errors;
  auto recipe = testing::recipeFromText(text, &errors);
  return recipe ? applyRecipe(k, *recipe) : TransformResult::refuse(errors);
}

// Pixels by filters on a block tile of `tile`, a warpgroup a register tile of `group`, over strips
// of 64 of r*s*c gathered as `stages` says, 4 buffers a stage.
std::string gathered(const std::string& tile, const std::string& group,
                     const std::string& stages =
                         "stage In at r_s_c_o transposed swizzle; "
                         "stage Wt at r_s_c_o transposed swizzle; ") {
  return "collapse r,s,c; collapse n,oh,ow; tile n_oh_ow,k " + tile +
         "; map n_oh_ow_o grid.y; map k_o grid.x; "
         "map n_oh_ow block.y; map k block.x; regtile n_oh_ow,k " +
         group + "; strip r_s_c 64; " + stages + "map r_s_c_o async 4; unroll r_s_c 64; ";
}

TEST(WgmmaConvolution, WarpgroupTilesComputeTheConvolution) {
  struct Case {
    std::map<std::string, int64_t> sizes;
    std::string tile, group, shape, type;
  };
  // 64 channels: whole strips, 2 x 6 x 5 = 60 pixels (a partial tile); 32 channels of 3x3 taps:
  // 288 = 4.5 strips; padding 2 with 4x4 taps; stride 2; 1x1 taps; 3 channels (one partial strip);
  // bfloat16, two 64-row tiles a warpgroup.
  for (const Case& c :
       {Case{{{"N", 2}, {"C", 64}, {"H", 6}, {"W", 5}, {"K", 64}}, "128,64", "64,64", "64,64,16", "half"},
        Case{{{"N", 2}, {"C", 32}, {"H", 7}, {"W", 6}, {"K", 128}}, "64,128", "64,128", "64,128,16", "half"},
        Case{{{"N", 1}, {"C", 16}, {"H", 6}, {"W", 7}, {"K", 64}, {"R", 4}, {"S", 4}, {"P", 2}},
             "64,64",
             "64,64",
             "64,64,16",
             "half"},
        Case{{{"N", 2}, {"C", 64}, {"H", 9}, {"W", 8}, {"K", 64}, {"ST", 2}}, "64,64", "64,64", "64,64,16", "half"},
        Case{{{"N", 2}, {"C", 128}, {"H", 5}, {"W", 5}, {"K", 192}, {"R", 1}, {"S", 1}, {"P", 0}},
             "64,192",
             "64,192",
             "64,192,16",
             "half"},
        Case{{{"N", 2}, {"C", 3}, {"H", 6}, {"W", 6}, {"K", 64}}, "64,64", "64,64", "64,64,16", "half"},
        Case{{{"N", 2}, {"C", 64}, {"H", 9}, {"W", 9}, {"K", 64}}, "128,64", "128,64", "64,64,16", "bfloat16"}}) {
    SCOPED_TRACE("C = " + std::to_string(c.sizes.at("C")) + ", K = " + std::to_string(c.sizes.at("K")) + ", " + c.type);
    Kernel k = nhwcConvolution(c.sizes, c.type);
    std::string registers = gathered(c.tile, c.group);
    TransformResult groups = applyText(k, registers + "wgmma n_oh_ow,k,r_s_c " + c.shape);
    ASSERT_TRUE(groups.ok()) << groups.reason;
    EXPECT_TRUE(groups.kernel->warpGroupTiles());
    // Both gathers are rows of the reduction, 64 elements (128 bytes) each, swizzled.
    std::string text = printKernel(*groups.kernel);
    EXPECT_NE(text.find("In_s[n_oh_ow - n_oh_ow_o][r_s_c - r_s_c_o]"), std::string::npos) << text;
    EXPECT_NE(text.find("Wt_s[k - k_o][r_s_c - r_s_c_o]"), std::string::npos) << text;
    Buffers in = fillRandom(k, 11);
    Buffers expected = in, actual = in;
    execute(k, expected);
    execute(*groups.kernel, actual);
    Comparison cmp = compare(k, expected, actual, reductionTolerance(k));
    EXPECT_TRUE(cmp.ok) << cmp.firstMismatch;
    EXPECT_EQ(testing::differenceFrom(k, *groups.kernel), "");
  }
}

// Past the reduction's end (32 channels of 3x3 taps: 288, the last strip half full) the derived
// tap is r = 3, outside the filters but not always outside the image: output row 3 would read
// image row 5 there, which none of its own taps reads. The gathers hold zeros past the end, so
// that whole k steps add nothing: an infinity in row 5 leaves row 3 finite (0 * inf is NaN).
TEST(WgmmaConvolution, GathersHoldZerosPastTheReductionsEnd) {
  Kernel k = nhwcConvolution({{"N", 1}, {"C", 32}, {"H", 8}, {"W", 8}, {"K", 64}});
  TransformResult groups = applyText(k, gathered("64,64", "64,64") + "wgmma n_oh_ow,k,r_s_c 64,64,16");
  ASSERT_TRUE(groups.ok()) << groups.reason;
  Buffers in = fillRandom(k, 4);
  for (int64_t w = 0; w < 8; ++w)
    for (int64_t c = 0; c < 32; ++c) in.data["In"][(5 * 8 + w) * 32 + c] = std::numeric_limits<double>::infinity();
  Buffers expected = in, actual = in;
  execute(k, expected);
  execute(*groups.kernel, actual);
  for (int64_t ow = 0; ow < 8; ++ow)
    for (int64_t f = 0; f < 64; ++f) {
      const int64_t at = (3 * 8 + ow) * 64 + f;
      ASSERT_TRUE(std::isfinite(actual.data["Out"][at])) << "ow " << ow << ", k " << f;
      EXPECT_NEAR(actual.data["Out"][at], expected.data["Out"][at], 1e-3) << "ow " << ow << ", k " << f;
    }
}

TEST(WgmmaConvolution, RefusesWhatWgmmaCannotRead) {
  Kernel k = nhwcConvolution({{"N", 2}, {"C", 64}, {"H", 6}, {"W", 5}, {"K", 64}});
  auto refusal = [&](const std::string& text) {
    TransformResult r = applyText(k, text);
    return r.ok() ? std::string("applied") : r.reason;
  };
  // Padded rows (mma.sync's gathers) are no swizzle atoms.
  EXPECT_NE(refusal(gathered("64,64", "64,64",
                             "stage In at r_s_c_o transposed pad 8; stage Wt at r_s_c_o transposed pad 8; ") +
                    "wgmma n_oh_ow,k,r_s_c 64,64,16")
                .find("wgmma reads A from a shared buffer whose rows hold 64 elements"),
            std::string::npos);
  // The Tensor Memory Accelerator copies boxes.
  EXPECT_NE(refusal(gathered("64,64", "64,64") + "wgmma n_oh_ow,k,r_s_c 64,64,16 producer tma")
                .find("copies boxes, not gathers"),
            std::string::npos);
  // A swizzled gather goes in whole rows: no slabs.
  EXPECT_NE(refusal(gathered("64,64", "64,64", "stage In at r_s_c_o transposed swizzle slabs 32; ") +
                    "wgmma n_oh_ow,k,r_s_c 64,64,16")
                .find("a swizzled gather is stored in whole rows"),
            std::string::npos);
  // A producer warpgroup that copies by cp.async computes the same.
  TransformResult produced = applyText(k, gathered("64,64", "64,64") + "wgmma n_oh_ow,k,r_s_c 64,64,16 producer");
  ASSERT_TRUE(produced.ok()) << produced.reason;
  EXPECT_TRUE(produced.kernel->wgmmaProducer());
  EXPECT_FALSE(produced.kernel->wgmmaTma());
}

}  // namespace
}  // namespace cudaburg
