#include "burgspec/checks.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <unordered_set>
#include <vector>

#include "burgspec/identifiers.hpp"
#include "burgspec/symbol_graph.hpp"
#include "burgspec/value_refs.hpp"

namespace burgspec {

namespace {

constexpr int kNoIndex = -1;

std::string quoted(const std::string& name) { return "'" + name + "'"; }

class GrammarChecker {
 public:
  GrammarChecker(Grammar& grammar, common::Diagnostics& diags) : grammar_(grammar), diags_(diags) {}

  void run() {
    if (grammar_.rules.empty()) {
      diags_.error({}, "the grammar has no rules");
      return;
    }
    checkTerminals();
    collectLeftSides();
    for (auto& rule : grammar_.rules) checkPattern(rule);
    buildNonterminals();
    checkStart();
    applyTypes(grammar_.types, "%type", &Nonterminal::resultType);
    applyTypes(grammar_.labels, "%label", &Nonterminal::labelType);
    checkParamDeclarations();
    checkParamLists();
    for (const auto& rule : grammar_.rules) {
      checkRuleParams(rule);
      checkValueRefs(rule);
    }
    numberRules();
    numberTerminals();
    warnUnusedTerminals();
    checkGraphs();
    checkActionTypes();
  }

 private:
  // ---- Operators ----

  void checkTerminals() {
    std::map<std::string, const Terminal*> byName;
    std::map<int, const Terminal*> byNumber;
    for (const auto& terminal : grammar_.terminals) {
      auto [named, fresh] = byName.emplace(terminal.name, &terminal);
      if (!fresh) {
        diags_.error(terminal.loc, "duplicate %term " + quoted(terminal.name));
        diags_.note(named->second->loc, "first declared here");
      }
      if (!terminal.numbered) continue;
      auto [numbered, freshNumber] = byNumber.emplace(terminal.number, &terminal);
      if (!freshNumber) {
        diags_.error(terminal.loc, "operator number " + std::to_string(terminal.number) + " of " +
                                       quoted(terminal.name) + " is already used by " + quoted(numbered->second->name));
        diags_.note(numbered->second->loc, quoted(numbered->second->name) + " declared here");
      }
    }
  }

  Terminal* terminal(const std::string& name) { return const_cast<Terminal*>(grammar_.findTerminal(name)); }

  void numberTerminals() {
    int next = 1;
    for (const auto& t : grammar_.terminals)
      if (t.numbered) next = std::max(next, t.number + 1);
    for (auto& t : grammar_.terminals)
      if (!t.numbered) t.number = next++;
  }

  void warnUnusedTerminals() {
    for (const auto& t : grammar_.terminals)
      if (t.arity < 0 && !duplicateTerminal(t)) diags_.warning(t.loc, "operator " + quoted(t.name) + " is never used");
  }

  bool duplicateTerminal(const Terminal& t) const { return grammar_.findTerminal(t.name) != &t; }

  // ---- Left sides and patterns ----

  void collectLeftSides() {
    for (size_t i = 0; i < grammar_.rules.size(); ++i) {
      const Rule& rule = grammar_.rules[i];
      if (const Terminal* t = grammar_.findTerminal(rule.lhs)) {
        diags_.error(rule.loc, quoted(rule.lhs) + " is an operator (%term) and cannot be the left side of a rule");
        diags_.note(t->loc, quoted(rule.lhs) + " declared here");
        continue;
      }
      if (firstRule_.emplace(rule.lhs, static_cast<int>(i)).second) {
        if (auto why = unusableIdentifier(rule.lhs))
          diags_.error(rule.loc,
                       "nonterminal " + quoted(rule.lhs) + " " + *why + "; the matcher's code could not use it");
      }
    }
  }

  bool isNonterminal(const std::string& name) const { return firstRule_.count(name) > 0; }

  void checkPattern(Rule& rule) {
    std::map<std::string, common::SourceLoc> bindings;
    checkPatternNode(rule.pattern, bindings);
  }

  void checkPatternNode(Pattern& pattern, std::map<std::string, common::SourceLoc>& bindings) {
    if (!pattern.binding.empty()) {
      auto [bound, fresh] = bindings.emplace(pattern.binding, pattern.loc);
      if (!fresh) {
        diags_.error(pattern.loc, "binding " + quoted(pattern.binding) + " is used twice in one pattern");
        diags_.note(bound->second, "first bound here");
      }
      if (auto why = unusableIdentifier(pattern.binding))
        diags_.error(pattern.loc, "binding " + quoted(pattern.binding) + " " + *why + "; choose another name");
    }
    if (Terminal* t = terminal(pattern.symbol)) {
      pattern.isTerminal = true;
      checkArity(*t, pattern);
    } else if (isNonterminal(pattern.symbol)) {
      if (!pattern.kids.empty())
        diags_.error(pattern.loc, "nonterminal " + quoted(pattern.symbol) + " cannot have operands");
    } else if (!pattern.kids.empty()) {
      pattern.isTerminal = true;
      diags_.error(pattern.loc, "undeclared operator " + quoted(pattern.symbol) + "; declare it with %term");
    } else {
      diags_.error(pattern.loc, "undefined nonterminal " + quoted(pattern.symbol) + ": no rule derives it");
    }
    for (auto& kid : pattern.kids) checkPatternNode(kid, bindings);
  }

  void checkArity(Terminal& t, const Pattern& use) {
    int arity = static_cast<int>(use.kids.size());
    auto [first, fresh] = firstUse_.emplace(t.name, use.loc);
    if (fresh) {
      t.arity = arity;
      return;
    }
    if (arity == t.arity) return;
    diags_.error(use.loc, "operator " + quoted(t.name) + " used with " + operands(arity) + " here but with " +
                              operands(t.arity) + " before");
    diags_.note(first->second, "first used here");
  }

  static std::string operands(int n) { return std::to_string(n) + (n == 1 ? " operand" : " operands"); }

  // ---- Nonterminals ----

  // The start nonterminal first, then in order of first appearance (as a left side or in a
  // pattern, as iburg numbers them).
  void buildNonterminals() {
    if (grammar_.start.empty()) {
      grammar_.start = grammar_.rules.front().lhs;
      grammar_.startLoc = grammar_.rules.front().loc;
    }
    std::vector<std::string> order;
    std::unordered_set<std::string> seen;
    for (const auto& rule : grammar_.rules) {
      if (isNonterminal(rule.lhs) && seen.insert(rule.lhs).second) order.push_back(rule.lhs);
      collectLeaves(rule.pattern, order, seen);
    }
    auto start = std::find(order.begin(), order.end(), grammar_.start);
    if (start != order.end()) std::rotate(order.begin(), start, start + 1);
    for (const auto& name : order) {
      Nonterminal nt;
      nt.name = name;
      nt.loc = grammar_.rules[firstRule_.at(name)].loc;
      index_[name] = static_cast<int>(grammar_.nonterminals.size());
      grammar_.nonterminals.push_back(std::move(nt));
    }
  }

  void collectLeaves(const Pattern& pattern, std::vector<std::string>& order,
                     std::unordered_set<std::string>& seen) const {
    if (pattern.kids.empty() && !pattern.isTerminal && isNonterminal(pattern.symbol) &&
        seen.insert(pattern.symbol).second)
      order.push_back(pattern.symbol);
    for (const auto& kid : pattern.kids) collectLeaves(kid, order, seen);
  }

  int indexOf(const std::string& name) const {
    auto it = index_.find(name);
    return it == index_.end() ? kNoIndex : it->second;
  }

  void checkStart() {
    if (isNonterminal(grammar_.start)) return;
    if (grammar_.findTerminal(grammar_.start))
      diags_.error(grammar_.startLoc, "start symbol " + quoted(grammar_.start) + " is an operator, not a nonterminal");
    else
      diags_.error(grammar_.startLoc, "undefined start nonterminal " + quoted(grammar_.start) + ": no rule derives it");
  }

  // %type and %label: each nonterminal named gets the type, once.
  void applyTypes(const std::vector<TypeDecl>& decls, const std::string& directive, std::string Nonterminal::*type) {
    std::string what = directive == "%label" ? "label type" : "type";
    std::map<std::string, common::SourceLoc> typedAt;
    for (const auto& decl : decls) {
      for (size_t i = 0; i < decl.names.size(); ++i) {
        const std::string& name = decl.names[i];
        common::SourceLoc loc = decl.locs[i];
        int index = indexOf(name);
        if (index == kNoIndex) {
          if (grammar_.findTerminal(name))
            diags_.error(loc, directive + " names operator " + quoted(name) + "; only nonterminals have " + what + "s");
          else
            diags_.error(loc, directive + " names undefined nonterminal " + quoted(name));
          continue;
        }
        auto [previous, fresh] = typedAt.emplace(name, loc);
        if (!fresh) {
          diags_.error(loc, "the " + what + " of " + quoted(name) + " is declared twice");
          diags_.note(previous->second, "first declared here");
          continue;
        }
        grammar_.nonterminals[index].*type = decl.type;
      }
    }
  }

  // ---- Parameters and label values ----

  static bool reservedName(const std::string& name) { return name == "node" || name == "ctx"; }

  void checkParamDeclarations() {
    std::map<std::string, common::SourceLoc> declaredAt;
    for (const auto& decl : grammar_.params)
      for (size_t i = 0; i < decl.names.size(); ++i) {
        auto [previous, fresh] = declaredAt.emplace(decl.names[i], decl.locs[i]);
        if (!fresh) {
          diags_.error(decl.locs[i], "parameter " + quoted(decl.names[i]) + " is declared twice");
          diags_.note(previous->second, "first declared here");
        }
      }
  }

  static void collectBindings(const Pattern& pattern, std::map<std::string, const Pattern*>& out) {
    if (!pattern.binding.empty()) out.emplace(pattern.binding, &pattern);
    for (const auto& kid : pattern.kids) collectBindings(kid, out);
  }

  // A list's parameters are declared, each once in it: reported at the list, once.
  void checkParamLists() {
    for (const auto& list : grammar_.paramLists) {
      std::map<std::string, common::SourceLoc> listedAt;
      for (const auto& param : list.params) {
        if (!param.list.empty()) continue;  // from an included list, checked there
        checkParamName(param);
        auto [previous, fresh] = listedAt.emplace(param.name, param.loc);
        if (!fresh) {
          diags_.error(param.loc, "parameter " + quoted(param.name) + " is listed twice in list " + quoted(list.name));
          diags_.note(previous->second, "first listed here");
        }
      }
    }
  }

  void checkParamName(const RuleParam& param) {
    if (grammar_.paramType(param.name).empty())
      diags_.error(param.loc,
                   "undeclared parameter " + quoted(param.name) + "; declare its type with %param <T> " + param.name);
    if (reservedName(param.name))
      diags_.error(param.loc, "the parameter " + quoted(param.name) + " hides the " +
                                  (param.name == "node" ? "node" : "context") +
                                  " that costs and actions are given; choose another name");
  }

  // Where a rule lists `param`: at its name, or where the rule includes its list.
  static common::SourceLoc listedLoc(const RuleParam& param) { return param.list.empty() ? param.loc : param.listLoc; }

  void notedFromList(const RuleParam& param) {
    if (!param.list.empty())
      diags_.note(param.loc, quoted(param.name) + " comes from parameter list " + quoted(param.list));
  }

  // Both came into the rule by one inclusion of a list (a duplicate there is the list's own).
  static bool sameInclusion(const RuleParam& a, const RuleParam& b) {
    return !a.list.empty() && a.list == b.list && a.listLoc.line == b.listLoc.line && a.listLoc.col == b.listLoc.col;
  }

  void checkRuleParams(const Rule& rule) {
    std::map<std::string, const Pattern*> bindings;
    collectBindings(rule.pattern, bindings);
    std::map<std::string, const RuleParam*> listed;
    for (const auto& param : rule.params) {
      if (param.list.empty()) checkParamName(param);
      auto [previous, fresh] = listed.emplace(param.name, &param);
      if (!fresh && !sameInclusion(param, *previous->second)) {
        diags_.error(listedLoc(param), "parameter " + quoted(param.name) + " is listed twice in one rule");
        notedFromList(param);
        diags_.note(listedLoc(*previous->second), "first listed here");
        notedFromList(*previous->second);
      }
      auto bound = bindings.find(param.name);
      if (bound != bindings.end()) {
        diags_.error(listedLoc(param), "parameter " + quoted(param.name) + " has the name of a binding of the pattern");
        notedFromList(param);
        diags_.note(bound->second->loc, "bound here");
      }
    }
  }

  // `$$` needs the left side to have a %label; `$b` a binding of a nonterminal that has one.
  void checkValueRefs(const Rule& rule) {
    std::map<std::string, const Pattern*> bindings;
    collectBindings(rule.pattern, bindings);
    if (rule.cost.dynamic) checkValueRefsIn(rule, rule.cost.code, rule.cost.offset, bindings);
    if (rule.action) checkValueRefsIn(rule, *rule.action, rule.actionOffset, bindings);
    if (!findValueRefs(rule.guard).empty())
      diags_.error(rule.guardLoc,
                   "a guard cannot read label values ('$$', '$b'): it is tested before the rule's "
                   "derivations are built");
  }

  void checkValueRefsIn(const Rule& rule, const std::string& code, size_t offset,
                        const std::map<std::string, const Pattern*>& bindings) {
    for (const ValueRef& ref : findValueRefs(code)) {
      common::SourceLoc loc = diags_.file().locate(offset + ref.offset);
      if (!ref.valid) {
        diags_.error(loc, "expected '$$' or '$' and a binding after '$'");
        continue;
      }
      if (ref.name.empty()) {
        const Nonterminal* lhs = grammar_.findNonterminal(rule.lhs);
        if (lhs && lhs->labelType.empty())
          diags_.error(loc, "'$$' is the label value of " + quoted(rule.lhs) +
                                ", which has none; declare it with "
                                "%label <T> " +
                                rule.lhs);
        continue;
      }
      auto bound = bindings.find(ref.name);
      if (bound == bindings.end()) {
        diags_.error(loc, quoted("$" + ref.name) + " names no binding of the pattern");
        continue;
      }
      const Pattern& kid = *bound->second;
      if (kid.isTerminal || !kid.kids.empty()) {
        diags_.error(loc, quoted("$" + ref.name) + ": " + quoted(ref.name) + " is bound to operator " +
                              quoted(kid.symbol) + ", which has no label value; write " + ref.name + " for its node");
        continue;
      }
      const Nonterminal* nt = grammar_.findNonterminal(kid.symbol);
      if (nt && nt->labelType.empty())
        diags_.error(loc, quoted("$" + ref.name) + ": nonterminal " + quoted(kid.symbol) +
                              " has no label value; declare it with %label <T> " + kid.symbol);
    }
  }

  // ---- Rule numbers ----

  void numberRules() {
    std::map<int, const Rule*> byNumber;
    int next = 1;
    for (const auto& rule : grammar_.rules) {
      if (!rule.numbered) continue;
      next = std::max(next, rule.number + 1);
      auto [previous, fresh] = byNumber.emplace(rule.number, &rule);
      if (!fresh) {
        diags_.error(rule.numberLoc, "duplicate rule number " + std::to_string(rule.number));
        diags_.note(previous->second->numberLoc, "rule " + std::to_string(rule.number) + " is numbered here");
      }
    }
    for (auto& rule : grammar_.rules)
      if (!rule.numbered) rule.number = next++;
  }

  // ---- Graph analyses: productivity, reachability ----
  //
  // Cycles of chain rules (`addr: reg; reg: addr;`) are allowed whatever their costs, as lburg
  // allows them: costs are never negative (a dynamic cost below 0 counts as 0), so closing chain
  // rules at a node, which records a rule only when it is strictly cheaper, stops.

  SymbolGraph makeGraph() const {
    SymbolGraph graph(grammar_.nonterminals.size());
    for (size_t i = 0; i < grammar_.rules.size(); ++i) {
      const Rule& rule = grammar_.rules[i];
      int lhs = indexOf(rule.lhs);
      if (lhs == kNoIndex) continue;
      std::vector<int> leaves;
      leafIndices(rule.pattern, leaves);
      graph.addRule(static_cast<int>(i), lhs, leaves);
    }
    return graph;
  }

  void leafIndices(const Pattern& pattern, std::vector<int>& leaves) const {
    if (pattern.kids.empty() && !pattern.isTerminal) {
      int index = indexOf(pattern.symbol);
      if (index != kNoIndex) leaves.push_back(index);
    }
    for (const auto& kid : pattern.kids) leafIndices(kid, leaves);
  }

  void checkGraphs() {
    SymbolGraph graph = makeGraph();
    std::vector<bool> productive = graph.productive();
    for (size_t i = 0; i < productive.size(); ++i) {
      if (productive[i]) continue;
      const Nonterminal& nt = grammar_.nonterminals[i];
      diags_.error(nt.loc, "nonterminal " + quoted(nt.name) +
                               " derives no finite tree: each of its rules needs a nonterminal that derives none");
    }
    int start = indexOf(grammar_.start);
    if (start == kNoIndex) return;
    std::vector<bool> reachable = graph.reachableFrom(start);
    for (size_t i = 0; i < reachable.size(); ++i) {
      if (reachable[i]) continue;
      const Nonterminal& nt = grammar_.nonterminals[i];
      diags_.warning(nt.loc, "nonterminal " + quoted(nt.name) + " is unreachable from the start nonterminal " +
                                 quoted(grammar_.start));
    }
  }

  // ---- Actions and their types ----

  // A nonterminal with a %type yields a value, which its rules' actions compute; a chain rule
  // from a nonterminal of the same type passes its value on. A rule with neither yields a
  // default-constructed value, which is rarely what was meant. Actions of untyped nonterminals
  // run for their effects and yield nothing.
  void checkActionTypes() {
    for (const auto& rule : grammar_.rules) {
      if (rule.action) continue;
      const Nonterminal* lhs = grammar_.findNonterminal(rule.lhs);
      if (!lhs || lhs->resultType.empty()) continue;
      if (rule.isChain()) {
        const Nonterminal* rhs = grammar_.findNonterminal(rule.pattern.symbol);
        if (!rhs || rhs->resultType == lhs->resultType) continue;
      }
      diags_.warning(rule.loc, "rule for " + quoted(rule.lhs) + " has no action; its value will be a default " +
                                   lhs->resultType + "{}");
    }
  }

  Grammar& grammar_;
  common::Diagnostics& diags_;
  std::map<std::string, int> firstRule_;               // nonterminal -> index of its first rule
  std::map<std::string, int> index_;                   // nonterminal -> index in Grammar::nonterminals
  std::map<std::string, common::SourceLoc> firstUse_;  // operator -> its first use
};

}  // namespace

bool checkGrammar(Grammar& grammar, common::Diagnostics& diags) {
  int errorsBefore = diags.errorCount();
  grammar.clearNonterminals();
  GrammarChecker(grammar, diags).run();
  return diags.errorCount() == errorsBefore;
}

}  // namespace burgspec
