// The fused Winograd kernel as the emitter writes it: its launch, its shared memory, the passes
// its outputs take, the tolerance it is verified with, and what it refuses. (The kernels compile
// for sm_90 in compile_recipes_test.cpp; they run on a GPU in bench/cases/conv-winograd.txt.)
#include <gtest/gtest.h>

#include "common/diagnostics.hpp"
#include "src/cuda/emit/emitter.hpp"
#include "src/loop/parser.hpp"
#include "src/transform/transforms.hpp"

namespace cudaburg {
namespace {

Kernel conv(const std::string& example, const std::map<std::string, int64_t>& sizes) {
  auto file = common::SourceFile::read(std::string(CUDABURG_EXAMPLES_DIR) + "/" + example + ".loop");
  if (!file) throw std::runtime_error(file.reason());
  common::Diagnostics diags(*file);
  auto kernel = parseLoopFile(*file, diags, sizes);
  if (!kernel) throw std::runtime_error(diags.str());
  return *kernel;
}

Kernel winograd(const Kernel& k, const WinogradTiling& t) {
  TransformResult r = winogradConvolution(k, {"oh", "ow"}, t);
  if (!r.ok()) throw std::runtime_error(r.reason);
  return *r.kernel;
}

TEST(EmitWinograd, LaunchesABlockPerTilesAndFilters) {
  // ResNet's 64@56: 32 x 28 x 28 tiles of 2x2, 32 a block; 64 filters, 32 a block.
  Kernel k = conv("conv2d", {{"C", 64}, {"K", 64}, {"H", 56}, {"W", 56}});
  WinogradTiling t;
  EmitResult e = emitKernel(winograd(k, t));
  ASSERT_TRUE(e.ok()) << e.reason;
  EXPECT_EQ(e.kernel->grid, (std::array<unsigned, 3>{784, 2, 1}));
  EXPECT_EQ(e.kernel->block, (std::array<unsigned, 3>{256, 1, 1}));
  EXPECT_EQ(e.kernel->dynamicSharedBytes, size_t(2 * t.stripFloats() * 4));
  EXPECT_TRUE(e.kernel->needsSharedMemoryAttribute);
  EXPECT_EQ(e.kernel->minTolerance, t.errorBound());
  EXPECT_EQ(e.kernel->params, (std::vector<std::string>{"Out", "In", "Wt"}));
  // The GEMMs read their operands 4 at a time; the 2x2 outputs leave in one pass.
  EXPECT_NE(e.kernel->source.find("reinterpret_cast<const float4*>"), std::string::npos);
  EXPECT_NE(e.kernel->source.find("1 pass over a thread's filters, 8 at a time"), std::string::npos);
  EXPECT_EQ(e.kernel->source.find("if (more)\n  {  // read strip"), std::string::npos) << "not prefetched";
  // 116 registers a thread by the estimate: two blocks a multiprocessor would leave it 128, less
  // than the margin past the estimate ptxas may take, so none is promised.
  EXPECT_NE(e.kernel->source.find("__launch_bounds__(256, 1)"), std::string::npos);
  t.prefetch = true;
  EmitResult prefetched = emitKernel(winograd(k, t));
  ASSERT_TRUE(prefetched.ok()) << prefetched.reason;
  EXPECT_NE(prefetched.kernel->source.find("if (more)\n  {  // read strip"), std::string::npos);
  EXPECT_NE(prefetched.kernel->source.find("__launch_bounds__(256, 1)"), std::string::npos);
  // 16 tiles by 32 filters, 4 x 8 a thread: 80 registers, two blocks of 256 threads promised.
  WinogradTiling small;
  small.tiles = 16, small.threadTiles = 4;
  EmitResult two = emitKernel(winograd(k, small));
  ASSERT_TRUE(two.ok()) << two.reason;
  EXPECT_NE(two.kernel->source.find("__launch_bounds__(256, 2)"), std::string::npos)
      << two.kernel->source.substr(0, 600);
}

TEST(EmitWinograd, PassesOverTheFiltersWhereTheAccumulatorsDoNotFit) {
  Kernel k = conv("conv2d_nhwc", {{"N", 2}, {"C", 9}, {"K", 20}, {"H", 8}, {"W", 7}});
  WinogradTiling t{4, 16, 32, 4, 4, 8, 2, false};
  EmitResult e = emitKernel(winograd(k, t));
  ASSERT_TRUE(e.ok()) << e.reason;
  EXPECT_NE(e.kernel->source.find("2 passes over a thread's filters, 4 at a time"), std::string::npos);
  EXPECT_EQ(e.kernel->block[0], 288u);  // 36 points / 2 x 4 x 4 register tiles
  // Nine warps: three share a partition's registers, 168 each; two blocks would leave 96.
  EXPECT_NE(e.kernel->source.find("__launch_bounds__(288, 1)"), std::string::npos);
}

TEST(EmitWinograd, ItsReferenceIsTheNestAsWritten) {
  Kernel k = conv("conv2d", {{"N", 1}, {"C", 4}, {"K", 4}, {"H", 6}, {"W", 6}});
  EmitResult ref = emitReference(winograd(k, WinogradTiling{}));
  ASSERT_TRUE(ref.ok()) << ref.reason;
  EXPECT_EQ(ref.kernel->source, emitReference(k).kernel->source);
}

TEST(EmitWinograd, RefusesOtherElementTypes) {
  Kernel k = conv("conv2d", {{"N", 1}, {"C", 4}, {"K", 4}, {"H", 6}, {"W", 6}});
  EmitOptions half;
  half.elementType = ScalarType::Half;
  EmitResult e = emitKernel(winograd(k, WinogradTiling{}), half);
  EXPECT_FALSE(e.ok());
  EXPECT_NE(e.reason.find("float only"), std::string::npos) << e.reason;
}

}  // namespace
}  // namespace cudaburg
