// Without a GPU (this suite's machine when it has none), the runner says so and measures nothing.
#include <gtest/gtest.h>

#include "src/cuda/compile/compiler.hpp"
#include "src/cuda/emit/emitter.hpp"
#include "src/cuda/run/runner.hpp"
#include "tests/cuda/run_test_kernels.hpp"

namespace cudaburg {
namespace {

TEST(RunNoGpu, MeasureReturnsNotMeasuredWithTheReason) {
  Runner runner;
  if (runner.available()) GTEST_SKIP() << "a GPU is present: " << runner.device();
  // One plain sentence: no loader's message nested inside another.
  EXPECT_EQ(runner.device().rfind("no CUDA", 0), 0u) << runner.device();
  EXPECT_EQ(runner.device().find("not measured"), std::string::npos) << runner.device();
  EXPECT_EQ(runner.device().find("error while loading shared libraries"), std::string::npos) << runner.device();

  Kernel k = testing::loadExample("matmul.loop", {{"M", 64}, {"N", 64}, {"K", 64}});
  EmitResult emitted = emitKernel(k);
  ASSERT_TRUE(emitted.ok()) << emitted.reason;
  CompileResult binary = compile(*emitted.kernel, CompileOptions{});
  ASSERT_TRUE(binary.ok) << binary.reason;
  RunResult r = runner.measure(k, *emitted.kernel, binary);
  EXPECT_EQ(r.status, RunStatus::NotMeasured);
  EXPECT_STREQ(runStatusName(r.status), "not measured");
  EXPECT_EQ(r.reason, runner.device());
  EXPECT_LT(r.ms, 0);
  EXPECT_LT(r.tflops, 0);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(runner.arch(), "");
  EXPECT_EQ(runner.driver(), "");

  ReferenceTiming t = runner.reference(k);
  EXPECT_EQ(t.status, RunStatus::NotMeasured);
  EXPECT_LT(t.ms, 0);
}

TEST(RunNoGpu, AMissingWorkerProgramIsNotACrash) {
  RunnerOptions options;
  options.workerPath = "/nonexistent/cudaburg-worker";
  Runner runner(options);
  EXPECT_FALSE(runner.available());
  EXPECT_NE(runner.device().find("cannot execute"), std::string::npos) << runner.device();
  Kernel k = testing::loadExample("matmul.loop", {{"M", 16}, {"N", 16}, {"K", 16}});
  RunResult r = runner.measureCubin(k, CudaKernel{}, "not a cubin");
  EXPECT_EQ(r.status, RunStatus::NotMeasured);
}

}  // namespace
}  // namespace cudaburg
