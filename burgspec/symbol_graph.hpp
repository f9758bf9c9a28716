#pragma once
// The graphs over a grammar's nonterminals that its checks need (built on Boost.Graph):
// which nonterminals a rule's pattern uses.
#include <cstddef>
#include <vector>

namespace burgspec {

class SymbolGraph {
 public:
  explicit SymbolGraph(size_t nonterminals) : nonterminals_(nonterminals) {}

  // Records rule number `rule` (an index of the caller's choosing): `lhs` derives a pattern
  // whose nonterminal leaves are `leaves`.
  void addRule(int rule, int lhs, std::vector<int> leaves);

  // For each nonterminal: whether it derives a finite tree (a least fixpoint over the rules).
  std::vector<bool> productive() const;
  // For each nonterminal: whether a derivation from `start` can use it (breadth-first search).
  std::vector<bool> reachableFrom(int start) const;

 private:
  struct RuleUse {
    int rule;
    int lhs;
    std::vector<int> leaves;
  };
  size_t nonterminals_;
  std::vector<RuleUse> rules_;
};

}  // namespace burgspec
