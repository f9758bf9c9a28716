// Emitted kernels compile for sm_90 with NVRTC, without a GPU: the examples in their naive mapping
// and mapped trees of the shapes the transformations produce; parallel compilation agrees with
// serial compilation.
#include <gtest/gtest.h>

#include <filesystem>

#include "common/diagnostics.hpp"
#include "src/cuda/compile/compiler.hpp"
#include "src/loop/parser.hpp"
#include "tests/cuda/emit_test_kernels.hpp"

namespace cudaburg {
namespace {

using namespace testing;

CompileOptions uncached() {
  CompileOptions o;
  o.useCache = false;
  return o;
}

CudaKernel emitted(const Kernel& k, const EmitOptions& options = {}) {
  EmitResult r = emitKernel(k, options);
  EXPECT_TRUE(r.ok()) << r.reason;
  return r.ok() ? *r.kernel : CudaKernel{};
}

void expectCompiles(const CudaKernel& k, const CompileResult& r) {
  EXPECT_TRUE(r.compiled) << r.errorLog << "\n" << k.source;
  EXPECT_TRUE(r.ok) << r.reason << "\n" << k.source;
  EXPECT_GT(r.cubin.size(), 0u);
  EXPECT_TRUE(r.resources.known);
  EXPECT_GT(r.resources.registers, 0);
}

// Every example, at small sizes, in its naive mapping and as its FP64 reference.
TEST(Compile, EveryExampleCompilesForSm90) {
  std::vector<CudaKernel> kernels;
  for (const auto& entry : std::filesystem::directory_iterator(CUDABURG_EXAMPLES_DIR)) {
    if (entry.path().extension() != ".loop") continue;
    auto file = common::SourceFile::read(entry.path().string());
    ASSERT_TRUE(file) << file.reason();
    common::Diagnostics diags(*file);
    auto kernel = parseLoopFile(*file, diags);
    ASSERT_TRUE(kernel) << diags.str();
    // Small, uneven sizes (small ones, such as filter widths, stay as they are).
    std::map<std::string, int64_t> overrides;
    for (const auto& [name, value] : kernel->sizes)
      if (value > 16) overrides[name] = 13 + 2 * int64_t(overrides.size());
    common::Diagnostics smallDiags(*file);
    if (auto small = parseLoopFile(*file, smallDiags, overrides)) kernel = small;
    ASSERT_TRUE(kernel) << diags.str();
    kernels.push_back(emitted(*kernel));
    EmitResult reference = emitReference(*kernel);
    ASSERT_TRUE(reference.ok()) << reference.reason;
    kernels.push_back(*reference.kernel);
  }
  ASSERT_GT(kernels.size(), 0u);
  std::vector<CompileResult> results = compileAll(kernels, uncached());
  for (size_t i = 0; i < kernels.size(); ++i) expectCompiles(kernels[i], results[i]);
}

// Mapped trees: staging, barriers, register tiles, vectors, tails, padding, half, atomics,
// dynamic shared memory.
TEST(Compile, MappedKernelsCompileForSm90) {
  std::vector<CudaKernel> kernels = {
      emitted(tiledMatmul(128, 128, 128)),
      emitted(tiledMatmul(100, 126, 40, 8, Mapping::Vector)),
      emitted(conv2d(30, 40)),
      emitted(halfSumOfSquares(1000, 256)),
      emitted(sharedCopy(128)),
  };
  std::vector<CompileResult> results = compileAll(kernels, uncached());
  for (size_t i = 0; i < kernels.size(); ++i) expectCompiles(kernels[i], results[i]);
  // The 4x4 register tile leaves no local memory and no spills.
  EXPECT_EQ(results[0].resources.stackFrameBytes, 0);
  EXPECT_FALSE(results[0].resources.spills());
  EXPECT_EQ(results[0].resources.sharedBytes, int64_t(kernels[0].sharedBytes));
  EXPECT_EQ(results[4].resources.sharedBytes, 0);  // all of it dynamic
}

TEST(Compile, ParallelCompilationGivesTheSerialResults) {
  std::vector<CudaKernel> kernels = {emitted(naiveMatmul(33, 17, 9)), emitted(conv2d(12, 20)),
                                     emitted(tiledMatmul(64, 64, 32))};
  std::vector<CompileResult> serial;
  for (const auto& k : kernels) serial.push_back(compile(k, uncached()));
  ThreadPool pool(3);
  std::vector<CompileResult> parallel = compileAll(kernels, uncached(), &pool);
  // One more on its own, from a copy that outlives the caller's kernel.
  std::future<CompileResult> single;
  {
    CudaKernel copy = kernels[1];
    single = compileAsync(pool, copy, uncached());
  }
  EXPECT_EQ(single.get().cubin, serial[1].cubin);
  ASSERT_EQ(parallel.size(), serial.size());
  for (size_t i = 0; i < kernels.size(); ++i) {
    EXPECT_TRUE(serial[i].ok) << serial[i].reason;
    EXPECT_EQ(parallel[i].cubin, serial[i].cubin) << kernels[i].entry;
    EXPECT_EQ(parallel[i].resources.registers, serial[i].resources.registers);
    EXPECT_EQ(parallel[i].resources.sharedBytes, serial[i].resources.sharedBytes);
  }
}

TEST(Compile, PtxIsKeptWhenAsked) {
  CompileOptions options = uncached();
  options.keepPtx = true;
  CompileResult r = compile(emitted(naiveMatmul(16, 16, 16)), options);
  ASSERT_TRUE(r.ok) << r.reason;
  EXPECT_NE(r.ptx.find(".entry matmul"), std::string::npos);
  EXPECT_NE(r.ptx.find(".target sm_90"), std::string::npos);
  EXPECT_GT(r.cubin.size(), 0u);
}

TEST(Compile, ErrorsComeBackWithTheLog) {
  CudaKernel bad = emitted(naiveMatmul(8, 8, 8));
  bad.source += "\nthis is not C++;\n";
  CompileResult r = compile(bad, uncached());
  EXPECT_FALSE(r.compiled);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.errorLog.find("error"), std::string::npos);
  EXPECT_EQ(r.reason.rfind("compilation failed: ", 0), 0u) << r.reason;
  EXPECT_TRUE(r.cubin.empty());
}

// What the search refuses to measure before it starts: code of another major version, or a newer
// minor, or another GPU's own instructions (sm_90a).
TEST(Compile, BinariesRunOnTheirOwnArchitectureFamily) {
  EXPECT_TRUE(binaryRunsOn("sm_90", "sm_90"));
  EXPECT_TRUE(binaryRunsOn("sm_90a", "sm_90"));
  EXPECT_TRUE(binaryRunsOn("sm_80", "sm_86"));
  EXPECT_FALSE(binaryRunsOn("sm_86", "sm_80"));
  EXPECT_FALSE(binaryRunsOn("sm_80", "sm_90"));
  EXPECT_FALSE(binaryRunsOn("sm_90a", "sm_100"));
  EXPECT_FALSE(binaryRunsOn("sm_100", "sm_90"));
}

}  // namespace
}  // namespace cudaburg
