// The CPU executor: plain kernels against direct C++ loops, and the mapped-tree semantics
// (stages, per-thread registers, zeroFirst) on small hand-built trees.
#include <gtest/gtest.h>

#include <cmath>

#include "src/exec/compare.hpp"
#include "src/exec/executor.hpp"
#include "src/loop/scalar_types.hpp"
#include "tests/transform/test_kernels.hpp"

namespace cudaburg {
namespace {

using testing::kernelFromText;

Array array(const std::string& name, std::vector<int64_t> extents, MemorySpace space = MemorySpace::Global) {
  Array a;
  a.name = name;
  a.extents = std::move(extents);
  a.space = space;
  return a;
}

Access at(const std::string& name, std::vector<Affine> subscripts) { return Access{name, std::move(subscripts)}; }

TEST(Executor, MatmulMatchesDirectFloatLoops) {
  Kernel k = testing::smallExample("matmul");
  Buffers b = fillRandom(k, 7);
  Buffers in = b;
  execute(k, b);
  int64_t M = k.size("M"), N = k.size("N"), K = k.size("K");
  const auto &A = in.data["A"], &B = in.data["B"];
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      float sum = 0;
      for (int64_t kk = 0; kk < K; ++kk) sum += static_cast<float>(A[i * K + kk]) * static_cast<float>(B[kk * N + j]);
      ASSERT_EQ(b.data["C"][i * N + j], static_cast<double>(sum)) << "C[" << i << "][" << j << "]";
    }
}

// Reduced types: statements compute in float, stores round to the target's type, reads of a tf32
// array round to TF32.
TEST(Executor, ReducedTypesRoundStoresAndTf32Reads) {
  Kernel k = kernelFromText(
      "size N = 4;\n"
      "kernel cast(half H[N], bfloat16 B[N], float F[N], float G[N], const tf32 T[N], const float X[N]) {\n"
      "  parallel for (i = 0; i < N; i++) { H[i] = X[i]; B[i] = X[i]; F[i] = T[i]; G[i] = T[i] * X[i]; }\n"
      "}\n");
  Buffers b = allocateBuffers(k);
  b.data["X"] = {0.1, 1.0 / 3, 1 + 0x1p-11, -70000};
  b.data["T"] = {1 + 0x1p-11, 1 + 0x1p-12, 0.1f, 3};
  execute(k, b);
  EXPECT_EQ(b.data["H"], (std::vector<double>{roundToHalf(0.1), roundToHalf(1.0 / 3), 1.0, -INFINITY}));
  EXPECT_EQ(b.data["B"][1], roundToBfloat16(1.0 / 3));
  EXPECT_EQ(b.data["F"], (std::vector<double>{1 + 0x1p-10, 1, roundToTf32(0.1f), 3}));
  EXPECT_EQ(b.data["G"][0], static_cast<double>(static_cast<float>((1 + 0x1p-10) * 0.1)));
}

TEST(Executor, HalfProductsAccumulateInFloat) {
  Kernel k = testing::smallExample("matmul");
  for (auto& p : k.params)
    if (p.input) p.type = ScalarType::Half;
  Buffers b = fillRandom(k, 9);
  for (double v : b.data["A"]) ASSERT_EQ(v, roundToHalf(v));  // inputs exact in half
  Buffers in = b;
  execute(k, b);
  int64_t M = k.size("M"), N = k.size("N"), K = k.size("K");
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      float sum = 0;  // half * half is exact in float
      for (int64_t kk = 0; kk < K; ++kk) sum += static_cast<float>(in.data["A"][i * K + kk] * in.data["B"][kk * N + j]);
      ASSERT_EQ(b.data["C"][i * N + j], static_cast<double>(sum));
    }
}

TEST(Executor, IntMatmulIsExact) {
  Kernel k = testing::intMatmul(5, 6, 7);
  Buffers b = fillRandom(k, 3);
  Buffers in = b;
  execute(k, b);
  for (int64_t i = 0; i < 5; ++i)
    for (int64_t j = 0; j < 6; ++j) {
      double sum = 0;
      for (int64_t kk = 0; kk < 7; ++kk) sum += in.data["A"][i * 7 + kk] * in.data["B"][kk * 6 + j];
      EXPECT_EQ(b.data["C"][i * 6 + j], sum);
    }
}

TEST(Executor, PaddedReadsOutsideGiveZero) {
  Kernel k = kernelFromText(
      "size N = 6;\n"
      "kernel shift(float Out[N], const float In[N] padded) {\n"
      "  parallel for (i = 0; i < N; i++) Out[i] = In[i - 2] + In[i + 3];\n"
      "}\n");
  Buffers b = fillRandom(k, 5);
  Buffers in = b;
  execute(k, b);
  for (int i = 0; i < 6; ++i) {
    double l = i - 2 >= 0 ? in.data["In"][i - 2] : 0, r = i + 3 < 6 ? in.data["In"][i + 3] : 0;
    EXPECT_EQ(b.data["Out"][i], static_cast<double>(static_cast<float>(l + r)));
  }
}

TEST(Executor, OutOfBoundsReadOfAPlainArrayIsAnError) {
  Kernel k;
  k.name = "bad";
  Array out = array("Out", {4}), in = array("In", {4});
  in.input = true;
  k.params = {out, in};
  k.body =
      makeFor("i", Affine(0), {Affine(4)}, 1, LoopKind::Parallel,
              makeAssign(at("Out", {Affine::var("i")}), Expr::read(at("In", {Affine::var("i") + Affine(1)})), false));
  Buffers b = allocateBuffers(k);
  try {
    execute(k, b);
    FAIL() << "no error";
  } catch (const ExecutionError& e) {
    EXPECT_NE(std::string(e.what()).find("In[4]"), std::string::npos) << e.what();
  }
}

TEST(Executor, MissingBufferIsAnError) {
  Kernel k = testing::smallExample("matmul");
  Buffers b = fillRandom(k, 1);
  b.data.erase("B");
  EXPECT_THROW(execute(k, b), ExecutionError);
}

TEST(Executor, StageCopiesItsBoxWithZerosOutside) {
  // Out[i] = S[i] where S is In[-1 .. 4] staged: Out = {0, In[0], In[1], In[2], In[3], 0}.
  Kernel k;
  k.name = "staged";
  Array out = array("Out", {6}), in = array("In", {4});
  in.input = true;
  k.params = {out, in};
  Array buf = array("S", {6}, MemorySpace::Shared);
  NodePtr copy = makeFor("i", Affine(0), {Affine(6)}, 1, LoopKind::Parallel,
                         makeAssign(at("Out", {Affine::var("i")}), Expr::read(at("S", {Affine::var("i")})), false));
  k.body = makeAlloc(buf, makeSeq({makeStage(buf, "In", {Affine(-1)}), makeBarrier(), copy}));
  Buffers b = fillRandom(k, 2);
  Buffers in0 = b;
  execute(k, b);
  EXPECT_EQ(b.data["Out"][0], 0);
  EXPECT_EQ(b.data["Out"][5], 0);
  for (int i = 1; i < 5; ++i) EXPECT_EQ(b.data["Out"][i], in0.data["In"][i - 1]);
}

TEST(Executor, RegistersHaveOneCopyPerBlockThread) {
  // alloc register r[1] { block.x for t: r[0] = t;  block.x for t: Out[t] = r[0] }
  auto build = [](Mapping m) {
    Kernel k;
    k.name = "regs";
    k.params = {array("Out", {4})};
    k.params[0].type = ScalarType::Int;
    Array r = array("r", {1}, MemorySpace::Register);
    r.type = ScalarType::Int;
    NodePtr set = makeFor("t", Affine(0), {Affine(4)}, 1, LoopKind::Parallel,
                          makeAssign(at("r", {Affine(0)}), Expr::indexValue(Affine::var("t")), false), m);
    NodePtr get = makeFor("t", Affine(0), {Affine(4)}, 1, LoopKind::Parallel,
                          makeAssign(at("Out", {Affine::var("t")}), Expr::read(at("r", {Affine(0)})), false), m);
    k.body = makeAlloc(r, makeSeq({set, get}));
    return k;
  };
  Kernel threads = build(Mapping::BlockX);
  Buffers b = allocateBuffers(threads);
  execute(threads, b);
  EXPECT_EQ(b.data["Out"], (std::vector<double>{0, 1, 2, 3}));
  Kernel oneThread = build(Mapping::None);  // one thread runs both loops: one copy of r
  Buffers c = allocateBuffers(oneThread);
  execute(oneThread, c);
  EXPECT_EQ(c.data["Out"], (std::vector<double>{3, 3, 3, 3}));
}

TEST(Executor, ZeroFirstArraysStartAtZero) {
  Kernel k = kernelFromText(
      "size N = 5;\n"
      "kernel count(int Out[N]) {\n"
      "  parallel for (i = 0; i < N; i++)\n"
      "    reduce for (j = 0; j < 3; j++) Out[i] += 1;\n"
      "}\n");
  k.zeroFirst = {"Out"};
  Buffers b = fillRandom(k, 4);
  execute(k, b);
  EXPECT_EQ(b.data["Out"], (std::vector<double>(5, 3.0)));
}

TEST(Compare, NamesTheFirstMismatchAndItsError) {
  Kernel k = testing::intMatmul(2, 3, 2);
  Buffers a = fillRandom(k, 1), b = a;
  b.data["C"][4] += 1;  // C[1][1]
  Comparison c = compare(k, a, b, 0);
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.firstMismatch.rfind("C[1][1]", 0), 0u) << c.firstMismatch;
  EXPECT_GT(c.maxError, 0);
  b.data["A"][0] += 1;  // inputs are not compared
  b.data["C"][4] -= 1;
  EXPECT_TRUE(compare(k, a, b, 0).ok);
}

TEST(Compare, ToleranceGrowsWithTheReduction) {
  EXPECT_EQ(reductionTolerance(testing::intMatmul(3, 3, 3)), 0);
  double small = reductionTolerance(testing::smallExample("matmul"));
  Kernel big = kernelFromText(
      "size M = 4, N = 4, K = 1000;\n"
      "kernel m(float C[M][N], const float A[M][K], const float B[K][N]) {\n"
      "  parallel for (i = 0; i < M; i++) parallel for (j = 0; j < N; j++) {\n"
      "    C[i][j] = 0; reduce for (k = 0; k < K; k++) C[i][j] += A[i][k] * B[k][j]; }\n"
      "}\n");
  EXPECT_GT(small, 0);
  EXPECT_GT(reductionTolerance(big), small);
}

}  // namespace
}  // namespace cudaburg
