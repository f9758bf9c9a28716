#pragma once
// The graphs over a grammar's nonterminals that its checks need (built on Boost.Graph):
// which nonterminals a rule's pattern uses, and which chain rules lead from one to another.
#include <cstddef>
#include <functional>
#include <vector>

namespace burgspec {

// A cycle of chain rules, `a: b; b: c; c: a;`.
struct ChainCycle {
  std::vector<int> rules;           // the rules around the cycle, in order; rules[0] starts it
  std::vector<int> componentRules;  // every chain rule between the nonterminals that share the cycle
};

class SymbolGraph {
 public:
  explicit SymbolGraph(size_t nonterminals) : nonterminals_(nonterminals) {}

  // Records rule number `rule` (an index of the caller's choosing): `lhs` derives a pattern
  // whose nonterminal leaves are `leaves`; a chain rule's pattern is one nonterminal.
  void addRule(int rule, int lhs, std::vector<int> leaves, bool chain);

  // For each nonterminal: whether it derives a finite tree (a least fixpoint over the rules).
  std::vector<bool> productive() const;
  // The cycles of chain rules, one for each strongly connected component that has one, in the
  // order of their first rules. Each is a shortest cycle that starts with the component's first
  // rule for which `preferred` holds, or with its first rule when none does.
  std::vector<ChainCycle> chainCycles(const std::function<bool(int rule)>& preferred) const;
  // For each nonterminal: whether a derivation from `start` can use it (breadth-first search).
  std::vector<bool> reachableFrom(int start) const;

 private:
  struct RuleUse {
    int rule;
    int lhs;
    std::vector<int> leaves;
    bool chain;
  };
  size_t nonterminals_;
  std::vector<RuleUse> rules_;
};

}  // namespace burgspec
