// Checks the matcher generated from features.burg on hand-worked trees: the covers and costs it
// chooses, its actions' results, and its explanations.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "tests/burggen/features_matcher.hpp"

namespace {

using feat::FeatMatcher;
enum Op { ADD = 1, MUL = 2, CONST = 3, VAR = 4, STORE = 5, NEG = 6, ADDR = 7 };

TEST(FeaturesMatcher, ImmediateOperandAndStore) {
  TestTree t;
  TestNode* add = t.node(ADD, 0, {t.node(VAR, 1), t.node(CONST, 5)});
  TestNode* store = t.node(STORE, 0, {t.node(ADDR, 100), add});
  FeatMatcher m;
  ASSERT_TRUE(m.label(store));
  EXPECT_EQ(m.cost(add, FeatMatcher::reg_NT), 1);
  EXPECT_EQ(m.ruleNumber(add, FeatMatcher::reg_NT), 7);  // add with an immediate beats add of two registers
  EXPECT_EQ(m.cost(store, FeatMatcher::stmt_NT), 2);
  EXPECT_EQ(m.reduce(store), "store 100, addi(v1, 5)");
}

TEST(FeaturesMatcher, ChainRuleLoadsAnImmediate) {
  TestTree t;
  TestNode* c = t.node(CONST, 7);
  FeatMatcher m;
  ASSERT_TRUE(m.label(c));
  EXPECT_EQ(m.cost(c, FeatMatcher::imm_NT), 0);
  EXPECT_EQ(m.cost(c, FeatMatcher::reg_NT), 1);
  EXPECT_EQ(m.ruleNumber(c, FeatMatcher::reg_NT), 5);
  EXPECT_STREQ(m.ruleText(c, FeatMatcher::reg_NT), "reg: i:imm");
  EXPECT_EQ(m.reduce(c), "eval li 7");
}

TEST(FeaturesMatcher, DynamicCostRejectsWithInfinity) {
  TestTree t;
  TestNode* big = t.node(CONST, 100000);
  FeatMatcher m;
  ASSERT_TRUE(m.label(big));
  EXPECT_EQ(m.cost(big, FeatMatcher::imm_NT), feat::FeatInfinity);
  EXPECT_EQ(m.ruleNumber(big, FeatMatcher::imm_NT), 0);
  EXPECT_EQ(m.cost(big, FeatMatcher::reg_NT), 2);
  EXPECT_EQ(m.reduce(big), "eval lbig 100000");
  EXPECT_THROW(m.reduce_imm(big), feat::FeatNoCover);
}

TEST(FeaturesMatcher, MultiplyByPowerOfTwoBecomesShift) {
  TestTree t;
  TestNode* byEight = t.node(MUL, 0, {t.node(VAR, 2), t.node(CONST, 8)});
  TestNode* bySix = t.node(MUL, 0, {t.node(VAR, 2), t.node(CONST, 6)});
  FeatMatcher m;
  ASSERT_TRUE(m.label(byEight));
  EXPECT_EQ(m.cost(byEight, FeatMatcher::reg_NT), 1);
  EXPECT_EQ(m.reduce_reg(byEight), "shl(v2, 3)");
  ASSERT_TRUE(m.label(bySix));
  EXPECT_EQ(m.cost(bySix, FeatMatcher::reg_NT), 4);  // 0 (v2) + 1 (li 6) + 3 (mul)
  EXPECT_EQ(m.reduce_reg(bySix), "mul(v2, li 6)");
}

TEST(FeaturesMatcher, EqualCostsKeepTheFirstRule) {
  TestTree t;
  TestNode* neg = t.node(NEG, 0, {t.node(VAR, 3)});
  FeatMatcher m;
  ASSERT_TRUE(m.label(neg));
  EXPECT_EQ(m.cost(neg, FeatMatcher::reg_NT), 2);
  EXPECT_EQ(m.ruleNumber(neg, FeatMatcher::reg_NT), 11);
  EXPECT_EQ(m.reduce_reg(neg), "neg(v3)");
}

TEST(FeaturesMatcher, DynamicCostAsksAKidsCost) {
  TestTree t;
  TestNode* cheap = t.node(NEG, 0, {t.node(NEG, 0, {t.node(VAR, 1)})});
  FeatMatcher m;
  ASSERT_TRUE(m.label(cheap));
  EXPECT_EQ(m.cost(cheap, FeatMatcher::reg_NT), 0);
  EXPECT_EQ(m.reduce_reg(cheap), "v1");

  TestNode* product = t.node(MUL, 0, {t.node(MUL, 0, {t.node(VAR, 1), t.node(VAR, 2)}), t.node(VAR, 3)});
  TestNode* dear = t.node(NEG, 0, {t.node(NEG, 0, {product})});
  ASSERT_TRUE(m.label(dear));
  EXPECT_EQ(m.cost(product, FeatMatcher::reg_NT), 6);
  EXPECT_EQ(m.cost(dear, FeatMatcher::reg_NT), 10);  // rule 13 refuses a kid dearer than 5
  EXPECT_EQ(m.ruleNumber(dear, FeatMatcher::reg_NT), 11);
  EXPECT_EQ(m.reduce_reg(dear), "neg(neg(mul(mul(v1, v2), v3)))");
}

TEST(FeaturesMatcher, ReducesFromANamedNonterminal) {
  TestTree t;
  TestNode* c = t.node(CONST, 9);
  FeatMatcher m;
  ASSERT_TRUE(m.label(c));
  EXPECT_EQ(m.reduce_imm(c), "9");
  EXPECT_EQ(m.reduce_reg(c), "li 9");
  EXPECT_NO_THROW(m.reduce(c, FeatMatcher::imm_NT));
  EXPECT_THROW(m.reduce(c, FeatMatcher::addr_NT), feat::FeatNoCover);
}

TEST(FeaturesMatcher, NoCoverFromTheStart) {
  TestTree t;
  TestNode* addr = t.node(ADDR, 4);
  FeatMatcher m;
  EXPECT_FALSE(m.label(addr));
  EXPECT_EQ(m.cost(addr, FeatMatcher::addr_NT), 0);
  EXPECT_THROW(m.reduce(addr), feat::FeatNoCover);
  EXPECT_EQ(m.cover(addr), "no cover for stmt  [#0 ADDR]\n");
}

TEST(FeaturesMatcher, CoverText) {
  TestTree t;
  TestNode* store = t.node(STORE, 0, {t.node(ADDR, 100), t.node(ADD, 0, {t.node(VAR, 1), t.node(CONST, 5)})});
  FeatMatcher m;
  ASSERT_TRUE(m.label(store));
  EXPECT_EQ(m.cover(store),
            "stmt: STORE(a:addr, v:reg)  [#0 STORE, cost 2]\n"
            "  addr: ADDR  [#1 ADDR, cost 0]\n"
            "  reg: ADD(a:reg, i:imm)  [#2 ADD, cost 1]\n"
            "    reg: VAR  [#3 VAR, cost 0]\n"
            "    imm: c:CONST  [#4 CONST, cost 0]\n");
}

TEST(FeaturesMatcher, TraceListsEveryMatch) {
  TestTree t;
  TestNode* add = t.node(ADD, 0, {t.node(VAR, 1), t.node(CONST, 5)});
  FeatMatcher m;
  std::ostringstream trace;
  m.trace = &trace;
  ASSERT_TRUE(m.label(add));
  EXPECT_NE(trace.str().find("#0 ADD: reg: ADD(a:reg, i:imm) = 7  cost 1\n"), std::string::npos) << trace.str();
  EXPECT_NE(trace.str().find("#0 ADD: reg: ADD(a:reg, b:reg) = 8  cost 2  (not better)\n"), std::string::npos);
  EXPECT_NE(trace.str().find("#2 CONST: imm: c:CONST = 14  cost 0\n"), std::string::npos);
  // Off again: labeling writes nothing more.
  m.trace = nullptr;
  const size_t length = trace.str().size();
  ASSERT_TRUE(m.label(add));
  EXPECT_EQ(trace.str().size(), length);
}

TEST(FeaturesMatcher, DotShowsCostsAndHighlightsTheCover) {
  TestTree t;
  TestNode* add = t.node(ADD, 0, {t.node(VAR, 1), t.node(CONST, 5)});
  FeatMatcher m;
  ASSERT_TRUE(m.label(add));
  std::ostringstream dot;
  m.printDot(dot, add);
  const std::string text = dot.str();
  EXPECT_EQ(text.rfind("digraph labeled_tree {\n", 0), 0u);
  EXPECT_NE(text.find("  n0 -> n1;\n"), std::string::npos);
  EXPECT_NE(text.find("  n0 -> n2;\n"), std::string::npos);
  // At the constant: imm is chosen (highlighted), reg is derivable at cost 1 but not chosen.
  EXPECT_NE(text.find("<td bgcolor=\"#ffd966\"><b>imm</b></td>"), std::string::npos);
  EXPECT_NE(text.find("<tr><td>reg</td><td>1</td><td>reg: i:imm = 5</td></tr>"), std::string::npos);
  // Graphviz itself accepts it, where it is installed.
  if (std::system("dot -V >/dev/null 2>&1") != 0) GTEST_SKIP() << "Graphviz's dot is not installed";
  std::string path = testing::TempDir() + "features_dot_test.dot";
  std::ofstream(path) << text;
  EXPECT_EQ(std::system(("dot -Tsvg -o /dev/null " + path).c_str()), 0);
  std::remove(path.c_str());
}

TEST(FeaturesMatcher, LargeTreesSpanSeveralArenaChunks) {
  TestTree t;
  TestNode* sum = t.node(VAR, 0);
  const int adds = 20000;  // more states than one chunk holds
  for (int i = 0; i < adds; ++i) sum = t.node(ADD, 0, {sum, t.node(CONST, 1)});
  FeatMatcher m;
  for (int round = 0; round < 2; ++round) {  // a second label reuses the chunks
    ASSERT_TRUE(m.label(sum));
    EXPECT_EQ(m.cost(sum, FeatMatcher::reg_NT), adds);
  }
}

}  // namespace
