#pragma once
// Expression trees of the tiny language, and the node interface the generated matcher uses.
#include <deque>
#include <string>

namespace isel {

// Operator numbers; isel.burg's %term declares the same.
enum Op { ASSIGN = 1, ADD = 2, SUB = 3, MUL = 4, CONST = 5, VAR = 6, LOAD = 7 };

// VAR is a variable's address (its frame slot); reading a variable is LOAD(VAR).
struct Node {
  Op op{};
  long value = 0;    // CONST
  std::string name;  // VAR
  Node* kids[2] = {nullptr, nullptr};
  void* state = nullptr;  // the matcher's slot
};

// A node as pictures show it: its operator, and its value or name ("CONST 8", "VAR x").
inline std::string nodeText(const Node* n) {
  static const char* const names[] = {"?", "ASSIGN", "ADD", "SUB", "MUL", "CONST", "VAR", "LOAD"};
  std::string text = names[n->op];
  if (n->op == CONST) return text + " " + std::to_string(n->value);
  if (n->op == VAR) return text + " " + n->name;
  return text;
}

inline int burg_op(Node* n) { return n->op; }
inline Node* burg_kid(Node* n, int i) { return n->kids[i]; }
inline void*& burg_state(Node* n) { return n->state; }

// Owns a program's nodes.
class Trees {
 public:
  Node* make(Op op, Node* left = nullptr, Node* right = nullptr) {
    Node& node = nodes_.emplace_back();
    node.op = op;
    node.kids[0] = left;
    node.kids[1] = right;
    return &node;
  }

 private:
  std::deque<Node> nodes_;  // stable addresses
};

}  // namespace isel
