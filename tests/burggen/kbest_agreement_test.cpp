// With K 1, the k-best matchers of features.burg and sample.burg label as the classic matchers do.
#include <gtest/gtest.h>

#include "tests/burggen/features_matcher.hpp"
#include "tests/burggen/kbest_agreement.hpp"
#include "tests/burggen/sample_matcher.hpp"

// After the matcher, whose prologue declares the `tree` it builds.
#include "tests/burggen/sample_assignment.hpp"

namespace {

void classicCosts(feat::FeatMatcher& m, TestNode* node, std::vector<std::int64_t>& out) {
  for (int nt = 1; nt <= feat::FeatMatcher::kNonterminals; ++nt) out.push_back(m.cost(node, nt));
  for (TestNode* kid : node->kids) classicCosts(m, kid, out);
}

void classicCosts(burmMatcher& m, tree* node, std::vector<std::int64_t>& out) {
  for (int nt = 1; nt <= burmMatcher::kNonterminals; ++nt) out.push_back(m.cost(node, nt));
  for (int i = 0; i < burmMatcher::arity(node->op); ++i) classicCosts(m, node->kids[i], out);
}

enum FeatOp { ADD = 1, MUL = 2, CONST = 3, VAR = 4, STORE = 5, NEG = 6, ADDR = 7 };

TEST(KBestAgreement, FeaturesGrammarAtKOne) {
  TestTree t;
  std::vector<TestNode*> roots{
      t.node(STORE, 0, {t.node(ADDR, 100), t.node(ADD, 0, {t.node(VAR, 1), t.node(CONST, 5)})}),
      t.node(MUL, 0, {t.node(VAR, 2), t.node(CONST, 8)}),
      t.node(MUL, 0, {t.node(ADD, 0, {t.node(CONST, 100000), t.node(VAR, 3)}), t.node(CONST, 6)}),
      t.node(NEG, 0, {t.node(NEG, 0, {t.node(MUL, 0, {t.node(VAR, 1), t.node(VAR, 2)})})}),
      t.node(ADDR, 4),
  };
  for (TestNode* root : roots) {
    // Both matchers keep their states in the nodes' one slot: the classic one's results first.
    feat::FeatMatcher classic;
    bool derives = classic.label(root);
    std::vector<std::int64_t> expected;
    classicCosts(classic, root, expected);
    // Where no rules tie, the covers are the same: so are the reductions.
    bool compareReductions = derives && root->op != NEG;
    std::string reduced = compareReductions ? classic.reduce(root) : "";
    EXPECT_EQ(featuresKBestCosts(root), expected);
    if (compareReductions) {
      EXPECT_EQ(featuresKBestReduce(root), reduced);
    }
  }
}

TEST(KBestAgreement, IburgSampleAtKOne) {
  SampleAssignment t;
  auto& assign = t.assign;
  burmMatcher classic;
  ASSERT_TRUE(classic.label(&assign));
  std::vector<std::int64_t> expected;
  classicCosts(classic, &assign, expected);
  EXPECT_EQ(sampleKBestCosts(&assign), expected);
}

}  // namespace
