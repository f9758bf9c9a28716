#include "burggen/reducer_writer.hpp"

namespace burggen {

namespace {

class ReducerWriter {
 public:
  ReducerWriter(const burgspec::Grammar& g, const GrammarFacts& facts, const ReducerStyle& style)
      : g_(g), facts_(facts), style_(style) {}

  void write(std::ostream& o) const {
    writeEntries(o);
    for (size_t nt = 1; nt <= g_.nonterminals.size(); ++nt) writeNonterminal(o, static_cast<int>(nt));
  }

 private:
  const std::string& ntName(int nt) const { return g_.nonterminals[nt - 1].name; }
  std::string ntConst(int nt) const { return ntName(nt) + "_NT"; }
  bool typed(int nt) const { return !g_.nonterminals[nt - 1].resultType.empty(); }
  std::string resultType(int nt) const { return typed(nt) ? g_.nonterminals[nt - 1].resultType : "void"; }
  std::string kidRank(size_t leaf) const { return style_.kidRank ? style_.kidRank(leaf) : ""; }

  void writeEntries(std::ostream& o) const {
    const std::string& C = style_.cls;
    int start = facts_.start;
    o << resultType(start) << " " << C << "::reduce(NodePtr root" << style_.rankParameter << ") {\n"
      << "  " << (typed(start) ? "return " : "") << "reduce_" << ntName(start) << "(root" << style_.rankArgument
      << ");\n}\n\n";
    if (!style_.byNumber) return;
    o << "void " << C << "::reduce(NodePtr node, int nt) {\n  switch (nt) {\n";
    for (size_t nt = 1; nt <= g_.nonterminals.size(); ++nt)
      o << "    case " << ntConst(static_cast<int>(nt)) << ":\n      reduce_" << ntName(static_cast<int>(nt))
        << "(node);\n      return;\n";
    o << "  }\n  throw " << style_.prefix << "NoCover(\"no nonterminal numbered \" + std::to_string(nt));\n}\n\n";
  }

  void writeNonterminal(std::ostream& o, int nt) const {
    o << resultType(nt) << " " << style_.cls << "::reduce_" << ntName(nt) << "(NodePtr node" << style_.rankParameter
      << ") {\n";
    style_.openSwitch(o, nt);
    for (const RuleFacts* rule : facts_.rulesFor[nt]) writeCase(o, *rule, nt);
    o << "  }\n  throw noCover(node, " << ntConst(nt) << style_.rankArgument << ");\n}\n\n";
  }

  void writeCase(std::ostream& o, const RuleFacts& r, int nt) const {
    o << "    case " << r.index << ": {  // rule " << r.rule->number << ": " << r.text << "\n";
    bool passOn = !r.rule->action && typed(nt) && r.rule->isChain() && resultType(r.leaves[0].nt) == resultType(nt);
    if (passOn) {
      // Without an action, a chain rule passes its kid's result on.
      o << "      return reduce_" << ntName(r.leaves[0].nt) << "(node" << kidRank(0) << ");\n    }\n";
      return;
    }
    // Kids first, left to right; their results are the action's arguments.
    for (size_t i = 0; i < r.leaves.size(); ++i) {
      const Leaf& l = r.leaves[i];
      std::string call = "reduce_" + ntName(l.nt) + "(" + nodeExpr(l.path) + kidRank(i) + ")";
      if (r.rule->action && !l.binding.empty() && typed(l.nt))
        o << "      " << resultType(l.nt) << " " << l.binding << " = " << call << ";\n";
      else
        o << "      " << call << ";\n";
    }
    if (r.rule->action) {
      std::string args = "node";
      if (style_.argumentsBeforeKids) args += style_.argumentsBeforeKids(o, r);
      for (const Leaf& l : r.leaves)
        if (!l.binding.empty()) args += ", " + (typed(l.nt) ? "std::move(" + l.binding + ")" : nodeExpr(l.path));
      if (style_.argumentsAfterKids) args += style_.argumentsAfterKids(r);
      for (const NodeBinding& b : r.nodeBindings) args += ", " + nodeExpr(b.path);
      std::string call = "action" + std::to_string(r.rule->number) + "(" + args + ")";
      o << "      " << (typed(nt) ? "return " + call + ";\n" : call + ";\n      return;\n");
    } else if (!typed(nt)) {
      o << "      return;\n";
    } else {
      o << "      return " << resultType(nt) << "{};\n";
    }
    o << "    }\n";
  }

  const burgspec::Grammar& g_;
  const GrammarFacts& facts_;
  const ReducerStyle& style_;
};

}  // namespace

void writeReducer(std::ostream& o, const burgspec::Grammar& g, const GrammarFacts& facts, const ReducerStyle& style) {
  ReducerWriter(g, facts, style).write(o);
}

}  // namespace burggen
