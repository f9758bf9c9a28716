// Matchers generated from extremes.burg, classic and k-best: labeling stops on cycles of chain
// rules that cost 0, and a tree whose cost passes 2^63 keeps its cover at the largest finite cost.
#include <gtest/gtest.h>

#include "tests/burggen/extremes_kbest_matcher.hpp"
#include "tests/burggen/extremes_matcher.hpp"

namespace {

using Classic = extremes::burmMatcher;
using KBest = extremes_kbest::burmMatcher;
enum Op { LOAD = 1, ADDR = 2, K = 3, HUGE = 4, PAIR = 5 };

TEST(Extremes, ZeroCostCycleThroughAddrAndReg) {
  TestTree t;
  TestNode* root = t.node(LOAD, 0, {t.node(LOAD, 0, {t.node(ADDR, 0)})});
  Classic m;
  ASSERT_TRUE(m.label(root));
  EXPECT_EQ(m.cost(root, Classic::stmt_NT), 2);
  EXPECT_EQ(m.cover(root),
            "stmt: reg  [#0 LOAD, cost 2]\n"
            "  reg: LOAD(addr)  [#0 LOAD, cost 2]\n"
            "    addr: reg  [#1 LOAD, cost 1]\n"
            "      reg: LOAD(addr)  [#1 LOAD, cost 1]\n"
            "        addr: ADDR  [#2 ADDR, cost 0]\n");
  KBest k(nullptr, 4);
  ASSERT_TRUE(k.label(root));
  EXPECT_EQ(k.cost(root, KBest::stmt_NT, 0), 2);
  // Through chain rules at one node a derivation visits a nonterminal once: one cover.
  EXPECT_EQ(k.count(root, KBest::stmt_NT), 1);
}

TEST(Extremes, ZeroCostCycleWithADynamicCost) {
  TestTree t;
  TestNode* leaf = t.node(K, 0);
  Classic m;
  ASSERT_TRUE(m.label(leaf));
  EXPECT_EQ(m.cost(leaf, Classic::a_NT), 2);
  EXPECT_EQ(m.cost(leaf, Classic::b_NT), 2);
  EXPECT_EQ(m.cost(leaf, Classic::stmt_NT), 2);
  KBest k(nullptr, 4);
  ASSERT_TRUE(k.label(leaf));
  EXPECT_EQ(k.count(leaf, KBest::a_NT), 1);
  EXPECT_EQ(k.count(leaf, KBest::b_NT), 1);
  EXPECT_EQ(k.cost(leaf, KBest::stmt_NT, 0), 2);
}

TEST(Extremes, SumsPast2To63SaturateAtTheLargestFiniteCost) {
  TestTree t;
  TestNode* pair = t.node(PAIR, 0, {t.node(HUGE, 0), t.node(HUGE, 0)});
  TestNode* root = t.node(PAIR, 0, {pair, t.node(HUGE, 0)});
  Classic m;
  ASSERT_TRUE(m.label(root));
  EXPECT_EQ(m.cost(root, Classic::stmt_NT), extremes::burmMaxCost);
  EXPECT_LT(m.cost(root, Classic::stmt_NT), Classic::INF);
  EXPECT_NO_THROW(m.reduce(root));
  KBest k;
  ASSERT_TRUE(k.label(root));
  EXPECT_EQ(k.cost(root, KBest::stmt_NT, 0), extremes_kbest::burmMaxCost);
  EXPECT_NO_THROW(k.reduce(root));
}

}  // namespace
