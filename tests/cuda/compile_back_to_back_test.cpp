// Two products back to back as one kernel (the b2b step) at the examples' own sizes (M = 4096,
// D = 1024, F = 256): the emitter writes both products, the first's epilogue (a bias, GELU) on
// the hidden values it keeps in shared memory and the second's on Y, and NVRTC compiles the
// kernel for sm_90 without local memory; the FP64 reference, a thread a row, compiles too.
#include <gtest/gtest.h>

#include "src/cuda/compile/compiler.hpp"
#include "tests/cuda/emitted_example.hpp"

namespace cudaburg {
namespace {

const std::map<std::string, int64_t> kOwnSizes;

CompileResult compiled(const CudaKernel& k) {
  CompileOptions options;
  options.arch = "sm_90";
  options.useCache = false;
  return compile(k, options);
}

TEST(CompileBackToBack, MlpKeepsTheHiddenRowsOnChip) {
  for (const char* recipe :
       {"b2b i,r 32,128 4,4 strip 16", "b2b i,r 16,128 2,4 strip 8", "b2b i,r 64,128 8,8 strip 16"}) {
    SCOPED_TRACE(recipe);
    auto k = testing::emittedKernel("mlp2.loop", kOwnSizes, recipe);
    ASSERT_TRUE(k);
    EXPECT_NE(k->source.find("Hs[(tr * "), std::string::npos) << k->source;
    EXPECT_NE(k->source.find("fmaxf("), std::string::npos) << k->source;  // relu on the hidden values
    CompileResult r = compiled(*k);
    ASSERT_TRUE(r.compiled) << r.errorLog;
    EXPECT_TRUE(r.ok) << r.reason;
    EXPECT_EQ(r.resources.stackFrameBytes, 0) << r.log;
    EXPECT_FALSE(r.resources.spills()) << r.log;
  }
}

TEST(CompileBackToBack, LaunchesABlockForEachBlockOfRows) {
  auto k = testing::emittedKernel("mlp2.loop", kOwnSizes, "b2b i,r 32,128 4,4 strip 16");
  ASSERT_TRUE(k);
  EXPECT_EQ(k->grid[0], 4096u / 32);
  EXPECT_EQ(k->threads(), 8u * 32);
  // 32 rows of 257 floats, a strip of X (16 x 33) and of W1 (16 x 256).
  EXPECT_EQ(k->dynamicSharedBytes, 4u * (32 * 257 + 16 * 33 + 16 * 256));
  EXPECT_TRUE(k->needsSharedMemoryAttribute);
}

TEST(CompileBackToBack, BiasAndGeluOnTheHiddenRows) {
  auto k = testing::emittedKernel("mlp2_bias_gelu.loop", kOwnSizes, "b2b i,r 32,128 4,4 strip 16");
  ASSERT_TRUE(k);
  for (const char* read : {"b1[gf]", "tanhf(", "b2[gc]"})
    EXPECT_NE(k->source.find(read), std::string::npos) << read << "\n" << k->source;
  CompileResult r = compiled(*k);
  ASSERT_TRUE(r.compiled) << r.errorLog;
  EXPECT_TRUE(r.ok) << r.reason;
  EXPECT_EQ(r.resources.stackFrameBytes, 0) << r.log;
  EXPECT_FALSE(r.resources.spills()) << r.log;
}

TEST(CompileBackToBack, ReferenceRunsARowAThread) {
  Kernel nests;
  testing::emittedKernel("mlp2_bias_gelu.loop", kOwnSizes, "b2b i,r 32,128 4,4 strip 16", &nests);
  EmitResult reference = emitReference(nests);
  ASSERT_TRUE(reference.ok()) << reference.reason;
  EXPECT_EQ(reference.kernel->grid[0] * reference.kernel->block[0], 4096u);
  EXPECT_EQ(reference.kernel->params, (std::vector<std::string>{"Y", "H", "X", "W1", "b1", "W2", "b2"}));
  CompileResult r = compiled(*reference.kernel);
  ASSERT_TRUE(r.compiled) << r.errorLog;
  EXPECT_TRUE(r.ok) << r.reason;
}

}  // namespace
}  // namespace cudaburg
