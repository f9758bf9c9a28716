#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "src/analysis/dependence.hpp"
#include "src/loop/printer.hpp"
#include "tests/loop/parse_helper.hpp"

namespace cudaburg {
namespace {

class Example : public ::testing::TestWithParam<std::string> {};

TEST_P(Example, ParsesChecksAndPrints) {
  auto p = test::parseExample(GetParam());
  ASSERT_TRUE(p.kernel) << p.errors();
  EXPECT_EQ(p.diags->warningCount(), 0) << p.errors();
  std::string text = printKernel(*p.kernel);
  EXPECT_NE(text.find("kernel " + p.kernel->name + "("), std::string::npos);
  // Every kernel writes one output and reduces into it.
  DependenceGraph deps(*p.kernel);
  bool reduction = false;
  for (const Dependence& d : deps.dependences()) reduction |= d.kind == DependenceKind::Reduction;
  EXPECT_TRUE(reduction) << deps.str();
}

// Every .loop file of examples/.
std::vector<std::string> exampleFiles() {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(CUDABURG_EXAMPLES_DIR))
    if (entry.path().extension() == ".loop") names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

INSTANTIATE_TEST_SUITE_P(Examples, Example, ::testing::ValuesIn(exampleFiles()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param.substr(0, info.param.find('.'));
                         });

TEST(Examples, AllAreFound) { EXPECT_GE(exampleFiles().size(), 13u); }

TEST(Examples, DefaultSizes) {
  auto mm = test::parseExample("matmul.loop");
  ASSERT_TRUE(mm.kernel) << mm.errors();
  EXPECT_EQ(mm.kernel->size("M"), 2048);
  EXPECT_EQ(mm.kernel->size("K"), 2048);
  auto conv = test::parseExample("conv2d.loop");
  ASSERT_TRUE(conv.kernel) << conv.errors();
  EXPECT_EQ(conv.kernel->size("OH"), 56);
  EXPECT_EQ(conv.kernel->size("OW"), 56);
  EXPECT_TRUE(conv.kernel->findParam("In")->zeroPadded);
  // A strided layer: the output shrinks as the formula says.
  auto strided = test::parseExample("conv2d.loop", {{"ST", 2}});
  ASSERT_TRUE(strided.kernel) << strided.errors();
  EXPECT_EQ(strided.kernel->size("OH"), 28);
  auto c3 = test::parseExample("conv3d.loop");
  ASSERT_TRUE(c3.kernel) << c3.errors();
  EXPECT_EQ(c3.kernel->size("T"), 8);
  EXPECT_EQ(c3.kernel->size("OD"), 121);
}

}  // namespace
}  // namespace cudaburg
