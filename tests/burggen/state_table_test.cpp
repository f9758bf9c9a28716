// Matchers for nodes without a state slot (state_table.burg): the states live in each matcher's
// own table, so two matchers label the same nodes, even shared ones, without disturbing each other.
#include <gtest/gtest.h>

#include "tests/burggen/state_table_kbest_matcher.hpp"
#include "tests/burggen/state_table_matcher.hpp"

namespace {

enum Op { ADD = 1, CONST = 2, VAR = 3 };
using Classic = table::TableMatcher;
using KBest = tablek::TableKMatcher;

TEST(StateTable, LabelsNodesWithoutASlot) {
  ConstTree t;
  const ConstNode* root = t.node(ADD, {t.node(VAR), t.node(CONST)});
  Classic m;
  ASSERT_TRUE(m.label(root));
  EXPECT_EQ(m.cost(root, Classic::reg_NT), 1);
  EXPECT_EQ(m.ruleNumber(root, Classic::reg_NT), 4);
  EXPECT_EQ(m.cost(root->kids[0], Classic::reg_NT), 1);
}

TEST(StateTable, TwoMatchersKeepTheirOwnLabelsOfSharedNodes) {
  ConstTree t;
  const ConstNode* sum = t.node(ADD, {t.node(VAR), t.node(CONST)});
  const ConstNode* twice = t.node(ADD, {sum, sum});  // `sum` is shared by both of its kids
  Classic classic;
  KBest kbest(nullptr, 2);
  ASSERT_TRUE(classic.label(sum));
  ASSERT_TRUE(kbest.label(twice));
  // The k-best matcher's labeling of `sum` (inside `twice`) left the classic matcher's alone.
  EXPECT_EQ(classic.cost(sum, Classic::reg_NT), 1);
  EXPECT_EQ(classic.ruleNumber(sum, Classic::reg_NT), 4);
  ASSERT_EQ(kbest.count(sum, KBest::reg_NT), 2);
  EXPECT_EQ(kbest.cost(sum, KBest::reg_NT, 0), 1);
  EXPECT_EQ(kbest.cost(sum, KBest::reg_NT, 1), 3);
  EXPECT_EQ(kbest.cost(twice, KBest::reg_NT, 0), 3);
  EXPECT_EQ(kbest.rule(twice, KBest::reg_NT, 0), 3);
  EXPECT_EQ(kbest.rule(sum, KBest::reg_NT, 1), 3);
}

TEST(StateTable, ANewLabelingForgetsTheLastTree) {
  ConstTree t;
  const ConstNode* first = t.node(ADD, {t.node(VAR), t.node(VAR)});
  const ConstNode* second = t.node(CONST);
  Classic m;
  ASSERT_TRUE(m.label(first));
  EXPECT_EQ(m.cost(first, Classic::reg_NT), 3);
  ASSERT_TRUE(m.label(second));
  EXPECT_EQ(m.cost(second, Classic::reg_NT), 1);
  EXPECT_EQ(m.ruleNumber(second, Classic::reg_NT), 2);
}

}  // namespace
