#pragma once
// The reducer of a generated C++ matcher, which the classic and the k-best matchers share:
// reduce(root), and for each nonterminal reduce_<nt>(node), which reduces the chosen rule's kids
// first, left to right, and hands their results to the rule's action. What differs between the
// two matchers (the cover a node stands for: the one rule its state records, or the derivation
// of a rank among several) is said by a ReducerStyle.
#include <functional>
#include <ostream>
#include <string>

#include "burggen/rule_facts.hpp"

namespace burggen {

struct ReducerStyle {
  std::string cls;     // the matcher class
  std::string prefix;  // EmitOptions::prefix, which names the NoCover exception
  // After `NodePtr node` in a reducer's parameters and after `node` in its calls: the rank of the
  // cover to reduce (", int rank" and ", rank"), or nothing where a node has one cover.
  std::string rankParameter, rankArgument;
  // Also reduce(node, nt): a nonterminal given by its number.
  bool byNumber = false;
  // Writes what reduce_<nt> computes before its switch, and the switch on the rule that covers
  // the node as `nt`.
  std::function<void(std::ostream&, int nt)> openSwitch;
  // The rank asked of the kid at `leaf` (", ranks[0]"), or nothing.
  std::function<std::string(size_t leaf)> kidRank;
  // The action's arguments between `node` and the kids' results (", name" each), after writing
  // the locals they need; and those between the kids' results and the node bindings. Optional.
  std::function<std::string(std::ostream&, const RuleFacts&)> argumentsBeforeKids;
  std::function<std::string(const RuleFacts&)> argumentsAfterKids;
};

void writeReducer(std::ostream& o, const burgspec::Grammar& g, const GrammarFacts& facts, const ReducerStyle& style);

}  // namespace burggen
