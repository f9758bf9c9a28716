#pragma once
// A reference for the k-best matchers: every derivation of a node from a nonterminal, found by
// brute force from rules written out by hand in C++, sorted by cost and the documented order of
// ties (rule, then binding, then kids, compared in the same order). The tests hold a generated
// matcher's K best against the first K of these.
#include <algorithm>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "tests/burggen/test_tree.hpp"

namespace kbest_reference {

constexpr long kInf = -1;  // what a rule's cost function returns for "no derivation"

template <typename Value>
struct Derivation {
  int rule;     // index of the rule in the spec
  int binding;  // index of the parameters' binding
  std::vector<std::shared_ptr<const Derivation>> kids;
  long cost;
  Value value;
  std::string text;  // the cover, as coverText writes it
};

template <typename Value>
using DerivationPtr = std::shared_ptr<const Derivation<Value>>;

template <typename Value>
struct Rule {
  int index;
  const char* text;
  int lhs;
  int rhs = 0;  // a chain rule's right side
  // For a base rule: whether the operators match at the node, and the leaves (node, nonterminal).
  std::function<bool(TestNode*, std::vector<std::pair<TestNode*, int>>&)> match;
  std::function<int(TestNode*)> bindings = [](TestNode*) { return 1; };
  std::function<std::string(TestNode*, int)> bindingText = [](TestNode*, int) { return std::string(); };
  // The rule's own cost (or kInf), given its kids, computing the label value; with `total`,
  // the derivation's whole cost.
  std::function<long(TestNode*, int, const std::vector<const Derivation<Value>*>&, Value&)> cost;
  bool total = false;
};

template <typename Value>
int compare(const Derivation<Value>& a, const Derivation<Value>& b) {
  if (a.cost != b.cost) return a.cost < b.cost ? -1 : 1;
  if (a.rule != b.rule) return a.rule < b.rule ? -1 : 1;
  if (a.binding != b.binding) return a.binding < b.binding ? -1 : 1;
  for (size_t i = 0; i < a.kids.size(); ++i)
    if (int c = compare(*a.kids[i], *b.kids[i])) return c;
  return 0;
}

template <typename Value>
class Enumerator {
 public:
  explicit Enumerator(std::vector<Rule<Value>> rules) : rules_(std::move(rules)) {}

  // Every derivation of `node` from `nt`, cheapest first; chain rules never revisit a
  // nonterminal at one node.
  std::vector<DerivationPtr<Value>> all(TestNode* node, int nt, std::set<int> visited = {}) const {
    std::vector<DerivationPtr<Value>> out;
    visited.insert(nt);
    for (const auto& rule : rules_) {
      if (rule.lhs != nt) continue;
      std::vector<std::pair<TestNode*, int>> leaves;
      if (rule.rhs) {
        if (visited.count(rule.rhs)) continue;
        leaves.push_back({node, rule.rhs});
      } else if (!rule.match(node, leaves)) {
        continue;
      }
      std::vector<std::vector<DerivationPtr<Value>>> kids;
      for (const auto& leaf : leaves)
        kids.push_back(rule.rhs ? all(leaf.first, leaf.second, visited) : all(leaf.first, leaf.second));
      for (int b = 0; b < rule.bindings(node); ++b) combine(rule, node, b, kids, {}, out);
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return compare(*a, *b) < 0; });
    return out;
  }

 private:
  void combine(const Rule<Value>& rule, TestNode* node, int binding,
               const std::vector<std::vector<DerivationPtr<Value>>>& kids, std::vector<DerivationPtr<Value>> chosen,
               std::vector<DerivationPtr<Value>>& out) const {
    if (chosen.size() < kids.size()) {
      for (const auto& kid : kids[chosen.size()]) {
        chosen.push_back(kid);
        combine(rule, node, binding, kids, chosen, out);
        chosen.pop_back();
      }
      return;
    }
    auto d = std::make_shared<Derivation<Value>>();
    d->rule = rule.index;
    d->binding = binding;
    d->kids = chosen;
    std::vector<const Derivation<Value>*> kidPtrs;
    for (const auto& k : chosen) kidPtrs.push_back(k.get());
    long own = rule.cost(node, binding, kidPtrs, d->value);
    if (own == kInf) return;
    d->cost = own;
    if (!rule.total)
      for (const auto& k : chosen) d->cost += k->cost;
    std::string params = rule.bindingText(node, binding);
    d->text = std::string(rule.text) + (params.empty() ? "" : " [" + params + "]") + "\n";
    for (const auto& k : chosen) {
      size_t at = 0;
      for (size_t end; (end = k->text.find('\n', at)) != std::string::npos; at = end + 1)
        d->text += "  " + k->text.substr(at, end + 1 - at);
    }
    out.push_back(d);
  }

  std::vector<Rule<Value>> rules_;
};

}  // namespace kbest_reference
