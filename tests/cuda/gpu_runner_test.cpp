// The runner on a real GPU (ctest label "gpu"): correct kernels verify against cuBLAS, cuDNN and
// the FP64 nest and get timed; broken kernels (a fault, a hang, a wrong or missing result) are
// reported as failed variants and the runner goes on with a fresh worker.
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include "src/cuda/compile/compiler.hpp"
#include "src/cuda/emit/emitter.hpp"
#include "src/cuda/run/runner.hpp"
#include "src/transform/recipe.hpp"
#include "tests/cuda/run_test_kernels.hpp"

namespace cudaburg {
namespace {

using namespace std::chrono_literals;

// A product checked against a library: an example, its sizes, a recipe, and the library (the
// start of the reference's name).
struct ProductCase {
  const char* file;
  std::map<std::string, int64_t> sizes;
  std::string recipe;
  const char* library = "cuBLAS GemmEx";
  Precision precision = Precision::Strict;  // the contract it is verified under
};

class GpuRunner : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { runner_ = new Runner(); }
  static void TearDownTestSuite() {
    delete runner_;
    runner_ = nullptr;
  }
  void SetUp() override {
    if (!runner_->available()) GTEST_SKIP() << runner_->device();
  }

  // The case's nest under its recipe (with `tensorMaps` tensor maps when given), verified against
  // the case's library.
  void expectVerified(const ProductCase& c, std::optional<size_t> tensorMaps = std::nullopt);

  // `allowSpills`: for tests of what a kernel computes, not of how fast it runs.
  CompileResult build(const CudaKernel& k, bool allowSpills = false) {
    CompileOptions options;
    options.arch = runner_->arch();
    options.useCache = false;
    options.allowSpills = allowSpills;
    CompileResult r = compile(k, options);
    EXPECT_TRUE(r.ok) << r.reason << "\n" << r.errorLog;
    return r;
  }

  // The untransformed nest, emitted with the naive mapping, compiled and measured.
  RunResult measureNaive(const Kernel& k, const MeasureOptions& options = {}) {
    EmitResult e = emitKernel(k);
    EXPECT_TRUE(e.ok()) << e.reason;
    if (!e.ok()) return {};
    return runner_->measure(k, *e.kernel, build(*e.kernel), options);
  }

  // A hand-written kernel over matmul's arrays (C, A, B), one thread per element of C.
  RunResult measureMatmulBody(const Kernel& k, const std::string& name, const std::string& body,
                              const MeasureOptions& options = {}) {
    CudaKernel v;
    v.entry = name;
    v.params = {"C", "A", "B"};
    v.block = {256, 1, 1};
    v.grid = {unsigned((k.size("M") * k.size("N") + 255) / 256), 1, 1};
    v.source = "extern \"C\" __global__ void " + name +
               "(float* C, const float* A, const float* B) {\n"
               "  const int M = " +
               std::to_string(k.size("M")) + ", N = " + std::to_string(k.size("N")) +
               ", K = " + std::to_string(k.size("K")) +
               ";\n"
               "  long idx = blockIdx.x * (long)blockDim.x + threadIdx.x;\n"
               "  if (idx >= (long)M * N) return;\n"
               "  int i = idx / N, j = idx % N;\n" +
               body + "\n}\n";
    return runner_->measure(k, v, build(v), options);
  }

  static Kernel smallMatmul() { return testing::loadExample("matmul.loop", {{"M", 200}, {"N", 136}, {"K", 72}}); }

  static Runner* runner_;
};

Runner* GpuRunner::runner_ = nullptr;

constexpr const char* kCorrectBody =
    "  float s = 0;\n  for (int k = 0; k < K; ++k) s += A[i * K + k] * B[k * N + j];\n  C[idx] = s;";

TEST_F(GpuRunner, NaiveMatmulVerifiesAgainstCublasAndIsTimed) {
  Kernel k = testing::loadExample("matmul.loop", {{"M", 512}, {"N", 384}, {"K", 256}});
  RunResult r = measureNaive(k);
  ASSERT_EQ(r.status, RunStatus::Ok) << r.reason;
  EXPECT_EQ(r.reference.rfind("cuBLAS SGEMM", 0), 0u) << r.reference;
  EXPECT_GE(r.error, 0);
  EXPECT_LT(r.error, 1e-5);
  EXPECT_GT(r.ms, 0);
  EXPECT_GE(r.runs, 20);
  EXPECT_NEAR(r.tflops, 2.0 * 512 * 384 * 256 / (r.ms * 1e-3) / 1e12, 1e-9);
  EXPECT_EQ(runner_->arch().rfind("sm_", 0), 0u) << runner_->arch();
  EXPECT_NE(runner_->driver().find('.'), std::string::npos) << runner_->driver();
  EXPECT_GT(r.gbps, 0);
}

TEST_F(GpuRunner, AVariantFarBehindTheFastestIsTimedByAFewRuns) {
  Kernel k = testing::loadExample("matmul.loop", {{"M", 512}, {"N", 384}, {"K", 256}});
  EmitResult e = emitKernel(k);
  ASSERT_TRUE(e.ok()) << e.reason;
  CompileResult binary = build(*e.kernel);
  MeasureOptions options;
  options.runs.raceAgainstMs = 1e-6;  // no kernel of this size runs this fast: the race is lost
  RunResult lost = runner_->measure(k, *e.kernel, binary, options);
  ASSERT_EQ(lost.status, RunStatus::Ok) << lost.reason;
  EXPECT_EQ(lost.runs, 3);
  EXPECT_GT(lost.ms, 0);
  options.runs.raceAgainstMs = 1e6;  // any time is within the race: the full count of runs
  RunResult kept = runner_->measure(k, *e.kernel, binary, options);
  ASSERT_EQ(kept.status, RunStatus::Ok) << kept.reason;
  EXPECT_GE(kept.runs, 20);
  EXPECT_NEAR(lost.ms, kept.ms, 0.5 * kept.ms);
}

TEST_F(GpuRunner, HandWrittenCorrectKernelPasses) {
  RunResult r = measureMatmulBody(smallMatmul(), "correct", kCorrectBody);
  EXPECT_EQ(r.status, RunStatus::Ok) << r.reason;
}

TEST_F(GpuRunner, WrongResultIsCaught) {
  // Drops the last term of every sum.
  RunResult r =
      measureMatmulBody(smallMatmul(), "drops_a_term",
                        "  float s = 0;\n  for (int k = 0; k < K - 1; ++k) s += A[i * K + k] * B[k * N + j];\n"
                        "  C[idx] = s;");
  EXPECT_EQ(r.status, RunStatus::Wrong);
  EXPECT_NE(r.reason.find("relative error"), std::string::npos) << r.reason;
  EXPECT_LT(r.ms, 0);  // a wrong kernel is never timed
}

TEST_F(GpuRunner, UnwrittenElementsAreCaught) {
  RunResult r =
      measureMatmulBody(smallMatmul(), "skips_the_last_row", std::string("  if (i == M - 1) return;\n") + kCorrectBody);
  EXPECT_EQ(r.status, RunStatus::Wrong);
  EXPECT_NE(r.reason.find("NaN"), std::string::npos) << r.reason;
  EXPECT_NE(r.reason.find("C[199]"), std::string::npos) << r.reason;
}

TEST_F(GpuRunner, OutOfBoundsWriteFailsAndTheRunnerGoesOn) {
  RunResult r =
      measureMatmulBody(smallMatmul(), "writes_far_away", std::string(kCorrectBody) + "\n  C[idx + (1l << 40)] = 1;");
  EXPECT_EQ(r.status, RunStatus::Failed);
  EXPECT_NE(r.reason.find("CUDA_ERROR"), std::string::npos) << r.reason;
  RunResult after = measureMatmulBody(smallMatmul(), "correct_after_fault", kCorrectBody);
  EXPECT_EQ(after.status, RunStatus::Ok) << after.reason;
}

TEST_F(GpuRunner, HangIsStoppedAtTheDeadlineAndTheRunnerGoesOn) {
  MeasureOptions options;
  options.deadline = 5s;
  auto before = std::chrono::steady_clock::now();
  RunResult r = measureMatmulBody(smallMatmul(), "never_ends",
                                  "  volatile float* p = C;\n  while (p[idx] != 12345.0f) p[idx] = 0;", options);
  EXPECT_EQ(r.status, RunStatus::Timeout) << r.reason;
  EXPECT_LT(std::chrono::steady_clock::now() - before, 20s);
  RunResult after = measureMatmulBody(smallMatmul(), "correct_after_hang", kCorrectBody);
  EXPECT_EQ(after.status, RunStatus::Ok) << after.reason;
}

TEST_F(GpuRunner, BatchedTransposedProductVerifies) {
  RunResult r = measureNaive(testing::loadExample("matmul_bt.loop", {{"BATCH", 3}, {"M", 64}, {"N", 96}, {"K", 40}}));
  EXPECT_EQ(r.status, RunStatus::Ok) << r.reason;
  EXPECT_NE(r.reference.find("batch 3"), std::string::npos) << r.reference;
}

TEST_F(GpuRunner, Conv2dVerifies) {
  RunResult r =
      measureNaive(testing::loadExample("conv2d.loop", {{"N", 2}, {"C", 8}, {"H", 20}, {"W", 18}, {"K", 12}}));
  EXPECT_EQ(r.status, RunStatus::Ok) << r.reason << " (" << r.reference << ")";
}

// Every layout and form of convolution the examples show, and the transposed products, verify
// against their library at small sizes; cuDNN's timing names the algorithm it chose.
TEST_F(GpuRunner, ConvolutionAndProductExamplesVerifyAgainstTheirLibrary) {
  struct Case {
    const char* example;
    std::map<std::string, int64_t> sizes;
    const char* library;
  };
  const Case cases[] = {
      {"conv2d_nhwc.loop", {{"N", 2}, {"C", 8}, {"H", 14}, {"W", 10}, {"K", 12}, {"ST", 2}}, "cuDNN"},
      {"conv2d_dilated.loop", {{"N", 2}, {"C", 4}, {"H", 13}, {"W", 11}, {"K", 6}}, "cuDNN"},
      {"conv2d_grouped.loop", {{"N", 2}, {"G", 3}, {"CG", 2}, {"KG", 4}, {"H", 9}, {"W", 12}}, "cuDNN"},
      {"conv2d_depthwise.loop", {{"N", 2}, {"C", 6}, {"H", 15}, {"W", 9}}, "cuDNN"},
      {"conv3d_ncdhw.loop", {{"N", 2}, {"C", 3}, {"D", 5}, {"H", 7}, {"W", 6}, {"K", 4}}, "cuDNN"},
      {"conv3d.loop", {{"D", 20}, {"H", 18}, {"W", 16}, {"T", 3}}, "cuDNN"},
      {"conv1d.loop", {{"N", 2}, {"C", 5}, {"L", 100}, {"K", 3}, {"ST", 3}}, "cuDNN"},
      {"correlate2d.loop", {{"H", 40}, {"W", 33}, {"TH", 4}, {"TW", 5}}, "cuDNN"},
      {"matmul_nt.loop", {{"M", 64}, {"N", 48}, {"K", 40}}, "cuBLAS"},
      {"matmul_tn.loop", {{"M", 64}, {"N", 48}, {"K", 40}}, "cuBLAS"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.example);
    Kernel k = testing::loadExample(c.example, c.sizes);
    RunResult r = measureNaive(k);
    EXPECT_EQ(r.status, RunStatus::Ok) << r.reason << " (" << r.reference << ")";
    EXPECT_EQ(r.reference.rfind(c.library, 0), 0u) << r.reference;
    ReferenceTiming t = runner_->reference(k);
    EXPECT_TRUE(t.ok()) << t.reason;
    if (std::string(c.library) == "cuDNN") {
      EXPECT_NE(t.library.find("("), std::string::npos) << t.library;
    }
  }
}

TEST_F(GpuRunner, OtherNestsVerifyAgainstTheFp64Reference) {
  Kernel k = testing::parseLoopText("scaled.loop", R"(
size M = 40, N = 24, K = 30;
kernel scaled(float C[M][N], const float A[M][K], const float B[K][N]) {
  parallel for (i = 0; i < M; i++)
    parallel for (j = 0; j < N; j++) {
      C[i][j] = 0;
      reduce for (k = 0; k < K; k++)
        C[i][j] += 2 * A[i][k] * B[k][j];
    }
}
)");
  RunResult r = measureNaive(k);
  EXPECT_EQ(r.status, RunStatus::Ok) << r.reason;
  EXPECT_EQ(r.reference, "FP64 reference");
}

TEST_F(GpuRunner, InPlaceUpdateStartsFromTheSameRandomData) {
  Kernel k = testing::parseLoopText("axpy.loop", R"(
size N = 100000;
kernel axpy(float Y[N], const float X[N]) {
  parallel for (i = 0; i < N; i++)
    Y[i] = Y[i] * 3 + X[i];
}
)");
  RunResult r = measureNaive(k);
  EXPECT_EQ(r.status, RunStatus::Ok) << r.reason;
  EXPECT_EQ(r.reference, "FP64 reference");
}

// Inputs are made on the GPU in each array's storage type: the FP64 reference reads a half, a
// bfloat16 or a tf32 input as doubles holding exactly the values the variant reads, so that a
// kernel that only widens them matches its reference exactly.
TEST_F(GpuRunner, InputsOfEveryTypeReachTheReferenceUnchanged) {
  for (const char* type : {"half", "bfloat16", "tf32", "float", "int"}) {
    Kernel k =
        testing::parseLoopText("widen.loop", std::string("size N = 300007;\nkernel widen(float Y[N], const ") + type +
                                                 " X[N]) {\n  parallel for (i = 0; i < N; i++)\n    Y[i] = X[i];\n}\n");
    RunResult r = measureNaive(k);
    ASSERT_EQ(r.status, RunStatus::Ok) << type << ": " << r.reason;
    EXPECT_EQ(r.error, 0) << type;
  }
}

// `k` under the recipe `text`, emitted; nothing when a step or the emitter refuses (a failure).
std::optional<CudaKernel> emitUnder(const Kernel& k, const std::string& text) {
  common::SourceFile file("test.recipe", text);
  common::Diagnostics diags(file);
  auto recipe = parseRecipe(file, diags);
  EXPECT_TRUE(recipe) << diags.str();
  if (!recipe) return std::nullopt;
  TransformResult t = applyRecipe(k, *recipe);
  EXPECT_TRUE(t.ok()) << t.reason;
  if (!t.ok()) return std::nullopt;
  EmitResult e = emitKernel(*t.kernel);
  EXPECT_TRUE(e.ok()) << e.reason;
  return e.kernel;
}

TEST_F(GpuRunner, LargeSharedMemoryVariantRaisesTheLimit) {
  Kernel k = testing::loadExample("matmul.loop", {{"M", 512}, {"N", 512}, {"K", 512}});
  auto e = emitUnder(k,
                     "tile i,j 128,128; map i_o grid.y; map j_o grid.x; map i block.y; map j block.x; "
                     "regtile i,j 8,8; strip k 64; stage A at k_o; stage B at k_o");
  ASSERT_TRUE(e);
  EXPECT_TRUE(e->needsSharedMemoryAttribute) << e->sharedBytes << " bytes of shared memory";
  RunResult r = runner_->measure(k, *e, build(*e));
  EXPECT_EQ(r.status, RunStatus::Ok) << r.reason;
  EXPECT_GT(r.ms, 0);
}

TEST_F(GpuRunner, PipelinedAsyncAndInterleavedStagesVerify) {
  // Uneven sizes: partial tiles and a partial last strip; K = 75 leaves A's rows unaligned, so
  // its stage goes an element at a time, B's 16 bytes at a time.
  Kernel k = testing::loadExample("matmul.loop", {{"M", 200}, {"N", 136}, {"K", 75}});
  const std::string tiles =
      "tile i,j 64,64; map i_o grid.y; map j_o grid.x; map i block.y; map j block.x; "
      "regtile i,j 8,8; strip k 8; stage A at k_o transposed; ";
  for (const char* rest : {"stage B at k_o; map k_o pipelined; unroll k 8; vectorize j 4",
                           "stage B at k_o interleaved 8; map k_o pipelined; unroll k 8; vectorize j 4",
                           "stage B at k_o interleaved 8; map k_o async; unroll k 8; vectorize j 4",
                           "stage B at k_o; map k_o pipelined; unroll k 8; vectorize j 4; lanes 4,8"}) {
    SCOPED_TRACE(rest);
    auto e = emitUnder(k, tiles + rest);
    ASSERT_TRUE(e);
    RunResult r = runner_->measure(k, *e, build(*e));
    EXPECT_EQ(r.status, RunStatus::Ok) << r.reason;
  }
  // Three copies of a large stage: dynamic shared memory, filled asynchronously.
  Kernel big = testing::loadExample("matmul.loop", {{"M", 256}, {"N", 256}, {"K", 300}});
  auto e = emitUnder(big,
                     "tile i,j 128,128; map i_o grid.y; map j_o grid.x; map i block.y; map j block.x; "
                     "regtile i,j 8,8; strip k 32; stage A at k_o; stage B at k_o; map k_o async");
  ASSERT_TRUE(e);
  EXPECT_TRUE(e->needsSharedMemoryAttribute) << e->sharedBytes;
  RunResult r = runner_->measure(big, *e, build(*e));
  EXPECT_EQ(r.status, RunStatus::Ok) << r.reason;
  // A window's halo, pipelined both ways, against the exact FP64 nest.
  Kernel corr = testing::loadExample("correlate2d.loop", {{"H", 60}, {"W", 70}});
  for (const char* mapping : {"pipelined", "async"}) {
    auto c = emitUnder(corr, std::string("tile y,x 16,64; map y_o grid.y; map x_o grid.x; map y block.y; "
                                         "map x block.x; regtile y,x 2,4; strip u 4; stage Img at u_o; "
                                         "stage Tpl at u_o; map u_o ") +
                                 mapping);
    ASSERT_TRUE(c);
    RunResult rc = runner_->measure(corr, *c, build(*c));
    EXPECT_EQ(rc.status, RunStatus::Ok) << mapping << ": " << rc.reason;
  }
}

TEST_F(GpuRunner, ImplicitGemmConvolutionsVerifyAgainstCudnn) {
  // The convolution collapsed into a GEMM (filters by n*oh*ow, reduced over c*r*s), tiled like a
  // matmul, its input gathered (im2col) and its filters staged a strip at a time; uneven sizes,
  // stride and padding, so that tiles of n*oh*ow cross rows and images and the last strip is cut;
  // the filters of 16 channels and the 1x1 input are gathered 4 elements at a time.
  const std::string gemm =
      "interchange n k; collapse n,oh,ow into m; collapse c,r,s into q; tile k,m 32,64; "
      "map k_o grid.y; map m_o grid.x; map k block.y; map m block.x; regtile k,m 4,4; "
      "strip q 8; stage In at q_o; stage Wt at q_o; unroll q 8";
  for (const std::map<std::string, int64_t>& sizes : std::vector<std::map<std::string, int64_t>>{
           {{"N", 3}, {"C", 5}, {"H", 19}, {"W", 17}, {"K", 40}},
           {{"N", 2}, {"C", 16}, {"H", 14}, {"W", 14}, {"K", 24}, {"ST", 2}},
           {{"N", 2}, {"C", 24}, {"H", 8}, {"W", 8}, {"K", 20}, {"R", 1}, {"S", 1}, {"P", 0}}}) {
    Kernel k = testing::loadExample("conv2d.loop", sizes);
    for (const char* buffering : {"", "; map q_o pipelined", "; map q_o async"}) {
      SCOPED_TRACE(std::to_string(k.size("C")) + " channels" + buffering);
      auto e = emitUnder(k, gemm + buffering);
      ASSERT_TRUE(e);
      // What it computes is checked: a ptxas that keeps a derived index or two in local memory
      // (some versions spill a few bytes of these kernels) does not change that.
      RunResult r = runner_->measure(k, *e, build(*e, true));
      EXPECT_EQ(r.status, RunStatus::Ok) << r.reason << " (" << r.reference << ")";
      EXPECT_EQ(r.reference.rfind("cuDNN", 0), 0u) << r.reference;
    }
  }
}

// Gathers through offset tables (stage ... table): 1-D, 2-D (strided, dilated, 1x1, channels last)
// and 3-D convolutions at uneven sizes (tiles cross images, the last strip is cut, a tile's pixels
// lie in the padding), filled then used, pipelined and asynchronous, against cuDNN.
TEST_F(GpuRunner, GathersThroughOffsetTablesVerifyAgainstCudnn) {
  struct Case {
    const char* example;
    std::map<std::string, int64_t> sizes;
    std::string recipe;
  };
  const std::string nchw =
      "interchange n k; collapse n,oh,ow into m; collapse c,r,s into q; tile k,m 32,64; "
      "map k_o grid.y; map m_o grid.x; map k block.y; map m block.x; regtile k,m 4,4; "
      "strip q 8; stage In at q_o table; stage Wt at q_o; unroll q 8";
  std::vector<Case> cases = {
      {"conv2d.loop", {{"N", 3}, {"C", 5}, {"H", 19}, {"W", 17}, {"K", 40}}, nchw},
      {"conv2d.loop", {{"N", 2}, {"C", 16}, {"H", 14}, {"W", 14}, {"K", 24}, {"ST", 2}}, nchw},
      {"conv2d.loop", {{"N", 2}, {"C", 24}, {"H", 8}, {"W", 8}, {"K", 20}, {"R", 1}, {"S", 1}, {"P", 0}}, nchw},
      {"conv2d_dilated.loop", {{"N", 2}, {"C", 4}, {"H", 13}, {"W", 11}, {"K", 6}}, nchw},
      {"conv1d.loop",
       {{"N", 2}, {"C", 5}, {"L", 100}, {"K", 3}, {"ST", 3}},
       "interchange n k; collapse n,o into m; collapse c,r into q; tile k,m 32,64; map k_o grid.y; map m_o grid.x; "
       "map k block.y; map m block.x; regtile k,m 4,4; strip q 8; stage In at q_o table; stage Wt at q_o; unroll q 8"},
      {"conv2d_nhwc.loop",
       {{"N", 2}, {"C", 8}, {"H", 14}, {"W", 10}, {"K", 32}},
       "collapse r,s,c; collapse n,oh,ow; tile n_oh_ow,k 64,32; map n_oh_ow_o grid.y; map k_o grid.x; "
       "map n_oh_ow block.y; map k block.x; regtile n_oh_ow,k 4,4; strip r_s_c 8; stage In at r_s_c_o transposed "
       "table; "
       "stage Wt at r_s_c_o; unroll r_s_c 8"},
      {"conv3d_ncdhw.loop",
       {{"N", 2}, {"C", 3}, {"D", 5}, {"H", 7}, {"W", 6}, {"K", 40}},
       "collapse c,a,b,e; interchange n k; collapse n,od,oh,ow; tile k,n_od_oh_ow 64,64; map k_o grid.y; "
       "map n_od_oh_ow_o grid.x; map k block.y; map n_od_oh_ow block.x; regtile k,n_od_oh_ow 8,4; strip c_a_b_e 16; "
       "stage In at c_a_b_e_o table; stage Wt at c_a_b_e_o; unroll c_a_b_e 16"},
  };
  for (const Case& c : cases) {
    Kernel k = testing::loadExample(c.example, c.sizes);
    std::string strips = c.recipe.substr(c.recipe.find("strip ") + 6);
    strips = strips.substr(0, strips.find(' ')) + "_o";
    for (const std::string& buffering :
         std::vector<std::string>{"", "; map " + strips + " pipelined", "; map " + strips + " async"}) {
      SCOPED_TRACE(std::string(c.example) + buffering);
      auto e = emitUnder(k, c.recipe + buffering);
      ASSERT_TRUE(e);
      RunResult r = runner_->measure(k, *e, build(*e, true));
      EXPECT_EQ(r.status, RunStatus::Ok) << r.reason << " (" << r.reference << ")";
      EXPECT_EQ(r.reference.rfind("cuDNN", 0), 0u) << r.reference;
    }
  }
}

// Tensor cores: the mma step's warp tiles (ldmatrix from padded or swizzled stages, cp.async with
// 3 or 4 buffers, mma.sync) and the naive nests of the reduced types, against cublasGemmEx with the
// same types and fp32 accumulation; uneven sizes cut tiles and the last strip (fragments loaded
// element by element).
TEST_F(GpuRunner, TensorCoreProductsVerifyAgainstGemmEx) {
  struct Case {
    const char* file;
    std::map<std::string, int64_t> sizes;
    const char* recipe;
  };
  const std::string tiles =
      "tile i,j 128,128; map i_o grid.y; map j_o grid.x; map i block.y; map j block.x; "
      "regtile i,j 64,32; strip k 32; ";
  const std::string f16 =
      tiles + "stage A at k_o pad 8; stage B at k_o pad 8; map k_o async; unroll k 32; mma i,j,k 16,8,16";
  const std::string tf32 =
      tiles + "stage A at k_o pad 4; stage B at k_o pad 8; map k_o async; unroll k 32; mma i,j,k 16,8,8";
  const std::string global =
      "tile i,j 64,64; map i_o grid.y; map j_o grid.x; map i block.y; map j block.x; "
      "regtile i,j 32,32; mma i,j,k 16,8,16";
  const std::string transposed = tiles +
                                 "stage A at k_o transposed; stage B at k_o; map k_o pipelined; unroll k 32; "
                                 "mma i,j,k 16,8,16";
  const std::string swizzled =
      "tile i,j 128,256; map i_o grid.y; map j_o grid.x; map i block.y; map j block.x; "
      "regtile i,j 64,64; strip k 64; stage A at k_o swizzle; stage B at k_o swizzle; "
      "map k_o async 4; unroll k 64; mma i,j,k 16,8,16";
  const std::string rastered = swizzled + "; raster 3";  // 8 rows of the grid: groups of 3, 3 and 2
  // Fragments loaded a k step ahead (two copies of them: tiles of 64 x 32 a warp, which leave
  // room for them).
  const std::string prefetched = tiles +
                                 "stage A at k_o swizzle; stage B at k_o swizzle; map k_o async 4; unroll k 32; "
                                 "mma i,j,k 16,8,16 prefetch";
  const std::string prefetchedRastered = prefetched + "; raster 3", f16Prefetched = f16 + " prefetch";
  const std::string tf32Swizzled = tiles +
                                   "stage A at k_o swizzle; stage B at k_o swizzle; map k_o async 4; unroll k 32; "
                                   "mma i,j,k 16,8,8";
  const std::string tf32Prefetched = tf32Swizzled + " prefetch";
  for (const Case& c : {Case{"hgemm.loop", {{"M", 512}, {"N", 256}, {"K", 384}}, f16.c_str()},
                        Case{"hgemm.loop", {{"M", 256}, {"N", 384}, {"K", 256}}, transposed.c_str()},
                        Case{"hgemm.loop", {{"M", 200}, {"N", 136}, {"K", 88}}, f16.c_str()},
                        Case{"hgemm.loop", {{"M", 512}, {"N", 512}, {"K", 384}}, swizzled.c_str()},
                        Case{"hgemm.loop", {{"M", 200}, {"N", 300}, {"K", 104}}, swizzled.c_str()},
                        Case{"bf16gemm.loop", {{"M", 256}, {"N", 512}, {"K", 256}}, swizzled.c_str()},
                        Case{"hgemm.loop", {{"M", 1000}, {"N", 1000}, {"K", 200}}, rastered.c_str()},
                        Case{"tf32gemm.loop", {{"M", 256}, {"N", 256}, {"K", 256}}, tf32Swizzled.c_str()},
                        Case{"tf32gemm.loop", {{"M", 200}, {"N", 136}, {"K", 88}}, tf32Swizzled.c_str()},
                        Case{"hgemm.loop", {{"M", 200}, {"N", 136}, {"K", 96}}, global.c_str()},
                        Case{"bf16gemm.loop", {{"M", 256}, {"N", 512}, {"K", 256}}, f16.c_str()},
                        Case{"tf32gemm.loop", {{"M", 256}, {"N", 256}, {"K", 256}}, tf32.c_str()},
                        Case{"tf32gemm.loop", {{"M", 200}, {"N", 136}, {"K", 88}}, tf32.c_str()},
                        Case{"hgemm.loop", {{"M", 200}, {"N", 136}, {"K", 88}}, ""},
                        Case{"tf32gemm.loop", {{"M", 96}, {"N", 64}, {"K", 40}}, ""},
                        // fragments loaded a k step ahead, the next strip's after its barrier
                        Case{"hgemm.loop", {{"M", 512}, {"N", 512}, {"K", 384}}, prefetched.c_str()},
                        Case{"hgemm.loop", {{"M", 200}, {"N", 300}, {"K", 104}}, prefetched.c_str()},
                        Case{"bf16gemm.loop", {{"M", 1000}, {"N", 1000}, {"K", 200}}, prefetchedRastered.c_str()},
                        Case{"hgemm.loop", {{"M", 200}, {"N", 136}, {"K", 88}}, f16Prefetched.c_str()},
                        Case{"tf32gemm.loop", {{"M", 200}, {"N", 136}, {"K", 88}}, tf32Prefetched.c_str()}}) {
    SCOPED_TRACE(std::string(c.file) + " under " + c.recipe);
    Kernel k = testing::loadExample(c.file, c.sizes);
    auto e = *c.recipe ? emitUnder(k, c.recipe) : std::optional<CudaKernel>(*emitKernel(k).kernel);
    ASSERT_TRUE(e);
    RunResult r = runner_->measure(k, *e, build(*e));
    EXPECT_EQ(r.status, RunStatus::Ok) << r.reason;
    EXPECT_EQ(r.reference.rfind("cuBLAS GemmEx", 0), 0u) << r.reference;
  }
  ReferenceTiming t = runner_->reference(testing::loadExample("hgemm.loop", {{"M", 1024}, {"N", 1024}, {"K", 1024}}));
  ASSERT_EQ(t.status, RunStatus::Ok) << t.reason;
  // The classic call or a faster cuBLASLt algorithm, named.
  EXPECT_TRUE(t.library == "cuBLAS GemmEx (half)" || t.library.rfind("cuBLASLt matmul (half, algo ", 0) == 0)
      << t.library;
}

// The GEMM reference is the fastest of the classic cuBLAS call and cuBLASLt's proposed algorithms,
// named in the timing; whichever it is, its output is checked against the exact FP64 product and
// its error (what a kernel's bound is made of) stays small: fp32 accumulation of exact operands.
TEST_F(GpuRunner, FastestGemmEngineIsNamedAndAgreesWithTheExactProduct) {
  struct EngineCase {
    const char* file;
    std::map<std::string, int64_t> sizes;
    const char* classic;  // the classic call's name
    const char* lt;       // the start of a cuBLASLt engine's
    double most;          // the largest error expected of either
  };
  for (const EngineCase& c :
       {EngineCase{
            "matmul.loop", {{"M", 1000}, {"N", 504}, {"K", 200}}, "cuBLAS SGEMM", "cuBLASLt matmul (algo ", 1e-5},
        EngineCase{"hgemm.loop",
                   {{"M", 1000}, {"N", 1000}, {"K", 200}},
                   "cuBLAS GemmEx (half)",
                   "cuBLASLt matmul (half, algo ",
                   1e-5},
        EngineCase{"bf16gemm.loop",
                   {{"M", 127}, {"N", 4099}, {"K", 513}},
                   "cuBLAS GemmEx (bfloat16)",
                   "cuBLASLt matmul (bfloat16, algo ",
                   1e-5},
        EngineCase{"tf32gemm.loop",
                   {{"M", 512}, {"N", 384}, {"K", 256}},
                   "cuBLAS GemmEx (tf32)",
                   "cuBLASLt matmul (tf32, algo ",
                   1e-2},
        EngineCase{"matmul_bt.loop",
                   {{"BATCH", 3}, {"M", 160}, {"N", 96}, {"K", 72}},
                   "cuBLAS SGEMM",
                   "cuBLASLt matmul (algo ",
                   1e-5}}) {
    SCOPED_TRACE(c.file);
    Kernel k = testing::loadExample(c.file, c.sizes);
    ReferenceTiming t = runner_->reference(k);
    ASSERT_EQ(t.status, RunStatus::Ok) << t.reason;
    EXPECT_GT(t.ms, 0);
    EXPECT_TRUE(t.library == c.classic || t.library.rfind(c.lt, 0) == 0) << t.library;
    RunResult r = measureNaive(k);
    EXPECT_EQ(r.status, RunStatus::Ok) << r.reason;
    EXPECT_GE(r.libraryError, 0);
    EXPECT_LT(r.libraryError, c.most);
  }
}

// A wgmma recipe: a block tile of warpgroups, each a `group` register tile computed as m64nNk16
// (half, bfloat16: B read N-major from slabs of 64 columns) or m64nNk8 (tf32: B stored transposed,
// read K-major), `buffers` stages by cp.async, and `more` after the wgmma step's shape.
std::string wgmmaRecipe(const std::string& block, const std::string& group, int n, int buffers,
                        const std::string& more = "", bool tf32 = false) {
  const std::string strip = tf32 ? "32" : "64";
  return "tile i,j " + block + "; map i_o grid.y; map j_o grid.x; map i block.y; map j block.x; regtile i,j " + group +
         "; strip k " + strip + "; stage A at k_o swizzle; stage B at k_o " +
         (tf32 ? "transposed swizzle" : "swizzle slabs 64") + "; map k_o async " + std::to_string(buffers) +
         "; unroll k " + strip + "; wgmma i,j,k 64," + std::to_string(n) + (tf32 ? ",8" : ",16") + more;
}

void GpuRunner::expectVerified(const ProductCase& c, std::optional<size_t> tensorMaps) {
  SCOPED_TRACE(std::string(c.file) + " under " + c.recipe);
  Kernel k = testing::loadExample(c.file, c.sizes);
  auto e = emitUnder(k, c.recipe);
  ASSERT_TRUE(e);
  if (tensorMaps) {
    ASSERT_EQ(e->tensorMaps.size(), *tensorMaps);
  }
  MeasureOptions options;
  options.precision = c.precision;
  RunResult r = runner_->measure(k, *e, build(*e), options);
  EXPECT_EQ(r.status, RunStatus::Ok) << r.reason;
  EXPECT_EQ(r.reference.rfind(c.library, 0), 0u) << r.reference;
}

// Hopper's warpgroup MMA (the wgmma step; sm_90 only): whole and uneven products of half and
// bfloat16 operands, one warpgroup a block or two, one or two 64-row tiles a warpgroup, one group
// of wgmma in flight or none, the stages filled by the block or by a producer warpgroup, against
// cublasGemmEx.
TEST_F(GpuRunner, WgmmaProductsVerifyAgainstGemmEx) {
  if (runner_->arch() != "sm_90") GTEST_SKIP() << "wgmma runs on sm_90 only, not on " << runner_->device();
  for (const ProductCase& c :
       {ProductCase{"hgemm.loop", {{"M", 256}, {"N", 256}, {"K", 256}}, wgmmaRecipe("128,128", "64,128", 128, 4)},
        ProductCase{"hgemm.loop",
                    {{"M", 1000}, {"N", 1000}, {"K", 1000}},
                    wgmmaRecipe("128,256", "64,256", 256, 4, "; raster 8")},
        ProductCase{
            "hgemm.loop", {{"M", 200}, {"N", 136}, {"K", 88}}, wgmmaRecipe("128,128", "64,128", 128, 3, " wait 0")},
        ProductCase{"bf16gemm.loop", {{"M", 512}, {"N", 256}, {"K", 192}}, wgmmaRecipe("256,128", "128,128", 128, 4)},
        ProductCase{"bf16gemm.loop", {{"M", 72}, {"N", 136}, {"K", 136}}, wgmmaRecipe("64,64", "64,64", 64, 3)},
        // A producer warpgroup filling the stages: more strips than buffers, and fewer.
        ProductCase{
            "hgemm.loop", {{"M", 256}, {"N", 512}, {"K", 512}}, wgmmaRecipe("128,256", "64,256", 256, 4, " producer")},
        ProductCase{"hgemm.loop",
                    {{"M", 1000}, {"N", 1000}, {"K", 1000}},
                    wgmmaRecipe("128,128", "64,128", 128, 3, " producer")},
        ProductCase{"bf16gemm.loop",
                    {{"M", 200}, {"N", 136}, {"K", 88}},
                    wgmmaRecipe("128,128", "64,128", 128, 2, " wait 0 producer")},
        // Split into parts on grid.z, their tiles added atomically (split-K, as the grammar offers it).
        ProductCase{"hgemm.loop",
                    {{"M", 512}, {"N", 512}, {"K", 2048}},
                    "split k 4; " + std::string(wgmmaRecipe("128,128", "64,128", 128, 4, " producer"))
                                        .replace(0, 18, "tile i,j 128,128; map k_s grid.z; ")}})
    expectVerified(c);
}

// wgmma on tf32 operands (m64nNk8, B stored transposed so that it is read K-major): whole and
// uneven products, two warpgroups or one with two 64-row tiles, a group in flight or none, a
// producer warpgroup, against cublasGemmEx with TF32 math.
TEST_F(GpuRunner, Tf32WgmmaProductsVerifyAgainstGemmEx) {
  if (runner_->arch() != "sm_90") GTEST_SKIP() << "wgmma runs on sm_90 only, not on " << runner_->device();
  const bool tf32 = true;
  for (const auto& [sizes, text] : std::vector<std::pair<std::map<std::string, int64_t>, std::string>>{
           {{{"M", 256}, {"N", 256}, {"K", 256}}, wgmmaRecipe("128,128", "64,128", 128, 4, "", tf32)},
           {{{"M", 1024}, {"N", 1024}, {"K", 1024}}, wgmmaRecipe("256,128", "128,128", 128, 4, "; raster 8", tf32)},
           {{{"M", 1000}, {"N", 1000}, {"K", 1000}}, wgmmaRecipe("256,128", "128,128", 128, 3, "", tf32)},
           {{{"M", 200}, {"N", 136}, {"K", 88}}, wgmmaRecipe("128,128", "64,128", 128, 3, " wait 0", tf32)},
           {{{"M", 512}, {"N", 512}, {"K", 512}}, wgmmaRecipe("256,128", "128,128", 128, 3, " producer", tf32)},
           {{{"M", 1000}, {"N", 1000}, {"K", 1000}},
            wgmmaRecipe("128,128", "64,128", 128, 2, " wait 0 producer", tf32)}})
    expectVerified({"tf32gemm.loop", sizes, text});
}

// A producer warpgroup's one thread filling the stages by the Tensor Memory Accelerator (`producer
// tma`): whole tiles, rastered; tiles past every edge (the boxes read zeros there), fewer strips
// than buffers, no group in flight; bfloat16 with two warpgroups that multiply and A's boxes of
// 256 rows; against cublasGemmEx.
TEST_F(GpuRunner, WgmmaTmaProductsVerifyAgainstGemmEx) {
  if (runner_->arch() != "sm_90") GTEST_SKIP() << "wgmma runs on sm_90 only, not on " << runner_->device();
  for (const ProductCase& c : {ProductCase{"hgemm.loop",
                                           {{"M", 1024}, {"N", 1024}, {"K", 1024}},
                                           wgmmaRecipe("128,256", "64,256", 256, 4, " producer tma; raster 8")},
                               ProductCase{"hgemm.loop",
                                           {{"M", 1000}, {"N", 1000}, {"K", 1000}},
                                           wgmmaRecipe("128,128", "64,128", 128, 3, " producer tma")},
                               ProductCase{"hgemm.loop",
                                           {{"M", 200}, {"N", 136}, {"K", 88}},
                                           wgmmaRecipe("128,128", "64,128", 128, 2, " wait 0 producer tma")},
                               ProductCase{"bf16gemm.loop",
                                           {{"M", 512}, {"N", 256}, {"K", 192}},
                                           wgmmaRecipe("256,128", "128,128", 128, 4, " producer tma")},
                               ProductCase{"bf16gemm.loop",
                                           {{"M", 1000}, {"N", 1000}, {"K", 1000}},
                                           wgmmaRecipe("128,256", "64,256", 256, 4, " producer tma")}})
    expectVerified(c, 2);
}

// Persistent blocks, few enough that each takes many tiles, the edges' tiles among them; and
// ping-pong groups of warpgroups on alternate tiles (one warpgroup a tile, and two), with and
// without a group of wgmma in flight, and a linear layer's bias added at the write-back; against
// cublasGemmEx (and cuBLASLt's BIAS epilogue).
TEST_F(GpuRunner, PersistentAndPingPongProductsVerifyAgainstGemmEx) {
  if (runner_->arch() != "sm_90") GTEST_SKIP() << "wgmma runs on sm_90 only, not on " << runner_->device();
  for (const ProductCase& c :
       {ProductCase{"hgemm.loop",
                    {{"M", 1000}, {"N", 1000}, {"K", 1000}},
                    wgmmaRecipe("128,128", "64,128", 128, 3, " producer tma; persistent 5")},
        ProductCase{"hgemm.loop",
                    {{"M", 1024}, {"N", 1024}, {"K", 520}},
                    wgmmaRecipe("64,256", "64,256", 256, 4, " producer tma; persistent 3 pingpong; raster 8")},
        ProductCase{"hgemm.loop",
                    {{"M", 1000}, {"N", 1000}, {"K", 1000}},
                    wgmmaRecipe("128,128", "128,128", 128, 4, " wait 0 producer tma; persistent 7 pingpong")},
        ProductCase{"bf16gemm.loop",
                    {{"M", 520}, {"N", 392}, {"K", 200}},
                    wgmmaRecipe("128,128", "64,128", 128, 3, " producer; persistent 2 pingpong")},
        ProductCase{"linear_half.loop",
                    {{"M", 1024}, {"N", 768}, {"K", 320}},
                    "tile i,j 64,256; map i_o grid.y; map j_o grid.x; map i block.y; map j block.x; regtile i,j "
                    "64,256; strip k 64; stage X at k_o swizzle; stage W at k_o swizzle slabs 64; map k_o async 4; "
                    "unroll k 64; wgmma i,j,k 64,256,16 producer tma; persistent 9 pingpong",
                    "cuBLASLt matmul"}})
    expectVerified(c, c.recipe.find("producer tma") != std::string::npos ? 2 : 0);
}

// tf32 with the instruction's M along the columns and A from registers (wgmma j,i,k): B staged as
// it lies in slabs of 32 columns, the threads loading their A fragments from it, the accumulators
// holding C transposed. Whole products at 4096^3 and smaller, uneven ones (tiles past every
// edge, a partial last strip), one warpgroup with two tiles of M, the stages filled by TMA, a
// producer's cp.async or the block, against cublasGemmEx with TF32 math.
std::string registerARecipe(const std::string& block, const std::string& group, int n, int buffers,
                            const std::string& more = "") {
  return "tile i,j " + block + "; map i_o grid.y; map j_o grid.x; map i block.x; map j block.y; regtile i,j " + group +
         "; strip k 32; stage A at k_o swizzle; stage B at k_o swizzle slabs 32; map k_o async " +
         std::to_string(buffers) + "; unroll k 32; wgmma j,i,k 64," + std::to_string(n) + ",8" + more;
}

TEST_F(GpuRunner, Tf32RegisterAWgmmaProductsVerifyAgainstGemmEx) {
  if (runner_->arch() != "sm_90") GTEST_SKIP() << "wgmma runs on sm_90 only, not on " << runner_->device();
  for (const auto& [sizes, text] : std::vector<std::pair<std::map<std::string, int64_t>, std::string>>{
           {{{"M", 4096}, {"N", 4096}, {"K", 4096}},
            registerARecipe("128,128", "128,64", 128, 4, " producer tma; raster 8")},
           {{{"M", 4096}, {"N", 4096}, {"K", 4096}},
            registerARecipe("256,128", "256,64", 256, 4, " producer tma; raster 8")},
           {{{"M", 1024}, {"N", 1024}, {"K", 1024}}, registerARecipe("128,256", "128,64", 128, 3, " producer tma")},
           {{{"M", 1000}, {"N", 1000}, {"K", 1000}}, registerARecipe("128,128", "128,64", 128, 4, " producer tma")},
           {{{"M", 257}, {"N", 520}, {"K", 300}}, registerARecipe("256,128", "256,64", 256, 3, " producer tma")},
           {{{"M", 200}, {"N", 136}, {"K", 88}}, registerARecipe("128,128", "128,64", 128, 2, " wait 0 producer tma")},
           {{{"M", 1000}, {"N", 1000}, {"K", 1000}}, registerARecipe("128,128", "128,64", 128, 4, " producer")},
           {{{"M", 257}, {"N", 520}, {"K", 300}}, registerARecipe("128,128", "128,64", 128, 3)},
           // One warpgroup with two 64-column tiles of M.
           {{{"M", 520}, {"N", 264}, {"K", 200}}, registerARecipe("128,128", "128,128", 128, 3, " producer tma")}})
    expectVerified({"tf32gemm.loop", sizes, text});
}

// Clusters of two blocks sharing a stage by TMA multicast: B's along grid.y, A's along grid.x;
// rastered, persistent (few blocks, each pair taking many pairs of tiles, the edges' among them),
// tiles past every edge (zeros multicast), tf32 from registers with float operands read as tf32,
// and a linear layer's bias; against cublasGemmEx (cuBLASLt's BIAS epilogue, TF32 for floats).
TEST_F(GpuRunner, ClustersSharingStagesByMulticastVerify) {
  if (runner_->arch() != "sm_90") GTEST_SKIP() << "clusters multicast on sm_90 only, not on " << runner_->device();
  for (const ProductCase& c :
       {ProductCase{"hgemm.loop",
                    {{"M", 1024}, {"N", 1024}, {"K", 1024}},
                    wgmmaRecipe("128,256", "64,256", 256, 4, " producer tma; cluster 2 grid.y; raster 8")},
        ProductCase{"hgemm.loop",
                    {{"M", 1000}, {"N", 1000}, {"K", 1000}},
                    wgmmaRecipe("128,128", "64,128", 128, 3, " producer tma; cluster 2 grid.x")},
        ProductCase{"bf16gemm.loop",
                    {{"M", 1000}, {"N", 1000}, {"K", 1000}},
                    wgmmaRecipe("128,128", "64,128", 128, 4, " producer tma; persistent 6; cluster 2 grid.y")},
        ProductCase{
            "hgemm.loop",
            {{"M", 1024}, {"N", 1024}, {"K", 520}},
            wgmmaRecipe("128,256", "64,256", 256, 4, " producer tma; persistent 132; cluster 2 grid.y; raster 8")},
        ProductCase{"linear_half.loop",
                    {{"M", 1024}, {"N", 768}, {"K", 320}},
                    "tile i,j 128,256; map i_o grid.y; map j_o grid.x; map i block.y; map j block.x; regtile i,j "
                    "64,256; strip k 64; stage X at k_o swizzle; stage W at k_o swizzle slabs 64; map k_o async 4; "
                    "unroll k 64; wgmma i,j,k 64,256,16 producer tma; persistent 4; cluster 2 grid.y",
                    "cuBLASLt matmul"}})
    expectVerified(c, 2);
  expectVerified({"matmul.loop",
                  {{"M", 1000}, {"N", 1000}, {"K", 1000}},
                  registerARecipe("128,128", "128,64", 128, 4, " producer tma; cluster 2 grid.x"),
                  "cuBLAS",
                  Precision::Tf32});
}

// FP32 on tensor cores as three tf32 products (tf32x3): float operands in the register-A form,
// the TMA producer's warpgroup splitting A's strips into a second copy of the stage, the tensor
// cores' sums of one to four strips promoted into fp32 registers. Held, as every float kernel, to
// twice cuBLAS SGEMM's own error against DGEMM on the same inputs: whole products, uneven ones
// (tiles past every edge, a partial last strip, a last promotion of fewer strips), two buffers
// (each strip split right after its copies are issued) and a block of one warpgroup.
TEST_F(GpuRunner, Tf32x3ProductsVerifyAgainstCublasSgemm) {
  if (runner_->arch() != "sm_90") GTEST_SKIP() << "wgmma runs on sm_90 only, not on " << runner_->device();
  for (const auto& [sizes, text] : std::vector<std::pair<std::map<std::string, int64_t>, std::string>>{
           {{{"M", 4096}, {"N", 4096}, {"K", 4096}},
            registerARecipe("128,128", "128,64", 128, 4, " producer tma tf32x3 promote 1; raster 8")},
           {{{"M", 1000}, {"N", 1000}, {"K", 1000}},
            registerARecipe("64,128", "64,64", 64, 4, " producer tma tf32x3 promote 2")},
           {{{"M", 257}, {"N", 520}, {"K", 300}},
            registerARecipe("128,64", "128,64", 128, 3, " producer tma tf32x3 promote 2")},
           {{{"M", 200}, {"N", 136}, {"K", 88}},
            registerARecipe("128,128", "128,64", 128, 2, " producer tma tf32x3 promote 2")},
           {{{"M", 128}, {"N", 64}, {"K", 64}},
            registerARecipe("128,64", "128,64", 128, 4, " producer tma tf32x3 promote 1")}})
    expectVerified({"matmul.loop", sizes, text, "cuBLAS SGEMM"});
}

// Float operands read as tf32, one product each, as --precision tf32 offers them: A from
// registers (rounded to tf32 as they are loaded) and B by descriptor; mma.sync on a product and on
// a convolution's implicit GEMM (both operands rounded); whole and uneven products; held to twice
// the error of cuBLAS and cuDNN with TF32 tensor cores. Refused: under the strict contract (whose
// bound is SGEMM's), and both operands by descriptor (wgmma truncates them, where the libraries
// round: about 2.6 times their error).
TEST_F(GpuRunner, FloatProductsReadAsTf32VerifyAgainstTheLibrariesInTf32) {
  if (runner_->arch() != "sm_90") GTEST_SKIP() << "wgmma runs on sm_90 only, not on " << runner_->device();
  const std::string mmaSync =
      "tile i,j 128,128; map i_o grid.y; map j_o grid.x; map i block.y; map j block.x; regtile i,j 64,32; "
      "strip k 32; stage A at k_o swizzle; stage B at k_o swizzle; map k_o async 4; unroll k 32; mma i,j,k 16,8,8";
  for (const auto& [sizes, text] : std::vector<std::pair<std::map<std::string, int64_t>, std::string>>{
           {{{"M", 2048}, {"N", 2048}, {"K", 2048}},
            registerARecipe("256,128", "256,64", 256, 4, " producer tma; raster 8")},
           {{{"M", 257}, {"N", 520}, {"K", 300}}, registerARecipe("128,128", "128,64", 128, 3, " producer tma")},
           {{{"M", 1000}, {"N", 1000}, {"K", 1000}}, registerARecipe("128,128", "128,64", 128, 4, " producer")},
           // B stored transposed (K-major), its fragments loaded from rows of k.
           {{{"M", 520}, {"N", 264}, {"K", 200}},
            std::regex_replace(registerARecipe("128,128", "128,64", 128, 3, " producer"),
                               std::regex("stage B at k_o swizzle slabs 32"), "stage B at k_o transposed swizzle")},
           {{{"M", 200}, {"N", 136}, {"K", 88}}, mmaSync}})
    expectVerified({"matmul.loop", sizes, text, "cuBLAS", Precision::Tf32});
  expectVerified({"conv2d_nhwc.loop",
                  {{"N", 2}, {"C", 64}, {"H", 14}, {"W", 12}, {"K", 64}},
                  "collapse r,s,c; collapse n,oh,ow; tile n_oh_ow,k 128,64; map n_oh_ow_o grid.y; map k_o grid.x; "
                  "map n_oh_ow block.y; map k block.x; regtile n_oh_ow,k 32,32; strip r_s_c 32; stage In at r_s_c_o "
                  "transposed pad 4; stage Wt at r_s_c_o transposed pad 4; unroll r_s_c 32; map r_s_c_o async; "
                  "mma n_oh_ow,k,r_s_c 16,8,8",
                  "cuDNN",
                  Precision::Tf32});
  // The same on wgmma, the filters' fragments loaded from their gather into registers and rounded,
  // the pixels' read by descriptor: the gathers filled by a producer warpgroup or by the block.
  const std::string registerConv =
      "collapse r,s,c; collapse n,oh,ow; tile n_oh_ow,k 128,128; map n_oh_ow_o grid.y; map k_o grid.x; "
      "map n_oh_ow block.x; map k block.y; regtile n_oh_ow,k 128,64; strip r_s_c 32; stage In at r_s_c_o "
      "transposed swizzle; stage Wt at r_s_c_o transposed swizzle; unroll r_s_c 32; map r_s_c_o async ";
  for (const std::string& recipe : {registerConv + "4; wgmma k,n_oh_ow,r_s_c 64,128,8 producer",
                                    registerConv + "3; wgmma k,n_oh_ow,r_s_c 64,128,8"})
    expectVerified({"conv2d_nhwc.loop",
                    {{"N", 2}, {"C", 64}, {"H", 14}, {"W", 12}, {"K", 128}},
                    recipe,
                    "cuDNN",
                    Precision::Tf32});
  Kernel k = testing::loadExample("matmul.loop", {{"M", 1024}, {"N", 1024}, {"K", 2048}});
  MeasureOptions tf32;
  tf32.precision = Precision::Tf32;
  auto registerA = emitUnder(k, registerARecipe("128,128", "128,64", 128, 4, " producer tma"));
  ASSERT_TRUE(registerA);
  RunResult strict = runner_->measure(k, *registerA, build(*registerA));
  EXPECT_EQ(strict.status, RunStatus::Wrong) << strict.reason;
  auto truncated = emitUnder(k, wgmmaRecipe("256,128", "128,128", 128, 3, " producer", true));
  ASSERT_TRUE(truncated);
  RunResult both = runner_->measure(k, *truncated, build(*truncated), tf32);
  EXPECT_EQ(both.status, RunStatus::Wrong) << both.reason;
  EXPECT_GT(both.error, 2 * both.libraryError);
}

// Split-K on tf32x3 (as the grammar offers it where the tiles are too few for the GPU): the
// reduction's parts on grid.z, each filling its stages by TMA from its own range of k, their tiles
// added into the zeroed outputs atomically. Held to twice cuBLAS SGEMM's error as any float
// kernel: 512^3 (16 tiles of 128 x 128, 64 of 64 x 64), 256 x 256 x 65536 (a long reduction beside
// few tiles), and an uneven product whose last part is shorter, its partial strip zero past K.
TEST_F(GpuRunner, SplitTf32x3ProductsVerifyAgainstCublasSgemm) {
  if (runner_->arch() != "sm_90") GTEST_SKIP() << "wgmma runs on sm_90 only, not on " << runner_->device();
  auto split = [](int parts, const std::string& block, const std::string& group, int n, const std::string& promote) {
    std::string recipe = registerARecipe(block, group, n, 4, " producer tma tf32x3" + promote);
    recipe.replace(recipe.find("map i_o grid.y"), 0, "map k_s grid.z; ");
    return "split k " + std::to_string(parts) + "; " + recipe;
  };
  for (const auto& [sizes, text] : std::vector<std::pair<std::map<std::string, int64_t>, std::string>>{
           {{{"M", 512}, {"N", 512}, {"K", 512}}, split(4, "128,128", "128,64", 128, " promote 1")},
           {{{"M", 512}, {"N", 512}, {"K", 512}}, split(2, "64,64", "64,64", 64, " promote 2")},
           {{{"M", 256}, {"N", 256}, {"K", 65536}}, split(8, "64,64", "64,64", 64, " promote 1")},
           {{{"M", 256}, {"N", 256}, {"K", 65536}}, split(8, "128,128", "128,64", 128, " promote 2")},
           {{{"M", 100}, {"N", 200}, {"K", 508}}, split(8, "128,128", "128,64", 128, " promote 2")}})
    expectVerified({"matmul.loop", sizes, text, "cuBLAS SGEMM"});
}

// tf32x3 where TMA cannot copy the rows (127 x 4099 x 513: rows of 513 and 4099 floats, no
// multiple of 16 bytes, and M = 127 past a tile's edge): the producer warpgroup's threads fill the
// stages by cp.async, zero past every edge, and split A's strips. Held to twice cuBLAS SGEMM's
// error: tiles of 64 rows (one warpgroup's N), of 128, and split into parts.
TEST_F(GpuRunner, Tf32x3ProductsFilledByCpAsyncVerifyAgainstCublasSgemm) {
  if (runner_->arch() != "sm_90") GTEST_SKIP() << "wgmma runs on sm_90 only, not on " << runner_->device();
  const std::map<std::string, int64_t> odd{{"M", 127}, {"N", 4099}, {"K", 513}};
  std::string split = registerARecipe("64,64", "64,64", 64, 4, " producer tf32x3 promote 1");
  split.replace(split.find("map i_o grid.y"), 0, "map k_s grid.z; ");
  for (const auto& [sizes, text] : std::vector<std::pair<std::map<std::string, int64_t>, std::string>>{
           {odd, registerARecipe("64,64", "64,64", 64, 4, " producer tf32x3 promote 2")},
           {odd, registerARecipe("64,128", "64,64", 64, 3, " producer tf32x3 promote 1")},
           {odd, registerARecipe("128,64", "128,64", 128, 4, " producer tf32x3 promote 2")},
           {{{"M", 127}, {"N", 4099}, {"K", 1023}}, "split k 2; " + split}})
    expectVerified({"matmul.loop", sizes, text, "cuBLAS SGEMM"});
}

// The contract decides: tf32x3 summed on the tensor cores alone errs by K / 8 units of fp32 (2.9e-5
// at K = 4096), past twice SGEMM's error, so it is wrong under --precision strict, with both errors
// said; under --precision tf32, held to cuBLAS's TF32 error, it passes.
TEST_F(GpuRunner, PrecisionContractTakesTheLibrarysErrorAsTheBound) {
  if (runner_->arch() != "sm_90") GTEST_SKIP() << "wgmma runs on sm_90 only, not on " << runner_->device();
  Kernel k = testing::loadExample("matmul.loop", {{"M", 2048}, {"N", 2048}, {"K", 4096}});
  auto e = emitUnder(k, registerARecipe("128,128", "128,64", 128, 4, " producer tma tf32x3; raster 8"));
  ASSERT_TRUE(e);
  CompileResult binary = build(*e);
  RunResult strict = runner_->measure(k, *e, binary);
  EXPECT_EQ(strict.status, RunStatus::Wrong) << strict.reason;
  EXPECT_GT(strict.libraryError, 0);
  EXPECT_GT(strict.error, 2 * strict.libraryError);
  EXPECT_NE(strict.reason.find("exceeds the bound"), std::string::npos) << strict.reason;
  MeasureOptions tf32;
  tf32.precision = Precision::Tf32;
  RunResult loose = runner_->measure(k, *e, binary, tf32);
  EXPECT_EQ(loose.status, RunStatus::Ok) << loose.reason;
  EXPECT_GT(loose.libraryError, strict.libraryError);  // TF32's own error is the larger
  EXPECT_LE(loose.error, 2 * loose.libraryError);
  EXPECT_NE(loose.reference.find("tf32"), std::string::npos) << loose.reference;
}

// Tensor cores on implicit GEMMs of half NHWC convolutions (gathers of 8 channels by cp.async or
// through registers, 3 channels an element at a time, pixels that fill no whole tile) and the
// naive nest, against cuDNN's tensor-op convolution of half operands (a half output, widened).
TEST_F(GpuRunner, TensorCoreConvolutionsVerifyAgainstCudnn) {
  auto recipe = [](const std::string& tile, const std::string& warp, int strip, const std::string& buffering) {
    std::string d = std::to_string(strip);
    return "collapse r,s,c; collapse n,oh,ow; tile n_oh_ow,k " + tile +
           "; map n_oh_ow_o grid.y; map k_o grid.x; "
           "map n_oh_ow block.y; map k block.x; regtile n_oh_ow,k " +
           warp + "; strip r_s_c " + d +
           "; stage In at r_s_c_o transposed pad 8; stage Wt at r_s_c_o transposed pad 8; " + buffering +
           "unroll r_s_c " + d + "; mma n_oh_ow,k,r_s_c 16,8,16";
  };
  struct Case {
    std::map<std::string, int64_t> sizes;
    std::string recipe;
  };
  const std::map<std::string, int64_t> even = {{"N", 4}, {"C", 64}, {"H", 16}, {"W", 16}, {"K", 64}};
  const std::map<std::string, int64_t> narrow = {{"N", 2},  {"C", 3}, {"H", 15}, {"W", 13},
                                                 {"K", 32}, {"R", 4}, {"S", 4},  {"P", 2}};
  for (const Case& c : {Case{even, recipe("128,64", "64,32", 32, "map r_s_c_o async; ")},
                        Case{even, recipe("64,64", "32,32", 16, "map r_s_c_o pipelined; ")},
                        Case{{{"N", 2}, {"C", 32}, {"H", 10}, {"W", 9}, {"K", 48}},
                             recipe("64,32", "32,16", 32, "map r_s_c_o async; ")},
                        Case{narrow, recipe("64,32", "32,16", 16, "map r_s_c_o async; ")}, Case{narrow, ""}}) {
    SCOPED_TRACE(c.recipe);
    Kernel k = testing::loadExample("conv2d_nhwc_half.loop", c.sizes);
    auto e = !c.recipe.empty() ? emitUnder(k, c.recipe) : std::optional<CudaKernel>(*emitKernel(k).kernel);
    ASSERT_TRUE(e);
    RunResult r = runner_->measure(k, *e, build(*e));
    EXPECT_EQ(r.status, RunStatus::Ok) << r.reason;
    EXPECT_EQ(r.reference.rfind("cuDNN convolution (half)", 0), 0u) << r.reference;
  }
  ReferenceTiming t = runner_->reference(testing::loadExample("conv2d_nhwc_half.loop", even));
  ASSERT_EQ(t.status, RunStatus::Ok) << t.reason;
  EXPECT_EQ(t.library.rfind("cuDNN convolution (half, ", 0), 0u) << t.library;
}

// Implicit GEMMs on wgmma (sm_90 only): channels-last convolutions of half operands at small
// uneven sizes (partial tiles of pixels and filters, 32 channels: the last strip partial; padding
// 2, stride 2, 1x1 taps), the gathers filled by the warpgroups or by a producer warpgroup, agree
// with cuDNN; so do all-half layers.
TEST_F(GpuRunner, WgmmaConvolutionsVerifyAgainstCudnn) {
  if (runner_->arch() != "sm_90") GTEST_SKIP() << "wgmma runs on sm_90 only, not on " << runner_->device();
  auto recipe = [](const std::string& tile, const std::string& group, int n, const std::string& more) {
    return "collapse r,s,c; collapse n,oh,ow; tile n_oh_ow,k " + tile +
           "; map n_oh_ow_o grid.y; map k_o grid.x; "
           "map n_oh_ow block.y; map k block.x; regtile n_oh_ow,k " +
           group +
           "; strip r_s_c 64; "
           "stage In at r_s_c_o transposed swizzle; stage Wt at r_s_c_o transposed swizzle; map r_s_c_o async 4; "
           "unroll r_s_c 64; wgmma n_oh_ow,k,r_s_c 64," +
           std::to_string(n) + ",16" + more;
  };
  auto twoBuffers = [](std::string r) { return r.replace(r.find("async 4"), 7, "async 2"); };
  struct Case {
    const char* file;
    std::map<std::string, int64_t> sizes;
    std::string recipe;
  };
  const std::map<std::string, int64_t> uneven = {{"N", 3}, {"C", 64}, {"H", 13}, {"W", 11}, {"K", 96}};
  for (const Case& c : {Case{"conv2d_nhwc_half.loop", uneven, recipe("128,128", "64,128", 128, "")},
                        Case{"conv2d_nhwc_half.loop", uneven, recipe("128,64", "64,64", 64, " producer")},
                        Case{"conv2d_nhwc_half.loop",
                             {{"N", 2}, {"C", 32}, {"H", 9}, {"W", 10}, {"K", 64}},
                             recipe("256,64", "128,64", 64, "")},
                        Case{"conv2d_nhwc_half.loop",
                             {{"N", 2}, {"C", 64}, {"H", 12}, {"W", 11}, {"K", 64}, {"R", 4}, {"S", 4}, {"P", 2}},
                             recipe("64,64", "64,64", 64, "")},
                        Case{"conv2d_nhwc_half.loop",
                             {{"N", 4}, {"C", 64}, {"H", 15}, {"W", 15}, {"K", 128}, {"ST", 2}},
                             recipe("128,128", "64,128", 128, "")},
                        Case{"conv2d_nhwc_half.loop",
                             {{"N", 4}, {"C", 128}, {"H", 14}, {"W", 14}, {"K", 192}, {"R", 1}, {"S", 1}, {"P", 0}},
                             recipe("128,192", "64,192", 192, "")},
                        // All half (a half output from fp32 sums, stored a __half2 at a time), against cuDNN's half
                        // output as it is: a partial last tile of pixels; a 1x1 layer of one strip in two buffers.
                        Case{"conv2d_nhwc_fp16.loop", uneven, recipe("128,128", "64,128", 128, "")},
                        Case{"conv2d_nhwc_fp16.loop",
                             {{"N", 3}, {"C", 64}, {"H", 9}, {"W", 11}, {"K", 256}, {"R", 1}, {"S", 1}, {"P", 0}},
                             twoBuffers(recipe("128,256", "64,256", 256, " wait 0"))},
                        Case{"conv2d_nhwc_fp16.loop",
                             {{"N", 3}, {"C", 64}, {"H", 9}, {"W", 11}, {"K", 128}, {"R", 1}, {"S", 1}, {"P", 0}},
                             twoBuffers(recipe("64,128", "64,128", 128, " wait 0 producer"))}}) {
    SCOPED_TRACE(std::string(c.file) + ": " + c.recipe);
    Kernel k = testing::loadExample(c.file, c.sizes);
    auto e = emitUnder(k, c.recipe);
    ASSERT_TRUE(e);
    RunResult r = runner_->measure(k, *e, build(*e));
    EXPECT_EQ(r.status, RunStatus::Ok) << r.reason;
    EXPECT_EQ(r.reference.rfind("cuDNN convolution (", 0), 0u) << r.reference;
  }
}

// The convolution reference is the fastest of cuDNN's legacy algorithms and its graph API's
// engines, named either way; its output agrees with the exact nest (channels first and last, float
// with FMA math and half on tensor cores, a 1x1 and a strided layer).
TEST_F(GpuRunner, FastestConvolutionEngineIsNamedAndAgreesWithTheExactNest) {
  struct EngineCase {
    const char* file;
    std::map<std::string, int64_t> sizes;
    const char* prefix;  // of the library's name, before the algorithm
    double most;         // the largest error expected
  };
  for (const EngineCase& c :
       {EngineCase{"conv2d.loop", {{"N", 4}, {"C", 32}, {"H", 20}, {"W", 18}, {"K", 48}}, "cuDNN convolution (", 1e-5},
        EngineCase{
            "conv2d_nhwc.loop", {{"N", 4}, {"C", 32}, {"H", 20}, {"W", 18}, {"K", 48}}, "cuDNN convolution (", 1e-5},
        EngineCase{"conv2d_nhwc_half.loop",
                   {{"N", 8}, {"C", 64}, {"H", 28}, {"W", 28}, {"K", 64}},
                   "cuDNN convolution (half, ",
                   1e-2},
        EngineCase{"conv2d_nhwc_half.loop",
                   {{"N", 8}, {"C", 64}, {"H", 28}, {"W", 28}, {"K", 128}, {"R", 1}, {"S", 1}, {"P", 0}, {"ST", 2}},
                   "cuDNN convolution (half, ",
                   1e-2}}) {
    SCOPED_TRACE(c.file);
    Kernel k = testing::loadExample(c.file, c.sizes);
    ReferenceTiming t = runner_->reference(k);
    ASSERT_EQ(t.status, RunStatus::Ok) << t.reason;
    EXPECT_GT(t.ms, 0);
    EXPECT_EQ(t.library.rfind(c.prefix, 0), 0u) << t.library;
    std::printf("%s: %s, %.4f ms\n", c.file, t.library.c_str(), t.ms);
    RunResult r = measureNaive(k);
    EXPECT_EQ(r.status, RunStatus::Ok) << r.reason;
    EXPECT_GE(r.libraryError, 0);
    EXPECT_LT(r.libraryError, c.most);
  }
}

TEST_F(GpuRunner, WinogradConvolutionsVerifyAgainstCudnnWithinTheirBound) {
  // F(2x2,3x3) and F(4x4,3x3), channels first and last, uneven sizes: partial tiles at the image's
  // edges and across images, a partial last strip of channels and block of filters, no padding;
  // prefetched strips, several points a thread, outputs in two passes. Each within the Winograd
  // bound of cuDNN, and below the bound of the direct nest for F(2x2).
  const std::vector<std::pair<std::string, std::map<std::string, int64_t>>> layers = {
      {"conv2d.loop", {{"N", 3}, {"C", 13}, {"H", 19}, {"W", 17}, {"K", 40}}},
      {"conv2d.loop", {{"N", 2}, {"C", 64}, {"H", 14}, {"W", 14}, {"K", 64}, {"P", 0}}},
      {"conv2d_nhwc.loop", {{"N", 3}, {"C", 13}, {"H", 19}, {"W", 17}, {"K", 40}}},
  };
  for (const auto& [example, sizes] : layers) {
    Kernel k = testing::loadExample(example, sizes);
    for (const char* recipe :
         {"winograd oh,ow 2", "winograd oh,ow 2 block 32,64,8 thread 8,8,2 prefetch",
          "winograd oh,ow 4 block 16,32,8 thread 4,8,2", "winograd oh,ow 4 block 16,32,4 thread 4,8,2",
          "winograd oh,ow 4 block 16,32,8 thread 4,8,3 prefetch"}) {
      SCOPED_TRACE(example + " " + std::to_string(k.size("C")) + " channels: " + recipe);
      auto e = emitUnder(k, recipe);
      ASSERT_TRUE(e);
      RunResult r = runner_->measure(k, *e, build(*e));
      EXPECT_EQ(r.status, RunStatus::Ok) << r.reason << " (" << r.reference << ")";
      EXPECT_EQ(r.reference.rfind("cuDNN", 0), 0u) << r.reference;
      EXPECT_LT(r.error, e->minTolerance);
    }
  }
}

TEST_F(GpuRunner, BackToBackProductsVerifyAgainstTheFp64Nests) {
  // Two products back to back in one kernel, a block's rows of H kept on chip (the b2b step): the
  // MLP plain and with its biases and GELU, small and at the examples' own sizes, each output (H
  // and Y) against the FP64 pair run a thread a row.
  const std::vector<std::map<std::string, int64_t>> shapes = {{{"M", 256}, {"D", 128}, {"F", 64}}, {}};
  for (const char* example : {"mlp2.loop", "mlp2_bias_gelu.loop"})
    for (const auto& sizes : shapes) {
      Kernel k = testing::loadExample(example, sizes);
      for (const char* recipe :
           {"b2b i,r 32,128 4,4 strip 16", "b2b i,r 16,64 2,4 strip 8", "b2b i,r 64,128 8,8 strip 16"}) {
        SCOPED_TRACE(std::string(example) + " M=" + std::to_string(k.size("M")) + ": " + recipe);
        auto e = emitUnder(k, recipe);
        ASSERT_TRUE(e);
        RunResult r = runner_->measure(k, *e, build(*e));
        EXPECT_EQ(r.status, RunStatus::Ok) << r.reason;
        EXPECT_EQ(r.reference, "FP64 reference");
      }
    }
}

TEST_F(GpuRunner, PeeledEdgesVerify) {
  // Partial tiles on both sides and a partial last strip (127x4099x513): whole tiles and strips
  // run without guards, the register work rounded up past the edges; each buffering, and a split
  // reduction whose parts end at different places, against cuBLAS.
  Kernel k = testing::loadExample("matmul.loop", {{"M", 127}, {"N", 4099}, {"K", 513}});
  const std::string tiles =
      "tile i,j 64,128; map i_o grid.y; map j_o grid.x; map i block.y; map j block.x; "
      "regtile i,j 8,4; strip k 16; stage A at k_o transposed; stage B at k_o; ";
  for (const char* rest :
       {"unroll k 16; roundup; peel i_o,j_o,k_o",
        "map k_o pipelined; unroll k 16; lanes 4,8; roundup; peel i_o,j_o,k_o",
        "map k_o async; unroll k 16; roundup; peel i_o,j_o,k_o", "map k_o pipelined; unroll k 16; roundup"}) {
    SCOPED_TRACE(rest);
    auto e = emitUnder(k, tiles + rest);
    ASSERT_TRUE(e);
    RunResult r = runner_->measure(k, *e, build(*e));
    EXPECT_EQ(r.status, RunStatus::Ok) << r.reason;
  }
  auto split = emitUnder(k, "split k 3; map k_s grid.z; " + tiles +
                                "map k_o pipelined; unroll k 16; roundup; "
                                "peel i_o,j_o,k_o");
  ASSERT_TRUE(split);
  RunResult r = runner_->measure(k, *split, build(*split));
  EXPECT_EQ(r.status, RunStatus::Ok) << r.reason;
}

TEST_F(GpuRunner, SplitPartsCombinedInAWorkspaceVerify) {
  // Each part stores its sums, the last of a tile adds them up: verified on the second launch of
  // fresh arrays, so that a launch that left a counter set would fail. Partial tiles and strips
  // (peeled), rastered blocks, and a convolution's gathered split, against cuBLAS and cuDNN.
  Kernel k = testing::loadExample("matmul.loop", {{"M", 127}, {"N", 4099}, {"K", 513}});
  const std::string tiles =
      "tile i,j 64,64; map i_o grid.y; map j_o grid.x; map i block.y; map j block.x; "
      "regtile i,j 8,4; strip k 16; stage A at k_o transposed; stage B at k_o; "
      "map k_o pipelined; unroll k 16; ";
  for (const std::string& recipe : {"split k 2 workspace; map k_s grid.z; " + tiles + "roundup; peel i_o,j_o,k_o",
                                    "split k 5 workspace; map k_s grid.z; " + tiles + "lanes 4,8; raster 8"}) {
    SCOPED_TRACE(recipe);
    auto e = emitUnder(k, recipe);
    ASSERT_TRUE(e);
    ASSERT_FALSE(e->workspaces.empty());
    RunResult r = runner_->measure(k, *e, build(*e));
    EXPECT_EQ(r.status, RunStatus::Ok) << r.reason << " (" << r.reference << ")";
    EXPECT_GT(r.ms, 0);
  }
  // Columns stored 4 at a time elsewhere: the sums go to the workspace lane by lane.
  Kernel even = testing::loadExample("matmul.loop", {{"M", 1000}, {"N", 1000}, {"K", 300}});
  auto vectorized = emitUnder(even, "split k 2 workspace; map k_s grid.z; " + tiles +
                                        "vectorize j 4; roundup; "
                                        "peel i_o,j_o,k_o");
  ASSERT_TRUE(vectorized);
  RunResult v = runner_->measure(even, *vectorized, build(*vectorized));
  EXPECT_EQ(v.status, RunStatus::Ok) << v.reason << " (" << v.reference << ")";
  Kernel conv = testing::loadExample("conv2d.loop", {{"N", 2}, {"C", 7}, {"H", 9}, {"W", 10}, {"K", 40}});
  auto e = emitUnder(conv,
                     "collapse c,r,s into q; split q 3 workspace; interchange n k; collapse n,oh,ow into m; "
                     "tile k,m 32,64; map q_s grid.z; map k_o grid.y; map m_o grid.x; map k block.y; "
                     "map m block.x; regtile k,m 4,4; strip q 8; stage In at q_o; stage Wt at q_o; unroll q 8; "
                     "map q_o pipelined");
  ASSERT_TRUE(e);
  RunResult r = runner_->measure(conv, *e, build(*e, true));
  EXPECT_EQ(r.status, RunStatus::Ok) << r.reason << " (" << r.reference << ")";
}

TEST_F(GpuRunner, SplitImplicitGemmsVerifyAgainstCudnn) {
  // The gathered reduction (c*r*s) split into parts on grid.z, each part's strips gathered from
  // where it starts, the last one of a part cut and read past into the next part's taps, which it
  // must not count; combined atomically.
  Kernel k = testing::loadExample("conv2d.loop", {{"N", 2}, {"C", 7}, {"H", 9}, {"W", 10}, {"K", 40}});
  for (const char* rest : {"split q 3; interchange n k; collapse n,oh,ow into m; tile k,m 32,64; map q_s grid.z; ",
                           "split q 4; interchange n k; collapse n,oh,ow into m; tile k,m 32,64; map q_s grid.z; "}) {
    for (const char* buffering : {"", "; map q_o pipelined", "; map q_o async"}) {
      std::string recipe = std::string("collapse c,r,s into q; ") + rest +
                           "map k_o grid.y; map m_o grid.x; map k block.y; map m block.x; regtile k,m 4,4; "
                           "strip q 8; stage In at q_o; stage Wt at q_o; unroll q 8" +
                           buffering;
      SCOPED_TRACE(recipe);
      auto e = emitUnder(k, recipe);
      ASSERT_TRUE(e);
      RunResult r = runner_->measure(k, *e, build(*e, true));
      EXPECT_EQ(r.status, RunStatus::Ok) << r.reason << " (" << r.reference << ")";
    }
  }
}

TEST_F(GpuRunner, RasteredBlocksVerify) {
  // Blocks numbered a few rows at a time (groups that divide the grid's rows and one that does
  // not), with peeled edges, beside a split's parts on grid.z, and a batch on grid.z with both
  // operands staged transposed.
  Kernel k = testing::loadExample("matmul.loop", {{"M", 1000}, {"N", 1000}, {"K", 100}});
  const std::string tiles =
      "tile i,j 64,64; map i_o grid.y; map j_o grid.x; map i block.y; map j block.x; "
      "regtile i,j 4,4; strip k 16; stage A at k_o transposed; stage B at k_o; "
      "map k_o pipelined; unroll k 16; ";
  for (const std::string& recipe :
       {tiles + "raster 4", tiles + "raster 3", tiles + "roundup; peel i_o,j_o,k_o; raster 8",
        "split k 2; map k_s grid.z; " + tiles + "raster 8"}) {
    SCOPED_TRACE(recipe);
    auto e = emitUnder(k, recipe);
    ASSERT_TRUE(e);
    RunResult r = runner_->measure(k, *e, build(*e));
    EXPECT_EQ(r.status, RunStatus::Ok) << r.reason;
  }
  Kernel bt = testing::loadExample("matmul_bt.loop", {{"BATCH", 3}, {"M", 200}, {"N", 136}, {"K", 50}});
  auto e = emitUnder(bt,
                     "map b grid.z; tile i,j 32,32; map i_o grid.y; map j_o grid.x; map i block.y; map j block.x; "
                     "regtile i,j 4,4; strip k 8; stage A at k_o transposed; stage B at k_o transposed; unroll k 8; "
                     "map k_o pipelined; raster 2");
  ASSERT_TRUE(e);
  RunResult r = runner_->measure(bt, *e, build(*e));
  EXPECT_EQ(r.status, RunStatus::Ok) << r.reason;
}

// A fused layer's library reference (the library call with its epilogue, or followed by the
// element-wise pass) computes the nest's outputs: its own error against the FP64 nest is that of
// the product alone, where a missing bias or activation would be of the order of the outputs.
TEST_F(GpuRunner, FusedLayersVerifyAgainstTheirFusedLibraryReference) {
  struct Case {
    const char* example;
    std::map<std::string, int64_t> sizes;
    const char* library;  // the start of the reference's name
    const char* fused;    // its end
    double most;          // the library's own error at most
  };
  const std::map<std::string, int64_t> linear = {{"M", 256}, {"N", 192}, {"K", 96}};
  const Case cases[] = {
      {"linear_relu.loop", linear, "cuBLASLt matmul", "+ RELU_BIAS epilogue", 1e-5},
      {"linear_gelu.loop", linear, "cuBLASLt matmul", "+ GELU_BIAS epilogue", 1e-5},
      {"linear_half.loop", linear, "cuBLASLt matmul (half", "+ BIAS epilogue", 2e-3},  // rounded to half once
      {"resnet_bn_relu.loop",
       {{"N", 2}, {"C", 8}, {"H", 14}, {"W", 12}, {"K", 16}},
       "cuDNN convolution",
       "+ element-wise epilogue",
       1e-5},
      {"bottleneck_shortcut.loop",
       {{"N", 2}, {"C", 16}, {"H", 10}, {"W", 12}, {"K", 24}},
       "cuDNN convolution",
       "+ element-wise epilogue",
       1e-5},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.example);
    Kernel k = testing::loadExample(c.example, c.sizes);
    RunResult r = measureNaive(k);
    EXPECT_EQ(r.status, RunStatus::Ok) << r.reason << " (" << r.reference << ")";
    EXPECT_EQ(r.reference.rfind(c.library, 0), 0u) << r.reference;
    EXPECT_NE(r.reference.find(c.fused), std::string::npos) << r.reference;
    EXPECT_GE(r.libraryError, 0);
    EXPECT_LT(r.libraryError, c.most);
    ReferenceTiming t = runner_->reference(k);
    ASSERT_TRUE(t.ok()) << t.reason;
    EXPECT_GT(t.ms, 0);
    EXPECT_NE(t.library.find(c.fused), std::string::npos) << t.library;
  }
}

TEST_F(GpuRunner, ReferenceLibraryIsTimed) {
  ReferenceTiming t = runner_->reference(testing::loadExample("matmul.loop", {{"M", 512}, {"N", 512}, {"K", 512}}));
  ASSERT_EQ(t.status, RunStatus::Ok) << t.reason;
  EXPECT_TRUE(t.library == "cuBLAS SGEMM" || t.library.rfind("cuBLASLt matmul (algo ", 0) == 0) << t.library;
  EXPECT_GT(t.ms, 0);
  EXPECT_GT(t.tflops, 0);
}

}  // namespace
}  // namespace cudaburg
