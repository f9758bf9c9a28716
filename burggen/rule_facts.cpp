#include "burggen/rule_facts.hpp"

#include <algorithm>

namespace burggen {

using burgspec::Grammar;
using burgspec::Pattern;
using burgspec::Rule;
using common::Diagnostics;

std::string patternText(const Pattern& p) {
  std::string out = p.binding.empty() ? p.symbol : p.binding + ":" + p.symbol;
  if (p.kids.empty()) return out;
  out += '(';
  for (size_t i = 0; i < p.kids.size(); ++i) out += (i ? ", " : "") + patternText(p.kids[i]);
  return out + ')';
}

std::string nodeExpr(const Path& path) {
  std::string out = "node";
  for (int i : path) out = "kidOf(" + out + ", " + std::to_string(i) + ")";
  return out;
}

std::string stateExpr(const Path& path) {
  if (path.empty()) return "s";
  if (path.size() == 1) return "k" + std::to_string(path[0]);
  return "stateOf(" + nodeExpr(path) + ")";
}

namespace {

void collectPattern(const Grammar& g, const GrammarFacts& facts, RuleFacts& rule, const Pattern& p, Path& path,
                    bool root, common::Diagnostics& diag) {
  if (p.binding == "node")
    diag.error(p.loc, "the binding 'node' hides the node a cost or an action is given; choose another name");
  if (!p.isTerminal) {
    auto it = facts.ntNumber.find(p.symbol);
    if (it == facts.ntNumber.end()) {
      diag.error(p.loc, "'" + p.symbol + "' is neither a terminal nor a nonterminal");
      return;
    }
    rule.leaves.push_back({path, it->second, p.binding});
    return;
  }
  const burgspec::Terminal* t = g.findTerminal(p.symbol);
  if (!t) {
    diag.error(p.loc, "unknown terminal '" + p.symbol + "'");
    return;
  }
  if (!root) rule.tests.push_back({path, t->number});
  if (!p.binding.empty()) rule.nodeBindings.push_back({path, p.binding});
  for (size_t i = 0; i < p.kids.size(); ++i) {
    path.push_back(static_cast<int>(i));
    collectPattern(g, facts, rule, p.kids[i], path, false, diag);
    path.pop_back();
  }
}

}  // namespace

bool collectFacts(const Grammar& g, const EmitOptions& opt, common::Diagnostics& diag, GrammarFacts& facts) {
  if (!isIdentifier(opt.prefix)) {
    diag.error({}, "the prefix '" + opt.prefix + "' is not a C++ identifier");
    return false;
  }
  if (!opt.nameSpace.empty() && !namespaceNameProblem(opt.nameSpace).empty()) {
    diag.error({}, "the namespace '" + opt.nameSpace + "' " + namespaceNameProblem(opt.nameSpace));
    return false;
  }
  if (g.nonterminals.empty()) {
    diag.error({}, "the grammar has no rules");
    return false;
  }
  for (size_t i = 0; i < g.nonterminals.size(); ++i) facts.ntNumber[g.nonterminals[i].name] = static_cast<int>(i) + 1;
  auto start = facts.ntNumber.find(g.start.empty() ? g.nonterminals[0].name : g.start);
  if (start == facts.ntNumber.end()) {
    diag.error(g.startLoc, "the start symbol '" + g.start + "' is not a nonterminal");
    return false;
  }
  facts.start = start->second;
  facts.rulesFor.resize(g.nonterminals.size() + 1);
  facts.chainsFrom.resize(g.nonterminals.size() + 1);
  facts.rules.reserve(g.rules.size());
  for (size_t i = 0; i < g.rules.size(); ++i) {
    const Rule& rule = g.rules[i];
    RuleFacts r{&rule, static_cast<int>(i) + 1, 0, {}, {}, {}, rule.lhs + ": " + patternText(rule.pattern)};
    auto lhs = facts.ntNumber.find(rule.lhs);
    if (lhs == facts.ntNumber.end()) {
      diag.error(rule.loc, "'" + rule.lhs + "' is not a nonterminal");
      continue;
    }
    r.lhs = lhs->second;
    Path path;
    collectPattern(g, facts, r, rule.pattern, path, true, diag);
    facts.maxLeaves = std::max(facts.maxLeaves, r.leaves.size());
    facts.rules.push_back(std::move(r));
  }
  if (diag.hasErrors()) return false;
  for (const RuleFacts& r : facts.rules) {
    facts.rulesFor[r.lhs].push_back(&r);
    if (r.rule->isChain())
      facts.chainsFrom[r.leaves[0].nt].push_back(&r);
    else
      facts.baseRulesByOp[g.findTerminal(r.rule->pattern.symbol)->number].push_back(&r);
  }
  return true;
}

}  // namespace burggen
