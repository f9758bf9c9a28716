// The loop-tree walk: its order, the loops it reports around each node, skipping and stopping,
// and a tree far deeper than any call stack would take, walked on a small stack.
#include "src/loop/tree_walk.hpp"

#include <gtest/gtest.h>
#include <pthread.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tests/loop/parse_helper.hpp"

namespace cudaburg {
namespace {

// A name for each node: the loop's index, the assigned array, else the kind.
std::string nameOf(const Node& node) {
  if (node.kind == NodeKind::For) return node.index;
  if (node.kind == NodeKind::Assign) return node.target.array;
  return node.kind == NodeKind::Seq ? "seq" : "?";
}

TEST(TreeWalk, NodesBeforeTheirKidsKidsInOrderWithTheLoopsAround) {
  auto p = test::parseExample("matmul.loop", {{"M", 8}, {"N", 8}, {"K", 8}});
  ASSERT_TRUE(p.kernel) << p.errors();
  std::vector<std::string> seen;
  walkTree(*p.kernel->body, [&](const Node& node, const std::vector<const Node*>& loops) {
    std::string around;
    for (const Node* loop : loops) around += loop->index;
    seen.push_back(nameOf(node) + "/" + around);
    return Walk::Into;
  });
  EXPECT_EQ(seen, (std::vector<std::string>{"i/", "j/i", "seq/ij", "C/ij", "k/ij", "C/ijk"}));
}

TEST(TreeWalk, OverSkipsTheKidsStopEndsTheWalk) {
  auto p = test::parseExample("matmul.loop", {{"M", 8}, {"N", 8}, {"K", 8}});
  ASSERT_TRUE(p.kernel) << p.errors();
  std::vector<std::string> seen;
  walkTree(*p.kernel->body, [&](const Node& node, const std::vector<const Node*>&) {
    seen.push_back(nameOf(node));
    return node.kind == NodeKind::For && node.index == "k" ? Walk::Over : Walk::Into;
  });
  EXPECT_EQ(seen, (std::vector<std::string>{"i", "j", "seq", "C", "k"}));
  seen.clear();
  walkTree(*p.kernel->body, [&](const Node& node, const std::vector<const Node*>&) {
    seen.push_back(nameOf(node));
    return node.kind == NodeKind::Seq ? Walk::Stop : Walk::Into;
  });
  EXPECT_EQ(seen, (std::vector<std::string>{"i", "j", "seq"}));
}

TEST(TreeWalk, FindNodeGivesTheFirstMatch) {
  auto p = test::parseExample("matmul.loop", {{"M", 8}, {"N", 8}, {"K", 8}});
  ASSERT_TRUE(p.kernel) << p.errors();
  const Node* assign = findNode(*p.kernel->body, [](const Node& n) { return n.kind == NodeKind::Assign; });
  ASSERT_NE(assign, nullptr);
  EXPECT_FALSE(assign->accumulate);  // `C[i][j] = 0` comes before `C[i][j] += ...`
  EXPECT_EQ(findNode(*p.kernel->body, [](const Node& n) { return n.kind == NodeKind::Barrier; }), nullptr);
  int count = 0;
  forEachNode(*p.kernel->body, [&](const Node&) { ++count; });
  EXPECT_EQ(count, 6);
}

// A chain of `depth` nested loops around one assignment.
struct DeepNest {
  std::vector<NodePtr> loops;  // outermost first
  int64_t deepestLoops = -1;   // how many loops the walk reported around the assignment
  const Node* found = nullptr;

  explicit DeepNest(int depth) {
    NodePtr body = makeAssign(Access{"C", {}}, Expr::constant(1), false);
    for (int i = 0; i < depth; ++i) {
      body = makeFor("i" + std::to_string(i), Affine(0), {Affine(2)}, 1, LoopKind::Serial, body);
      loops.push_back(body);
    }
    std::reverse(loops.begin(), loops.end());
  }
  // Unlinks the loops outermost first, so that freeing them recurses no deeper than one node.
  ~DeepNest() {
    for (const NodePtr& loop : loops) std::const_pointer_cast<Node>(loop)->kids.clear();
  }
};

void* walkDeepNest(void* arg) {
  auto* nest = static_cast<DeepNest*>(arg);
  walkTree(*nest->loops.front(), [&](const Node& node, const std::vector<const Node*>& loops) {
    if (node.kind == NodeKind::Assign) nest->deepestLoops = static_cast<int64_t>(loops.size());
    return Walk::Into;
  });
  nest->found = findNode(*nest->loops.front(), [](const Node& n) { return n.kind == NodeKind::Assign; });
  return nullptr;
}

TEST(TreeWalk, ADeepTreeOnASmallStack) {
  constexpr int kDepth = 20000;  // a recursive walk would need far more than the stack below
  DeepNest nest(kDepth);
  pthread_attr_t attr;
  ASSERT_EQ(pthread_attr_init(&attr), 0);
  ASSERT_EQ(pthread_attr_setstacksize(&attr, 64 * 1024), 0);
  pthread_t thread;
  ASSERT_EQ(pthread_create(&thread, &attr, walkDeepNest, &nest), 0);
  ASSERT_EQ(pthread_join(thread, nullptr), 0);
  pthread_attr_destroy(&attr);
  EXPECT_EQ(nest.deepestLoops, kDepth);
  ASSERT_NE(nest.found, nullptr);
  EXPECT_EQ(nest.found->target.array, "C");
}

}  // namespace
}  // namespace cudaburg
