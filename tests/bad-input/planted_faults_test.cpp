// Planted faulty kernels on a GPU (ctest label "gpu"; skipped without one): an out-of-bounds
// write, an endless loop, a wrong result and a launch that fails, measured one after another
// by one runner as the search measures its variants. Each becomes a variant with a status and a
// reason in the search's report (4 of 4), and a correct kernel measured after each one still
// verifies: a fault stops nothing.
#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

#include "src/cuda/compile/compiler.hpp"
#include "src/cuda/run/runner.hpp"
#include "src/report/search_report.hpp"
#include "src/search/outcome.hpp"
#include "tests/cuda/run_test_kernels.hpp"

namespace cudaburg {
namespace {

using namespace std::chrono_literals;

constexpr int64_t kM = 200, kN = 136, kK = 72;

constexpr const char* kCorrect =
    "  float s = 0;\n  for (int k = 0; k < K; ++k) s += A[i * K + k] * B[k * N + j];\n  C[idx] = s;";

struct Planted {
  std::string name;
  std::string body;                       // one thread's work on C[i][j] (idx = i * N + j)
  std::array<unsigned, 3> grid{0, 1, 1};  // 0: enough blocks of 256 for every element
  RunStatus expected;
  std::string because;  // a piece of the reason it must be reported with
};

// Matmul's arrays (C, A, B), one thread an element of C.
CudaKernel matmulKernel(const Planted& p) {
  CudaKernel v;
  v.entry = p.name;
  v.params = {"C", "A", "B"};
  v.block = {256, 1, 1};
  v.grid = p.grid;
  if (v.grid[0] == 0) v.grid[0] = unsigned((kM * kN + 255) / 256);
  v.source = "extern \"C\" __global__ void " + p.name + "(float* C, const float* A, const float* B) {\n" +
             "  const int M = " + std::to_string(kM) + ", N = " + std::to_string(kN) + ", K = " + std::to_string(kK) +
             ";\n  long idx = blockIdx.x * (long)blockDim.x + threadIdx.x;\n  if (idx >= (long)M * N) return;\n"
             "  int i = idx / N, j = idx % N;\n" +
             p.body + "\n}\n";
  return v;
}

TEST(PlantedFaults, EachIsReportedWithAReasonAndTheSearchGoesOn) {
  Runner runner;
  if (!runner.available()) GTEST_SKIP() << runner.device();
  Kernel kernel = testing::loadExample("matmul.loop", {{"M", kM}, {"N", kN}, {"K", kK}});
  const std::vector<Planted> planted = {
      {"writes_far_away",
       std::string(kCorrect) + "\n  C[idx + (1l << 40)] = 1;",
       {0, 1, 1},
       RunStatus::Failed,
       "CUDA_ERROR"},
      {"never_ends",
       "  volatile float* p = C;\n  while (p[idx] != 12345.0f) p[idx] = 0;",
       {0, 1, 1},
       RunStatus::Timeout,
       ""},
      {"drops_a_term",
       "  float s = 0;\n  for (int k = 0; k < K - 1; ++k) s += A[i * K + k] * B[k * N + j];\n  C[idx] = s;",
       {0, 1, 1},
       RunStatus::Wrong,
       "relative error"},
      // grid.y past 65535: the launch itself is refused by the driver.
      {"cannot_launch", kCorrect, {1, 70000, 1}, RunStatus::Failed, "cuLaunchKernel"},
  };
  CompileOptions compileOptions;
  compileOptions.arch = runner.arch();
  compileOptions.useCache = false;
  MeasureOptions measureOptions;
  measureOptions.deadline = 5s;

  SearchOutcome outcome;
  outcome.kernelName = "matmul";
  outcome.gpuAvailable = true;
  outcome.device = runner.device();
  size_t caught = 0;
  for (const Planted& p : planted) {
    CudaKernel faulty = matmulKernel(p);
    CompileResult binary = compile(faulty, compileOptions);
    ASSERT_TRUE(binary.ok) << p.name << ": " << binary.reason << "\n" << binary.errorLog;
    RunResult r = runner.measure(kernel, faulty, binary, measureOptions);
    EXPECT_EQ(r.status, p.expected) << p.name << ": " << r.reason;
    EXPECT_FALSE(r.reason.empty()) << p.name;
    EXPECT_NE(r.reason.find(p.because), std::string::npos) << p.name << ": " << r.reason;
    if (r.status == p.expected && !r.reason.empty()) ++caught;
    VariantResult v;
    v.recipe = p.name;
    v.measured = true;
    v.result.status = r.status;
    v.result.reason = r.reason;
    outcome.variants.push_back(v);

    // The search goes on: the next variant, a correct one, verifies.
    CudaKernel correct = matmulKernel({"correct_after_" + p.name, kCorrect, {0, 1, 1}, RunStatus::Ok, ""});
    RunResult after = runner.measure(kernel, correct, compile(correct, compileOptions), measureOptions);
    EXPECT_EQ(after.status, RunStatus::Ok) << "after " << p.name << ": " << after.reason;
  }
  EXPECT_EQ(caught, planted.size()) << "planted faults caught";

  std::string report = searchReportMarkdown(outcome);
  for (const VariantResult& v : outcome.variants) {
    EXPECT_NE(report.find(v.recipe), std::string::npos) << v.recipe << " missing from the report:\n" << report;
    EXPECT_NE(report.find(v.result.reason.substr(0, 40)), std::string::npos)
        << v.recipe << "'s reason missing from the report:\n"
        << report;
  }
}

}  // namespace
}  // namespace cudaburg
