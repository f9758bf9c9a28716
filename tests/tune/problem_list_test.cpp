// The list of problems `cudaburg tune` reads: names, files taken from the list's folder, repeats
// folded into the first, mistakes with their line and column.
#include <gtest/gtest.h>

#include "src/tune/problem_list.hpp"

namespace cudaburg::tune {
namespace {

struct Parsed {
  common::SourceFile file;
  common::Diagnostics diagnostics{file};
  std::vector<Problem> problems;
  explicit Parsed(const std::string& text) : file("nets/list.txt", text) {
    problems = parseProblemList(file, diagnostics);
  }
};

TEST(ProblemList, NamesFilesAndRepeats) {
  Parsed p(
      "# a comment\n"
      "\n"
      "conv1: ../conv2d.loop -D N=32 -D C=3   # the first layer\n"
      "../matmul.loop -D M=32 -DN=1000 --tile 64\n"
      "/abs/matmul.loop\n"
      "../matmul.loop -DN=1000 -D M=32 --tile 64\n"
      "../matmul.loop -D M=32 -D N=1000 --tile 128\n");
  ASSERT_FALSE(p.diagnostics.hasErrors()) << p.diagnostics.str();
  ASSERT_EQ(p.problems.size(), 4u);
  EXPECT_EQ(p.problems[0].name, "conv1");
  EXPECT_EQ(p.problems[0].file, "conv2d.loop");
  EXPECT_EQ(p.problems[0].loc.line, 3u);
  EXPECT_EQ(sizeDefinitions(p.problems[0].options), (std::vector<std::string>{"N=32", "C=3"}));
  EXPECT_EQ(p.problems[1].name, "matmul-M32-N1000");
  EXPECT_EQ(p.problems[1].repeats, (std::vector<size_t>{6}));  // the same sizes in another order
  EXPECT_EQ(p.problems[2].file, "/abs/matmul.loop");
  EXPECT_EQ(p.problems[3].name, "matmul-M32-N1000-2");  // other options: a problem of its own
}

TEST(ProblemList, MistakesHaveTheirPlace) {
  Parsed p(
      "a: x.loop\n"
      "a: y.loop\n"
      "-D N=3\n"
      "b: x.loop \"--tile 64\n"
      "../up: x.loop\n"
      "c: z.loop\n");
  EXPECT_EQ(p.problems.size(), 2u);
  ASSERT_EQ(p.diagnostics.errorCount(), 4) << p.diagnostics.str();
  const auto& d = p.diagnostics.all();
  EXPECT_EQ(d[0].loc.line, 2u);
  EXPECT_NE(d[0].message.find("taken by the problem on line 1"), std::string::npos);
  EXPECT_EQ(d[1].loc.line, 3u);
  EXPECT_EQ(d[2].loc.line, 4u);
  EXPECT_EQ(d[2].loc.col, 11u);
  EXPECT_EQ(d[2].message, "this quote is not closed");
  EXPECT_EQ(d[3].loc.line, 5u);
  EXPECT_NE(p.diagnostics.str().find("nets/list.txt:4:11: error: this quote is not closed"), std::string::npos);
}

// A line that is not text (a stray byte, or a binary file given as the list) is an error at its
// place, and the other lines are problems still.
TEST(ProblemList, ControlCharactersAreErrorsAtTheirPlace) {
  Parsed p(std::string("x.loop -D M=64\nx.loop\x01 -D M=8\n") + std::string(1, '\0') + "junk\ny.loop\n");
  EXPECT_EQ(p.problems.size(), 2u);
  ASSERT_EQ(p.diagnostics.errorCount(), 2) << p.diagnostics.str();
  const auto& d = p.diagnostics.all();
  EXPECT_EQ(d[0].loc.line, 2u);
  EXPECT_EQ(d[0].loc.col, 7u);
  EXPECT_EQ(d[0].message, "a control character (byte 0x01) stands here: a problem's line is text");
  EXPECT_EQ(d[1].loc.line, 3u);
  EXPECT_EQ(d[1].loc.col, 1u);
}

}  // namespace
}  // namespace cudaburg::tune
