#include "src/search/param_range.hpp"

#include <gtest/gtest.h>

using cudaburg::parseParamRange;

namespace {

std::vector<int64_t> values(const std::string& text) {
  std::string error;
  auto r = parseParamRange(text, "--tile", error);
  EXPECT_TRUE(r) << error;
  return r ? r->values : std::vector<int64_t>{};
}

std::string errorOf(const std::string& text) {
  std::string error;
  EXPECT_FALSE(parseParamRange(text, "--tile", error));
  return error;
}

}  // namespace

TEST(ParamRange, PowersOfTwo) {
  EXPECT_EQ(values("64..256"), (std::vector<int64_t>{64, 128, 256}));
  EXPECT_EQ(values("1..8"), (std::vector<int64_t>{1, 2, 4, 8}));
  EXPECT_EQ(values("48..200"), (std::vector<int64_t>{64, 128}));
  EXPECT_EQ(values("32..32"), (std::vector<int64_t>{32}));
}

TEST(ParamRange, Steps) {
  EXPECT_EQ(values("32..96:32"), (std::vector<int64_t>{32, 64, 96}));
  EXPECT_EQ(values("3..10:4"), (std::vector<int64_t>{3, 7}));
}

TEST(ParamRange, ListsAreSortedAndUnique) {
  EXPECT_EQ(values("192,48,96,48"), (std::vector<int64_t>{48, 96, 192}));
  EXPECT_EQ(values("7"), (std::vector<int64_t>{7}));
}

TEST(ParamRange, MistakesNameTheFlag) {
  EXPECT_NE(errorOf("256..64").find("--tile: the lower bound is above the upper bound"), std::string::npos);
  EXPECT_NE(errorOf("65..127").find("no power of two"), std::string::npos);
  EXPECT_NE(errorOf("a..b").find("lower bound"), std::string::npos);
  EXPECT_NE(errorOf("8..64:0").find("step"), std::string::npos);
  EXPECT_NE(errorOf("8,,16").find("empty value"), std::string::npos);
  EXPECT_NE(errorOf("-4").find("not a positive whole number"), std::string::npos);
  EXPECT_NE(errorOf("").find("--tile"), std::string::npos);
}
