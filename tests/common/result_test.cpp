// Result: a value, or the sentence that says why there is none.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "common/result.hpp"

namespace common {
namespace {

Result<int> half(int n) {
  if (n % 2 != 0) return Error{std::to_string(n) + " is odd"};
  return n / 2;
}

TEST(Result, HoldsAValue) {
  Result<int> r = half(8);
  ASSERT_TRUE(r);
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(*r, 4);
  EXPECT_EQ(r.reason(), "");
}

TEST(Result, OrSaysWhyNot) {
  Result<int> r = half(7);
  EXPECT_FALSE(r);
  EXPECT_EQ(r.reason(), "7 is odd");
}

TEST(Result, HoldsMoveOnlyValues) {
  Result<std::unique_ptr<std::string>> r = std::make_unique<std::string>("kept");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->get()->size(), 4u);
  std::unique_ptr<std::string> taken = std::move(*r);
  EXPECT_EQ(*taken, "kept");
}

}  // namespace
}  // namespace common
