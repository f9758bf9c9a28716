#pragma once
// The one way to walk a loop tree: depth first, a node before its kids, kids in order, with an
// explicit stack rather than recursion, so that no depth of tree can overflow the call stack.
// Walkers that only look at nodes use it; those that evaluate a tree (the executor, the emitter,
// the printers) follow its structure themselves.
#include <utility>
#include <vector>

#include "src/loop/loop_tree.hpp"

namespace cudaburg {

// What a visitor asks of the walk after seeing a node.
enum class Walk {
  Into,  // go on into the node's kids
  Over,  // skip its kids, go on with the rest
  Stop,  // end the walk
};

// Calls visit(node, loops) for every node under `root` (itself included) in depth-first order,
// where `loops` are the For nodes around `node`, outermost first (not `node` itself).
template <class Visit>
void walkTree(const Node& root, Visit&& visit) {
  struct Pending {
    const Node* node;
    size_t loopDepth;  // how many loops surround it
  };
  std::vector<Pending> stack{{&root, 0}};
  std::vector<const Node*> loops;
  while (!stack.empty()) {
    Pending p = stack.back();
    stack.pop_back();
    loops.resize(p.loopDepth);
    Walk next = visit(*p.node, std::as_const(loops));
    if (next == Walk::Stop) return;
    if (next == Walk::Over) continue;
    size_t kidDepth = p.loopDepth;
    if (p.node->kind == NodeKind::For) {
      loops.push_back(p.node);
      ++kidDepth;
    }
    for (size_t i = p.node->kids.size(); i-- > 0;) stack.push_back({p.node->kids[i].get(), kidDepth});
  }
}

// Calls visit(node) for every node under `root`, in the order of walkTree.
template <class Visit>
void forEachNode(const Node& root, Visit&& visit) {
  walkTree(root, [&](const Node& node, const std::vector<const Node*>&) {
    visit(node);
    return Walk::Into;
  });
}

// The first node under `root` (itself included), in the order of walkTree, for which
// matches(node) holds; null when there is none.
template <class Predicate>
const Node* findNode(const Node& root, Predicate&& matches) {
  const Node* found = nullptr;
  walkTree(root, [&](const Node& node, const std::vector<const Node*>&) {
    if (!matches(node)) return Walk::Into;
    found = &node;
    return Walk::Stop;
  });
  return found;
}

}  // namespace cudaburg
