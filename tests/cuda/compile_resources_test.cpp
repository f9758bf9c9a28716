// ptxas's report read into KernelResources, and the launch limits that refuse a variant.
#include <gtest/gtest.h>

#include "src/cuda/compile/compiler.hpp"
#include "src/cuda/compile/cubin_text.hpp"
#include "tests/cuda/emit_test_kernels.hpp"

namespace cudaburg {
namespace {

using namespace testing;

// What NVRTC 13.0 wrote for two kernels compiled together with --ptxas-options=-v.
const char* kReport =
    "ptxas info    : 0 bytes gmem\n"
    "ptxas info    : Compiling entry function 'first' for 'sm_90'\n"
    "ptxas info    : Function properties for first\n"
    "ptxas         .     256 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads\n"
    "ptxas info    : Used 32 registers, used 1 barriers, 256 bytes cumulative stack size, 1024 bytes smem\n"
    "ptxas info    : Compile time = 48.015 ms\n"
    "ptxas info    : Compiling entry function 'second' for 'sm_90'\n"
    "ptxas info    : Function properties for second\n"
    "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 40 registers, used 0 barriers, 8192 bytes smem, 400 bytes cmem[0]\n";

TEST(CompileResources, ParsesEachEntryOfPtxasReport) {
  KernelResources first = parsePtxasReport(kReport, "first");
  ASSERT_TRUE(first.known);
  EXPECT_EQ(first.registers, 32);
  EXPECT_EQ(first.barriers, 1);
  EXPECT_EQ(first.stackFrameBytes, 256);
  EXPECT_EQ(first.spillStoreBytes, 8);
  EXPECT_EQ(first.spillLoadBytes, 12);
  EXPECT_EQ(first.sharedBytes, 1024);
  EXPECT_TRUE(first.spills());
  KernelResources second = parsePtxasReport(kReport, "second");
  ASSERT_TRUE(second.known);
  EXPECT_EQ(second.registers, 40);
  EXPECT_EQ(second.sharedBytes, 8192);
  EXPECT_EQ(second.constantBytes, 400);
  EXPECT_FALSE(second.spills());
  EXPECT_FALSE(parsePtxasReport(kReport, "third").known);
  EXPECT_FALSE(parsePtxasReport("", "first").known);
}

TEST(CompileResources, ReadsTheReportOfARealCompilation) {
  CompileOptions options;
  options.useCache = false;
  CudaKernel k = *emitKernel(tiledMatmul(128, 128, 64)).kernel;
  CompileResult r = compile(k, options);
  ASSERT_TRUE(r.ok) << r.reason << r.errorLog;
  EXPECT_NE(r.log.find("Compiling entry function 'matmul'"), std::string::npos) << r.log;
  EXPECT_EQ(r.resources.sharedBytes, 8192);  // As and Bs
  EXPECT_GE(r.resources.barriers, 1);
  EXPECT_GE(r.resources.registers, 16);  // 16 accumulators at least
  EXPECT_LE(r.resources.registers, 255);
}

TEST(CompileResources, CountsTheKernelsInstructionsInItsCubin) {
  CompileOptions options;
  options.useCache = false;
  CompileResult small = compile(*emitKernel(tiledMatmul(128, 128, 64)).kernel, options);
  ASSERT_TRUE(small.compiled) << small.errorLog;
  auto bytes = kernelTextBytes(small.cubin, "matmul");
  ASSERT_TRUE(bytes.has_value());
  EXPECT_EQ(*bytes % kSassInstructionBytes, 0);
  EXPECT_EQ(small.resources.instructions, *bytes / kSassInstructionBytes);
  EXPECT_GT(small.resources.instructions, 20);
  EXPECT_FALSE(kernelTextBytes(small.cubin, "matmu").has_value());  // a name's prefix is no name
  EXPECT_FALSE(kernelTextBytes(small.cubin, "other").has_value());
  for (size_t keep : {size_t(0), size_t(16), size_t(0x40), small.cubin.size() / 2}) {  // cut short: no answer, no crash
    std::vector<char> cut(small.cubin.begin(), small.cubin.begin() + static_cast<std::ptrdiff_t>(keep));
    auto partial = kernelTextBytes(cut, "matmul");
    if (partial) {
      EXPECT_EQ(*partial, *bytes);  // the section table may lie before the cut
    }
  }
  std::vector<char> notElf(small.cubin);
  notElf[1] = 'X';
  EXPECT_FALSE(kernelTextBytes(notElf, "matmul").has_value());
}

TEST(CompileResources, LaunchLimitsRefuseWithTheReason) {
  LaunchLimits sm90 = LaunchLimits::forArchitecture("sm_90");
  EXPECT_EQ(sm90.sharedBytesPerBlock, 227 * 1024);
  EXPECT_EQ(LaunchLimits::forArchitecture("sm_86").sharedBytesPerBlock, 99 * 1024);
  KernelResources r;
  r.known = true;
  r.registers = 128;
  EXPECT_EQ(launchRefusal(r, 512, 0, false, sm90), "");
  EXPECT_NE(launchRefusal(r, 1024, 0, false, sm90).find("registers a block"), std::string::npos);
  EXPECT_NE(launchRefusal(r, 2048, 0, false, sm90).find("threads a block"), std::string::npos);
  r.registers = 32;
  r.sharedBytes = 40 * 1024;
  EXPECT_NE(launchRefusal(r, 256, 200 * 1024, false, sm90).find("shared memory"), std::string::npos);
  r.spillStoreBytes = 4;
  EXPECT_NE(launchRefusal(r, 256, 0, false, sm90).find("spills"), std::string::npos);
  EXPECT_EQ(launchRefusal(r, 256, 0, true, sm90), "");
}

TEST(CompileResources, AHugeSharedArrayIsRefusedBeforeItRuns) {
  CompileOptions options;
  options.useCache = false;
  CudaKernel k = *emitKernel(sharedCopy(500)).kernel;  // 500 x 128 floats = 250 KB
  ASSERT_TRUE(k.needsSharedMemoryAttribute);
  CompileResult r = compile(k, options);
  EXPECT_TRUE(r.compiled) << r.errorLog;
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.reason.find("256000 bytes of shared memory"), std::string::npos) << r.reason;
}

TEST(CompileResources, SpillsAreRefusedUnlessAskedFor) {
  CompileOptions options;
  options.useCache = false;
  CudaKernel k = *emitKernel(registerHog(320)).kernel;  // 320 live values, at most 255 registers
  CompileResult r = compile(k, options);
  ASSERT_TRUE(r.compiled) << r.errorLog;
  ASSERT_TRUE(r.resources.spills()) << r.log;
  EXPECT_GT(r.resources.stackFrameBytes, 0);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.reason.find("spills"), std::string::npos);
  options.allowSpills = true;
  EXPECT_TRUE(compile(k, options).ok);
  // The same kernel with few enough values keeps them all in registers.
  options.allowSpills = false;
  CompileResult small = compile(*emitKernel(registerHog(32)).kernel, options);
  EXPECT_TRUE(small.ok) << small.reason;
  EXPECT_FALSE(small.resources.spills());
}

}  // namespace
}  // namespace cudaburg
