// "Did you mean": the closest known name to a mistyped one, or none when nothing is close.
#include <gtest/gtest.h>

#include "common/closest_name.hpp"

namespace common {
namespace {

const std::vector<std::string> kOptions{"--kbest", "--header", "--namespace", "--prefix", "--iburg", "--lburg"};

TEST(ClosestName, OneOrTwoEditsAway) {
  EXPECT_EQ(closestName("--kbset", kOptions), "--kbest");   // two letters swapped
  EXPECT_EQ(closestName("--headr", kOptions), "--header");  // one left out
  EXPECT_EQ(closestName("--ibrug", kOptions), "--iburg");
}

TEST(ClosestName, NoneWhenNothingIsClose) {
  EXPECT_EQ(closestName("--frobnicate", kOptions), "");
  EXPECT_EQ(closestName("-x", {"-o"}), "");  // one edit, but half of a short word
}

}  // namespace
}  // namespace common
