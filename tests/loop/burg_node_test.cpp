#include "src/loop/burg_node.hpp"

#include <gtest/gtest.h>

#include <string>

#include "tests/loop/parse_helper.hpp"

namespace cudaburg {
namespace {

// Walks a tree the way a generated labeler does: kids first, through burg_op/burg_kid only.
// Returns the tree in prefix form: OP(kid, kid).
std::string walk(const Node* node, int& visited) {
  std::string kids;
  for (int i = 0; i < burg_arity(node); ++i) kids += (i ? ", " : "") + walk(burg_kid(node, i), visited);
  EXPECT_EQ(burg_kid(node, burg_arity(node)), nullptr);
  ++visited;
  std::string op = burgOpName(burg_op(node));
  return kids.empty() ? op : op + "(" + kids + ")";
}

TEST(BurgNode, OperatorsAndKidsOfMatmul) {
  auto p = test::parseExample("matmul.loop", {{"M", 8}, {"N", 8}, {"K", 8}});
  ASSERT_TRUE(p.kernel) << p.errors();
  int visited = 0;
  EXPECT_EQ(walk(p.kernel->body.get(), visited), "FOR_PAR(FOR_PAR(SEQ(ASSIGN, FOR_RED(ACCUM))))");
  EXPECT_EQ(visited, 6);
}

TEST(BurgNode, EveryNodeKindHasItsNumber) {
  Array buffer;
  buffer.name = "As";
  buffer.extents = {4};
  buffer.space = MemorySpace::Shared;
  NodePtr assign = makeAssign(Access{"C", {Affine::var("i")}}, Expr::constant(1), false);
  NodePtr serial = makeFor("i", Affine(0), {Affine(4)}, 1, LoopKind::Serial, assign);
  NodePtr body = makeSeq({makeStage(buffer, "A", {Affine(0)}), makeBarrier(), serial});
  NodePtr alloc = makeAlloc(buffer, body);
  EXPECT_EQ(burg_op(alloc.get()), ALLOC);
  EXPECT_EQ(burg_op(burg_kid(alloc.get(), 0)), SEQ);
  EXPECT_EQ(burg_op(burg_kid(burg_kid(alloc.get(), 0), 0)), STAGE);
  const Node* rest = burg_kid(burg_kid(alloc.get(), 0), 1);
  EXPECT_EQ(burg_op(burg_kid(rest, 0)), BARRIER);
  EXPECT_EQ(burg_op(burg_kid(rest, 1)), FOR_SEQ);
  EXPECT_EQ(burg_op(assign.get()), ASSIGN);
  EXPECT_EQ(burg_arity(assign.get()), 0);
  // Numbers are what a .burg file declares: %term FOR_PAR=1 ... BARRIER=9.
  EXPECT_EQ(FOR_PAR, 1);
  EXPECT_EQ(BARRIER, kBurgOpCount);
  EXPECT_STREQ(burgOpName(0), "?");
}

}  // namespace
}  // namespace cudaburg
