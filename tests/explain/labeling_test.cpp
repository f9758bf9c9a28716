// The labeling a page draws, taken from a generated matcher (burggen/explain/labeling.hpp), and
// the page written from it: iburg's sample grammar, whose nodes are reached through iburg's macros.
#include <gtest/gtest.h>

#include <sstream>

#include "burggen/explain/labeling_page.hpp"
#include "tests/explain/sample_matcher.hpp"

// After the matcher, whose prologue declares the `tree` it builds.
#include "tests/burggen/sample_assignment.hpp"

namespace {

using burggen::explain::Labeling;

std::string opTitle(tree* node) { return burmMatcher::opName(node->op); }

Labeling labelForPage(tree* root, bool& derives) {
  burmMatcher m;
  std::vector<burmMatcher::LabelStep> steps;
  m.steps = &steps;
  derives = m.label(root);
  return burggen::explain::describeLabeling(m, root, steps, opTitle, "a tree");
}

TEST(LabelingForPage, RecordsEveryMatchAndTheCover) {
  SampleAssignment t;
  bool derives = false;
  Labeling l = labelForPage(&t.assign, derives);
  ASSERT_TRUE(derives);
  ASSERT_EQ(l.nodes.size(), 7u);
  EXPECT_EQ(l.nodes[0].op, "ASGNI");
  EXPECT_EQ(l.nodes[0].kids, (std::vector<int>{1, 2}));
  // Each node's matches end with a mark (nt 0), kids' before their parent's: the root's last.
  ASSERT_FALSE(l.steps.empty());
  EXPECT_EQ(l.steps.back().nt, 0);
  EXPECT_EQ(l.steps.back().node, 0);
  int marks = 0;
  for (const auto& s : l.steps) marks += s.nt == 0;
  EXPECT_EQ(marks, 7);
  // The chain rule reg: addr at the sum (#2) is recorded as a chain rule.
  bool chainAtSum = false;
  for (const auto& s : l.steps) chainAtSum = chainAtSum || (s.node == 2 && s.rule == 6 && s.chain && s.better);
  EXPECT_TRUE(chainAtSum);
  ASSERT_EQ(l.covers.size(), 1u);
  EXPECT_EQ(l.covers[0].cost, 3);
  ASSERT_EQ(l.covers[0].rules.size(), 7u);
  EXPECT_EQ(l.covers[0].rules[2].text, "reg: addr");
  EXPECT_EQ(l.covers[0].rules[2].depth, 1);
  EXPECT_TRUE(l.failure.empty());
}

TEST(LabelingForPage, SaysWhereLabelingStopped) {
  // ASGNI(ADDRLP, INDIRC(ADDRLP)): INDIRC appears only under CVCI in the grammar.
  SampleAssignment t;
  t.assign.kids[1] = &t.load;
  bool derives = true;
  Labeling l = labelForPage(&t.assign, derives);
  EXPECT_FALSE(derives);
  EXPECT_TRUE(l.covers.empty());
  EXPECT_EQ(l.unmatched, (std::vector<int>{2, 0}));
  EXPECT_EQ(l.failure, "labeling stopped at #2 INDIRC: no rule matches it, so #0 ASGNI derives no stmt");
  std::ostringstream page;
  ASSERT_TRUE(burggen::explain::writeLabelingPage(page, l));
  EXPECT_NE(page.str().find("\"failure\":\"labeling stopped at #2 INDIRC"), std::string::npos);
}

TEST(LabelingForPage, RefusesATreeTooLargeToDraw) {
  EXPECT_EQ(burggen::explain::pageSizeError(500), "");
  EXPECT_EQ(burggen::explain::pageSizeError(501), "the tree has 501 nodes; a labeling page draws trees of at most 500");
  Labeling l;
  l.nodes.resize(501);
  std::ostringstream page;
  EXPECT_FALSE(burggen::explain::writeLabelingPage(page, l));
  EXPECT_TRUE(page.str().empty());
}

TEST(LabelingForPage, KeepsTheDataInsideItsScript) {
  SampleAssignment t;
  bool derives = false;
  Labeling l = labelForPage(&t.assign, derives);
  l.title = "a </script><b>";
  std::ostringstream page;
  ASSERT_TRUE(burggen::explain::writeLabelingPage(page, l));
  EXPECT_EQ(page.str().find("</script><b>"), std::string::npos);
  EXPECT_NE(page.str().find("a \\u003c/script>\\u003cb>"), std::string::npos);
  EXPECT_NE(page.str().find("<title>Labeling: a &lt;/script&gt;&lt;b&gt;</title>"), std::string::npos);
}

}  // namespace
