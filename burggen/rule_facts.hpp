#pragma once
// What the matcher emitters need to know about a checked grammar's rules, worked out once: each
// rule's nonterminal leaves, the operators its pattern tests below the root, its bindings, and
// the rules grouped by root operator and by the nonterminal a chain rule derives from.
#include <map>
#include <string>
#include <vector>

#include "burggen/emitter.hpp"

namespace burggen {

// A path from a rule's root node to one of its descendants: the kid indices taken.
using Path = std::vector<int>;

// A nonterminal leaf of a pattern: the kids a rule derives from other nonterminals.
struct Leaf {
  Path path;
  int nt;               // nonterminal number
  std::string binding;  // empty when unnamed
};

// An operator a pattern requires below its root.
struct OpTest {
  Path path;
  int op;
};

// A binding on an operator of the pattern (it names the node that operator matched).
struct NodeBinding {
  Path path;
  std::string name;
};

struct RuleFacts {
  const burgspec::Rule* rule;
  int index;  // 1-based position in the spec; the number the matcher's states store
  int lhs;
  std::vector<Leaf> leaves;
  std::vector<OpTest> tests;
  std::vector<NodeBinding> nodeBindings;
  std::string text;  // "reg: ADDI(reg, con)"
};

struct GrammarFacts {
  std::map<std::string, int> ntNumber;
  std::vector<RuleFacts> rules;
  std::vector<std::vector<const RuleFacts*>> rulesFor;    // by left side, in the spec's order
  std::vector<std::vector<const RuleFacts*>> chainsFrom;  // by the nonterminal on the right
  std::map<int, std::vector<const RuleFacts*>> baseRulesByOp;
  int start = 1;
  size_t maxLeaves = 1;
};

// Fills `facts` (which must not move afterwards: its lists point into facts.rules); reports
// what cannot be emitted (a binding named `node`, a prefix that is no identifier) and returns
// false then.
bool collectFacts(const burgspec::Grammar& g, const EmitOptions& options, common::Diagnostics& diag,
                  GrammarFacts& facts);

// "reg: ADDI(l:reg, con)" without the left side: the pattern as the spec writes it.
std::string patternText(const burgspec::Pattern& p);
// The node at `path` below `node`, as C++: kidOf(kidOf(node, 0), 1).
std::string nodeExpr(const Path& path);
// The state of the node at `path`: the root's is `s`, its kids' are the locals k0, k1, ...
std::string stateExpr(const Path& path);

}  // namespace burggen
