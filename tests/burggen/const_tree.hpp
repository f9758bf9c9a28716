#pragma once
// Subject trees whose nodes have no slot for the matcher: immutable, possibly shared between
// trees. A matcher generated for them (state_table.burg) keeps its states in a table of its own.
#include <deque>
#include <initializer_list>
#include <vector>

struct ConstNode {
  int op;
  std::vector<const ConstNode*> kids;
};

// No burg_state: the matcher must not need one.
inline int burg_op(const ConstNode* n) { return n->op; }
inline const ConstNode* burg_kid(const ConstNode* n, int i) { return n->kids[i]; }

class ConstTree {
 public:
  const ConstNode* node(int op, std::initializer_list<const ConstNode*> kids = {}) {
    nodes_.push_back(ConstNode{op, kids});
    return &nodes_.back();
  }

 private:
  std::deque<ConstNode> nodes_;  // stable addresses
};
