#pragma once
// The subject trees of the labeling benchmark, and random trees of a given size.
#include <cstdint>
#include <random>
#include <vector>

namespace bench {

// Operator numbers; label.burg's %term declares the same.
enum Op { ASGN = 1, ADD, SUB, MUL, AND, OR, SHL, LOAD, NEG, CNST, ADDR, REG };

struct Node {
  int op;
  Node* kids[2];
  void* state;
};

inline int burg_op(Node* n) { return n->op; }
inline Node* burg_kid(Node* n, int i) { return n->kids[i]; }
inline void*& burg_state(Node* n) { return n->state; }

// A random tree of exactly `size` nodes (at least 3): ASGN(ADDR, expression).
class RandomTree {
 public:
  RandomTree(int size, uint32_t seed) : random_(seed) {
    nodes_.reserve(size);
    root_ = make(ASGN, make(ADDR), expression(size - 2));
  }
  Node* root() { return root_; }
  int size() const { return static_cast<int>(nodes_.size()); }

 private:
  Node* make(int op, Node* left = nullptr, Node* right = nullptr) {
    nodes_.push_back(Node{op, {left, right}, nullptr});
    return &nodes_.back();
  }
  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(random_); }
  Node* expression(int size) {
    static const int leaves[] = {CNST, CNST, ADDR, REG, REG};
    static const int binaries[] = {ADD, ADD, SUB, MUL, AND, OR, SHL};
    if (size == 1) return make(leaves[pick(5)]);
    if (size == 2 || pick(5) == 0) return make(pick(2) ? LOAD : NEG, expression(size - 1));
    int left = 1 + pick(size - 2);
    Node* l = expression(left);
    return make(binaries[pick(7)], l, expression(size - 1 - left));
  }

  std::mt19937 random_;
  std::vector<Node> nodes_;
  Node* root_;
};

}  // namespace bench
