#pragma once
// label.burg's labeler written by hand in the style of iburg's output (a state per node, a
// switch over operators, closure functions per nonterminal): the comparison for the matcher
// burggen generates from the same grammar.
#include <memory>
#include <vector>

#include "bench/label/bench_tree.hpp"

namespace bench {

class HandwrittenMatcher {
 public:
  enum { stmt_NT = 1, reg_NT, addr_NT, imm_NT, rc_NT, mem_NT, kNonterminals = mem_NT };
  static constexpr int kInfinity = 0x1fffffff;  // three of them still sum below INT_MAX

  bool label(Node* root);
  int cost(Node* n, int nt) const { return stateOf(n)->cost[nt]; }
  int rule(Node* n, int nt) const { return stateOf(n)->rule[nt]; }  // number in label.burg; 0: none

 private:
  struct State {
    int op;
    State* kids[2];
    int cost[kNonterminals + 1];
    short rule[kNonterminals + 1];
  };
  static State* stateOf(Node* n) { return static_cast<State*>(n->state); }
  State* labelNode(Node* n);
  void closureReg(State* p, int c);
  void closureAddr(State* p, int c);
  void closureImm(State* p, int c);

  State* allocate();

  static constexpr size_t kChunk = 4096;
  std::vector<std::unique_ptr<State[]>> chunks_;
  size_t chunk_ = 0;
  size_t used_ = 0;
};

}  // namespace bench
