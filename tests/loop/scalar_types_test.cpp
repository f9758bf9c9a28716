// The element types' storage and reads: rounding to half, bfloat16 and TF32.
#include <gtest/gtest.h>

#include <cmath>

#include "src/loop/scalar_types.hpp"

namespace cudaburg {
namespace {

TEST(ScalarTypes, HalfRoundsToElevenBitsTiesToEven) {
  EXPECT_EQ(roundToHalf(1.0), 1.0);
  EXPECT_EQ(roundToHalf(1.0 + 0x1p-11), 1.0);               // a tie: to the even neighbour
  EXPECT_EQ(roundToHalf(1.0 + 3 * 0x1p-11), 1.0 + 0x1p-9);  // a tie: up to the even one
  EXPECT_EQ(roundToHalf(1.0 + 0x1p-11 + 0x1p-20), 1.0 + 0x1p-10);
  EXPECT_EQ(roundToHalf(65504.0), 65504.0);
  EXPECT_EQ(roundToHalf(65520.0), INFINITY);  // past the largest half
  EXPECT_EQ(roundToHalf(0x1p-24), 0x1p-24);   // the smallest subnormal
  EXPECT_EQ(roundToHalf(0x1p-26), 0.0);
  EXPECT_EQ(roundToHalf(-0.3), -0.300048828125);  // 1229 * 2^-12
}

TEST(ScalarTypes, Bfloat16KeepsEightBitsAndFloatRange) {
  EXPECT_EQ(roundToBfloat16(1.0 + 0x1p-8), 1.0);  // a tie, to even
  EXPECT_EQ(roundToBfloat16(1.0 + 0x1p-7), 1.0 + 0x1p-7);
  EXPECT_EQ(roundToBfloat16(1e30), 1000255551742587262118492372992.0);  // exponents as float's
  EXPECT_EQ(bfloat16ToFloat(floatToBfloat16(0.1f)), 0.10009765625f);
  EXPECT_EQ(floatToBfloat16(1.0f), 0x3F80);
  EXPECT_EQ(floatToBfloat16(-2.0f), 0xC000);
  EXPECT_TRUE(std::isnan(bfloat16ToFloat(floatToBfloat16(NAN))));
}

TEST(ScalarTypes, Tf32RoundsTiesAwayAsCvtRna) {
  EXPECT_EQ(roundToTf32(1.0 + 0x1p-11), 1.0 + 0x1p-10);  // a tie: away from zero
  EXPECT_EQ(roundToTf32(-(1.0 + 0x1p-11)), -(1.0 + 0x1p-10));
  EXPECT_EQ(roundToTf32(1.0 + 0x1p-12), 1.0);
  EXPECT_EQ(roundToTf32(0x1p-130), 0x1p-130);  // subnormal floats stay
}

TEST(ScalarTypes, StorageReadsAndArithmetic) {
  EXPECT_EQ(storedValue(ScalarType::Half, 0.1), roundToHalf(0.1));
  EXPECT_EQ(storedValue(ScalarType::TF32, 0.1), static_cast<double>(0.1f));  // a tf32 array stores a float
  EXPECT_EQ(readValue(ScalarType::TF32, 0.1f), roundToTf32(0.1f));           // and its reads are TF32
  EXPECT_EQ(readValue(ScalarType::Half, 0.25), 0.25);
  for (ScalarType t : {ScalarType::Half, ScalarType::BFloat16, ScalarType::TF32}) {
    EXPECT_TRUE(isReducedPrecision(t));
    EXPECT_EQ(arithmeticType(t), ScalarType::Float);
  }
  EXPECT_FALSE(isReducedPrecision(ScalarType::Float));
  EXPECT_EQ(scalarTypeBytes(ScalarType::BFloat16), 2);
  EXPECT_EQ(scalarTypeBytes(ScalarType::TF32), 4);
  EXPECT_STREQ(cudaTypeName(ScalarType::BFloat16), "__nv_bfloat16");
  EXPECT_STREQ(cudaTypeName(ScalarType::TF32), "float");
}

}  // namespace
}  // namespace cudaburg
