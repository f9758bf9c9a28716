// Verification by relative error, and its bound.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "src/cuda/run/precision.hpp"
#include "src/cuda/run/reference_check.hpp"

namespace cudaburg {
namespace {

TEST(RunReferenceCheck, ToleranceGrowsWithReductionLengthWithinBounds) {
  double t1 = verificationTolerance(ScalarType::Float, 1);
  double t64 = verificationTolerance(ScalarType::Float, 64);
  double t512 = verificationTolerance(ScalarType::Float, 512);
  double tHuge = verificationTolerance(ScalarType::Float, int64_t(1) << 30);
  EXPECT_GE(t1, 1e-6);
  EXPECT_LT(t1, t64);
  EXPECT_LT(t64, t512);
  EXPECT_LE(tHuge, 1e-4);
  EXPECT_LT(verificationTolerance(ScalarType::Double, 4096), 1e-11);
  EXPECT_EQ(verificationTolerance(ScalarType::Int, 4096), 0);
  EXPECT_GT(verificationTolerance(ScalarType::Half, 64), t64);
}

// The bounds of docs/loop-language.md: fp32 accumulation of half, bfloat16 and tf32 operands
// allows for the truncation of tensor cores (n / 4 units of fp32 over 32 sqrt(n)), within
// [1e-6, 2e-3]; reduced-precision outputs are held to their own unit roundoff.
TEST(RunReferenceCheck, TolerancePerType) {
  for (int64_t n : {16, 4096, 65536}) {
    double fp32 = verificationTolerance(ScalarType::Float, n);
    double reduced = (32 * std::sqrt(double(n)) + double(n) / 4) * 0x1p-24;
    for (ScalarType operands : {ScalarType::Half, ScalarType::BFloat16, ScalarType::TF32}) {
      double t = verificationTolerance(ScalarType::Float, operands, n);
      EXPECT_DOUBLE_EQ(t, std::clamp(reduced, 1e-6, 2e-3)) << scalarTypeName(operands) << " " << n;
      EXPECT_GE(t, fp32);
    }
    EXPECT_EQ(verificationTolerance(ScalarType::Float, ScalarType::Float, n), fp32);
    EXPECT_GT(verificationTolerance(ScalarType::BFloat16, n), verificationTolerance(ScalarType::Half, n));
  }
  EXPECT_NEAR(verificationTolerance(ScalarType::Float, ScalarType::Half, 4096), 1.83e-4, 1e-6);
  EXPECT_EQ(verificationTolerance(ScalarType::Float, ScalarType::Half, int64_t(1) << 30), 2e-3);
  // A half operand rounded away (an error of a unit of half in each input) is caught at 4096.
  EXPECT_LT(verificationTolerance(ScalarType::Float, ScalarType::Half, 4096), 0x1p-11);
  // A tf32 array stores float: as an output it accumulates in fp32.
  EXPECT_EQ(verificationTolerance(ScalarType::TF32, ScalarType::Float, 64),
            verificationTolerance(ScalarType::Float, 64));
}

// The contract: twice the library's own error against FP64, never below 8 units of roundoff of
// the output (precision.hpp).
TEST(RunReferenceCheck, ContractBoundIsTwiceTheLibrarysError) {
  EXPECT_DOUBLE_EQ(contractBound(8.1e-7, ScalarType::Float), 1.62e-6);
  EXPECT_DOUBLE_EQ(contractBound(0, ScalarType::Float), 0x1p-21);
  EXPECT_DOUBLE_EQ(contractBound(1e-9, ScalarType::Half), 0x1p-8);
  // A kernel a hundred times less accurate than SGEMM fails; one as accurate passes.
  std::vector<double> exact, library, close, far;
  for (int i = 0; i < 1000; ++i) {
    double v = std::sin(0.37 * i) * 12.5 + 0.01 * i;
    exact.push_back(v);
    library.push_back(v * (1 + 1e-6 * std::cos(1.3 * i)));
    close.push_back(v * (1 + 1e-6 * std::sin(0.7 * i)));
    far.push_back(v * (1 + 1e-4 * std::sin(0.7 * i)));
  }
  double libraryError = compareArrays("Out", {1000}, library, exact, INFINITY).relativeError;
  double bound = contractBound(libraryError, ScalarType::Float);
  EXPECT_TRUE(compareArrays("Out", {1000}, close, exact, bound).passed);
  EXPECT_FALSE(compareArrays("Out", {1000}, far, exact, bound).passed);
}

TEST(RunReferenceCheck, PrecisionModesParseAndName) {
  EXPECT_EQ(parsePrecision("strict"), Precision::Strict);
  EXPECT_EQ(parsePrecision("tf32"), Precision::Tf32);
  EXPECT_FALSE(parsePrecision("fast").has_value());
  EXPECT_EQ(precisionNames(), "strict, tf32");
  EXPECT_EQ(libraryOperands(ScalarType::Float, Precision::Tf32), ScalarType::TF32);
  EXPECT_EQ(libraryOperands(ScalarType::Half, Precision::Tf32), ScalarType::Half);
  EXPECT_EQ(libraryOperands(ScalarType::Float, Precision::Strict), ScalarType::Float);
}

TEST(RunReferenceCheck, KernelToleranceReadsOutputsAgainstInputs) {
  Kernel k;
  k.params.resize(3);
  k.params[0].name = "C", k.params[0].type = ScalarType::Float;
  k.params[1].name = "A", k.params[1].type = ScalarType::Half, k.params[1].input = true;
  k.params[2].name = "B", k.params[2].type = ScalarType::Half, k.params[2].input = true;
  EXPECT_EQ(kernelTolerance(k, {}, 4096), verificationTolerance(ScalarType::Float, ScalarType::Half, 4096));
  // The same nest emitted in double throughout is held to double's bound.
  std::vector<ScalarType> doubles(3, ScalarType::Double);
  EXPECT_EQ(kernelTolerance(k, doubles, 4096), verificationTolerance(ScalarType::Double, 4096));
  k.params[1].type = k.params[2].type = ScalarType::Float;
  EXPECT_EQ(kernelTolerance(k, {}, 4096), verificationTolerance(ScalarType::Float, 4096));
}

TEST(RunReferenceCheck, CloseOutputPasses) {
  std::vector<double> ref = {1, -2, 3, 4}, out = ref;
  out[2] += 1e-7;
  Comparison c = compareArrays("C", {2, 2}, out, ref, 1e-6);
  EXPECT_TRUE(c.passed) << c.reason;
  EXPECT_NEAR(c.relativeError, 1e-7 / std::sqrt(30.0), 1e-12);
  EXPECT_TRUE(c.reason.empty());
}

TEST(RunReferenceCheck, LargeErrorFailsAndNamesTheWorstElement) {
  std::vector<double> ref = {1, 2, 3, 4, 5, 6}, out = ref;
  out[4] = 50;
  Comparison c = compareArrays("C", {2, 3}, out, ref, 1e-4);
  EXPECT_FALSE(c.passed);
  EXPECT_EQ(c.worstIndex, 4u);
  EXPECT_NE(c.reason.find("C[1][1]"), std::string::npos) << c.reason;
  EXPECT_NE(c.reason.find("relative error"), std::string::npos);
}

TEST(RunReferenceCheck, NaNNeverPasses) {
  std::vector<double> ref = {1, 2, 3}, out = {1, NAN, 3};
  Comparison c = compareArrays("out", {3}, out, ref, 1e300);
  EXPECT_FALSE(c.passed);
  EXPECT_EQ(c.nonFinite, 1u);
  EXPECT_TRUE(std::isinf(c.relativeError));
  EXPECT_NE(c.reason.find("out[1]"), std::string::npos) << c.reason;
  EXPECT_NE(c.reason.find("unwritten"), std::string::npos);
}

TEST(RunReferenceCheck, ZeroReferenceUsesTheAbsoluteError) {
  Comparison same = compareArrays("z", {2}, {0, 0}, {0, 0}, 1e-6);
  EXPECT_TRUE(same.passed);
  Comparison off = compareArrays("z", {2}, {0, 1}, {0, 0}, 1e-6);
  EXPECT_FALSE(off.passed);
  EXPECT_DOUBLE_EQ(off.relativeError, 1.0);
}

TEST(RunReferenceCheck, NonFiniteReferenceAndSizeMismatchFail) {
  EXPECT_FALSE(compareArrays("r", {2}, {1, 2}, {1, INFINITY}, 1).passed);
  EXPECT_FALSE(compareArrays("r", {2}, {1, 2}, {1, 2, 3}, 1).passed);
}

// The GPU sums a comparison a block at a time and the host merges the blocks: any split of the
// elements, merged in any order, must give the verdict of the whole.
TEST(RunReferenceCheck, SumsMergedFromPartsAgreeWithTheWhole) {
  std::vector<double> ref, out;
  for (int i = 0; i < 1000; ++i) {
    ref.push_back(std::sin(i * 0.37));
    out.push_back(ref.back() + ((i % 97) == 13 ? 1e-3 : 1e-7));  // equal worst differences at 13, 110, ...
  }
  out[500] = NAN;
  out[321] = NAN;
  ref[900] = INFINITY;
  ComparisonSums whole;
  for (size_t i = 0; i < out.size(); ++i) whole.add(i, out[i], ref[i]);
  for (size_t parts : {1u, 3u, 7u, 64u}) {
    std::vector<ComparisonSums> partial(parts);
    for (size_t i = 0; i < out.size(); ++i) partial[i % parts].add(i, out[i], ref[i]);
    ComparisonSums merged;
    for (size_t p = parts; p-- > 0;) merged.merge(partial[p]);  // later parts first
    EXPECT_NEAR(merged.diffNorm, whole.diffNorm, 1e-12 * whole.diffNorm);
    EXPECT_NEAR(merged.refNorm, whole.refNorm, 1e-12 * whole.refNorm);
    EXPECT_EQ(merged.worst, whole.worst);
    EXPECT_EQ(merged.worstIndex, 13u);
    EXPECT_EQ(merged.nonFinite, 2u);
    EXPECT_EQ(merged.firstNonFinite, 321u);
    EXPECT_EQ(merged.refNonFinite, 1u);
  }
  Comparison c = judge("y", {1000}, out.size(), whole, out[13], ref[13], 1e300);
  EXPECT_FALSE(c.passed);
  EXPECT_NE(c.reason.find("reference has 1 non-finite"), std::string::npos) << c.reason;
}

TEST(RunReferenceCheck, ElementNames) {
  EXPECT_EQ(elementName("A", {4, 5, 6}, 0), "A[0][0][0]");
  EXPECT_EQ(elementName("A", {4, 5, 6}, 6 * 5 + 6 + 1), "A[1][1][1]");
  EXPECT_EQ(elementName("v", {10}, 9), "v[9]");
}

}  // namespace
}  // namespace cudaburg
