// Verification data: seeded random inputs, value encodings, and how each array starts.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "src/cuda/compile/compiler.hpp"
#include "src/cuda/run/device_checks_source.hpp"
#include "src/cuda/run/inputs.hpp"
#include "src/loop/scalar_types.hpp"
#include "tests/cuda/run_test_kernels.hpp"

namespace cudaburg {
namespace {

TEST(RunInputs, RandomValuesAreSeededAndInRange) {
  auto a = randomValues(ScalarType::Float, 1000, 7);
  auto b = randomValues(ScalarType::Float, 1000, 7);
  auto c = randomValues(ScalarType::Float, 1000, 8);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  double sum = 0;
  for (double v : a) {
    EXPECT_GE(v, -1.0);
    EXPECT_LT(v, 1.0);
    EXPECT_EQ(v, double(float(v)));  // exactly a float
    sum += v;
  }
  EXPECT_LT(std::abs(sum / a.size()), 0.1);  // centred
  for (double v : randomValues(ScalarType::Int, 200, 3)) {
    EXPECT_EQ(v, std::round(v));
    EXPECT_LE(std::abs(v), 4);
  }
  for (double v : randomValues(ScalarType::Half, 200, 3)) EXPECT_EQ(v, halfToFloat(floatToHalf(float(v))));
  // Exact in the type, and for tf32 in TF32: libraries and kernels read the same numbers.
  for (double v : randomValues(ScalarType::BFloat16, 200, 3)) EXPECT_EQ(v, roundToBfloat16(v));
  for (double v : randomValues(ScalarType::TF32, 200, 3)) EXPECT_EQ(v, roundToTf32(v));
  EXPECT_NE(randomValues(ScalarType::TF32, 200, 3), randomValues(ScalarType::Float, 200, 3));
}

TEST(RunInputs, EncodingsRoundTrip) {
  for (ScalarType t : {ScalarType::Float, ScalarType::Double, ScalarType::Half, ScalarType::Int, ScalarType::BFloat16,
                       ScalarType::TF32}) {
    auto values = randomValues(t, 257, 11);
    auto bytes = encodeValues(values, t);
    EXPECT_EQ(bytes.size(), values.size() * size_t(scalarTypeBytes(t)));
    EXPECT_EQ(decodeValues(bytes, t), values) << scalarTypeName(t);
  }
}

TEST(RunInputs, HalfConversions) {
  EXPECT_EQ(floatToHalf(1.0f), 0x3C00);
  EXPECT_EQ(floatToHalf(-2.0f), 0xC000);
  EXPECT_EQ(floatToHalf(65504.0f), 0x7BFF);
  EXPECT_EQ(floatToHalf(1e6f), 0x7C00);        // overflows to infinity
  EXPECT_EQ(floatToHalf(0x1.0p-24f), 0x0001);  // the smallest subnormal
  EXPECT_EQ(halfToFloat(0x3555), 0x1.554p-2f);
  EXPECT_TRUE(std::isnan(halfToFloat(kPoison16)));
  EXPECT_TRUE(std::isnan(bfloat16ToFloat(kPoison16)));
}

TEST(RunInputs, PoisonPatternsAreNaN) {
  float f;
  uint32_t bits32 = kPoison32;
  std::memcpy(&f, &bits32, 4);
  EXPECT_TRUE(std::isnan(f));
  double d;
  uint64_t bits64 = uint64_t(kPoison32) << 32 | kPoison32;
  std::memcpy(&d, &bits64, 8);
  EXPECT_TRUE(std::isnan(d));
}

TEST(RunInputs, InitialisedOutputsArePoisonedAndAccumulatedOnesZeroed) {
  Kernel matmul = testing::loadExample("matmul.loop", {{"M", 8}, {"N", 8}, {"K", 8}});
  // C is assigned before it is accumulated: poisoned, so unwritten elements show.
  auto inits = arrayInits(matmul);
  ASSERT_EQ(inits.size(), 3u);
  EXPECT_EQ(inits[0], ArrayInit::Poison);
  EXPECT_EQ(inits[1], ArrayInit::Random);
  EXPECT_EQ(inits[2], ArrayInit::Random);

  Kernel accumulateOnly = testing::parseLoopText("acc.loop", R"(
size N = 8;
kernel acc(float S[N], const float A[N][N]) {
  parallel for (i = 0; i < N; i++)
    reduce for (j = 0; j < N; j++)
      S[i] += A[i][j];
}
)");
  EXPECT_EQ(arrayInits(accumulateOnly)[0], ArrayInit::Zero);

  // An array updated in place starts with random data like an input.
  Kernel inPlace = testing::parseLoopText("scale.loop", R"(
size N = 8;
kernel scale(float X[N]) {
  parallel for (i = 0; i < N; i++)
    X[i] = X[i] * 2;
}
)");
  EXPECT_EQ(arrayInits(inPlace)[0], ArrayInit::Random);
  matmul.zeroFirst = {"C"};
  EXPECT_EQ(arrayInits(matmul)[0], ArrayInit::Zero);
}

TEST(RunInputs, InitNamesRoundTrip) {
  for (ArrayInit i : {ArrayInit::Random, ArrayInit::Poison, ArrayInit::Zero}) {
    ArrayInit back;
    ASSERT_TRUE(parseArrayInit(arrayInitName(i), back));
    EXPECT_EQ(back, i);
  }
  ArrayInit ignored;
  EXPECT_FALSE(parseArrayInit("garbage", ignored));
}

}  // namespace
}  // namespace cudaburg

namespace cudaburg {
namespace {

// The worker makes inputs, compares outputs and runs a fused layer's epilogue pass with these
// kernels on every GPU cudaburg targets:
// they must compile for the oldest (sm_75: no bfloat16 or tf32 instructions) and the newest,
// with no local memory.
TEST(RunInputs, CheckingKernelsCompileForEveryTarget) {
  for (const char* arch : {"sm_75", "sm_80", "sm_90"}) {
    CudaKernel checks;
    checks.source = deviceChecksSource();
    checks.entry = kCompareEntry;
    CompileOptions options;
    options.arch = arch;
    options.useCache = false;
    CompileResult r = compile(checks, options);
    ASSERT_TRUE(r.ok) << arch << ": " << r.reason << "\n" << r.errorLog;
    EXPECT_EQ(r.resources.stackFrameBytes, 0) << arch;
    EXPECT_FALSE(r.resources.spills()) << arch;
    EXPECT_NE(std::string(r.cubin.begin(), r.cubin.end()).find(kFillEntry), std::string::npos) << arch;
    EXPECT_NE(std::string(r.cubin.begin(), r.cubin.end()).find(kEpilogueEntry), std::string::npos) << arch;
  }
}

}  // namespace
}  // namespace cudaburg
