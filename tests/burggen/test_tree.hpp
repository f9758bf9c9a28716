#pragma once
// The subject trees of the burggen tests: nodes with an operator, a value and kids, owned by a
// TestTree, and the node interface a generated matcher reaches them through.
#include <deque>
#include <initializer_list>
#include <vector>

struct TestNode {
  int op;
  long value;
  std::vector<TestNode*> kids;
  void* state = nullptr;  // the matcher's slot
};

inline int burg_op(TestNode* n) { return n->op; }
inline TestNode* burg_kid(TestNode* n, int i) { return n->kids[i]; }
inline void*& burg_state(TestNode* n) { return n->state; }

class TestTree {
 public:
  TestNode* node(int op, long value, std::initializer_list<TestNode*> kids = {}) {
    nodes_.push_back(TestNode{op, value, kids});
    return &nodes_.back();
  }

 private:
  std::deque<TestNode> nodes_;  // stable addresses
};
