#include "src/tune/mpi/message.hpp"

#include <gtest/gtest.h>

using namespace cudaburg::tune::mpi;

TEST(MessageFrame, AnyBytesComeBackInTheirParts) {
  std::vector<std::string> parts{"3", "", std::string("a\0b\xff", 4), std::string(100000, 'x')};
  auto back = unframe(frame(parts));
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, parts);
  EXPECT_EQ(unframe(frame({})), std::vector<std::string>{});
}

TEST(MessageFrame, AFrameCutShortIsRefused) {
  std::string bytes = frame({"hello", "world"});
  EXPECT_FALSE(unframe(bytes.substr(0, bytes.size() - 1)));
  EXPECT_FALSE(unframe(bytes.substr(0, 3)));
  std::string huge(8, '\xff');  // a length far past the end
  EXPECT_FALSE(unframe(huge + "abc"));
}

TEST(MessageFrame, TheBuildIdNamesTheVersionAndTheCommit) {
  std::string id = buildId();
  size_t plus = id.find('+');
  ASSERT_NE(plus, std::string::npos) << id;
  EXPECT_GT(plus, 0u);
  EXPECT_LT(plus + 1, id.size());
}
