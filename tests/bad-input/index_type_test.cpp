// Index types in emitted CUDA: `int` where the bounds prove 32 bits hold every index, subscript
// and array offset; `long long` where they do not (an int bound truncated would be wrong code).
#include <gtest/gtest.h>

#include <string>

#include "common/diagnostics.hpp"
#include "src/cuda/emit/emitter.hpp"
#include "src/cuda/emit/index_type.hpp"
#include "src/loop/parser.hpp"

namespace cudaburg {
namespace {

Kernel matmul(int64_t m, int64_t n, int64_t k) {
  common::SourceFile file("matmul.loop",
                          "size M = 1, N = 1, K = 1;\n"
                          "kernel matmul(float C[M][N], const float A[M][K], const float B[K][N]) {\n"
                          "  parallel for (i = 0; i < M; i++)\n"
                          "    parallel for (j = 0; j < N; j++) {\n"
                          "      C[i][j] = 0;\n"
                          "      reduce for (k = 0; k < K; k++) C[i][j] += A[i][k] * B[k][j];\n"
                          "    }\n"
                          "}\n");
  common::Diagnostics diags(file);
  auto kernel = parseLoopFile(file, diags, {{"M", m}, {"N", n}, {"K", k}});
  EXPECT_TRUE(kernel) << diags.str();
  return kernel ? *kernel : Kernel{};
}

std::string emitted(const Kernel& kernel) {
  EmitResult e = emitKernel(kernel);
  EXPECT_TRUE(e.ok()) << e.reason;
  return e.ok() ? e.kernel->source : "";
}

TEST(IndexType, SmallBoundsKeepInt) {
  Kernel k = matmul(2048, 2048, 2048);
  EXPECT_STREQ(indexTypeFor(k), "int");
  std::string source = emitted(k);
  EXPECT_NE(source.find("const int i = "), std::string::npos) << source;
  EXPECT_EQ(source.find("long long"), std::string::npos) << source;
}

TEST(IndexType, OffsetsPast32BitsGetLongLong) {
  // 65536 x 65536 elements: every index fits in an int, the flat offset i * 65536 + j does not.
  Kernel k = matmul(65536, 65536, 16);
  EXPECT_STREQ(indexTypeFor(k), "long long");
  std::string source = emitted(k);
  EXPECT_NE(source.find("const long long i = "), std::string::npos) << source;
  EXPECT_EQ(source.find("const int i = "), std::string::npos) << source;
  EXPECT_EQ(source.find("for (int k"), std::string::npos) << source;
}

TEST(IndexType, ABoundPast32BitsGetsLongLong) {
  EXPECT_STREQ(indexTypeFor(matmul(1, 3000000000, 1)), "long long");
  // A quarter of INT32_MAX is the margin: just below stays int, just above does not.
  EXPECT_STREQ(indexTypeFor(matmul(1, 500000000, 1)), "int");
  EXPECT_STREQ(indexTypeFor(matmul(1, 600000000, 1)), "long long");
}

}  // namespace
}  // namespace cudaburg
