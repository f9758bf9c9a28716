#pragma once
// The abstract syntax of a BURG spec: what the parser produces, the checks complete and the
// matcher emitter reads. A superset of iburg's language; see docs/burg-language.md.
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/source.hpp"

namespace burgspec {

// A tree pattern: an operator with kid patterns, or a nonterminal leaf. Any symbol may carry a
// binding (`x:reg`) by which costs and actions name the node it matches.
struct Pattern {
  std::string symbol;
  std::string binding;  // empty when unnamed
  std::vector<Pattern> kids;
  common::SourceLoc loc;    // of the symbol (of the binding when there is one)
  bool isTerminal = false;  // set by checkGrammar
};

// A rule's cost: a constant, or C++ code (an expression) evaluated while labeling. Either is
// added to the kids' costs, except a total, `(= expr)`, which is the derivation's whole cost.
struct Cost {
  bool dynamic = false;
  bool total = false;  // written `(= expr)`; always dynamic
  int64_t value = 0;   // when !dynamic
  std::string code;    // when dynamic: the text between the parentheses (after '=' for a total)
  common::SourceLoc loc;
  size_t offset = 0;  // byte offset of code in the source, to place diagnostics inside it
};

// A rule parameter and its domain: `depth in ctx->stageDepths(node)`. Its type comes from %param.
struct RuleParam {
  std::string name;
  std::string domain;     // a C++ expression yielding a range
  common::SourceLoc loc;  // of the name
  common::SourceLoc domainLoc;
  std::string list;           // the %params list it came from; empty when written in the rule
  common::SourceLoc listLoc;  // where the rule names that list
};

// A named parameter list declared once, `%params tile [bm in ..., bn in ...]`, which rules
// include by name: `[tile, spread in {0, 4}]`.
struct ParamList {
  std::string name;
  common::SourceLoc loc;  // of the name
  std::vector<RuleParam> params;
};

struct Rule {
  std::string lhs;        // a nonterminal
  common::SourceLoc loc;  // of lhs
  Pattern pattern;
  int number = 0;         // external rule number; assigned by checkGrammar when not written
  bool numbered = false;  // written as `= N` in the spec
  common::SourceLoc numberLoc;
  std::vector<RuleParam> params;  // `[p in expr, ...]`; their bindings are enumerated while labeling
  std::string guard;              // `if (expr)`: C++ the rule needs true at a node to apply there; empty when none
  common::SourceLoc guardLoc;
  Cost cost;                          // defaults to the constant 0
  std::optional<std::string> action;  // C++ block body, braces excluded
  common::SourceLoc actionLoc;
  size_t actionOffset = 0;  // byte offset of the action's text in the source
  std::string asmTemplate;  // lburg's assembler template (burggen --lburg); empty otherwise

  bool isChain() const { return !pattern.isTerminal && pattern.kids.empty(); }
};

struct Terminal {
  std::string name;
  int number = 0;  // external operator number; assigned by checkGrammar when not written
  bool numbered = false;
  int arity = -1;  // inferred by checkGrammar from its uses; -1 when unused
  common::SourceLoc loc;
};

struct Nonterminal {
  std::string name;
  std::string resultType;  // from %type; empty when none was declared
  std::string labelType;   // from %label: the value its derivations carry; empty when none
  common::SourceLoc loc;   // first appearance (as a rule's left side when it has one)
};

// One `%type <T> a b c` declaration: a C++ type and the nonterminals whose actions yield it.
// `%label` (nonterminals' label values) and `%param` (rule parameters) have the same shape.
struct TypeDecl {
  std::string type;
  std::vector<std::string> names;
  std::vector<common::SourceLoc> locs;
};

struct Grammar {
  std::string prologue;  // %{ ... %}, verbatim (several blocks are concatenated)
  std::vector<Terminal> terminals;
  std::vector<TypeDecl> types;
  std::vector<TypeDecl> labels;       // %label <T> nonterminals
  std::vector<TypeDecl> params;       // %param <T> parameter names
  std::vector<ParamList> paramLists;  // %params name [...]
  std::string start;                  // from %start; the first rule's lhs when absent
  common::SourceLoc startLoc;
  std::string nodeType;  // from %node: the C++ type of the node pointers matched; empty when absent
  common::SourceLoc nodeTypeLoc;
  std::vector<Rule> rules;
  std::string epilogue;  // text after the second %%, verbatim

  // Completed by checkGrammar: every nonterminal, the start one first, then in order of
  // first appearance. Index in this vector + 1 is the nonterminal's number in the matcher.
  std::vector<Nonterminal> nonterminals;

  // Empties `nonterminals` (checkGrammar fills it afresh) and forgets their names.
  void clearNonterminals() {
    nonterminals.clear();
    nonterminalIndex_ = {};
  }
  // The first terminal or nonterminal of that name; nullptr when none. Constant time: a grammar
  // may have a hundred thousand of each.
  const Terminal* findTerminal(const std::string& name) const { return terminalIndex_.find(terminals, name); }
  const Nonterminal* findNonterminal(const std::string& name) const {
    return nonterminalIndex_.find(nonterminals, name);
  }
  // The C++ type %param declares for a parameter name; empty when undeclared.
  std::string paramType(const std::string& name) const {
    for (const auto& decl : params)
      for (const auto& n : decl.names)
        if (n == name) return decl.type;
    return "";
  }
  // The %params list of that name; nullptr when none.
  const ParamList* findParamList(const std::string& name) const {
    for (const auto& list : paramLists)
      if (list.name == name) return &list;
    return nullptr;
  }
  // Whether the k-best labeler is needed: parameters, label values or guards.
  bool usesDerivations() const {
    if (!params.empty() || !labels.empty()) return true;
    for (const auto& rule : rules)
      if (!rule.guard.empty()) return true;
    return false;
  }

 private:
  // A name -> position map over a vector that only grows, brought up to date on each look-up;
  // the first of equal names is the one found.
  template <class T>
  class NameIndex {
   public:
    const T* find(const std::vector<T>& items, const std::string& name) const {
      for (; indexed_ < items.size(); ++indexed_) positions_.emplace(items[indexed_].name, indexed_);
      auto it = positions_.find(name);
      return it == positions_.end() ? nullptr : &items[it->second];
    }

   private:
    mutable std::unordered_map<std::string, size_t> positions_;
    mutable size_t indexed_ = 0;
  };
  NameIndex<Terminal> terminalIndex_;
  NameIndex<Nonterminal> nonterminalIndex_;
};

}  // namespace burgspec
