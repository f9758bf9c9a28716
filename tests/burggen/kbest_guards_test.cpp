// The k-best matcher generated from kbest_guards.burg: a rule that includes a %params list has
// the list's bindings, and a rule whose guard fails at a node has no derivation there, its domains
// not even evaluated.
#include <gtest/gtest.h>

#include "tests/burggen/kbest_guards_matcher.hpp"
#include "tests/burggen/test_tree.hpp"

namespace {

using Guards = guards::GuardsMatcher;

TEST(KBestGuards, AListGivesItsBindingsAndAChainRuleItsOwn) {
  TestTree tree;
  TestNode* leaf = tree.node(1, 2);
  GuardsContext ctx;
  Guards matcher(&ctx, 100);
  ASSERT_TRUE(matcher.label(leaf));
  EXPECT_EQ(matcher.count(leaf, Guards::item_NT), 4);  // a in {1, 2} by b in {10, 20}
  EXPECT_EQ(matcher.bindingText(leaf, Guards::item_NT, 0), "a=1, b=10");
  EXPECT_EQ(matcher.bindingText(leaf, Guards::item_NT, 3), "a=2, b=20");
  EXPECT_EQ(matcher.count(leaf, Guards::top_NT), 8);  // and scale in {1, 3}
  EXPECT_EQ(matcher.cost(leaf, Guards::top_NT, 0), 11);
  EXPECT_EQ(matcher.cost(leaf, Guards::top_NT, 7), 66);
  EXPECT_EQ(ctx.domainCalls, 1);  // once a node
}

TEST(KBestGuards, AFailedGuardLeavesNoDerivationAndEvaluatesNoDomain) {
  TestTree tree;
  TestNode* odd = tree.node(1, 3);
  GuardsContext ctx;
  Guards matcher(&ctx, 100);
  EXPECT_FALSE(matcher.label(odd));
  EXPECT_EQ(matcher.count(odd, Guards::item_NT), 0);
  EXPECT_EQ(ctx.domainCalls, 0);

  TestNode* even = tree.node(1, 4);
  ctx.scaling = false;
  EXPECT_FALSE(matcher.label(even));
  EXPECT_EQ(matcher.count(even, Guards::item_NT), 4);
  EXPECT_EQ(matcher.count(even, Guards::scaled_NT), 0);
}

TEST(KBestGuards, AGuardWithoutParametersGivesOneDerivation) {
  TestTree tree;
  TestNode* one = tree.node(1, 1);
  GuardsContext ctx;
  Guards matcher(&ctx, 100);
  ASSERT_TRUE(matcher.label(one));
  EXPECT_EQ(matcher.count(one, Guards::item_NT), 1);
  EXPECT_EQ(matcher.rule(one, Guards::item_NT, 0), 3);
  EXPECT_EQ(matcher.count(one, Guards::top_NT), 2);
  EXPECT_EQ(matcher.cost(one, Guards::top_NT, 1), 300);
  EXPECT_EQ(ctx.domainCalls, 0);  // the even rule's guard failed first
}

}  // namespace
